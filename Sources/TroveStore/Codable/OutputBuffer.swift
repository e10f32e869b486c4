import Foundation
import TroveCore

/// A growable byte buffer for the Codable writers: appends go straight to memory, with one
/// capacity check each, and the result is handed to `Data` without a copy.
struct OutputBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    @inline(never)
    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends a byte already reserved for.
    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        append(source, count: bytes.count)
    }

    @inline(__always)
    private mutating func append(_ source: UnsafeRawPointer, count n: Int) {
        reserve(n)
        UnsafeMutableRawPointer(base + count).copyBytes(from: source, count: n)
        count += n
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
    }

    mutating func append(utf8 string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ data: Data) {
        data.withUnsafeBytes { append($0) }
    }

    /// `count` copies of `byte`: indentation, a few tabs, so no call to `memset`.
    @inline(__always)
    mutating func append(repeating byte: UInt8, count repeats: Int) {
        guard repeats > 0 else { return }
        reserve(repeats)
        for k in 0..<repeats { base[count + k] = byte }
        count += repeats
    }

    /// The low `width` bytes of `value`, most significant first.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        reserve(width)
        var shift = (width - 1) * 8
        while shift >= 0 {
            base[count] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
            count += 1
            shift -= 8
        }
    }

    /// The decimal digits of `value`, with a `-` for negatives.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude, minimumDigits: 1)
    }

    /// The decimal digits of `value`, zero-padded to `minimumDigits`.
    mutating func appendDecimal(_ value: UInt64, minimumDigits: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var length = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            var rest = value
            repeat {
                scratch[23 - length] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                length += 1
            } while rest != 0
            while length < minimumDigits && length < 24 {
                scratch[23 - length] = UInt8(ascii: "0")
                length += 1
            }
            append(UnsafeRawBufferPointer(rebasing: scratch[(24 - length)...]))
        }
    }

    /// The bytes from `start` to the end, valid until the next append.
    @inline(__always)
    func bytes(from start: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: count - start)
    }

    /// `count` bytes from `start`, valid until the next append.
    @inline(__always)
    func bytes(from start: Int, count length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: length)
    }

    /// Drops the bytes from `newCount` on.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        count = newCount
    }

    /// The bytes, moved into `Data` (the buffer is consumed).
    consuming func data() -> Data {
        let result = Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        // `Data` now owns the memory; skip deinit's deallocation.
        discard self
        return result
    }
}
