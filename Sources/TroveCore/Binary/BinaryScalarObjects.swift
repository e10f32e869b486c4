import Foundation

/// The values of the binary format's scalar objects, read once the checks of
/// ``BinaryObjectArea/marker(ofObject:at:naming:)`` have passed, so that nothing here checks a
/// bound again.
extension BinaryObjectArea {
    /// An integer object of `width` bytes at `start`: 1, 2 and 4 bytes are unsigned, 8 bytes
    /// signed, and 16 bytes count only their low 64 bits, read as unsigned, as CoreFoundation does.
    @inline(__always)
    func integer(at start: Int, width: Int) -> PlistInteger {
        switch width {
        case 8: return PlistInteger(Int64(bitPattern: bytes.loadBigEndianUInt64(at: start + 1)))
        case 16: return PlistInteger(bytes.loadBigEndianUInt64(at: start + 9))
        default: return PlistInteger(bytes.loadBigEndian(at: start + 1, width: width))
        }
    }

    /// A real object: `0x22` a 4-byte float, `0x23` an 8-byte double.
    @inline(__always)
    func real(_ marker: UInt8, at start: Int) -> PlistReal {
        if marker == 0x22 {
            return PlistReal(Float(bitPattern: UInt32(truncatingIfNeeded: bytes.loadBigEndian(at: start + 1, width: 4))))
        }
        return PlistReal(Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1)))
    }

    /// A date object (`0x33`): seconds since 2001-01-01 00:00:00 UTC as an 8-byte double.
    @inline(__always)
    func date(at start: Int) -> PlistDate {
        PlistDate(secondsSinceReferenceDate: Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1)))
    }

    /// A UID object (`0x8n`): n + 1 bytes, unsigned.
    @inline(__always)
    func uid(_ marker: UInt8, at start: Int) -> UInt64 {
        bytes.loadBigEndian(at: start + 1, width: Int(marker & 0x0F) + 1)
    }

    /// The bytes of a data object.
    @inline(__always)
    func data(_ object: BinaryObjectMarker) -> Data {
        // `Data(bytes:count:)` copies with memcpy; `Data(_:)` of a raw buffer went through the
        // generic sequence initializer, several hundred instructions for a short run.
        object.count == 0 ? Data() : Data(bytes: bytes.baseAddress! + object.payload, count: object.count)
    }

    /// The payload bytes of a data or 1-byte-unit string object.
    @inline(__always)
    func payload(_ object: BinaryObjectMarker) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[object.payload..<object.payload + object.count])
    }

    /// The text of a string object. "ASCII" objects read bytes above 0x7F as Latin-1, UTF-16
    /// objects reject unpaired surrogates and UTF-8 objects invalid UTF-8.
    func string(_ object: BinaryObjectMarker) throws(PlistError) -> String {
        switch object.byte >> 4 {
        case 0x5:
            return Self.asciiString(payload(object)).0
        case 0x6:
            return try Self.utf16String(bytes, at: object.payload, units: object.count)
        default:
            return try Self.utf8String(payload(object), object: object.index, at: object.payload)
        }
    }

    /// The text of a UTF-8 string object (`0x7n`) whose payload is `slice`, at `position`; it
    /// must be valid UTF-8. Static, so that a caller's copy of the area can stay in registers.
    static func utf8String(_ slice: UnsafeRawBufferPointer, object index: Int, at position: Int) throws(PlistError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw BinaryTrailer.error(.badString, at: position, "the UTF-8 string of object \(index) is not valid UTF-8")
        }
        return text
    }
}
