import Foundation
import Testing
@testable import TroveCore
import TroveTestSupport

/// The bytes of every object of a binary plist, by index.
private func objectBytes(_ file: [UInt8]) throws -> [[UInt8]] {
    try file.withUnsafeBytes { raw throws(PlistError) -> [[UInt8]] in
        let trailer = try BinaryTrailer(raw)
        let lookup = BinaryObjectLookup(bytes: raw, trailer: trailer)
        var objects: [[UInt8]] = []
        for index in 0..<trailer.objectCount {
            let start = try lookup.offset(ofObject: index)
            let length = BinaryPlistReader.objectLength(
                raw, at: start, end: trailer.offsetTableOffset, refSize: trailer.objectRefSize) ?? 0
            objects.append(Array(raw[start..<start + length]))
        }
        return objects
    }
}

/// A top-level entry of a dictionary file whose value object is referenced exactly once, with its
/// object index.
private func singlyReferencedEntry(
    _ layout: BinaryLayout, _ dictionary: PlistDictionary, where accept: (PlistValue) -> Bool
) -> (key: String, object: Int)? {
    var references: [UInt32: Int] = [:]
    for object in layout.walkObjects { references[object, default: 0] += 1 }
    return layout.walkExtents.withUnsafeBufferPointer { extents in
        var cursor = NoteCursor(extents: extents.baseAddress, container: 0)
        cursor.skip(keys: dictionary.count)
        for (key, value) in dictionary {
            guard let position = cursor.next() else { return nil }
            let object = layout.walkObjects[position]
            if accept(value), references[object] == 1 { return (key, Int(object)) }
        }
        return nil
    }
}

private let appleFiles = [
    "binary/prefs-com.apple.Accessibility.Assets.plist",
    "binary/prefs-com.apple.Compressor.plist",
    "binary/prefs-com.apple.motionapp.plist",
    "binary/prefs-com.apple.spaces.plist",
    "binary/prefs-com.apple.universalaccess.plist",
    "binary/prefs-com.apple.screencaptureui.plist",
    "binary/prefs-com.apple.QuartzComposer.editor.plist",
]

private func fixture(_ path: String) throws -> [UInt8] {
    let root = try #require(BinaryFixtures.root)
    return [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
}

@Suite("Binary layout: edits")
struct BinaryLayoutEditTests {
    @Test("changing one scalar of an Apple file changes only that object",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func oneScalarEdit() throws {
        var edited = 0
        for path in appleFiles {
            let original = try fixture(path)
            let (value, layout) = try readBinary(original)
            let notes = try #require(layout)
            guard case .dictionary(var dictionary) = value,
                let (key, object) = singlyReferencedEntry(notes, dictionary, where: {
                    if case .integer(let i) = $0 { return !i.isNegative && i.magnitude < 200 }
                    if case .string = $0 { return true }
                    return false
                })
            else { continue }
            switch dictionary[key] {
            case .integer(let i)?: dictionary[key] = .integer(PlistInteger(i.magnitude + 1))
            case .string(let s)?: dictionary[key] = .string(s + " (edited)")
            default: continue
            }
            let rewritten = try BinaryPlistWriter().write(.dictionary(dictionary), layout: notes)
            #expect(try readBinary(rewritten).value == .dictionary(dictionary), "\(path)")
            let before = try objectBytes(original)
            let after = try objectBytes(rewritten)
            #expect(before.count == after.count, "\(path)")
            for index in before.indices where index != object && index < after.count {
                #expect(before[index] == after[index], "\(path): object \(index) changed")
            }
            #expect(before[object] != after[object], "\(path)")
            edited += 1
        }
        #expect(edited >= 4)
    }

    @Test("adding and removing keys keeps every other object",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func addAndRemoveKeys() throws {
        let original = try fixture("binary/prefs-com.apple.spaces.plist")
        let (value, layout) = try readBinary(original)
        guard case .dictionary(var dictionary) = value else { Issue.record("not a dictionary"); return }
        dictionary["trove-added-key"] = ["new", 123_456]
        let added = try BinaryPlistWriter().write(.dictionary(dictionary), layout: layout)
        #expect(try readBinary(added).value == .dictionary(dictionary))
        let before = try objectBytes(original)
        let after = try objectBytes(added)
        // The new key, the array, "new" and 123456 are appended; only the top dictionary changes.
        #expect(after.count == before.count + 4)
        #expect(Array(after[1..<before.count]) == Array(before[1...]))

        // Removing the added key again gives back the original file exactly.
        dictionary.removeValue(forKey: "trove-added-key")
        #expect(try BinaryPlistWriter().write(.dictionary(dictionary), layout: layout) == original)

        // Removing an original key drops its objects and keeps the rest readable and equal.
        let firstKey = try #require(dictionary.keys.first)
        dictionary.removeValue(forKey: firstKey)
        let removed = try BinaryPlistWriter().write(.dictionary(dictionary), layout: layout)
        #expect(try readBinary(removed).value == .dictionary(dictionary))
        #expect(try objectBytes(removed).count < before.count)
    }

    @Test("removing or reordering keys keeps every other entry on its own object",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func removeMiddleKeyAndReorder() throws {
        var checked = 0
        for path in appleFiles {
            let original = try fixture(path)
            let (value, layout) = try readBinary(original)
            let notes = try #require(layout)
            guard case .dictionary(let dictionary) = value, dictionary.count >= 3 else { continue }
            var references: [UInt32: Int] = [:]
            for object in notes.walkObjects { references[object, default: 0] += 1 }
            // A middle entry whose key and scalar value are used nowhere else.
            let (keyPositions, valuePositions) = notes.walkExtents.withUnsafeBufferPointer { extents in
                var cursor = NoteCursor(extents: extents.baseAddress, container: 0)
                let keys = (0..<dictionary.count).compactMap { _ in cursor.next() }
                return (keys, (0..<dictionary.count).compactMap { _ in cursor.next() })
            }
            guard let middle = (1..<dictionary.count - 1).first(where: { i in
                !dictionary[i].value.isContainer
                    && references[notes.walkObjects[keyPositions[i]]] == 1
                    && references[notes.walkObjects[valuePositions[i]]] == 1
            }) else { continue }
            let removedObjects = [Int(notes.walkObjects[keyPositions[middle]]), Int(notes.walkObjects[valuePositions[middle]])]
            var smaller = dictionary
            smaller.removeValue(forKey: dictionary[middle].key)
            let rewritten = try BinaryPlistWriter().write(.dictionary(smaller), layout: notes)
            #expect(try readBinary(rewritten).value == .dictionary(smaller), "\(path)")
            let before = try objectBytes(original)
            let after = try objectBytes(rewritten)
            #expect(after.count == before.count - 2, "\(path)")
            // Every surviving scalar object keeps its bytes, in the same order.
            let scalars = { (objects: [[UInt8]]) in objects.filter { ![0xA, 0xC, 0xD].contains($0.first.map { $0 >> 4 } ?? 0) } }
            let kept = before.indices.filter { !removedObjects.contains($0) }.map { before[$0] }
            #expect(scalars(after) == scalars(kept), "\(path)")

            // Reversed key order: same objects, only the dictionary's reference order changes.
            let reversed = PlistDictionary(dictionary.reversed().map { ($0.key, $0.value) })
            let reordered = try BinaryPlistWriter().write(.dictionary(reversed), layout: notes)
            #expect(try readBinary(reordered).value == value, "\(path)")
            #expect(try objectBytes(reordered).count == before.count, "\(path)")
            #expect(Array(try objectBytes(reordered)[1...]) == Array(before[1...]), "\(path)")
            checked += 1
        }
        #expect(checked >= 2)
    }

    @Test("a value that outgrows its noted width gets the minimal encoding")
    func widening() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA3, 1, 2, 3])
        builder.add([0x10, 0x05])
        builder.add([0x51, 0x61])
        builder.add([0x14] + Array(repeating: 0, count: 15) + [0x02])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == [5, "a", 2])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        let edited: PlistValue = [70_000, "é", -2]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
        let objects = try objectBytes(bytes)
        #expect(objects[1] == [0x12, 0x00, 0x01, 0x11, 0x70])
        #expect(objects[2] == [0x61, 0x00, 0xE9])
        #expect(objects[3] == [0x13] + Array(repeating: 0xFF, count: 7) + [0xFE])
    }

    @Test("editing one use of a shared container leaves the other uses shared")
    func sharedContainerEdit() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA3, 1, 1, 1])
        builder.add([0xA2, 2, 3])
        builder.add([0x51, 0x78])
        builder.add([0x10, 0x01])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        guard case .array(var elements) = value else { Issue.record("not an array"); return }
        elements[2] = ["x", 2]
        let bytes = try BinaryPlistWriter().write(.array(elements), layout: layout)
        #expect(try readBinary(bytes).value == .array(elements))
        let objects = try objectBytes(bytes)
        // The first two uses still name object 1; the edited one is a new array sharing "x".
        #expect(objects[0] == [0xA3, 1, 1, 4])
        #expect(Array(objects[1...3]) == [[0xA2, 2, 3], [0x51, 0x78], [0x10, 0x01]])
        #expect(objects[4] == [0xA2, 2, 5])
        #expect(objects[5] == [0x10, 0x02])
    }

    @Test("a kind change ignores the note and falls back to the standard encoding")
    func kindChange() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xD1, 1, 2])
        builder.add([0x51, 0x6B])
        builder.add([0x62, 0x00, 0x61, 0x00, 0x62])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == ["k": "ab"])
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        let edited: PlistValue = ["k": [1]]
        let bytes = try BinaryPlistWriter().write(edited, layout: layout)
        #expect(try readBinary(bytes).value == edited)
    }

    @Test("orphaned booleans survive a rewrite")
    func orphanCopies() throws {
        let fresh = try BinaryPlistWriter().write([true, ["k": true], false, false])
        let (value, layout) = try readBinary(fresh)
        #expect(layout?.keptOrphans.map(\.marker) == [0x09, 0x08])
        #expect(layout?.copies.isEmpty == true)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == fresh)
    }
}

@Suite("Binary layout: mismatched notes")
struct BinaryLayoutMismatchTests {
    @Test("any value written with any file's notes reads back equal",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func foreignNotes() throws {
        let decoded = try BinaryFixtures.validRows.map { try readBinary($0.bytes) }
        var pairs = 0
        for (i, source) in decoded.enumerated() {
            // Each file's notes applied to a few other files' values, and to edited copies.
            for offset in [1, 31] {
                let other = decoded[(i + offset) % decoded.count].value
                let bytes = try BinaryPlistWriter().write(other, layout: source.layout)
                #expect(try readBinary(bytes).value == other)
                pairs += 1
            }
            if case .dictionary(var top) = source.value, let firstKey = top.keys.first {
                top[firstKey] = ["replaced", 1, [true]]
                let bytes = try BinaryPlistWriter().write(.dictionary(top), layout: source.layout)
                #expect(try readBinary(bytes).value == .dictionary(top))
            }
            if case .array(var elements) = source.value, !elements.isEmpty {
                elements.removeFirst()
                elements.append(.data(Data([1, 2, 3])))
                let bytes = try BinaryPlistWriter().write(.array(elements), layout: source.layout)
                #expect(try readBinary(bytes).value == .array(elements))
            }
        }
        #expect(pairs == decoded.count * 2)
    }
}

@Suite("Binary layout: orphan copies")
struct BinaryOrphanCopiesTests {
    /// Orphan contents and reachable candidates drawn from a small alphabet of short byte strings,
    /// so that many orphans share contents and many candidates repeat. None starts with the
    /// marker of a kept orphan (a boolean, null or a UID of up to three bytes), which the pass
    /// does not pair.
    private static func sample(seed: UInt64, orphans: Int, candidates: Int) -> (orphans: [[UInt8]], candidates: [[UInt8]]) {
        var random = SplitMix(seed: seed)
        func draw() -> [UInt8] {
            let length = Int.random(in: 0...10, using: &random)
            return [UInt8.random(in: 0x83...0x84, using: &random)] + (0..<length).map { _ in UInt8.random(in: 0x80...0x83, using: &random) }
        }
        return ((0..<orphans).map { _ in draw() }, (0..<candidates).map { _ in draw() })
    }

    /// Orphans, then candidates, as the objects of a file, counting how far the walk over the
    /// reachable ones went.
    private final class ListedObjects: OrphanSource {
        let contents: [UnsafeRawBufferPointer]
        let orphanCount: Int
        var furthest = -1
        init(_ contents: [UnsafeRawBufferPointer], orphanCount: Int) {
            self.contents = contents
            self.orphanCount = orphanCount
        }
        var objectCount: Int { contents.count }
        func isOrphan(_ index: Int) -> Bool { index < orphanCount }
        func marker(ofReachable index: Int) -> UInt8 {
            furthest = max(furthest, index)
            return contents[index][0]
        }
        func content(of index: Int) -> UnsafeRawBufferPointer? { contents[index] }
    }

    /// Pairs the sample's orphans with its candidates: each orphan's original as a candidate
    /// position (-1 for a kept orphan, nil when it has none; the whole answer nil when the table
    /// gave up), and how many candidates the walk looked at.
    private static func originals(
        _ sample: (orphans: [[UInt8]], candidates: [[UInt8]]), hashed: Bool, probeLimit: Int = BinaryOrphanCopies.probeLimit
    ) -> (answer: [Int?]?, asked: Int) {
        // Every byte string in one buffer, as the objects of a file are.
        let strings = sample.orphans + sample.candidates
        var starts = [0]
        for string in strings { starts.append(starts.last! + string.count) }
        let all = strings.flatMap { $0 }
        let orphanCount = sample.orphans.count
        return all.withUnsafeBytes { raw in
            let slices = strings.indices.map { UnsafeRawBufferPointer(rebasing: raw[starts[$0]..<starts[$0 + 1]]) }
            let objects = ListedObjects(slices, orphanCount: orphanCount)
            let paired = BinaryOrphanCopies.pair(objects, orphanCount: orphanCount, probeLimit: probeLimit, hashed: hashed)
            guard let paired else { return (nil, objects.furthest + 1 - orphanCount) }
            var answer = [Int?](repeating: nil, count: orphanCount)
            for copy in paired.copies { answer[Int(copy.object)] = Int(copy.original) - orphanCount }
            for kept in paired.kept {
                #expect(answer[Int(kept.object)] == nil)
                answer[Int(kept.object)] = -1
            }
            #expect(paired.unmatched == answer.filter { $0 == nil }.count)
            #expect(paired.copies.map(\.object) == paired.copies.map(\.object).sorted())
            return (answer, objects.furthest + 1 - orphanCount)
        }
    }

    @Test("the hashed table pairs each orphan with the first equal candidate, as the dictionary does")
    func hashedMatchesDictionary() {
        for seed in 1...20 as ClosedRange<UInt64> {
            let sample = Self.sample(seed: seed, orphans: Int(seed) * 13, candidates: 400)
            let expected = sample.orphans.map { orphan in sample.candidates.firstIndex(of: orphan) }
            let hashed = Self.originals(sample, hashed: true)
            let viaDictionary = Self.originals(sample, hashed: false)
            #expect(hashed.answer == expected, "seed \(seed)")
            #expect(viaDictionary.answer == expected, "seed \(seed)")
        }
    }

    @Test("the walk over the reachable objects stops at the end of the stretch where the last content found its original")
    func stopsOnceEveryContentIsFound() {
        for seed in 1...6 as ClosedRange<UInt64> {
            var random = SplitMix(seed: seed)
            // Four-byte UIDs (short keys) and longer strings, every orphan's content among the
            // first candidates, then many more.
            let alphabet: [[UInt8]] = (0..<40).map { [0x83, 0, 0, 0, UInt8($0)] }
                + (0..<20).map { [0x5A, 0x61 + UInt8($0), 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x70] }
            let orphans = (0..<300).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            let candidates = alphabet.shuffled(using: &random)
                + (0..<3000).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            let sample = (orphans: orphans, candidates: candidates)
            let lastNeeded = Set(orphans).map { candidates.firstIndex(of: $0)! }.max()!
            let stretchEnd = (orphans.count + lastNeeded) / BinaryOrphanCopies.stretch * BinaryOrphanCopies.stretch
                + BinaryOrphanCopies.stretch
            for hashed in [true, false] {
                let paired = Self.originals(sample, hashed: hashed)
                #expect(paired.answer == orphans.map { candidates.firstIndex(of: $0) }, "seed \(seed)")
                #expect(paired.asked == Swift.min(stretchEnd, orphans.count + candidates.count) - orphans.count, "seed \(seed)")
            }
        }
    }

    @Test("a kept one-byte orphan is told apart from longer contents that start with its byte")
    func oneByteContents() {
        let sample: (orphans: [[UInt8]], candidates: [[UInt8]]) = (
            orphans: [[0x09], [0x09, 0x01], [0x08], [0x09], [0x50]],
            candidates: [[0x09, 0x01], [0x50], [0x09], [0x09, 0x02]])
        for hashed in [true, false] {
            #expect(Self.originals(sample, hashed: hashed).answer == [-1, 0, -1, -1, 1], "hashed: \(hashed)")
        }
    }

    @Test("UIDs of one value in two widths are two contents, each paired with its own twin")
    func uidWidths() {
        // UID 5 in four and five bytes, paired; UID 7 in one byte, kept.
        let sample: (orphans: [[UInt8]], candidates: [[UInt8]]) = (
            orphans: [[0x83, 0, 0, 0, 0x05], [0x84, 0, 0, 0, 0, 0x05], [0x83, 0, 0, 0, 0x05], [0x80, 0x07]],
            candidates: [[0x84, 0, 0, 0, 0, 0x05], [0x80, 0x07], [0x83, 0, 0, 0, 0x05]])
        for hashed in [true, false] {
            #expect(Self.originals(sample, hashed: hashed).answer == [2, 0, 2, -1], "hashed: \(hashed)")
        }
    }

    @Test("a probe sequence past the limit gives up, so the caller can fall back")
    func probeLimitGivesUp() {
        // With one probe allowed, 300 distinct contents in a 1,024-slot table must collide.
        var random = SplitMix(seed: 77)
        let contents = Set((0..<300).map { _ in (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) } })
        let sample = (orphans: Array(contents), candidates: Array(contents))
        let limited = Self.originals(sample, hashed: true, probeLimit: 1)
        #expect(limited.answer == nil)
        let unlimited = Self.originals(sample, hashed: true)
        #expect(unlimited.answer == sample.orphans.indices.map { Optional($0) })
    }

    /// The contents of a file's objects, with the protocol's key, taken from the contents.
    private struct ContentsOnly: OrphanSource {
        let contents: BinaryOrphanCopies.ObjectContents
        let objectCount: Int
        func isOrphan(_ index: Int) -> Bool { false }
        func marker(ofReachable index: Int) -> UInt8 { 0 }
        func content(of index: Int) -> UnsafeRawBufferPointer? { contents.content(of: index) }
    }

    @Test("the key read from the file is that of the object's bytes, for every object of the corpus",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func shortKeysOfTheCorpus() throws {
        var keyed = 0
        for row in BinaryFixtures.binaryRows {
            try row.bytes.withUnsafeBytes { raw in
                guard let trailer = try? BinaryTrailer(raw) else { return }
                let contents = BinaryOrphanCopies.ObjectContents(bytes: raw, trailer: trailer)
                let reference = ContentsOnly(contents: contents, objectCount: trailer.objectCount)
                for index in 0..<trailer.objectCount {
                    guard let fast = contents.shortKey(of: index) else { continue }
                    keyed += 1
                    let expected = try #require(reference.shortKey(of: index), "\(row.path) object \(index)")
                    #expect(fast == expected, "\(row.path) object \(index)")
                }
            }
        }
        // Booleans, null and UIDs are in most files.
        #expect(keyed > 10_000)
    }
}
