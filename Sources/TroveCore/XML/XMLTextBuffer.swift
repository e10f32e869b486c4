/// The text of the scalar element being read, collected from libxml2's character events.
///
/// Nearly every element's text arrives in one short event and is cleared at the next start tag.
/// An `[UInt8]` did this through its generic range-replacement paths (`append(contentsOf:)`,
/// `removeAll(keepingCapacity:)`), about a hundred instructions per call, more than the copy
/// itself; this buffer appends with `memcpy` and clears by resetting its count.
///
/// Invariant: `bytes` holds `capacity` bytes, the first `count` of them the text.
struct XMLTextBuffer: ~Copyable {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        bytes = .allocate(capacity: self.capacity)
    }

    deinit { bytes.deallocate() }

    var isEmpty: Bool { count == 0 }

    mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        if n > capacity - count { grow(toHold: count + n) }
        (bytes + count).update(from: p, count: n)
        count += n
    }

    mutating func append(_ byte: UInt8) {
        withUnsafePointer(to: byte) { append($0, count: 1) }
    }

    /// Appends the UTF-8 encoding of `codePoint`, a Unicode scalar value.
    mutating func appendUTF8(codePoint: UInt32) {
        var encoded: [UInt8] = []
        UnicodeTranscoder.appendUTF8(codePoint: codePoint, to: &encoded)
        encoded.withUnsafeBufferPointer { append($0.baseAddress!, count: $0.count) }
    }

    @inline(never)
    private mutating func grow(toHold wanted: Int) {
        var larger = capacity * 2
        while larger < wanted { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: bytes, count: count)
        bytes.deallocate()
        bytes = moved
        capacity = larger
    }

    /// Calls `body` with the text.
    func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// The text as a `String`; libxml2 has already checked it is UTF-8.
    var string: String {
        String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
