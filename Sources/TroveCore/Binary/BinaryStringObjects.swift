import Foundation

/// The text of the binary format's string objects: big-endian UTF-16 (`0x6n`), checked for
/// unpaired surrogates, and "ASCII" (`0x5n`), whose bytes above 0x7F CoreFoundation reads as
/// Latin-1. Both readers decode their strings here.
extension BinaryObjectArea {
    /// A big-endian UTF-16 string of `units` code units; unpaired surrogates are an error.
    /// Static, so that the scanner's mutating methods call it without copying the scanner.
    static func utf16String(_ bytes: UnsafeRawBufferPointer, at start: Int, units: Int) throws(PlistError) -> String {
        // Transcoded to UTF-8 here in one pass that also checks the surrogates: the standard
        // library's UTF-16 decoding of a collection that is not contiguous `UInt16` storage takes
        // a generic path several times slower. A code unit takes at most 3 UTF-8 bytes (a
        // surrogate pair, two units, takes 4), and `units` is bounded by the file's size.
        var unpaired: Int?
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: units * 3) { (out: UnsafeMutableBufferPointer<UInt8>) -> String in
            @inline(__always) func unit(_ k: Int) -> UInt32 {
                UInt32(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * k, as: UInt16.self)))
            }
            var o = 0
            var i = 0
            while i < units {
                // Four units below U+0080 at a time: in memory order each unit is a zero high
                // byte and a low byte under 0x80, and the four low bytes are the UTF-8. Text
                // stored as UTF-16 is mostly ASCII around a few other characters.
                if i + 4 <= units {
                    let word = bytes.loadUnaligned(fromByteOffset: start + 2 * i, as: UInt64.self).littleEndian
                    if word & 0x80FF_80FF_80FF_80FF == 0 {
                        let ascii = UInt32(truncatingIfNeeded: word >> 8 & 0xFF | word >> 16 & 0xFF00 | word >> 24 & 0xFF_0000 | word >> 32 & 0xFF00_0000)
                        // Four bytes fit: four units left may take up to twelve.
                        UnsafeMutableRawPointer(out.baseAddress! + o).storeBytes(of: ascii.littleEndian, as: UInt32.self)
                        o += 4
                        i += 4
                        continue
                    }
                }
                let u = unit(i)
                if u < 0x80 {
                    out[o] = UInt8(truncatingIfNeeded: u)
                    o += 1
                } else if u < 0x800 {
                    out[o] = UInt8(truncatingIfNeeded: 0xC0 | u >> 6)
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
                    o += 2
                } else if u & 0xF800 != 0xD800 {
                    out[o] = UInt8(truncatingIfNeeded: 0xE0 | u >> 12)
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | u >> 6 & 0x3F)
                    out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | u & 0x3F)
                    o += 3
                } else {
                    guard u < 0xDC00, i + 1 < units, unit(i + 1) & 0xFC00 == 0xDC00 else {
                        unpaired = i
                        return ""
                    }
                    let scalar = 0x10000 + ((u - 0xD800) << 10 | (unit(i + 1) - 0xDC00))
                    out[o] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
                    out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F)
                    out[o + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F)
                    out[o + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    o += 4
                    i += 1
                }
                i += 1
            }
            return String(provenUTF8: UnsafeBufferPointer(rebasing: out[..<o]), isASCII: false)
        }
        if let i = unpaired {
            throw unpairedSurrogate(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * i, as: UInt16.self)), at: start + 2 * i)
        }
        return text
    }

    /// The error for the unpaired surrogate `unit` of a UTF-16 string object, at `position`.
    @inline(never)
    static func unpairedSurrogate(_ unit: UInt16, at position: Int) -> PlistError {
        BinaryTrailer.error(.badString, at: position, "unpaired UTF-16 surrogate \(hex16(unit)) in a string")
    }

    /// An "ASCII" string object's text. CoreFoundation reads bytes above 0x7F in these objects as
    /// Latin-1 (U+0080...U+00FF), and so do we; pure ASCII, the usual case, takes the fast path.
    static func asciiString(_ slice: UnsafeRawBufferPointer) -> (String, isLatin1: Bool) {
        if slice.isASCII { return (String(provenUTF8: slice.assumingMemoryBound(to: UInt8.self), isASCII: true), false) }
        var scalars = String.UnicodeScalarView()
        for byte in slice { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), true)
    }
}

private func hex16(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
