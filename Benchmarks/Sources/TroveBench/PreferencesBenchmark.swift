import Foundation
import Trove

/// `TroveBench --preferences [--quick]`: Trove's ``Preferences`` against Foundation's
/// `UserDefaults` in one process: a cached read, a write followed by a flush of a small domain
/// (with and without `fsync` for Trove; `synchronize()` for Foundation), and a cold open (a domain
/// of 200 keys this process has not read before, up to its first value).
///
/// Both keep their files under one scratch directory: Trove's through `directory:`, Foundation's
/// through `XDG_CONFIG_HOME`, set before Foundation first looks at it.
enum PreferencesBenchmark {
    static let flag = "--preferences"

    static func run(arguments: ArraySlice<String>) -> Int32 {
        let quick = arguments.contains("--quick")
        #if DEBUG
        progress("warning: this is a debug build; numbers are meaningless. Build with -c release.")
        #endif
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trovebench-prefs-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try? FileManager.default.createDirectory(atPath: scratch + "/xdg", withIntermediateDirectories: true)
        setenv("XDG_CONFIG_HOME", scratch + "/xdg", 1)
        print("TroveBench preferences, \(ISO8601DateFormatter().string(from: Date()))")
        print("machine: \(machineDescription())")
        print()
        let reads = quick ? 200_000 : 2_000_000
        let writes = quick ? 200 : 2_000
        let opens = quick ? 50 : 300
        var rows: [(String, Double, Double)] = []

        // Cached read.
        let trove = Preferences(suiteName: "bench.read", directory: scratch, arguments: [])
        let foundation = UserDefaults(suiteName: "bench.read")!
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
        let foundationWrite = UserDefaults(suiteName: "bench.write")!
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

        // Cold open: a 200-key domain file written once per open, under a name not read before.
        var template = PlistDictionary()
        for i in 0..<200 { template["key\(i)"] = .string("value number \(i)") }
        let bytes = (try? Plist.write(.dictionary(template), as: .binary)) ?? Data()
        for i in 0..<opens {
            _ = FileManager.default.createFile(atPath: "\(scratch)/bench.cold\(i).plist", contents: bytes)
            _ = FileManager.default.createFile(atPath: "\(scratch)/xdg/bench.cold.f\(i).plist", contents: bytes)
        }
        let troveCold = perOperation(opens) { i in
            blackHole(Preferences(suiteName: "bench.cold\(i)", directory: scratch, arguments: []).string(forKey: "key7"))
        }
        let foundationCold = perOperation(opens) { i in
            blackHole(UserDefaults(suiteName: "bench.cold.f\(i)")!.string(forKey: "key7"))
        }
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
