import Testing
import TroveTestSupport
@testable import TroveCore

/// The walk a lossless binary read records, put together from pieces as a split read does:
/// in its own storage (pieces moving towards the end in place, pieces moving back set aside),
/// in new storage when its own is too small, and handed over at the end.
@Suite("Binary layout recorder: the walk put together from pieces")
struct BinaryLayoutRecorderTests {
    /// A recorder whose walk is `steps` leaf steps naming objects `first`, `first + 1`, ...
    private static func recorder(steps: Int, first: Int, objectCount: Int, expectedWalk: Int) -> BinaryLayoutRecorder {
        var recorder = BinaryLayoutRecorder(objectCount: objectCount, expectedWalk: expectedWalk)
        for step in 0..<steps { recorder.appendWalk(first + step) }
        return recorder
    }

    /// Cuts `range` into consecutive pieces of random lengths (some empty).
    private static func cut(_ range: Range<Int>, using random: inout SplitMix) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = range.lowerBound
        while start < range.upperBound {
            let end = Swift.min(range.upperBound, start + random.below(12))
            pieces.append(start..<end)
            start = end
        }
        return pieces
    }

    @Test(
        "pieces of its own walk and another's, in any order, give the concatenation",
        arguments: [(reserved: 400, seeds: 0..<40), (reserved: 16, seeds: 40..<80)])
    func piecesInAnyOrder(reserved: Int, seeds: Range<Int>) {
        for seed in seeds {
            var random = SplitMix(seed: UInt64(seed) &* 7919)
            let ownSteps = 20 + random.below(80)
            let start = random.below(ownSteps / 2)
            let otherSteps = random.below(120)
            let objectCount = 1000
            var own = Self.recorder(steps: ownSteps, first: 0, objectCount: objectCount, expectedWalk: reserved)
            let other = Self.recorder(steps: otherSteps, first: 500, objectCount: objectCount, expectedWalk: otherSteps)
            var order = Self.cut(start..<ownSteps, using: &random).map { (own: true, range: $0) }
                + Self.cut(0..<otherSteps, using: &random).map { (own: false, range: $0) }
            order.shuffle(using: &random)
            // Object numbers say where each step came from: own steps name their position,
            // the other walk's steps 500 plus theirs.
            let expected = Array(0..<start) + order.flatMap { piece in piece.range.map { (piece.own ? 0 : 500) + $0 } }
            let pieces = order.map { piece in piece.own ? own.walkPiece(piece.range) : other.walkPiece(piece.range) }
            own.replaceWalk(from: start, with: pieces)
            #expect(own.walkCount == expected.count, "seed \(seed)")
            let notes = own.finish()
            #expect(notes.walkObjects.map(Int.init) == expected, "seed \(seed)")
            #expect(Array(notes.walkExtents) == Array(repeating: 1, count: expected.count), "seed \(seed)")
        }
    }

    @Test("a walk that outgrows its reservation grows, and what was noted stays")
    func growth() {
        var recorder = Self.recorder(steps: 5000, first: 0, objectCount: 10_000, expectedWalk: 16)
        recorder.closeWalk(at: 0)
        let notes = recorder.finish()
        #expect(Array(notes.walkObjects) == (0..<5000).map(UInt32.init))
        #expect(notes.walkExtents.first == 5000)
        #expect(notes.walkExtents.dropFirst().allSatisfy { $0 == 1 })
    }

    @Test(
        "the walk handed over holds exactly the steps noted, whether its reservation was used or not",
        arguments: [
            (reserved: 3000, steps: 2900), (reserved: 3000, steps: 2400), (reserved: 20_000, steps: 2500), (reserved: 64, steps: 40),
            (reserved: 2_000_000, steps: 300_000),
        ])
    func handedOver(reserved: Int, steps: Int) {
        var recorder = Self.recorder(steps: steps, first: 0, objectCount: Swift.max(steps, 10_000), expectedWalk: reserved)
        let notes = recorder.finish()
        #expect(Array(notes.walkObjects) == (0..<steps).map(UInt32.init))
        #expect(notes.walkExtents.count == steps)
        // The reservation past the walk is given back (the allocator rounds a block up, a
        // mapped one to its page).
        let slack = 4096 / MemoryLayout<UInt32>.size + 16
        #expect(notes.walkObjects.reservedCount < steps + slack)
        #expect(notes.walkExtents.reservedCount < steps + slack)
    }
}
