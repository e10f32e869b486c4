import Foundation
import Trove

/// `TroveBench --preferences [--quick]`: Trove's ``Preferences`` against Foundation's
/// `UserDefaults` in one process: a cached read, a write followed by a flush of a small domain
/// (with and without `fsync` for Trove; `synchronize()` for Foundation), and a cold open (a domain
/// of 200 keys this process has not read before, up to its first value).
///
/// Trove keeps its files in a scratch directory (`directory:`); Foundation keeps its own where it
/// always does on Linux (`$XDG_CONFIG_HOME`, else `~/.config`, as the process started: setting
/// the variable later does not move it), under names this run removes again.
enum PreferencesBenchmark {
    static let flag = "--preferences"

    static func run(arguments: ArraySlice<String>) -> Int32 {
        let quick = arguments.contains("--quick")
        #if DEBUG
        progress("warning: this is a debug build; numbers are meaningless. Build with -c release.")
        #endif
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trovebench-prefs-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let environment = ProcessInfo.processInfo.environment
        let foundationDirectory = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.config"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: foundationDirectory, withIntermediateDirectories: true)
        let prefix = "trovebench.\(getpid())"
        defer {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: foundationDirectory)) ?? [] where name.hasPrefix(prefix) {
                try? FileManager.default.removeItem(atPath: foundationDirectory + "/" + name)
            }
        }
        print("TroveBench preferences, \(ISO8601DateFormatter().string(from: Date()))")
        print("machine: \(machineDescription())")
        print()
        let reads = quick ? 200_000 : 2_000_000
        let writes = quick ? 200 : 2_000
        let opens = quick ? 50 : 300
        var rows: [(String, Double, Double)] = []

        // Cached read.
        let trove = Preferences(suiteName: "bench.read", directory: scratch, arguments: [])
        let foundation = UserDefaults(suiteName: "\(prefix).read")!
        for i in 0..<20 {
            trove.set(i, forKey: "key\(i)")
            foundation.set(i, forKey: "key\(i)")
        }
        try? trove.synchronize()
        foundation.synchronize()
        let troveRead = perOperation(reads) { i in blackHole(trove.integer(forKey: "key\(i % 20)")) }
        let foundationRead = perOperation(reads) { i in blackHole(foundation.integer(forKey: "key\(i % 20)")) }
        rows.append(("cached read (integer(forKey:))", troveRead, foundationRead))

        // Write + flush of a 20-key domain.
        let unflushed = Preferences(suiteName: "bench.write", directory: scratch, arguments: [])
        let flushed = Preferences(suiteName: "bench.write.sync", directory: scratch, arguments: [], durability: .flushed)
        let foundationWrite = UserDefaults(suiteName: "\(prefix).write")!
        for i in 0..<20 {
            unflushed.set("value \(i)", forKey: "key\(i)")
            flushed.set("value \(i)", forKey: "key\(i)")
            foundationWrite.set("value \(i)", forKey: "key\(i)")
        }
        let troveWrite = perOperation(writes) { i in
            unflushed.set(i, forKey: "key\(i % 20)")
            try? unflushed.synchronize()
        }
        let troveWriteSynced = perOperation(writes / 4) { i in
            flushed.set(i, forKey: "key\(i % 20)")
            try? flushed.synchronize()
        }
        let foundationWriteTime = perOperation(writes) { i in
            foundationWrite.set(i, forKey: "key\(i % 20)")
            foundationWrite.synchronize()
        }
        rows.append(("write + flush, 20 keys (no fsync)", troveWrite, foundationWriteTime))
        rows.append(("write + flush, 20 keys (fsync)", troveWriteSynced, foundationWriteTime))

        // Cold open: a 200-key domain file this process has not opened before, each time (every
        // round of the timing gets files of its own, so no cache from an earlier round helps).
        var template = PlistDictionary()
        for i in 0..<200 { template["key\(i)"] = .string("value number \(i)") }
        let bytes = (try? Plist.write(.dictionary(template), as: .binary)) ?? Data()
        for i in 0..<(opens * 5) {
            _ = FileManager.default.createFile(atPath: "\(scratch)/bench.cold\(i).plist", contents: bytes)
            _ = FileManager.default.createFile(atPath: "\(foundationDirectory)/\(prefix).cold\(i).plist", contents: bytes)
        }
        var nextTrove = 0
        let troveCold = perOperation(opens) { _ in
            blackHole(Preferences(suiteName: "bench.cold\(nextTrove)", directory: scratch, arguments: []).string(forKey: "key7"))
            nextTrove += 1
        }
        var nextFoundation = 0
        var found = 0
        let foundationCold = perOperation(opens) { _ in
            let value = UserDefaults(suiteName: "\(prefix).cold\(nextFoundation)")!.string(forKey: "key7")
            nextFoundation += 1
            if value != nil { found += 1 }
            blackHole(value)
        }
        if found < opens * 5 { progress("warning: Foundation found \(found) of its \(opens * 5) cold-open files in \(foundationDirectory)") }
        rows.append(("cold open + first read, 200 keys", troveCold, foundationCold))

        print("operation                              Trove        UserDefaults  Trove speed-up")
        for (name, ours, theirs) in rows {
            print(name.padding(toLength: 38, withPad: " ", startingAt: 0)
                + format(ours).padding(toLength: 13, withPad: " ", startingAt: 0)
                + format(theirs).padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(format: "%.2fx", theirs / ours))
        }
        return 0
    }

    /// Median of five rounds of the mean time per operation, in seconds.
    private static func perOperation(_ count: Int, _ body: (Int) -> Void) -> Double {
        var rounds: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for i in 0..<count { body(i) }
            let elapsed = ContinuousClock.now - start
            rounds.append((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) / Double(count))
        }
        return rounds.sorted()[2]
    }

    private static func format(_ seconds: Double) -> String {
        seconds < 1e-6 ? String(format: "%.0f ns", seconds * 1e9)
            : seconds < 1e-3 ? String(format: "%.1f µs", seconds * 1e6) : String(format: "%.2f ms", seconds * 1e3)
    }

    @inline(never)
    private static func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
}
