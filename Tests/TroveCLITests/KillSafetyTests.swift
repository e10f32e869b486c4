import Foundation
import Testing
import Trove
import TroveTestSupport

@Suite("Atomic replacement under kill -9", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct KillSafetyTests {
    /// Two large binary documents written by Foundation; converting either into its own format
    /// reproduces it byte for byte, so after any kill the target must equal one of them exactly.
    /// Most of their bytes are data objects, which read fast and write slowly, so that a good
    /// share of each run is spent writing, where a kill can do harm.
    private static func document(_ variant: Int) throws -> Data {
        var entries: [String: Any] = [:]
        for index in 0..<3 {
            let seed = UInt8(truncatingIfNeeded: variant &* 16 &+ index)
            entries["blob \(index)"] = Data(repeating: seed, count: 2 << 20)
        }
        for index in 0..<500 {
            entries["entry \(index)"] = ["variant": variant, "text": String(repeating: "\(variant)", count: 24), "n": index]
        }
        return try PropertyListSerialization.data(fromPropertyList: entries, format: .binary, options: 0)
    }

    @Test("a convert killed at a random moment leaves the old or the new file, never a torn one")
    func killedConvertNeverTearsTheTarget() throws {
        let directory = try TemporaryDirectory()
        let contents = [try Self.document(1), try Self.document(2)]
        let sources = [try directory.write(contents[0], as: "one.bplist"), try directory.write(contents[1], as: "two.bplist")]
        let target = try directory.write(contents[0], as: "target.plist")
        let binary = try #require(TroveExecutable.path)

        func start(_ source: String) throws -> ProcessRun {
            try ProcessRun(binary, ["convert", "binary1", "-o", target, source], timeLimit: .seconds(120))
        }

        // How long an uninterrupted conversion takes sets the range of kill moments; the faster
        // of two runs, since the first may pay for a cold cache. The test stays synchronous, as
        // a task suspended for the kill moment could resume long after it.
        var fastest = Duration.seconds(3600)
        for source in sources.reversed() {
            let probe = try start(source).blockingOutput()
            try #require(probe.status == 0, "a plain conversion must succeed before kills mean anything: \(probe.stderrText)")
            #expect(try bytes(of: target) == contents[sources.firstIndex(of: source) ?? 0])
            fastest = min(fastest, probe.duration)
        }
        let duration = Int(fastest / .microseconds(1))
        let earliest = duration / 10
        let window = max(1, duration - earliest)

        var generator = SplitMix(seed: 0x5eed)
        var killedMidway = 0
        for round in 0..<20 {
            let process = try start(sources[round % 2])
            usleep(UInt32(clamping: earliest + generator.below(window)))
            process.send(SIGKILL)
            if case .signaled = try process.blockingOutput().termination { killedMidway += 1 }
            let now = try bytes(of: target)
            #expect(now == contents[0] || now == contents[1], "round \(round): the target is torn (\(now.count) bytes)")
        }
        #expect(killedMidway > 0, "no conversion was interrupted, so nothing was tested")

        // A killed writer may leave its temporary file behind; it must be recognisable as ours.
        for name in try directory.contents() where !["one.bplist", "two.bplist", "target.plist"].contains(name) {
            #expect(AtomicFile.isTemporaryFileName(name), "unexpected file \(name)")
        }
    }
}
