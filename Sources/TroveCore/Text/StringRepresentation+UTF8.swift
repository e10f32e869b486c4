extension StringRepresentation {
    /// The UTF-8 of a large string whose code units lie right after its storage object's header
    /// (a native string, or a literal), read from the two words alone; nil for a small string
    /// and for storage that keeps its code units elsewhere. Only meaningful where
    /// ``readsTailAllocatedUTF8`` is true, which callers check once rather than at every string.
    ///
    /// Reading a string's bytes through the standard library needs a `String` value, and taking
    /// one out of a larger value (an enum case, an array element) retains and later releases
    /// its storage; the words are a plain copy. The caller keeps a value holding the string
    /// alive, and so its bytes where they are, for as long as it reads them.
    ///
    /// On 64-bit platforms a string's second word holds, below a four-bit discriminator whose
    /// bit 61 marks a small string, a large string's storage address; the first word holds the
    /// UTF-8 count in its low 48 bits and, in bit 60, whether the code units are tail-allocated,
    /// 32 bytes past that address.
    @inline(__always)
    var tailAllocatedUTF8: UnsafeRawBufferPointer? {
        guard high & (1 << 61) == 0, low & (1 << 60) != 0 else { return nil }
        return UnsafeRawBufferPointer(
            start: UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: high & 0x0FFF_FFFF_FFFF_FFFF) &+ 32),
            count: Int(truncatingIfNeeded: low & 0x0000_FFFF_FFFF_FFFF))
    }

    /// Whether ``tailAllocatedUTF8`` reads the layout this process's strings have, checked once
    /// against what the standard library lends out for native strings, ASCII and not, and a
    /// literal (if it reads one at all), and that it reads nothing of a small string; where it
    /// does not (another word size, a changed layout), callers read strings through the
    /// standard library.
    static let readsTailAllocatedUTF8: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        func matches(_ string: String, orIsNotRead: Bool = false) -> Bool {
            guard let read = StringRepresentation(string).tailAllocatedUTF8 else { return orIsNotRead }
            return string.utf8.withContiguousStorageIfAvailable { lent in
                UnsafeRawPointer(lent.baseAddress) == read.baseAddress && lent.count == read.count
            } ?? false
        }
        let ascii = String(decoding: Array(repeating: UInt8(ascii: "k"), count: 40), as: UTF8.self)
        let accented = String(decoding: Array(repeating: UInt8(ascii: "k"), count: 20) + [0xC3, 0xA9], as: UTF8.self)
        let literal = "a literal string longer than fifteen bytes"
        let small = String(decoding: [0x61, 0x62], as: UTF8.self)
        return matches(ascii) && matches(accented) && matches(literal, orIsNotRead: true)
            && StringRepresentation(small).tailAllocatedUTF8 == nil
        #else
        return false
        #endif
    }()
}
