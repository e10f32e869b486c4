import Testing
@testable import TroveCore

/// The notes a lossless read records for shared containers, repeated keys, keys shared with
/// values, Latin-1 "ASCII" strings and 16-byte integers, and their byte-exact rewrite.
@Suite("Binary layout: walk notes of shared objects")
struct BinaryLayoutWalkTests {
    /// A top array naming array A three times and array B twice, where A holds B and a
    /// dictionary D whose key "k" repeats, the repeat hiding B.
    private static func sharedFile() -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA5, 1, 2, 1, 1, 2])  // 0: top
        builder.add([0xA3, 3, 2, 4])  // 1: A
        builder.add([0xA2, 5, 5])  // 2: B
        builder.add([0x51, 0x78])  // 3: "x"
        builder.add([0xD2, 7, 7, 6, 2])  // 4: D {k: 2, k: B}
        builder.add([0x10, 0x01])  // 5: 1
        builder.add([0x10, 0x02])  // 6: 2
        builder.add([0x51, 0x6B])  // 7: "k"
        return builder.build()
    }

    @Test("a container met again is one walk step, however often and wherever it is met")
    func sharedContainerWalk() throws {
        let file = Self.sharedFile()
        let (value, layout) = try readBinary(file)
        let b: PlistValue = [1, 1]
        let a: PlistValue = ["x", b, ["k": 2]]
        #expect(value == [a, b, a, a, b])
        let notes = try #require(layout)
        #expect(notes.walkObjects == [0, 1, 3, 2, 5, 5, 4, 7, 7, 6, 2, 2, 1, 1, 2])
        #expect(notes.walkExtents == [15, 10, 1, 3, 1, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1])
        // The repeat is noted once, at the dictionary's first visit, with the container it hid.
        #expect(notes.repeatedKeys.count == 1)
        let repeated = try #require(notes.repeatedKeys[6])
        #expect(repeated.keys == ["k", "k"])
        #expect(repeated.hiddenValues == [1: b])
        #expect(notes.keyTexts[7] == "k")
        #expect(notes.keyTexts[3] == nil)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("a string used as a value and then as a key has its key text noted")
    func valueThenKey() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 2])  // 0: top
        builder.add([0x51, 0x6B])  // 1: "k"
        builder.add([0xD1, 1, 3])  // 2: {k: 1}
        builder.add([0x10, 0x01])  // 3: 1
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == ["k", ["k": 1]])
        #expect(layout?.keyTexts[1] == "k")
        #expect(layout?.walkObjects == [0, 1, 2, 1, 3])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("Latin-1 bytes in an ASCII string and a 16-byte integer's high word are noted and rewritten")
    func latin1AndWideInteger() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA3, 1, 2, 3])  // 0: top
        builder.add([0x52, 0x63, 0xE9])  // 1: "cé" as Latin-1
        builder.add([0x14] + Array(repeating: 0x00, count: 7) + [0x05] + Array(repeating: 0x00, count: 7) + [0x2A])  // 2
        builder.add([0x51, 0x61])  // 3: "a"
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == ["cé", 42, "a"])
        let notes = try #require(layout)
        #expect(notes.encodings[1].holdsLatin1)
        #expect(!notes.encodings[3].holdsLatin1)
        #expect(notes.encodings[2].marker == 0x14)
        #expect(notes.int128HighWords == [2: 5])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("unreferenced booleans and short UIDs are kept; copies of a container and a longer UID pair with their first reachable twin")
    func orphanCopiesOfEveryLength() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 1, 2, 3, 4])  // 0: top
        builder.add([0x80, 0x07])  // 1: UID 7
        builder.add([0x09])  // 2: true
        builder.add([0xAA, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2])  // 3: an eleven-byte container
        builder.add([0x83, 0x00, 0x01, 0x00, 0x02])  // 4: a four-byte UID
        builder.add([0x80, 0x07])  // 5: orphan, kept
        builder.add([0x09])  // 6: orphan, kept
        builder.add([0xAA, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2])  // 7: orphan copy of 3
        builder.add([0x83, 0x00, 0x01, 0x00, 0x02])  // 8: orphan copy of 4
        builder.add([0x80, 0x08])  // 9: orphan, kept though nothing reachable holds it
        builder.add([0x83, 0x00, 0x01, 0x00, 0x03])  // 10: orphan that copies nothing
        let (_, layout) = try readBinary(builder.build())
        let notes = try #require(layout)
        let pairs = notes.copies.map { [Int($0.object), Int($0.original)] }
        #expect(pairs == [[7, 3], [8, 4]])
        #expect(keptOrphanRows(notes) == [[5, 0x80, 0x07], [6, 0x09], [9, 0x80, 0x08]])
        #expect(notes.unmatchedOrphanCount == 1)
    }

    /// Orphans before and after their originals, between shared and repeated reachable objects:
    /// booleans and one-byte UIDs (kept), copies of UIDs of seven and eight bytes, a string and a
    /// container; `eleventh` is object 11, an orphan.
    private static func interleavedFile(eleventh: [UInt8]) -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA8, 3, 5, 3, 7, 8, 9, 14, 16])  // 0: top
        builder.add([0x09])  // 1: orphan, kept
        builder.add([0x80, 0x05])  // 2: orphan, kept
        builder.add([0xA2, 7, 8])  // 3: shared array
        builder.add([0xA2, 7, 8])  // 4: orphan copy of 3
        builder.add([0xD1, 6, 7])  // 5: {"k": true}
        builder.add([0x51, 0x6B])  // 6: "k"
        builder.add([0x09])  // 7: true
        builder.add([0x80, 0x05])  // 8: UID 5
        builder.add([0x80, 0x05])  // 9: a reachable twin of 8, later than it
        builder.add([0x80, 0x05])  // 10: orphan, kept
        builder.add(eleventh)  // 11
        builder.add([0x51, 0x6B])  // 12: orphan copy of 6
        builder.add([0x09])  // 13: orphan, kept
        builder.add([0x87, 0, 0, 0, 0, 0, 0, 0, 9])  // 14: a nine-byte UID
        builder.add([0x87, 0, 0, 0, 0, 0, 0, 0, 9])  // 15: orphan copy of 14
        builder.add([0x86, 0, 0, 0, 0, 0, 0, 7])  // 16: an eight-byte UID
        builder.add([0x86, 0, 0, 0, 0, 0, 0, 7])  // 17: orphan copy of 16
        return builder.build()
    }

    @Test("orphans before, between and after shared objects pair with the first reachable twin")
    func interleavedOrphans() throws {
        let expected = [[4, 3], [12, 6], [15, 14], [17, 16]]
        let kept = [[1, 0x09], [2, 0x80, 0x05], [10, 0x80, 0x05], [13, 0x09]]
        let unmatchedFile = Self.interleavedFile(eleventh: [0x51, 0x6C])
        let unmatched = try #require(try readBinary(unmatchedFile).layout)
        #expect(unmatched.copies.map { [Int($0.object), Int($0.original)] } == expected)
        #expect(keptOrphanRows(unmatched) == kept)
        #expect(unmatched.unmatchedOrphanCount == 1)

        let file = Self.interleavedFile(eleventh: [0x51, 0x6B])
        let (value, layout) = try readBinary(file)
        let notes = try #require(layout)
        var withEleventh = expected
        withEleventh.insert([11, 6], at: 1)
        #expect(notes.copies.map { [Int($0.object), Int($0.original)] } == withEleventh)
        #expect(keptOrphanRows(notes) == kept)
        #expect(notes.reproducesSource)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("the keys of a dictionary too large to keep its key objects are noted, shared or not")
    func largeDictionaryKeys() throws {
        var entries: [(String, PlistValue)] = []
        for i in 0..<5000 { entries.append(("key\(i)", .integer(PlistInteger(i % 7)))) }
        let large = PlistValue.dictionary(PlistDictionary(entries))
        // "key1" is also a value and a small dictionary's key; "key2" a key of a small one first.
        let value: PlistValue = [["key2": 1], large, "key1", ["key1": "key3"]]
        let file = try BinaryPlistWriter().write(value)
        let (read, layout) = try readBinary(file)
        #expect(read == value)
        let notes = try #require(layout)
        let keyed = (0..<notes.objectCount).compactMap { notes.keyTexts[UInt32($0)] }
        #expect(Set(keyed) == Set(entries.map(\.0)))
        #expect(keyed.count == 5000)
        #expect(try BinaryPlistWriter().write(read, layout: layout) == file)
    }

    @Test("large dictionaries' key texts, kept whole or one by one, match keys after an edit")
    func largeDictionariesEdited() throws {
        // Twenty dictionaries too large to keep their key objects: the first ones' keys are
        // kept as segments, the later ones' one by one.
        let value = PlistValue.array((0..<20).map { j in
            .dictionary(PlistDictionary((0..<4200).map { i in ("d\(j) k\(i)", .integer(PlistInteger(i % 9))) }))
        })
        let file = try BinaryPlistWriter().write(value)
        let (read, layout) = try readBinary(file)
        let notes = try #require(layout)
        let keyed = (0..<notes.objectCount).compactMap { notes.keyTexts[UInt32($0)] }
        #expect(keyed.count == 20 * 4200)
        #expect(Set(keyed).count == 20 * 4200)
        #expect(try BinaryPlistWriter().write(read, layout: layout) == file)
        // Each dictionary loses its first key and gains one: the other entries are matched to
        // their notes by text, and keep their objects.
        guard case .array(var dictionaries) = read else { Issue.record("not an array"); return }
        for j in dictionaries.indices {
            guard case .dictionary(var d) = dictionaries[j] else { continue }
            d["d\(j) k0"] = nil
            d["new \(j)"] = .integer(1)
            dictionaries[j] = .dictionary(d)
        }
        let edited = PlistValue.array(dictionaries)
        let rewritten = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(rewritten).0 == edited)
        // Matched entries keep their objects: the rewrite is about as long as the file.
        #expect(abs(rewritten.count - file.count) < file.count / 100)
    }
}
