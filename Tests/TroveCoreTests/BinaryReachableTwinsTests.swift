import Testing
@testable import TroveCore

/// The lossless read's pairing of orphans with their first reachable twin, through the notes
/// its scanner takes of booleans, null and UIDs (``BinaryReachableTwins``) and the general
/// pairing it falls back to.
@Suite("Binary layout: first reachable twins")
struct BinaryReachableTwinsTests {
    @Test("every fixture's orphan copies are those a slow search finds",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func corpus() throws {
        var orphans = 0
        for row in BinaryFixtures.validRows {
            let layout = try #require(try readBinary(row.bytes).layout, "\(row.path)")
            let expected = try #require(slowOrphanCopies(row.bytes), "\(row.path)")
            #expect(layout.copies.map { [Int($0.object), Int($0.original)] } == expected.copies, "\(row.path)")
            #expect(layout.unmatchedOrphanCount == expected.unmatched, "\(row.path)")
            orphans += expected.copies.count + expected.unmatched
        }
        // The keyed archives written by Xcode alone leave thousands.
        #expect(orphans > 10_000)
    }

    @Test("an orphan pairs with the lowest-numbered twin, whichever the walk meets first")
    func lowestNumberedTwin() throws {
        let file = Self.twinsMetOutOfOrder(withUnmatched: false)
        let (value, layout) = try readBinary(file)
        let notes = try #require(layout)
        let pairs = notes.copies.map { [Int($0.object), Int($0.original)] }
        #expect(pairs == [[1, 3], [4, 2], [9, 7], [10, 8]])
        #expect(pairs == slowOrphanCopies(file)?.copies)
        #expect(notes.reproducesSource)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)

        let unmatched = try #require(try readBinary(Self.twinsMetOutOfOrder(withUnmatched: true)).layout)
        #expect(unmatched.copies == notes.copies)
        #expect(unmatched.unmatchedOrphanCount == 2)
    }

    /// Reachable booleans, null and UIDs whose higher-numbered twins the walk meets first, with
    /// orphan copies, and two orphans nothing reachable holds when `withUnmatched`.
    private static func twinsMetOutOfOrder(withUnmatched: Bool) -> [UInt8] {
        var builder = BinaryPlistBuilder()
        builder.add([0xA6, 6, 5, 8, 7, 3, 2])  // 0: top, the later twins first
        builder.add([0x80, 0x04])  // 1: orphan copy of 3
        builder.add([0x08])  // 2: false
        builder.add([0x80, 0x04])  // 3: UID 4
        builder.add([0x08])  // 4: orphan copy of 2
        builder.add([0x80, 0x04])  // 5: UID 4 again
        builder.add([0x08])  // 6: false again
        builder.add([0x82, 0x00, 0x00, 0x04])  // 7: UID 4 in three bytes
        builder.add([0x00])  // 8: null
        builder.add([0x82, 0x00, 0x00, 0x04])  // 9: orphan copy of 7
        builder.add([0x00])  // 10: orphan copy of 8
        if withUnmatched {
            builder.add([0x81, 0x00, 0x04])  // 11: a width of UID 4 nothing reachable has
            builder.add([0x09])  // 12: a true nothing reachable is
        }
        return builder.build()
    }

    @Test("UIDs of one value in several widths, all reachable, pair by their own bytes")
    func mixedWidths() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA3, 4, 2, 3])  // 0: top
        builder.add([0x81, 0x00, 0x02])  // 1: orphan copy of 4
        builder.add([0x80, 0x02])  // 2: UID 2
        builder.add([0x81, 0x00, 0x02])  // 3: UID 2 in two bytes
        builder.add([0x81, 0x00, 0x02])  // 4: its twin, met first
        builder.add([0x80, 0x02])  // 5: orphan copy of 2
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        let notes = try #require(layout)
        #expect(notes.copies.map { [Int($0.object), Int($0.original)] } == [[1, 3], [5, 2]])
        #expect(notes.unmatchedOrphanCount == 0)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("the notes keep the lowest first of two scanners and mark a value met in two widths")
    func merge() throws {
        // A twin as the scanner reads it: from the object's first eight bytes.
        func twin(_ object: [UInt8]) throws -> OrphanTwins.Twin {
            let word = (object + [UInt8](repeating: 0, count: 8)).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            return try #require(OrphanTwins.Twin(firstWord: UInt64(littleEndian: word), room: object.count))
        }
        var mine = BinaryReachableTwins(objectCount: 10, noting: true)
        var theirs = BinaryReachableTwins(objectCount: 10, noting: true)
        mine.note(try twin([0x80, 0x03]), of: 7)  // UID 3 at object 7
        mine.note(try twin([0x09]), of: 5)  // true at object 5
        theirs.note(try twin([0x81, 0x00, 0x03]), of: 4)  // UID 3, two bytes, at object 4
        theirs.note(try twin([0x80, 0x01]), of: 2)  // UID 1 at object 2
        theirs.note(try twin([0x09]), of: 8)
        theirs.note(try twin([0x09]), of: 1)
        mine.merge(theirs)
        let view = mine.view!
        #expect(view.oneByteFirsts[0x09] == 2)
        #expect(view.uidMarkers?[3] == BinaryReachableTwins.mixedWidths)
        #expect(view.uidMarkers?[1] == 0x80)
        #expect(view.uidFirsts?[1] == 3)
        #expect(view.uidMarkers?[0] == 0)
        #expect(view.original(of: try twin([0x09])) == 1)
        #expect(view.original(of: try twin([0x80, 0x01])) == 2)
        #expect(view.original(of: try twin([0x81, 0x00, 0x01])) == -1)
        #expect(view.original(of: try twin([0x80, 0x03])) == nil)
        #expect(view.original(of: try twin([0x08])) == -1)
        // A plain read notes nothing and allocates nothing.
        #expect(BinaryReachableTwins(objectCount: 10, noting: false).view == nil)
    }
}
