import CTroveFastPaths
import Foundation

/// The binary writer's index of scalar slots by exact value, so that equal strings, numbers,
/// dates and data become one object.
///
/// The table stores only slot numbers and the low 32 bits of each slot's hash: a scalar is
/// hashed once, resizing reuses the stored hashes, and candidates are compared against the
/// caller's own storage: the planner's slots, which `scalarAt` reads, or, through
/// ``lookup(hash:matches:sipHashOfSlot:)``, the plain encoder's encoded scalars, whose slots are
/// object numbers. Scalars are hashed with ``SeededByteHash``, several times cheaper than the
/// standard library's SipHash `Hasher`; the probes are budgeted (eight per lookup plus a
/// constant), and a table whose hash is being defeated by crafted input rehashes every entry with
/// `Hasher` and goes on with that, so no input makes uniquing quadratic.
///
/// The buckets sit behind a pointer, so probing and inserting pay no uniqueness or bounds checks
/// (an `Array` of buckets spent a third of an insert on them); the type is non-copyable, so
/// exactly one owner frees them.
///
/// Invariants: `bucketCount` is a power of two and at least twice `count`, so linear probing
/// always meets an empty bucket (slot `UInt32.max`); a bucket holds a slot index into the
/// caller's storage next to the low bits of that slot's hash under the current hash function,
/// eight bytes in all, so a probe touches one cache line.
struct ScalarUniquingTable: ~Copyable {
    private struct Bucket {
        var slot: UInt32
        var hash: UInt32

        static let empty = Bucket(slot: .max, hash: 0)
        var isEmpty: Bool { slot == .max }
    }

    /// What ``lookup(_:scalarAt:)`` found.
    enum Lookup {
        /// The slot already holding an identical scalar.
        case found(Int)
        /// No identical scalar yet; ``insert(_:at:)`` the value's slot here.
        case absent(Insertion)
    }

    /// Where a scalar that ``lookup(_:scalarAt:)`` did not find goes: its hash, and the empty
    /// bucket the probe ended on, which takes the slot unless the table grows first.
    struct Insertion {
        var hash: Int
        fileprivate var bucket: Int
    }

    private var buckets: UnsafeMutablePointer<Bucket>
    private var bucketCount: Int
    private(set) var count = 0
    /// The seed of the fast hash, which callers keying scalars their own way hash with.
    let seed: UInt64
    /// True once the probe budget ran out and every hash became a `Hasher` hash.
    private(set) var usesSipHash = false
    /// Probes left before the table gives up on the fast hash.
    private var probeBudget = 64

    /// A table for about `minimumCapacity` scalars; tests pass a fixed `seed`.
    init(minimumCapacity: Int = 0, seed: UInt64 = SeededByteHash.processSeed) {
        var size = 16
        while size < 2 * minimumCapacity { size &*= 2 }
        bucketCount = size
        buckets = Self.emptyBuckets(size)
        self.seed = seed
    }

    deinit { buckets.deallocate() }

    private static func emptyBuckets(_ count: Int) -> UnsafeMutablePointer<Bucket> {
        let buckets = UnsafeMutablePointer<Bucket>.allocate(capacity: count)
        buckets.initialize(repeating: .empty, count: count)
        return buckets
    }

    /// Finds the slot holding a scalar identical to `value`; nil for containers, which are
    /// never uniqued.
    @inline(__always)
    mutating func lookup(_ value: PlistValue, scalarAt: (Int) -> PlistValue) -> Lookup? {
        if value.isContainer { return nil }
        return lookup(
            hash: { [seed] sip in (sip ? Self.sipHash(value) : Self.fastHash(value, seed: seed)) ?? 0 },
            matches: { Self.identical(scalarAt($0), value) },
            sipHashOfSlot: { Self.sipHash(scalarAt($0)) ?? 0 })
    }

    /// Finds the slot whose scalar `matches` says is identical to the one looked up, for callers
    /// that key scalars by something other than a ``PlistValue`` (the plain binary encoder keys
    /// them by their encoded bytes).
    ///
    /// `hash(false)` is the scalar's hash under the fast function (seeded with ``seed``),
    /// `hash(true)` its `Hasher` hash; `sipHashOfSlot` gives the `Hasher` hash of a stored
    /// slot's scalar, asked for every entry once, when crafted input has used up the probe
    /// budget.
    @inline(__always)
    mutating func lookup(
        hash hashing: (_ sipHash: Bool) -> Int, matches: (Int) -> Bool, sipHashOfSlot: (Int) -> Int
    ) -> Lookup {
        var hash = hashing(usesSipHash)
        probeBudget &+= 8
        let mask = bucketCount &- 1
        var tag = UInt32(truncatingIfNeeded: hash)
        var bucket = hash & mask
        while true {
            let entry = buckets[bucket]
            if entry.isEmpty { return .absent(Insertion(hash: hash, bucket: bucket)) }
            if entry.hash == tag && matches(Int(entry.slot)) { return .found(Int(entry.slot)) }
            probeBudget &-= 1
            if probeBudget < 0 && !usesSipHash {
                // The table keeps its size, so the probe starts over from the new hash.
                switchToSipHash(sipHashOfSlot)
                hash = hashing(true)
                tag = UInt32(truncatingIfNeeded: hash)
                bucket = hash & mask
                continue
            }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Whether the buckets are too many to stay in the processor's nearer caches (256 KB and
    /// more), so that touching a probe's bucket ahead of time pays.
    var isLarge: Bool { bucketCount >= 1 << 15 }

    /// Starts loading the bucket where a lookup of a scalar with fast hash `hash` will begin.
    @inline(__always)
    func prefetch(hash: Int) {
        guard !usesSipHash else { return }
        trove_prefetch(buckets + (hash & (bucketCount &- 1)))
    }

    /// Records `slot` (below `UInt32.max`) where ``lookup(_:scalarAt:)`` said it goes; nothing
    /// may have been inserted since that lookup.
    @inline(__always)
    mutating func insert(_ slot: Int, at insertion: Insertion) {
        precondition(slot >= 0 && slot < Int(UInt32.max), "uniquing slot out of range")
        let entry = Bucket(slot: UInt32(truncatingIfNeeded: slot), hash: UInt32(truncatingIfNeeded: insertion.hash))
        if 2 * (count + 1) > bucketCount {
            grow()
            place(entry)
        } else {
            buckets[insertion.bucket] = entry
        }
        count += 1
    }

    /// Rehashes every entry with `Hasher`, once the probe budget shows the fast hash is being
    /// defeated.
    @inline(never)
    private mutating func switchToSipHash(_ sipHashOfSlot: (Int) -> Int) {
        usesSipHash = true
        rebuild(size: bucketCount) { Bucket(slot: $0.slot, hash: UInt32(truncatingIfNeeded: sipHashOfSlot(Int($0.slot)))) }
    }

    @inline(__always)
    private mutating func place(_ entry: Bucket) {
        let mask = bucketCount &- 1
        var bucket = Int(entry.hash) & mask
        while !buckets[bucket].isEmpty { bucket = (bucket &+ 1) & mask }
        buckets[bucket] = entry
    }

    /// Doubles the table, reusing the stored hashes.
    @inline(never)
    private mutating func grow() {
        rebuild(size: bucketCount * 2) { $0 }
    }

    /// Moves every entry, as `rehashed` makes it, into `size` new buckets.
    private mutating func rebuild(size: Int, _ rehashed: (Bucket) -> Bucket) {
        let old = buckets
        let oldCount = bucketCount
        buckets = Self.emptyBuckets(size)
        bucketCount = size
        for i in 0..<oldCount where !old[i].isEmpty { place(rehashed(old[i])) }
        old.deallocate()
    }

    // MARK: - Identity and the two hashes

    /// Exact identity of two scalars: kind plus bit pattern or UTF-8 code units, so that 0.0 and
    /// -0.0, a 32- and a 64-bit real, or two canonically equivalent strings stay distinct
    /// objects, as CoreFoundation's literal `CFEqual` keeps them. Containers are never identical
    /// here.
    static func identical(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.hasSameUTF8(as: y)
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)):
            guard x.width == y.width else { return false }
            return x.width == .single
                ? Float(x.value).bitPattern == Float(y.value).bitPattern
                : x.value.bitPattern == y.value.bitPattern
        case let (.date(x), .date(y)):
            return x.secondsSinceReferenceDate.bitPattern == y.secondsSinceReferenceDate.bitPattern
        case let (.data(x), .data(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case let (.uid(x), .uid(y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    /// Feeds a scalar's identity (its kind, then its bit pattern or bytes) to `hasher`; false
    /// for containers, which are never uniqued. Both hash functions read scalars through this,
    /// so they cover exactly what ``identical(_:_:)`` compares.
    private static func feedIdentity<H: ScalarIdentityHasher>(_ value: PlistValue, into hasher: inout H) -> Bool {
        switch value {
        case .string(let s):
            hasher.combine(kind: 0)
            hasher.combine(utf8Of: s)
        case .integer(let i):
            // The sign is part of the kind, so an integer is one word to mix.
            hasher.combine(kind: i.isNegative ? 9 : 1)
            hasher.combine(word: i.magnitude)
        case .real(let r):
            if r.width == .single {
                hasher.combine(kind: 2)
                hasher.combine(word: UInt64(Float(r.value).bitPattern))
            } else {
                hasher.combine(kind: 3)
                hasher.combine(word: r.value.bitPattern)
            }
        case .date(let d):
            hasher.combine(kind: 4)
            hasher.combine(word: d.secondsSinceReferenceDate.bitPattern)
        case .data(let d):
            hasher.combine(kind: 5)
            // The fast hash takes the length and both ends, as Foundation's own Data hash takes
            // a bounded prefix: hashing whole multi-megabyte blobs would cost more than writing
            // them. Candidates with equal hashes are still compared in full by `identical`. The
            // `Hasher` hash, which a table defeated by crafted input switches to, reads every
            // byte, so blobs crafted to share their ends cannot defeat it too.
            hasher.combine(word: UInt64(d.count))
            d.withUnsafeBytes { bytes in
                if H.readsWholeData {
                    hasher.combine(bytes: bytes)
                    return
                }
                let edge = min(bytes.count, 64)
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<edge]))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - edge)...]))
            }
        case .bool(let b):
            hasher.combine(kind: 6)
            hasher.combine(word: b ? 1 : 0)
        case .uid(let u):
            hasher.combine(kind: 7)
            hasher.combine(word: u)
        case .null:
            hasher.combine(kind: 8)
        case .array, .dictionary:
            return false
        }
        return true
    }

    /// ``SeededByteHash`` of the scalar's identity; nil for containers.
    static func fastHash(_ value: PlistValue, seed: UInt64) -> Int? {
        var hasher = SeededIdentityHasher(seed: seed)
        guard feedIdentity(value, into: &hasher) else { return nil }
        return Int(truncatingIfNeeded: SeededByteHash.finalized(hasher.state))
    }

    /// The standard library's hash of the scalar's identity, for a table under attack; nil for
    /// containers.
    static func sipHash(_ value: PlistValue) -> Int? {
        var hasher = Hasher()
        guard feedIdentity(value, into: &hasher) else { return nil }
        return hasher.finalize()
    }
}

/// What ``ScalarUniquingTable`` feeds a scalar's identity to.
protocol ScalarIdentityHasher {
    /// Whether data is hashed whole, rather than by its length and both ends.
    static var readsWholeData: Bool { get }
    mutating func combine(kind: UInt8)
    mutating func combine(word: UInt64)
    mutating func combine(bytes: UnsafeRawBufferPointer)
    /// A string's UTF-8 code units, as one byte run.
    mutating func combine(utf8Of string: String)
}

extension Hasher: ScalarIdentityHasher {
    static var readsWholeData: Bool { true }
    mutating func combine(kind: UInt8) { combine(kind) }
    mutating func combine(word: UInt64) { combine(word) }

    mutating func combine(utf8Of string: String) {
        // A bridged string is made native once rather than read unit by unit.
        var native = string
        native.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// ``SeededByteHash`` fed piece by piece: the kind is folded into the state (the next piece
/// mixes it), each word is mixed in, and each byte run is hashed with the state as its seed.
struct SeededIdentityHasher: ScalarIdentityHasher {
    static var readsWholeData: Bool { false }
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func combine(kind: UInt8) { state ^= UInt64(kind) &* 0x9E37_79B9_7F4A_7C15 }

    @inline(__always)
    mutating func combine(word: UInt64) { state = SeededByteHash.mix(state ^ word) }

    @inline(__always)
    mutating func combine(bytes: UnsafeRawBufferPointer) { state = SeededByteHash.hash(bytes, seed: state).hash }

    @inline(__always)
    mutating func combine(utf8Of string: String) { state = SeededByteHash.hash(string, seed: state).hash }
}
