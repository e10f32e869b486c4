import Foundation

/// The distinct contents of a file's orphans, each numbered in order of first insertion, with
/// the first reachable object found holding it (see ``BinaryOrphanCopies``).
///
/// Hashed, it is an open-addressing table with linear probing that grows as contents arrive (a
/// file's other orphans are few and mostly repeat, so a table sized for every orphan would be
/// cleared for nothing). Each content has a key of one word, kept in its slot so that a
/// probe reads no other memory: a content of at most seven bytes is its bytes with its length in
/// the top byte, so equal keys mean equal contents; a longer one is its ``SeededByteHash`` hash
/// with the top bit set, compared byte for byte when the keys agree. Slots are picked by the
/// seeded hash of the key. A lookup or insertion that probes past `probeLimit` gives up (nil),
/// so that crafted collisions cannot make the pass quadratic; the caller then pairs again with
/// the table built on `Dictionary`, whose seeded hash no input can make collide on purpose.
///
/// Booleans, null and the short UIDs of an archive, nearly every orphan, never reach this
/// table: the layout keeps them as their bytes (``BinaryLayout/KeptOrphan``).
///
/// Invariants: `slotCount` is a power of two, at least twice `hashedCount`; a slot's key is 0
/// when it is empty, else its number is that of the content with that key; the first `count`
/// entries are initialized.
struct OrphanContents: ~Copyable {
    private struct Entry {
        var content: UnsafeRawBufferPointer
        /// The first reachable object holding the content, or -1.
        var original: Int
        /// A short content's key, 0 for a long one.
        var shortKey: UInt64
    }

    private let seed = SeededByteHash.processSeed
    private let probeLimit: Int
    private let hashed: Bool
    private var slotKeys: UnsafeMutablePointer<UInt64>
    private var slotNumbers: UnsafeMutablePointer<Int32>
    private var slotCount = 16
    private var entries: UnsafeMutablePointer<Entry>
    private var entryCapacity = 8
    /// The number of distinct contents, and of those in the hashed slots.
    private(set) var count = 0
    private var hashedCount = 0
    /// The number of distinct contents with no original yet.
    private(set) var unfound = 0
    /// The numbers of the contents when not hashed.
    private var numbers: [RawBytesKey: Int] = [:]

    /// The top bit of a long content's key; a short content's key has its length (at most 7)
    /// in the top byte.
    private static let longFlag: UInt64 = 1 << 63

    init(probeLimit: Int, hashed: Bool) {
        self.probeLimit = probeLimit
        self.hashed = hashed
        slotKeys = .allocate(capacity: slotCount)
        slotKeys.initialize(repeating: 0, count: slotCount)
        slotNumbers = .allocate(capacity: slotCount)
        entries = .allocate(capacity: entryCapacity)
    }

    deinit {
        slotKeys.deallocate()
        slotNumbers.deallocate()
        entries.deallocate()
    }

    /// The number of `content` (at least one byte), added when new; nil when the probes ran
    /// past the limit.
    @inline(__always)
    mutating func number(of content: UnsafeRawBufferPointer) -> Int? {
        guard hashed else { return numberWithoutHashing(content) }
        return numberHashing(content, key: key(of: content))
    }

    /// The number of `content`, whose key is `key`, in the hashed slots, added when new.
    @inline(__always)
    private mutating func numberHashing(_ content: UnsafeRawBufferPointer, key: UInt64) -> Int? {
        if 2 &* (hashedCount &+ 1) > slotCount { growSlots() }
        guard let found = probe(content, key: key) else { return nil }
        if found >= 0 { return found }
        slotKeys[-1 - found] = key
        slotNumbers[-1 - found] = Int32(truncatingIfNeeded: count)
        hashedCount &+= 1
        return append(content, shortKey: content.count < 8 ? key : 0)
    }

    /// ``number(of:)`` for a content of fewer than eight bytes, given by its key
    /// (``shortKey(of:)``); only for a hashed table.
    @inline(__always)
    mutating func number(ofShortKey key: UInt64) -> Int? {
        assert(hashed && key & Self.longFlag == 0, "a short key for a table without hashing, or a long key")
        // A short content's key is the content: the probe never reads the entry's bytes.
        return numberHashing(UnsafeRawBufferPointer(start: nil, count: 0), key: key)
    }

    /// ``offer(_:as:)`` for a content of fewer than eight bytes, given by its key; only for a
    /// hashed table.
    @inline(__always)
    mutating func offer(shortKey key: UInt64, as index: Int) -> Bool {
        guard let number = probe(UnsafeRawBufferPointer(start: nil, count: 0), key: key) else { return false }
        record(index, asOriginalOf: number)
        return true
    }

    /// The key of a content of fewer than eight bytes: its bytes as a little-endian word, with
    /// its length in the top byte.
    static func shortKey(of content: UnsafeRawBufferPointer) -> UInt64 {
        SeededByteHash.word(ofShort: content) | UInt64(truncatingIfNeeded: content.count) << 56
    }

    /// Records `index`, a reachable object holding `content`, as its content's original unless
    /// it has one or no orphan holds it; false when the probes ran past the limit. Reachable
    /// objects are offered in ascending order, so the first one offered is the original.
    @inline(__always)
    mutating func offer(_ content: UnsafeRawBufferPointer, as index: Int) -> Bool {
        let number: Int
        if hashed {
            guard let found = probe(content, key: key(of: content)) else { return false }
            number = found
        } else {
            number = numbers[RawBytesKey(bytes: content)] ?? -1
        }
        record(index, asOriginalOf: number)
        return true
    }

    /// Records `index` as the original of content `number` (-1 for a content no orphan holds)
    /// unless it has one.
    @inline(__always)
    private mutating func record(_ index: Int, asOriginalOf number: Int) {
        if number >= 0 && entries[number].original < 0 {
            entries[number].original = index
            unfound &-= 1
        }
    }

    /// The original of content `number`, or -1 when no reachable object holds it.
    @inline(__always)
    func original(ofNumber number: Int) -> Int { entries[number].original }

    @inline(__always)
    private func key(of content: UnsafeRawBufferPointer) -> UInt64 {
        if content.count < 8 { return Self.shortKey(of: content) }
        return SeededByteHash.hash(content, seed: seed).hash | Self.longFlag
    }

    /// The number of `content`, whose key is `key`, or of the empty slot where it belongs
    /// (negated, minus one); nil past the probe limit.
    @inline(__always)
    private func probe(_ content: UnsafeRawBufferPointer, key: UInt64) -> Int? {
        let mask = slotCount &- 1
        var slot = Int(truncatingIfNeeded: SeededByteHash.hash(word: key, seed: seed)) & mask
        for _ in 0..<probeLimit {
            let slotKey = slotKeys[slot]
            if slotKey == 0 { return -1 &- slot }
            if slotKey == key {
                let number = Int(slotNumbers[slot])
                if key & Self.longFlag == 0 || Self.sameBytes(entries[number].content, content) { return number }
            }
            slot = (slot &+ 1) & mask
        }
        return nil
    }

    @inline(never)
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }

    @inline(__always)
    private mutating func append(_ content: UnsafeRawBufferPointer, shortKey: UInt64) -> Int {
        if count == entryCapacity {
            (entries, entryCapacity) = entries.movedToLarger(count: count, capacity: entryCapacity, toHold: count + 1)
        }
        (entries + count).initialize(to: Entry(content: content, original: -1, shortKey: shortKey))
        count &+= 1
        unfound &+= 1
        return count &- 1
    }

    @inline(never)
    private mutating func numberWithoutHashing(_ content: UnsafeRawBufferPointer) -> Int {
        if let number = numbers[RawBytesKey(bytes: content)] { return number }
        numbers[RawBytesKey(bytes: content)] = count
        return append(content, shortKey: 0)
    }

    /// Doubles the slots and places every key again; the probe limit does not apply, as the
    /// keys are distinct and the table at most half full.
    @inline(never)
    private mutating func growSlots() {
        let oldKeys = slotKeys, oldNumbers = slotNumbers, oldCount = slotCount
        slotCount *= 2
        slotKeys = .allocate(capacity: slotCount)
        slotKeys.initialize(repeating: 0, count: slotCount)
        slotNumbers = .allocate(capacity: slotCount)
        let mask = slotCount - 1
        for old in 0..<oldCount where oldKeys[old] != 0 {
            var slot = Int(truncatingIfNeeded: SeededByteHash.hash(word: oldKeys[old], seed: seed)) & mask
            while slotKeys[slot] != 0 { slot = (slot + 1) & mask }
            slotKeys[slot] = oldKeys[old]
            slotNumbers[slot] = oldNumbers[old]
        }
        oldKeys.deallocate()
        oldNumbers.deallocate()
    }
}

/// Hashable view of a byte range of the input, compared by content.
private struct RawBytesKey: Hashable {
    let bytes: UnsafeRawBufferPointer

    static func == (a: RawBytesKey, b: RawBytesKey) -> Bool {
        a.bytes.count == b.bytes.count && (a.bytes.isEmpty || memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: bytes)
    }
}
