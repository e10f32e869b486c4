import Foundation

/// A growable run of bytes, for the hot byte-at-a-time paths: the XML writer's output, the text
/// of the element the XML reader is in, and the canonical spellings the layout scanner compares
/// a document against.
///
/// `[UInt8]` did these jobs through its generic paths: `append(contentsOf:)` with a buffer, a
/// static string or a slice cost about ninety instructions before the copy, and
/// `removeAll(keepingCapacity:)` fifty, once or more per element. Here an append is a capacity
/// check and a `memcpy`, and clearing resets the count.
///
/// Invariant: `storage` holds `capacity` bytes, the first `count` of them initialized. The type
/// is non-copyable, so exactly one owner frees them.
struct ByteBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        storage = Self.allocate(self.capacity)
    }

    deinit { free(storage) }

    /// The storage is `malloc`'s, not Swift's allocator's, so that a large buffer grows by
    /// `realloc`, which extends a block in place or remaps its pages rather than copying it into
    /// new ones that the kernel must clear first: the XML writer's output of a 10 MB document
    /// took a tenth of the page faults and half the time.
    /// `bytes` bytes in a new block, or in `block` grown by `realloc` when one is given.
    private static func allocate(_ bytes: Int, growing block: UnsafeMutablePointer<UInt8>? = nil) -> UnsafeMutablePointer<UInt8> {
        guard let raw = realloc(block, bytes) else { fatalError("out of memory allocating \(bytes) bytes") }
        return raw.bindMemory(to: UInt8.self, capacity: bytes)
    }

    var isEmpty: Bool { count == 0 }

    /// Checks the invariants (debug builds only): the bytes written lie within the allocation.
    @inline(__always)
    func _checkInvariants() {
        #if DEBUG
        precondition(count >= 0 && count <= capacity, "count \(count), capacity \(capacity)")
        #endif
    }

    /// Forgets the bytes, keeping the room.
    mutating func removeAll() { count = 0 }

    /// Forgets the bytes from `position` on, keeping the room; `position` must not be past
    /// `count`.
    @inline(__always)
    mutating func truncate(to position: Int) {
        precondition(position >= 0 && position <= count, "byte buffer truncated past its end")
        count = position
    }

    /// The byte at `position`, which must be below `count`.
    subscript(position: Int) -> UInt8 {
        get {
            precondition(position >= 0 && position < count, "byte buffer index out of range")
            return storage[position]
        }
        set {
            precondition(position >= 0 && position < count, "byte buffer index out of range")
            storage[position] = newValue
        }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        if n > capacity - count { grow(toHold: count + n) }
        UnsafeMutableRawPointer(storage + count).copyBytes(from: bytes, count: n)
        count += n
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        append(base, count: bytes.count)
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    mutating func append(contentsOf bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        append(contentsOf: UnsafeBufferPointer(rebasing: bytes))
    }

    @inline(__always)
    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func append(contentsOf bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    mutating func append(contentsOf other: borrowing ByteBuffer) {
        append(other.storage, count: other.count)
    }

    /// Appends the first `n` bytes of `other`: one copy from a run built once, such as the XML
    /// writer's line break and indentation.
    @inline(__always)
    mutating func append(prefix n: Int, of other: borrowing ByteBuffer) {
        precondition(n >= 0 && n <= other.count, "prefix longer than the byte buffer")
        append(other.storage, count: n)
    }

    /// Appends `byte` `n` times.
    mutating func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        if n > capacity - count { grow(toHold: count + n) }
        (storage + count).initialize(repeating: byte, count: n)
        count += n
    }

    /// Appends `n` in decimal, with a `-` when negative: the text writers' integer spelling,
    /// written straight in rather than through a `String`.
    mutating func appendDecimal(_ n: PlistInteger) {
        if n.isNegative { append(UInt8(ascii: "-")) }
        // Digits are produced backwards into 24 bytes on the stack; UInt64.max has 20.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = n.magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Appends the UTF-8 encoding of `codePoint`, a Unicode scalar value.
    mutating func appendUTF8(codePoint: UInt32) {
        var encoded: [UInt8] = []
        UnicodeTranscoder.appendUTF8(codePoint: codePoint, to: &encoded)
        append(contentsOf: encoded)
    }

    /// Appends the low `width` bytes (1...8) of `value`, most significant first, with one store:
    /// room for eight is made so that the store never needs to be split.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        if 8 > capacity - count { grow(toHold: count + 8) }
        UnsafeMutableRawPointer(storage + count).storeBytes(of: (value << UInt64(64 - 8 * width)).bigEndian, as: UInt64.self)
        count += width
    }

    /// Appends the first `n` (at most 16) bytes of `low` and then `high` as they lie in memory
    /// (little-endian), with two stores: room for sixteen is made so that the stores never need
    /// to be split.
    @inline(__always)
    mutating func append(_ low: UInt64, _ high: UInt64, count n: Int) {
        if 16 > capacity - count { grow(toHold: count + 16) }
        let target = UnsafeMutableRawPointer(storage + count)
        target.storeBytes(of: low.littleEndian, as: UInt64.self)
        target.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
        count += n
    }

    /// Appends each of `words` as ``appendBigEndian(_:width:)`` would, after `value` turns it
    /// into the number to write, with room made once for all of them.
    @inline(__always)
    mutating func appendBigEndian<Word>(_ words: UnsafeBufferPointer<Word>, width: Int, value: (Word) -> UInt64) {
        let n = words.count * width
        if n + 8 > capacity - count { grow(toHold: count + n + 8) }
        var target = UnsafeMutableRawPointer(storage + count)
        let shift = UInt64(64 - 8 * width)
        for word in words {
            target.storeBytes(of: (value(word) << shift).bigEndian, as: UInt64.self)
            target += width
        }
        count += n
    }

    /// Makes room for `n` more bytes at once.
    mutating func reserve(_ n: Int) {
        if n > capacity - count { grow(toHold: count + n) }
    }

    /// Appends `n` bytes that `body` writes: it must initialize all of them.
    mutating func appendUninitialized(count n: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        guard n > 0 else { return }
        if n > capacity - count { grow(toHold: count + n) }
        body(UnsafeMutableBufferPointer(start: storage + count, count: n))
        count += n
    }

    @inline(never)
    private mutating func grow(toHold wanted: Int) {
        var larger = capacity * 2
        while larger < wanted { larger *= 2 }
        // Below a megabyte a new block is taken and the old one freed, as before: `realloc`
        // there left the binary writer's scalar buffer in blocks `malloc` maps and unmaps at
        // every write, twice the page faults of writing a 4 MB document of numbers.
        if capacity >= 1 << 20 {
            storage = Self.allocate(larger, growing: storage)
        } else {
            let moved = Self.allocate(larger)
            memcpy(moved, storage, count)
            free(storage)
            storage = moved
        }
        capacity = larger
    }

    /// Calls `body` with the bytes written so far.
    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// True when the bytes are exactly `other`.
    func equals(_ other: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard other.count == count else { return false }
        guard count > 0, let base = other.base.baseAddress else { return true }
        return memcmp(storage, base + other.startIndex, count) == 0
    }

    /// The bytes as an array, copied with `memcpy` (the generic array initializer copied a
    /// byte at a time).
    var array: [UInt8] {
        // Never made with a capacity of 0, which writes into the shared empty array.
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { memcpy(base, storage, count) }
            initialized = count
        }
    }

    /// The bytes as `Data` that takes over the storage: a whole document is not copied again.
    consuming func data() -> Data {
        let storage = self.storage
        let count = self.count
        discard self
        guard count > 0 else {
            free(storage)
            return Data()
        }
        return Data(bytesNoCopy: storage, count: count, deallocator: .free)
    }

    /// The bytes as a `String`, decoded as UTF-8.
    var string: String {
        String(decoding: UnsafeBufferPointer(start: storage, count: count), as: UTF8.self)
    }
}
