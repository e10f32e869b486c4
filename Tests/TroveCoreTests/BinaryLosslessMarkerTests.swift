import Foundation
import Testing
@testable import TroveCore

/// The lossless writer decides each container's marker while planning and writes the offsets in
/// a loop made for the noted offset width; a repeat of a shared short scalar is decided where the
/// walk meets it. These pin the markers it must keep (a count spelled long below 15, a set, an
/// orphan copy of a container), every offset width a file may use, and when such a repeat still
/// names the shared object.
@Suite("Binary layout: container markers, offset widths, shared short scalars")
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
        let written = try binaryObjectBytes(of: bytes)
        #expect(written.first == [0xAF, 0x10, 0x04, 1, 2, 5, 4])
        #expect(written[1] == [0xDF, 0x10, 0x01, 3, 4])
        // The set takes a second element: its marker is one byte, with the new count.
        #expect(written[2] == [0xC2, 4, 4])
        #expect(written[5] == [0xD0])
        #expect(written[6] == [0xDF, 0x10, 0x01, 3, 4])
    }

    @Test("a repeat of a shared short scalar names it while it is equal, and is new once it differs")
    func sharedShortScalars() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xAA, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5])
        builder.add([0x10, 0x03])
        builder.add([0x09])
        builder.add([0x23] + binaryBigEndian((1.5).bitPattern, width: 8))
        builder.add([0x80, 0x05])
        builder.add([0x00])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == [3, true, 1.5, .uid(5), .null, 3, true, 1.5, .uid(5), .null])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)

        // Each second use changed: to another value of its kind, or (the UID) to a string, whose
        // noted object holds a scalar of another kind.
        let edited: PlistValue = [3, true, 1.5, .uid(5), .null, 4, false, 2.5, "5", .null]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        let written = try binaryObjectBytes(of: bytes)
        #expect(written.first == [0xAA, 1, 2, 3, 4, 5, 6, 7, 8, 9, 5])
        #expect(Array(written[1...5]) == [[0x10, 0x03], [0x09], [0x23] + binaryBigEndian((1.5).bitPattern, width: 8), [0x80, 0x05], [0x00]])
        #expect(Array(written.dropFirst(6)) == [[0x10, 0x04], [0x08], [0x23] + binaryBigEndian((2.5).bitPattern, width: 8), [0x51, 0x35]])

        // The first uses changed: each takes its noted object, and the unchanged second use is new.
        let firstEdited: PlistValue = [4, true, 1.5, .uid(5), .null, 3, true, 1.5, .uid(5), .null]
        let first = try binaryObjectBytes(of: try BinaryPlistWriter().write(firstEdited, layout: layout))
        #expect(first.first == [0xAA, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5])
        #expect(first[1] == [0x10, 0x04])
        #expect(first.last == [0x10, 0x03])
    }
}
