import Foundation

extension LazyObjectTable {
    /// The value of a scalar object whose header has been validated.
    func scalar(_ header: LazyObjectHeader) throws(PlistError) -> PlistValue {
        let start = header.start
        switch header.kind {
        case .null: return .null
        case .bool: return .bool(header.marker == 0x09)
        case .integer: return .integer(integer(header))
        case .real:
            if header.marker == 0x22 {
                let bits = UInt32(truncatingIfNeeded: bytes.loadBigEndian(at: start + 1, width: 4))
                return .real(PlistReal(Float(bitPattern: bits)))
            }
            return .real(PlistReal(Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1))))
        case .date:
            return .date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1))))
        case .data:
            return .data(Data(payload(header)))
        case .string:
            return .string(try string(header))
        case .uid:
            return .uid(bytes.loadBigEndian(at: start + 1, width: Int(header.marker & 0x0F) + 1))
        case .array, .dictionary:
            // Callers decode containers themselves; answering here keeps a slip from trapping.
            throw BinaryTrailer.error(.badObject, at: start, "object \(header.index) is a container, not a scalar")
        }
    }

    /// An integer object: 1, 2 and 4 bytes unsigned, 8 bytes signed, 16 bytes by their low 64
    /// bits read as unsigned, as CoreFoundation does.
    private func integer(_ header: LazyObjectHeader) -> PlistInteger {
        let width = 1 << Int(header.marker & 0x0F)
        switch width {
        case 8: return PlistInteger(Int64(bitPattern: bytes.loadBigEndianUInt64(at: header.start + 1)))
        case 16: return PlistInteger(bytes.loadBigEndianUInt64(at: header.start + 9))
        default: return PlistInteger(bytes.loadBigEndian(at: header.start + 1, width: width))
        }
    }

    /// The payload bytes of a data or 1-byte-unit string object.
    func payload(_ header: LazyObjectHeader) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[header.payload..<header.payload + header.count])
    }

    /// The text of a string object. "ASCII" objects read bytes above 0x7F as Latin-1, UTF-16
    /// objects reject unpaired surrogates and UTF-8 objects invalid UTF-8, as the full reader does.
    func string(_ header: LazyObjectHeader) throws(PlistError) -> String {
        switch header.marker >> 4 {
        case 0x5:
            let slice = payload(header)
            if !slice.contains(where: { $0 >= 0x80 }) { return String(decoding: slice, as: UTF8.self) }
            var scalars = String.UnicodeScalarView()
            for byte in slice { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        case 0x6:
            try validateSurrogates(header)
            return String(decoding: LazyUTF16Units(bytes: bytes, start: header.payload, count: header.count), as: UTF16.self)
        default:
            guard let text = String(validating: payload(header), as: UTF8.self) else {
                throw BinaryTrailer.error(
                    .badString, at: header.payload, "the UTF-8 string of object \(header.index) is not valid UTF-8")
            }
            return text
        }
    }

    /// Throws unless every surrogate of a UTF-16 string object is paired.
    private func validateSurrogates(_ header: LazyObjectHeader) throws(PlistError) {
        let units = LazyUTF16Units(bytes: bytes, start: header.payload, count: header.count)
        if let bad = units.firstUnpairedSurrogate() {
            throw BinaryTrailer.error(
                .badString, at: header.payload + 2 * bad,
                "unpaired UTF-16 surrogate U+\(String(units[bad], radix: 16, uppercase: true)) in a string")
        }
    }

    /// The length of a string object in UTF-16 code units, as `NSString.length` counts it.
    func utf16Length(_ header: LazyObjectHeader) throws(PlistError) -> Int {
        switch header.marker >> 4 {
        case 0x5:
            return header.count  // Latin-1 maps each byte to one unit
        case 0x6:
            try validateSurrogates(header)
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
