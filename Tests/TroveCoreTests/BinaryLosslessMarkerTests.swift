import Foundation
import Testing
@testable import TroveCore

/// The lossless writer decides each container's marker while planning and writes the offsets in
/// a loop made for the noted offset width. These pin the markers it must keep (a count spelled
/// long below 15, a set, an orphan copy of a container) and every offset width a file may use.
@Suite("Binary layout: container markers and offset widths")
struct BinaryLosslessMarkerTests {
    /// A top array whose three elements' count is spelled as an integer object, holding a
    /// dictionary whose one entry is spelled so too, a set and an empty dictionary, then two
    /// unreferenced copies: of the dictionary and of the empty dictionary.
    private static func file(offsetSize: Int = 1) -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.offsetSize = offsetSize
        builder.add([0xAF, 0x10, 0x03, 1, 2, 5])
        builder.add([0xDF, 0x10, 0x01, 3, 4])
        builder.add([0xC1, 4])
        builder.add([0x51, UInt8(ascii: "k")])
        builder.add([0x10, 0x07])
        builder.add([0xD0])
        builder.add([0xDF, 0x10, 0x01, 3, 4])
        builder.add([0xD0])
        return builder.build()
    }

    @Test("containers with long-spelled counts, sets and copies of containers are rewritten byte for byte")
    func roundTrip() throws {
        let file = Self.file()
        let (value, layout) = try readBinary(file)
        #expect(value == [["k": 7], [7], [:]])
        #expect(layout?.reproducesSource == true)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("every offset width a file may use is kept", arguments: [1, 2, 3, 4, 5, 8])
    func offsetWidths(offsetSize: Int) throws {
        let file = Self.file(offsetSize: offsetSize)
        let (value, layout) = try readBinary(file)
        #expect(layout?.offsetSize == offsetSize)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("an edited container keeps its count's spelling while it fits, and the others their markers")
    func editKeepsMarkers() throws {
        let file = Self.file(offsetSize: 3)
        let (value, layout) = try readBinary(file)
        guard case .array(var elements) = value else { Issue.record("not an array"); return }
        elements.append(7)
        elements[1] = [7, 7]
        let edited = PlistValue.array(elements)
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        #expect(try readBinary(bytes).layout?.offsetSize == 3)
        let written = try objectBytes(of: bytes)
        #expect(written.first == [0xAF, 0x10, 0x04, 1, 2, 5, 4])
        #expect(written[1] == [0xDF, 0x10, 0x01, 3, 4])
        // The set takes a second element: its marker is one byte, with the new count.
        #expect(written[2] == [0xC2, 4, 4])
        #expect(written[5] == [0xD0])
        #expect(written[6] == [0xDF, 0x10, 0x01, 3, 4])
    }

    /// The bytes of every object of a binary plist, by index.
    private func objectBytes(of file: [UInt8]) throws -> [[UInt8]] {
        try file.withUnsafeBytes { raw throws(PlistError) -> [[UInt8]] in
            let trailer = try BinaryTrailer(raw)
            let lookup = BinaryObjectLookup(bytes: raw, trailer: trailer)
            return try (0..<trailer.objectCount).map { index throws(PlistError) in
                let start = try lookup.offset(ofObject: index)
                let length = BinaryPlistReader.objectLength(
                    raw, at: start, end: trailer.offsetTableOffset, refSize: trailer.objectRefSize) ?? 0
                return Array(raw[start..<start + length])
            }
        }
    }
}
