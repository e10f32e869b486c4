extension UnsafeMutableRawPointer {
    /// Copies `n` bytes from `source`, which must not overlap them.
    ///
    /// The writers append tags, keys and numbers of a few bytes each, and a call to `memcpy` per
    /// append cost several times the copy: up to 16 bytes move as two overlapping loads and stores
    /// that stay within both ranges, fewer than 4 one at a time, longer runs through `memcpy`.
    @inlinable @inline(__always)
    package func copyBytes(from source: UnsafeRawPointer, count n: Int) {
        if n >= 8 && n <= 16 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            storeBytes(of: head, as: UInt64.self)
            storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            storeBytes(of: head, as: UInt32.self)
            storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        } else if n < 4 {
            for k in 0..<n { storeBytes(of: source.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self) }
        } else {
            copyMemory(from: source, byteCount: n)
        }
    }
}
