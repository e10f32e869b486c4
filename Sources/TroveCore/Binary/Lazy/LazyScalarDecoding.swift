import Foundation

extension LazyObjectTable {
    /// The value of a scalar object whose marker has been validated. The marker is read again
    /// with the value, through the reading the full reader makes.
    func scalar(_ header: BinaryObjectMarker) throws(PlistError) -> PlistValue {
        guard let value = try area.scalar(ofObject: header.index, at: header.start, naming: .byKind).value else {
            // Callers decode containers themselves; answering here keeps a slip from trapping.
            throw BinaryTrailer.error(.badObject, at: header.start, "object \(header.index) is a container, not a scalar")
        }
        return value
    }

    /// The payload bytes of a data or 1-byte-unit string object.
    func payload(_ header: BinaryObjectMarker) -> UnsafeRawBufferPointer {
        area.payload(header)
    }

    /// The text of a string object, decoded as the full reader decodes it.
    func string(_ header: BinaryObjectMarker) throws(PlistError) -> String {
        try area.string(header)
    }

    /// The length of a string object in UTF-16 code units, as `NSString.length` counts it.
    func utf16Length(_ header: BinaryObjectMarker) throws(PlistError) -> Int {
        switch header.byte >> 4 {
        case 0x5:
            return header.count  // Latin-1 maps each byte to one unit
        case 0x6:
            // The text is not needed, only the check that decoding it would make.
            let units = LazyUTF16Units(bytes: bytes, start: header.payload, count: header.count)
            if let bad = units.firstUnpairedSurrogate() {
                throw BinaryObjectArea.unpairedSurrogate(units[bad], at: header.payload + 2 * bad)
            }
            return header.count
        default:
            return try string(header).utf16.count
        }
    }
}

/// The code units of a big-endian UTF-16 string object, read in place.
struct LazyUTF16Units: RandomAccessCollection {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let count: Int

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * position, as: UInt16.self))
    }

    /// The index of the first high surrogate without a low one after it, or low one without a
    /// high one before it.
    func firstUnpairedSurrogate() -> Int? {
        var i = 0
        while i < count {
            let unit = self[i]
            if unit & 0xF800 == 0xD800 {
                guard unit < 0xDC00, i + 1 < count, self[i + 1] & 0xFC00 == 0xDC00 else { return i }
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }
}
