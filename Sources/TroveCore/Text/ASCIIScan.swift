extension UnsafeRawBufferPointer {
    /// True when no byte has its high bit set, tested eight bytes at a time: readers and writers
    /// ask this of every string they handle, and pure ASCII is what they usually get.
    var isASCII: Bool {
        var i = 0
        var highBits: UInt64 = 0
        while i + 8 <= count {
            highBits |= loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            highBits |= UInt64(self[i])
            i += 1
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }
}
