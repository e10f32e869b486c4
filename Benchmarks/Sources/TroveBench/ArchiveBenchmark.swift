import Foundation
import BenchmarkModels
import Trove

/// `TroveBench --archive [--quick] [--sizes 1000,10000,...]`: archive and unarchive generated
/// object graphs with Trove's `KeyedArchiver`/`KeyedUnarchiver` and Foundation's
/// `NSKeyedArchiver`/`NSKeyedUnarchiver`, in the same process, alternating, with time and peak
/// memory.
///
/// The graph: N/3 nodes (so about N entries of `$objects`: each node, its name string and its
/// `friends` array; numbers in place), each with a name, an integer, a real and up to three
/// friends chosen among the nodes before it, so most nodes are referenced several times. The root
/// is the array of all nodes. Both engines archive the same graph, and each unarchives its own
/// archive; the run checks that each can read the other's and that the tables have as many entries.
enum ArchiveBenchmark {
    static let flag = "--archive"

    private struct Settings {
        var sizes = [1_000, 10_000, 50_000, 100_000]
        var runs = 5
        var troveOnly = false
        var foundationArchiveLimit = 60_000

        init(arguments: ArraySlice<String>) {
            var remaining = arguments
            while let argument = remaining.popFirst() {
                switch argument {
                case "--quick": runs = 3
                case "--full": runs = 11
                case "--trove-only": troveOnly = true
                case "--foundation-archive-limit": foundationArchiveLimit = Int(remaining.popFirst() ?? "") ?? foundationArchiveLimit
                case "--sizes": sizes = (remaining.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                default: fail("--archive takes --quick, --full and --sizes N,N,...; unknown \(argument)")
                }
            }
        }
    }

    static func run(arguments: ArraySlice<String>) -> Int32 {
        let settings = Settings(arguments: arguments)
        #if DEBUG
        progress("warning: this is a debug build; numbers are meaningless. Build with -c release.")
        #endif
        print("TroveBench keyed archives, \(ISO8601DateFormatter().string(from: Date()))")
        print("machine: \(machineDescription())")
        print("median of \(settings.runs) runs (3 for Foundation's unarchiver above 10,000 objects, 1 for its archiver); peak = resident-set growth of one run")
        print()
        print("| objects | archive: trove | Foundation | ratio | unarchive: trove | Foundation | ratio | trove µs/object (archive, unarchive) | peak MiB trove / Foundation (archive; unarchive) |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        var failed = false
        for size in settings.sizes {
            progress("graph of ~\(size) objects")
            do {
                if settings.troveOnly {
                    print(try troveRow(size: size, runs: settings.runs))
                    continue
                }
                print(try row(size: size, runs: settings.runs, foundationArchiveLimit: settings.foundationArchiveLimit))
            } catch {
                print("| \(size) | failed: \(error) |")
                failed = true
            }
        }
        return failed ? 1 : 0
    }

    private static func makeGraphs(objects: Int) -> ([BenchNode], NSArray) {
        let nodes = BenchNode.graph(objects: objects)
        var twins: [BenchFNode] = []
        twins.reserveCapacity(nodes.count)
        var index: [ObjectIdentifier: Int] = [:]
        for (position, node) in nodes.enumerated() {
            index[ObjectIdentifier(node)] = position
            twins.append(BenchFNode(
                name: node.name, value: node.value, score: node.score,
                friends: node.friends.map { twins[index[ObjectIdentifier($0)]!] }))
        }
        return (nodes, twins as NSArray)
    }

    private static func row(size: Int, runs: Int, foundationArchiveLimit: Int) throws -> String {
        let (nodes, twins) = makeGraphs(objects: size)
        let registry = ArchiveClassRegistry([BenchNode.self])
        let clock = ContinuousClock()
        var ours = Data(), theirs = Data()
        var ourArchive: [Duration] = [], theirArchive: [Duration] = [], ourUnarchive: [Duration] = [], theirUnarchive: [Duration] = []
        let foundationRuns = size > 10_000 ? 1 : runs
        // Its unarchiver is linear but slow (half a second at 50,000 objects): three runs above
        // 10,000 objects, so that one slow run does not decide the ratio.
        let foundationUnarchiveRuns = size > 10_000 ? min(runs, 3) : runs
        // Foundation's archiver is quadratic (34 s for 9,000 objects on this machine); above
        // `foundationArchiveLimit` objects it is not run, and the table says so.
        let runsFoundationArchive = size <= foundationArchiveLimit
        // Peak memory of one run each, before the timed runs.
        let ourArchivePeak = try peak { ours = try KeyedArchiver().archive(nodes) }
        var theirArchivePeak: Int?
        if runsFoundationArchive {
            progress("Foundation archives ~\(size) objects (one run; it is quadratic)")
            let elapsed = try clock.measure {
                theirArchivePeak = try peak { theirs = try NSKeyedArchiver.archivedData(withRootObject: twins, requiringSecureCoding: false) }
            }
            theirArchive.append(elapsed)
            progress("Foundation archived in \(format(elapsed))")
        } else {
            // Foundation's unarchiver still needs an archive: ours has the same table.
            theirs = ours
        }
        var decoded: [BenchNode] = []
        let ourUnarchivePeak = try peak { decoded = try KeyedUnarchiver(registry: registry).decode([BenchNode].self, from: ours) }
        var theirDecoded: [BenchFNode] = []
        let theirUnarchivePeak = try peak { theirDecoded = try foundationUnarchive(theirs) }
        let entries = try KeyedArchive(data: ours).objects.count
        guard entries == (try KeyedArchive(data: theirs).objects.count) else { throw BenchError("the tables differ in size") }
        guard decoded.count == nodes.count, theirDecoded.count == nodes.count,
            try KeyedUnarchiver(registry: registry).decode([BenchNode].self, from: theirs).count == nodes.count
        else { throw BenchError("a graph did not come back whole") }
        for run in 0..<runs {
            ourArchive.append(try clock.measure { ours = try KeyedArchiver().archive(nodes) })
            if runsFoundationArchive, run > 0, run < foundationRuns {
                theirArchive.append(try clock.measure { theirs = try NSKeyedArchiver.archivedData(withRootObject: twins, requiringSecureCoding: false) })
            }
            // The previous run's graph is released before the clock starts, for both engines:
            // the table measures decoding, not freeing the last result.
            decoded = []
            ourUnarchive.append(try clock.measure { decoded = try KeyedUnarchiver(registry: registry).decode([BenchNode].self, from: ours) })
            if run < foundationUnarchiveRuns {
                theirDecoded = []
                theirUnarchive.append(try clock.measure { theirDecoded = try foundationUnarchive(theirs) })
            }
        }
        withExtendedLifetime((decoded, theirDecoded)) {}
        let (a, b, c, d) = (median(ourArchive), median(theirArchive), median(ourUnarchive), median(theirUnarchive))
        let archiveRatio = runsFoundationArchive ? String(format: "%.1f×", seconds(b) / seconds(a)) : "–"
        let foundationArchive = runsFoundationArchive ? format(b) : "not run"
        func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f", Double($0) / 1024) } ?? "?" }
        let perObject = String(format: "%.2f, %.2f", seconds(a) * 1e6 / Double(entries), seconds(c) * 1e6 / Double(entries))
        return "| \(entries) | \(format(a)) | \(foundationArchive) | \(archiveRatio) | \(format(c)) | \(format(d)) | \(String(format: "%.1f×", seconds(d) / seconds(c))) | \(perObject) | \(mib(ourArchivePeak)) / \(mib(theirArchivePeak)); \(mib(ourUnarchivePeak)) / \(mib(theirUnarchivePeak)) |"
    }

    /// Trove alone (for profiling, and for sizes where Foundation takes minutes).
    private static func troveRow(size: Int, runs: Int) throws -> String {
        let (nodes, _) = makeGraphs(objects: size)
        let registry = ArchiveClassRegistry([BenchNode.self])
        let clock = ContinuousClock()
        var ours = Data()
        var decoded: [BenchNode] = []
        var archive: [Duration] = [], unarchive: [Duration] = []
        for _ in 0..<runs {
            archive.append(try clock.measure { ours = try KeyedArchiver().archive(nodes) })
            decoded = []
            unarchive.append(try clock.measure { decoded = try KeyedUnarchiver(registry: registry).decode([BenchNode].self, from: ours) })
        }
        withExtendedLifetime(decoded) {}
        let entries = try KeyedArchive(data: ours).objects.count
        // Where the time goes: building the table, writing it, reading it, decoding it.
        var value = PlistValue.null
        var table: KeyedArchive?
        let build = try clock.measure { value = try KeyedArchiver().archivedValue(topLevel: [("root", nodes)]) }
        let write = try clock.measure { ours = try Plist.write(value, as: .binary) }
        let read = try clock.measure { table = try KeyedArchive(data: ours) }
        let decode = try clock.measure { decoded = try KeyedUnarchiver(registry: registry).decode([BenchNode].self, from: table!) }
        progress("phases: build \(format(build)), write \(format(write)), read \(format(read)), decode \(format(decode))")
        let (a, c) = (median(archive), median(unarchive))
        let perObject = String(format: "%.2f, %.2f", seconds(a) * 1e6 / Double(entries), seconds(c) * 1e6 / Double(entries))
        return "| \(entries) | \(format(a)) | – | – | \(format(c)) | – | – | \(perObject) | – |"
    }

    private static func foundationUnarchive(_ data: Data) throws -> [BenchFNode] {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        guard let nodes = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [BenchFNode] else {
            throw BenchError("Foundation did not unarchive the graph")
        }
        return nodes
    }

    private static func peak(_ body: () throws -> Void) throws -> Int? {
        let gauge = MemoryGauge.start()
        try body()
        return gauge?.growthKiB()
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func median(_ times: [Duration]) -> Duration {
        let sorted = times.sorted()
        return sorted.isEmpty ? .zero : sorted[sorted.count / 2]
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func format(_ duration: Duration) -> String {
        let value = seconds(duration)
        if value >= 1 { return String(format: "%.2f s", value) }
        if value >= 1e-3 { return String(format: "%.1f ms", value * 1e3) }
        return String(format: "%.0f µs", value * 1e6)
    }
}

/// Foundation's twin of ``BenchNode``; both archive under Foundation's name for this class.
final class BenchFNode: NSObject, NSCoding {
    var name: String
    var value: Int
    var score: Double
    var friends: [BenchFNode]

    init(name: String, value: Int, score: Double, friends: [BenchFNode]) {
        (self.name, self.value, self.score, self.friends) = (name, value, score, friends)
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(value, forKey: "value")
        coder.encode(score, forKey: "score")
        coder.encode(friends, forKey: "friends")
    }

    required init?(coder: NSCoder) {
        name = coder.decodeObject(forKey: "name") as? String ?? ""
        value = coder.decodeInteger(forKey: "value")
        score = coder.decodeDouble(forKey: "score")
        friends = coder.decodeObject(forKey: "friends") as? [BenchFNode] ?? []
    }
}
