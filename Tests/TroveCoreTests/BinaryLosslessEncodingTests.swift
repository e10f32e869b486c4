import Foundation
import Testing
@testable import TroveCore

/// The bytes of every object of a binary plist, by index (shared by the lossless binary suites).
func binaryObjectBytes(of file: [UInt8]) throws -> [[UInt8]] {
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

/// FNV-1a, to pin whole outputs in a line each.
private func fingerprint(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
}

/// The lossless writer encodes each scalar once, in its noted spelling, and decides sharing and
/// uniquing on encoded bytes. These pin what it must still decide by value.
@Suite("Binary layout: scalars encoded while planning")
struct BinaryLosslessEncodingTests {
    /// An array of six scalars, each spelled as CoreFoundation would not: a 2-byte integer 5, the
    /// ASCII text "a" as UTF-16, three bytes of data with their count spelled as an integer
    /// object, the integer 7 in 16 bytes with a non-zero high word, UID 1 in two bytes, and "é"
    /// as a Latin-1 byte in an ASCII object.
    private static func respelledScalars() -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA6, 1, 2, 3, 4, 5, 6])
        builder.add([0x11, 0x00, 0x05])
        builder.add([0x61, 0x00, 0x61])
        builder.add([0x4F, 0x10, 0x03, 0xDE, 0xAD, 0x01])
        builder.add([0x14, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0, 0, 0, 0, 0x07])
        builder.add([0x81, 0x00, 0x01])
        builder.add([0x51, 0xE9])
        return builder.build()
    }

    @Test("noted scalars spelled non-canonically are rewritten as they were")
    func respelledRoundTrip() throws {
        let file = Self.respelledScalars()
        let (value, layout) = try readBinary(file)
        #expect(value == [5, "a", .data(Data([0xDE, 0xAD, 0x01])), 7, .uid(1), "é"])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("a reference to a shared ASCII string edited to other text is a new string, whatever the text's storage",
          arguments: [
              "a different long ASCII text, stored in its own buffer",
              "élan", "a long text with an accent: é, stored in its own buffer", "shared text, but one byte lo",
          ])
    func editedReferenceToSharedString(_ replacement: String) throws {
        // Three references to one string object, long enough to be stored out of line.
        var builder = BinaryPlistBuilder()
        builder.add([0xA3, 1, 1, 1])
        let text = "shared text, but one byte longer"
        builder.add([0x5F, 0x10, UInt8(text.utf8.count)] + Array(text.utf8))
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == [.string(text), .string(text), .string(text)])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        // The last reference edited: the first two still name the noted object, the edit does not.
        let edited = PlistValue.array([.string(text), .string(text), .string(replacement)])
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        // A text built anew, as an edit would, equal to the noted one, still names it.
        let rebuilt = String(decoding: Array(text.utf8), as: UTF8.self)
        #expect(try BinaryPlistWriter().write(.array([.string(text), .string(rebuilt), .string(text)]), layout: layout) == file)
    }

    @Test("a reference noted as one shared string that now holds another shared string's text names that one")
    func referenceMovedBetweenSharedStrings() throws {
        // [A, A, B, B], each text one object shared by two references, stored out of line.
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 1, 1, 2, 2])
        let a = "the first shared text, out of line"
        let b = "the second shared text, out of line"
        builder.add([0x5F, 0x10, UInt8(a.utf8.count)] + Array(a.utf8))
        builder.add([0x5F, 0x10, UInt8(b.utf8.count)] + Array(b.utf8))
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        guard case .array(let read) = value else { Issue.record("not an array"); return }
        // The read's own strings: the last reference, noted as B (held by then), takes the
        // storage of the second, which was just found to be A's object's text.
        let edited = PlistValue.array([read[0], read[1], read[2], read[1]])
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        #expect(try binaryObjectBytes(of: bytes).count == 3)
    }

    @Test("new scalars unify by value with noted ones spelled non-canonically")
    func respelledScalarsUniqueByValue() throws {
        let file = Self.respelledScalars()
        let (value, layout) = try readBinary(file)
        guard case .array(let elements) = value else { Issue.record("not an array"); return }
        // Every element again, as new nodes without notes: each is identical to a noted scalar
        // whose bytes differ from its canonical encoding, so each must name the noted object.
        let doubled = PlistValue.array(elements + elements)
        let bytes = try BinaryPlistWriter().write(doubled, layout: layout)
        #expect(try readBinary(bytes).value == doubled)
        let before = try binaryObjectBytes(of: file)
        let after = try binaryObjectBytes(of: bytes)
        #expect(after[0] == [0xAC, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6])
        #expect(Array(after[1...6]) == Array(before[1...6]))
        // UIDs are listed again at each occurrence, as CoreFoundation does, in the noted spelling
        // of the object every reference names.
        #expect(after.count == 8)
        #expect(after.last == [0x81, 0x00, 0x01])
    }

    @Test("a noted scalar that takes a new value keeps its spelling where it fits, and others still unify")
    func respelledSlotWithNewValue() throws {
        let file = Self.respelledScalars()
        let (_, layout) = try readBinary(file)
        // The first two noted objects take new values; the old values come back as new nodes,
        // which may not unify with the noted objects, since those no longer hold them.
        let edited: PlistValue = [6, "c", .data(Data([0xDE, 0xAD, 0x01])), 7, .uid(1), "é", 5, "a", 6, "c"]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        let after = try binaryObjectBytes(of: bytes)
        #expect(after[1] == [0x11, 0x00, 0x06])
        #expect(after[2] == [0x61, 0x00, 0x63])
        #expect(after.count == 9)
        #expect(after[7] == [0x10, 0x05])
        #expect(after[8] == [0x51, 0x61])
        #expect(after[0] == [0xAA, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2])
    }

    @Test("a shared noted scalar stays shared while its uses agree, and splits when one changes")
    func sharedNotedScalar() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 1, 1, 2, 2])
        builder.add([0x61, 0x00, 0x78])
        builder.add([0x12, 0x00, 0x00, 0x00, 0x03])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == ["x", "x", 3, 3])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)

        // The first use takes the noted object with its UTF-16 spelling; the second, still "x",
        // no longer matches it and becomes a new, canonical object.
        let firstEdited: PlistValue = ["y", "x", 3, 4]
        let first = try binaryObjectBytes(of: try BinaryPlistWriter().write(firstEdited, layout: layout))
        #expect(first == [[0xA4, 1, 3, 2, 4], [0x61, 0x00, 0x79], [0x12, 0x00, 0x00, 0x00, 0x03], [0x51, 0x78], [0x10, 0x04]])

        // The first use keeps the object; the second shares nothing and is new.
        let secondEdited: PlistValue = ["x", "y", 4, 3]
        let second = try binaryObjectBytes(of: try BinaryPlistWriter().write(secondEdited, layout: layout))
        #expect(second == [[0xA4, 1, 3, 2, 4], [0x61, 0x00, 0x78], [0x12, 0x00, 0x00, 0x00, 0x04], [0x51, 0x79], [0x10, 0x03]])

        // A new use of a shared value names the noted object, whose spelling is not canonical.
        let appended: PlistValue = ["x", "x", 3, 3, "x", 3]
        let third = try binaryObjectBytes(of: try BinaryPlistWriter().write(appended, layout: layout))
        #expect(third == [[0xA6, 1, 1, 2, 2, 1, 2], [0x61, 0x00, 0x78], [0x12, 0x00, 0x00, 0x00, 0x03]])
    }

    /// What the planner wrote before it encoded scalars while planning (2933f2a, through
    /// `trove insert trove-copy --xml ...`), for each Apple file with a copy of its own value
    /// (by way of XML) added under a new key: every scalar of the copy is new and unifies by
    /// value with a noted one, two of the files' noted integers being 16 bytes wide.
    private static let copiedDocuments: [(path: String, count: Int, fingerprint: UInt64)] = [
        ("binary/prefs-com.apple.Accessibility.Assets.plist", 7113, 0x7997_ACAF_3533_6C33),
        ("binary/prefs-com.apple.Compressor.plist", 4054, 0x894B_D430_6AD7_EE03),
        ("binary/prefs-com.apple.QuartzComposer.editor.plist", 8946, 0xC161_4C97_2175_2395),
        ("binary/prefs-com.apple.motionapp.plist", 8478, 0x3112_ADDF_6B0C_AF07),
        ("binary/prefs-com.apple.screencaptureui.plist", 2977, 0x3682_22BE_DF45_3E00),
        ("binary/prefs-com.apple.spaces.plist", 5456, 0xB1EC_26B6_1944_22D2),
        ("binary/prefs-com.apple.universalaccess.plist", 6649, 0x429B_8BDC_FDA1_1BC9),
    ]

    @Test("an Apple file with a copy of its value added comes out as the previous planner wrote it",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func copiedDocumentsMatchPreviousPlanner() throws {
        let root = try #require(BinaryFixtures.root)
        for expected in Self.copiedDocuments {
            let file = [UInt8](try Data(contentsOf: root.appendingPathComponent(expected.path)))
            let (value, layout) = try readBinary(file)
            guard case .dictionary(var dictionary) = value else {
                Issue.record("\(expected.path): not a dictionary")
                continue
            }
            let xml = try XMLPlistWriter().write(value)
            let copy = try xml.withUnsafeBytes { raw throws(PlistError) in try XMLPlistReader().read(raw, keepingLayout: false).value }
            dictionary["trove-copy"] = copy
            let bytes = try BinaryPlistWriter().write(.dictionary(dictionary), layout: layout)
            #expect(bytes.count == expected.count, "\(expected.path)")
            #expect(fingerprint(bytes) == expected.fingerprint, "\(expected.path)")
            #expect(try readBinary(bytes).value == .dictionary(dictionary), "\(expected.path)")
        }
    }
}

/// Data payloads of ``BinaryLargeDataTable/minimumCount`` bytes or more that take over noted
/// objects are copied from the value straight into the output; they must still share, split and
/// unify by value as every other scalar does.
@Suite("Binary layout: large data objects")
struct BinaryLosslessLargeDataTests {
    private static let count = BinaryLargeDataTable.minimumCount + 4096
    private static let a = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    private static let b = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
    private static let c = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 3) })

    /// The canonical encoding of a large data object: an extended marker with a 2-byte count.
    private static func canonical(_ payload: Data) -> [UInt8] {
        [0x4F, 0x11, UInt8(payload.count >> 8), UInt8(truncatingIfNeeded: payload.count)] + [UInt8](payload)
    }

    /// `[a, a, b]`: `a` one object named twice, `b` with its count spelled in eight bytes.
    private static func file() -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.offsetSize = 2
        builder.add([0xA3, 1, 1, 2])
        builder.add(canonical(a))
        builder.add([0x4F, 0x13, 0, 0, 0, 0, 0, 0, UInt8(count >> 8), UInt8(truncatingIfNeeded: count)] + [UInt8](b))
        return builder.build()
    }

    @Test("an unchanged file is rewritten byte for byte")
    func roundTrip() throws {
        let file = Self.file()
        let (value, layout) = try readBinary(file)
        #expect(value == [.data(Self.a), .data(Self.a), .data(Self.b)])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("new payloads equal to noted ones name the noted objects, whatever their spelling")
    func newPayloadsUnify() throws {
        let file = Self.file()
        let (_, layout) = try readBinary(file)
        // Copies in storage of their own, so that nothing but their bytes ties them to the notes.
        let edited: PlistValue = [.data(Self.a), .data(Self.a), .data(Self.b), .data(Data([UInt8](Self.a))), .data(Data([UInt8](Self.b)))]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        let before = try binaryObjectBytes(of: file)
        let after = try binaryObjectBytes(of: bytes)
        #expect(after.count == 3)
        #expect(after.first == [0xA5, 1, 1, 2, 1, 2])
        #expect(Array(after.dropFirst()) == Array(before.dropFirst()))
    }

    @Test("a shared payload stays shared while its uses agree, and splits when one changes")
    func sharedPayloadSplits() throws {
        let file = Self.file()
        let (_, layout) = try readBinary(file)
        let before = try binaryObjectBytes(of: file)

        let secondChanged: PlistValue = [.data(Self.a), .data(Self.c), .data(Self.b)]
        let second = try binaryObjectBytes(of: try BinaryPlistWriter().write(secondChanged, layout: layout))
        #expect(second.count == 4)
        #expect(second[0] == [0xA3, 1, 3, 2])
        #expect(Array(second[1...2]) == Array(before[1...2]))
        #expect(second[3] == Self.canonical(Self.c))

        // The first use takes the noted object with the new payload; the old one becomes new.
        let firstChanged: PlistValue = [.data(Self.c), .data(Self.a), .data(Self.b)]
        let first = try binaryObjectBytes(of: try BinaryPlistWriter().write(firstChanged, layout: layout))
        #expect(first == [[0xA3, 1, 3, 2], Self.canonical(Self.c), before[2], Self.canonical(Self.a)])
    }

    @Test("payloads met after a new scalar was uniqued still take their noted objects")
    func payloadsAfterNewScalar() throws {
        let file = Self.file()
        let (_, layout) = try readBinary(file)
        let edited: PlistValue = [5, .data(Self.a), .data(Self.b), .data(Data([UInt8](Self.a)))]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        let before = try binaryObjectBytes(of: file)
        let after = try binaryObjectBytes(of: bytes)
        #expect(after == [[0xA4, 3, 1, 2, 1], before[1], before[2], [0x10, 0x05]])
    }
}

/// Containers the notes name more than once, and dictionaries whose keys left the noted order:
/// the writer finds a later use's children's notes and an entry's notes without reading the
/// whole walk first.
@Suite("Binary layout: shared containers and key order")
struct BinaryLosslessSharingTests {
    /// `[A, A]` with `A = [B, 1]` and `B = ["x"]`: one array object named twice.
    private static func sharedArrayFile() -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 1])
        builder.add([0xA2, 2, 3])
        builder.add([0xA1, 4])
        builder.add([0x10, 0x01])
        builder.add([0x51, 0x78])
        return builder.build()
    }

    @Test("an edited later use of a shared container follows the first use's children's notes")
    func editedLaterUse() throws {
        let file = Self.sharedArrayFile()
        let (value, layout) = try readBinary(file)
        #expect(value == [[["x"], 1], [["x"], 1]])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        // The second use is new, but its first element is still the noted B (equal, so shared),
        // and its integer, noted as the shared 1, is new.
        let edited: PlistValue = [[["x"], 1], [["x"], 2]]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        #expect(try binaryObjectBytes(of: bytes) == [[0xA2, 1, 5], [0xA2, 2, 3], [0xA1, 4], [0x10, 0x01], [0x51, 0x78], [0xA2, 2, 6], [0x10, 0x02]])
        // When the first use is the edited one, it keeps the noted objects, its integer with the
        // new value, and the second use is new with the old value new as well.
        let editedFirst: PlistValue = [[["x"], 2], [["x"], 1]]
        let first = try BinaryPlistWriter().write(editedFirst, layout: layout)
        #expect(try readBinary(first).value == editedFirst)
        #expect(try binaryObjectBytes(of: first) == [[0xA2, 1, 5], [0xA2, 2, 3], [0xA1, 4], [0x10, 0x02], [0x51, 0x78], [0xA2, 2, 6], [0x10, 0x01]])
    }

    /// `{a: 1, b: "s", c: [2]}`.
    private static func dictionaryFile() -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xD3, 1, 2, 3, 4, 5, 6])
        builder.add([0x51, 0x61])
        builder.add([0x51, 0x62])
        builder.add([0x51, 0x63])
        builder.add([0x10, 0x01])
        builder.add([0x51, 0x73])
        builder.add([0xA1, 7])
        builder.add([0x10, 0x02])
        return builder.build()
    }

    @Test("keys that leave the noted order part way keep their entries' objects")
    func keysOutOfOrder() throws {
        let file = Self.dictionaryFile()
        let (value, layout) = try readBinary(file)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        let before = try binaryObjectBytes(of: file)
        // The first key in place, the other two swapped: every entry keeps its key and value.
        let swapped = PlistValue.dictionary(PlistDictionary(uniqueKeys: ["a", "c", "b"], values: [1, [2], "s"]))
        let bytes = try BinaryPlistWriter().write(swapped, layout: layout)
        #expect(try readBinary(bytes).value == swapped)
        let after = try binaryObjectBytes(of: bytes)
        #expect(after[0] == [0xD3, 1, 3, 2, 4, 6, 5])
        #expect(Array(after[1...]) == Array(before[1...]))
        // A key added after the noted ones, and one inserted before them.
        let added = PlistValue.dictionary(PlistDictionary(uniqueKeys: ["a", "b", "c", "d"], values: [1, "s", [2], 3]))
        let appended = try binaryObjectBytes(of: try BinaryPlistWriter().write(added, layout: layout))
        #expect(appended[0] == [0xD4, 1, 2, 3, 8, 4, 5, 6, 9])
        #expect(Array(appended[1...7]) == Array(before[1...7]))
        #expect(Array(appended[8...]) == [[0x51, 0x64], [0x10, 0x03]])
        let inserted = PlistValue.dictionary(PlistDictionary(uniqueKeys: ["d", "a", "b", "c"], values: [3, 1, "s", [2]]))
        let prefixed = try binaryObjectBytes(of: try BinaryPlistWriter().write(inserted, layout: layout))
        #expect(prefixed[0] == [0xD4, 8, 1, 2, 3, 9, 4, 5, 6])
        #expect(Array(prefixed[1...7]) == Array(before[1...7]))
    }

    @Test("a key whose object a string value took over first with other text is a new string")
    func keyAfterEditedValue() throws {
        // `["a", {"a": 1}]`, the string and the key one object.
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 2])
        builder.add([0x51, 0x61])
        builder.add([0xD1, 1, 3])
        builder.add([0x10, 0x01])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == ["a", ["a": 1]])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        let edited: PlistValue = ["b", ["a": 1]]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        #expect(try binaryObjectBytes(of: bytes) == [[0xA2, 1, 2], [0x51, 0x62], [0xD1, 4, 3], [0x10, 0x01], [0x51, 0x61]])
    }
}
