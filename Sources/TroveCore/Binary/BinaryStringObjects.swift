import CTroveFastPaths
import Foundation

/// The text of the binary format's string objects: big-endian UTF-16 (`0x6n`), checked for
/// unpaired surrogates, and "ASCII" (`0x5n`), whose bytes above 0x7F CoreFoundation reads as
/// Latin-1. Both readers decode their strings here.
extension BinaryObjectArea {
    /// A big-endian UTF-16 string of `units` code units; unpaired surrogates are an error.
    /// Static, so that the scanner's mutating methods call it without copying the scanner.
    static func utf16String(_ bytes: UnsafeRawBufferPointer, at start: Int, units: Int) throws(PlistError) -> String {
        // Transcoded to UTF-8 in one pass that also checks the surrogates, in C: the standard
        // library's UTF-16 decoding of a collection that is not contiguous `UInt16` storage takes
        // a generic path several times slower. A code unit takes at most 3 UTF-8 bytes (a
        // surrogate pair, two units, takes 4), and `units` is bounded by the file's size.
        guard units > 0 else { return "" }
        var unpaired: Int?
        let text = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: units * 3) { (out: UnsafeMutableBufferPointer<UInt8>) -> String in
            let written = trove_utf16be_to_utf8(out.baseAddress!, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, units)
            guard written >= 0 else {
                unpaired = -written - 1
                return ""
            }
            return String(provenUTF8: UnsafeBufferPointer(rebasing: out[..<written]), isASCII: false)
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
