import Testing
@testable import TroveCore

/// The lossless read's notes of unreferenced objects: booleans, null and short UIDs kept as
/// their own bytes (``BinaryLayout/KeptOrphan``), any other orphan paired with its first
/// reachable twin.
@Suite("Binary layout: kept orphans")
struct BinaryKeptOrphansTests {
    @Test("every fixture's kept orphans and copies are those a slow search finds",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func corpus() throws {
        var kept = 0
        for row in BinaryFixtures.validRows {
            let layout = try #require(try readBinary(row.bytes).layout, "\(row.path)")
            let expected = try #require(slowOrphans(row.bytes), "\(row.path)")
            #expect(keptOrphanRows(layout) == expected.kept, "\(row.path)")
            #expect(layout.copies.map { [Int($0.object), Int($0.original)] } == expected.copies, "\(row.path)")
            #expect(layout.unmatchedOrphanCount == expected.unmatched, "\(row.path)")
            kept += expected.kept.count
        }
        // The keyed archives written by Xcode alone leave thousands.
        #expect(kept > 10_000)
    }

    /// Reachable booleans, null and UIDs, orphans of the same bytes, and, when `withLonely`,
    /// orphans whose bytes nothing reachable holds.
    private static func shortOrphans(withLonely: Bool) -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA6, 6, 5, 8, 7, 3, 2])  // 0: top
        builder.add([0x80, 0x04])  // 1: orphan, as 3
        builder.add([0x08])  // 2: false
        builder.add([0x80, 0x04])  // 3: UID 4
        builder.add([0x08])  // 4: orphan, as 2
        builder.add([0x80, 0x04])  // 5: UID 4 again
        builder.add([0x08])  // 6: false again
        builder.add([0x82, 0x00, 0x00, 0x04])  // 7: UID 4 in three bytes
        builder.add([0x00])  // 8: null
        builder.add([0x82, 0x00, 0x00, 0x04])  // 9: orphan, as 7
        builder.add([0x00])  // 10: orphan, as 8
        if withLonely {
            builder.add([0x81, 0x00, 0x04])  // 11: a width of UID 4 nothing reachable has
            builder.add([0x09])  // 12: a true nothing reachable is
        }
        return builder.build()
    }

    @Test("short orphans are kept as their bytes, whether or not a reachable object holds them")
    func keptWithOrWithoutTwin() throws {
        for withLonely in [false, true] {
            let file = Self.shortOrphans(withLonely: withLonely)
            let (value, layout) = try readBinary(file)
            let notes = try #require(layout)
            var expected = [[1, 0x80, 0x04], [4, 0x08], [9, 0x82, 0x00, 0x00, 0x04], [10, 0x00]]
            if withLonely { expected += [[11, 0x81, 0x00, 0x04], [12, 0x09]] }
            #expect(keptOrphanRows(notes) == expected)
            #expect(keptOrphanRows(notes) == slowOrphans(file)?.kept)
            #expect(notes.copies.isEmpty)
            #expect(notes.reproducesSource)
            #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        }
    }

    @Test("a kept orphan keeps its bytes when the reachable objects of the same bytes are removed")
    func keptThroughAnEdit() throws {
        let file = Self.shortOrphans(withLonely: true)
        let (value, layout) = try readBinary(file)
        guard case .array(var elements) = value else { Issue.record("top is not an array"); return }
        // Every reachable false and UID: only null (object 8) stays reachable.
        elements.removeAll { $0 == .bool(false) || $0 == .uid(4) }
        let written = try BinaryPlistWriter().write(.array(elements), layout: layout)
        let orphans = try #require(slowOrphans(written))
        #expect(orphans.kept.map { Array($0.dropFirst()) } == [[0x80, 0x04], [0x08], [0x82, 0x00, 0x00, 0x04], [0x00], [0x81, 0x00, 0x04], [0x09]])
        #expect(orphans.copies.isEmpty && orphans.unmatched == 0)
        #expect(try readBinary(written).value == .array(elements))
    }

    @Test("longer orphans pair with their lowest-numbered reachable twin, beside kept ones")
    func longerOrphansPair() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 5, 2, 3, 4])  // 0: top, the later twin first
        builder.add([0x83, 0x00, 0x00, 0x01, 0x02])  // 1: orphan, as 3
        builder.add([0x80, 0x02])  // 2: UID 2
        builder.add([0x83, 0x00, 0x00, 0x01, 0x02])  // 3: UID 258 in four bytes
        builder.add([0x53, 0x61, 0x62, 0x63])  // 4: "abc"
        builder.add([0x83, 0x00, 0x00, 0x01, 0x02])  // 5: its twin, met first
        builder.add([0x80, 0x02])  // 6: orphan, kept
        builder.add([0x53, 0x61, 0x62, 0x63])  // 7: orphan, as 4
        builder.add([0x53, 0x61, 0x62, 0x64])  // 8: orphan, "abd", nothing reachable
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        let notes = try #require(layout)
        let expected = try #require(slowOrphans(file))
        #expect(keptOrphanRows(notes) == [[6, 0x80, 0x02]])
        #expect(notes.copies.map { [Int($0.object), Int($0.original)] } == [[1, 3], [7, 4]])
        #expect(expected.kept == keptOrphanRows(notes) && expected.copies == [[1, 3], [7, 4]] && expected.unmatched == 1)
        #expect(notes.unmatchedOrphanCount == 1)
        #expect(!notes.reproducesSource)
        // The unmatched orphan is dropped; everything else is written as it was.
        var withoutLast = builder
        withoutLast.objects.removeLast()
        #expect(try BinaryPlistWriter().write(value, layout: layout) == withoutLast.build())
    }

    @Test("a kept orphan is read from the first word of the file as from its bytes, for every object of the corpus",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func keptFromTheFirstWord() throws {
        var kept = 0
        for row in BinaryFixtures.binaryRows {
            try row.bytes.withUnsafeBytes { raw in
                guard let trailer = try? BinaryTrailer(raw) else { return }
                let contents = BinaryOrphanCopies.ObjectContents(bytes: raw, trailer: trailer)
                for index in 0..<trailer.objectCount {
                    let fast = contents.keptOrphan(index)
                    let slow = contents.content(of: index).flatMap { BinaryLayout.KeptOrphan(object: index, content: $0) }
                    #expect(fast == slow, "\(row.path) object \(index)")
                    if let fast {
                        kept += 1
                        let content = try #require(contents.content(of: index))
                        #expect(fast.length == content.count, "\(row.path) object \(index)")
                    }
                }
            }
        }
        #expect(kept > 10_000)
    }
}
