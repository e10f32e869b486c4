extension UnsafeRawBufferPointer {
    /// True when no byte has its high bit set, tested eight bytes at a time: readers and writers
    /// ask this of every string they handle, and pure ASCII is what they usually get.
    ///
    /// The bytes after the last whole word are read with one more (overlapping) 8-byte load, or
    /// for a run shorter than eight with at most two overlapping 4-, 2- or 1-byte loads: a loop
    /// over the tail a byte at a time was most of the cost for the short strings that keys are.
    @inline(__always)
    var isASCII: Bool {
        let n = count
        guard n > 0, let base = baseAddress else { return true }
        var highBits: UInt64 = 0
        if n >= 8 {
            var i = 0
            while i + 8 <= n {
                highBits |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            highBits |= base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 {
            highBits = UInt64(base.loadUnaligned(as: UInt32.self) | base.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
        } else if n >= 2 {
            highBits = UInt64(base.loadUnaligned(as: UInt16.self) | base.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self))
        } else {
            highBits = UInt64(base.load(as: UInt8.self))
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }
}
