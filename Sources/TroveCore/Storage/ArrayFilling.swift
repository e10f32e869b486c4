import Foundation

extension Array where Element: BitwiseCopyable {
    /// An array of `count` elements with every bit clear (0 for an integer; for a note type, its
    /// value of raw 0), as `init(repeating:count:)` would make it, without that initializer's
    /// fixed cost for a short array.
    ///
    /// `init(repeating:count:)` and `init(unsafeUninitializedCapacity:initializingWith:)`
    /// allocate in the standard library's unspecialized code, which looks the storage's type up
    /// in the runtime on every call: a few hundred instructions, which is much of what a small
    /// file's lossless read adds per array. `reserveCapacity` is specialized, so a short array is
    /// reserved and its elements copied in one `memcpy` from a block of zero bytes (appending a
    /// repetition costs a few instructions an element); for a long one the lookup does not
    /// matter, and it is allocated unspecialized and cleared by `memset`.
    ///
    /// - Complexity: O(*n*), where *n* is `count`.
    @inline(__always)
    init(zeroedCount count: Int) {
        let bytes = count * MemoryLayout<Element>.stride
        guard bytes <= ZeroBlock.size else {
            self.init(unsafeUninitializedCapacity: count) { elements, initialized in
                if let base = elements.baseAddress { memset(base, 0, bytes) }
                initialized = count
            }
            return
        }
        self = []
        reserveCapacity(count)
        ZeroBlock.bytes.withMemoryRebound(to: Element.self, capacity: count) { zeros in
            append(contentsOf: UnsafeBufferPointer(start: zeros, count: count))
        }
    }
}

/// Bytes that are zero and stay zero, for ``Swift/Array/init(zeroedCount:)`` to copy from.
private enum ZeroBlock {
    static let size = 4096
    /// Never written after it is cleared, so any thread may read it.
    nonisolated(unsafe) static let bytes: UnsafeMutablePointer<UInt8> = {
        let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        block.initialize(repeating: 0, count: size)
        return block
    }()
}
