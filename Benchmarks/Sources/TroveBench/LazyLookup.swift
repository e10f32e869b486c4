import Foundation
import Trove

/// `TroveBench --lazy [--quick] [--sizes MB,MB,...]`: one key from generated binary plists of
/// about 10 MB and 100 MB, read lazily from a memory-mapped file against a full decode, with
/// time and peak memory. Lazy lookup time should not grow with the file: it reads the trailer
/// and the objects on the key path only.
///
/// Each document is `{"meta": {...}, "records": [N records], "index": {id: record number}}`.
/// Two lookups are timed: `records.<N/2>.address.city`, whose cost is the path's length (an
/// array index reads one reference), and `index.<id>`, a key in a dictionary of N keys, which
/// compares key objects one by one (no value is decoded) and so grows with that dictionary's
/// width; it shows the worst case of a lazy lookup honestly.
enum LazyLookupBenchmark {
    /// The argument that selects this benchmark.
    static let flag = "--lazy"

    private struct Settings {
        var sizesInMB = [10, 100]
        var runs = 7
        var fullRuns = 3

        init(arguments: ArraySlice<String>) {
            var remaining = arguments
            while let argument = remaining.popFirst() {
                switch argument {
                case "--quick": (runs, fullRuns) = (3, 1)
                case "--full": (runs, fullRuns) = (25, 5)
                case "--sizes":
                    sizesInMB = (remaining.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                default: fail("--lazy takes --quick, --full and --sizes MB,MB,...; unknown \(argument)")
                }
            }
            if sizesInMB.isEmpty { fail("--sizes needs positive sizes in MB, e.g. 10,100") }
        }
    }

    /// Runs the benchmark and returns the exit status.
    static func run(arguments: ArraySlice<String>) -> Int32 {
        let settings = Settings(arguments: arguments)
        #if DEBUG
        progress("warning: this is a debug build; numbers are meaningless. Build with -c release.")
        #endif
        print("TroveBench lazy lookup, \(ISO8601DateFormatter().string(from: Date()))")
        print("machine: \(machineDescription())")
        print()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trovebench-lazy-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var rows: [String] = []
        var failed = false
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for megabytes in settings.sizesInMB {
                progress("generating a ~\(megabytes) MB binary plist")
                let (path, records) = try generate(megabytes: megabytes, in: directory)
                let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
                let lookups = [
                    PlistKeyPath(keys: ["records", String(records / 2), "address", "city"]),
                    PlistKeyPath(keys: ["index", recordID(records / 2)]),
                ]
                for keyPath in lookups {
                    progress("timing \(keyPath) in \(megabytes) MB")
                    let result = try measure(path: path, keyPath: keyPath, settings: settings)
                    rows.append(result.row(fileBytes: size, records: records, keyPath: keyPath))
                    if !result.agree { failed = true }
                }
                try FileManager.default.removeItem(atPath: path)
            }
        } catch {
            print("lazy lookup benchmark failed: \(error)")
            return 1
        }
        let emptyGauge = MemoryGauge.start()
        let emptyGrowth = emptyGauge?.growthKiB()
        print("file       records  key path                              lazy open+lookup   +MiB     full read+decode+lookup   +MiB   speed-up")
        for row in rows { print(row) }
        print()
        print("Times are medians of \(settings.runs) lazy and \(settings.fullRuns) full runs; each run opens the file afresh")
        print("(lazy: mmap, trailer, the objects on the path, materialize the value; full: read the file,")
        print("Plist.read without layout notes, look the path up). +MiB: growth of the resident set in one")
        print("run (mapped pages that were touched count). The file is in the page cache for both.")
        print("The gauge itself reads \(emptyGrowth.map { String(format: "%.1f", Double($0) / 1024) } ?? "?") MiB around an empty body.")
        if failed { print("FAILURE: a lazy answer differed from the full decode") }
        return failed ? 1 : 0
    }

    private static func recordID(_ index: Int) -> String { "id-\(String(index * 7_919 % 1_000_003, radix: 36))-\(index)" }

    /// Writes a document of about `megabytes` MB; returns its path and record count.
    private static func generate(megabytes: Int, in directory: URL) throws -> (String, Int) {
        // About 330 bytes per record in the binary form, measured on this generator.
        let records = megabytes * 1_000_000 / 330
        var list: [PlistValue] = []
        list.reserveCapacity(records)
        var index = PlistDictionary(minimumCapacity: records)
        for number in 0..<records {
            let id = recordID(number)
            var record = PlistDictionary()
            record["id"] = .string(id)
            record["name"] = .string("Person \(number) of the generated directory")
            record["score"] = .real(PlistReal(Double(number) * 0.37))
            record["created"] = .date(PlistDate(secondsSinceReferenceDate: Double(number) * 61.25))
            record["active"] = .bool(number % 3 != 0)
            record["visits"] = .integer(PlistInteger(Int64(number &* 7 % 100_000)))
            record["tags"] = .array([.string("t\(number % 101)"), .string("group \(number % 13)"), .string("u\(number)")])
            record["payload"] = .data(Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &+ number) }))
            record["address"] = .dictionary([
                "street": .string("\(number) Generated Street"), "city": .string("City \(number)"),
                "zip": .string(String(number % 99_999)),
            ])
            list.append(.dictionary(record))
            index[id] = .integer(PlistInteger(Int64(number)))
        }
        let document: PlistValue = .dictionary([
            "meta": .dictionary(["generator": "TroveBench --lazy", "records": .integer(PlistInteger(Int64(records)))]),
            "records": .array(list),
            "index": .dictionary(index),
        ])
        let path = directory.appendingPathComponent("lazy-\(megabytes)MB.plist").path
        try Plist.write(document, as: .binary).write(to: URL(fileURLWithPath: path))
        return (path, records)
    }

    private struct Measurement {
        var lazyMedian: Duration
        var lazyGrowthKiB: Int?
        var fullMedian: Duration
        var fullGrowthKiB: Int?
        var agree: Bool

        func row(fileBytes: Int, records: Int, keyPath: PlistKeyPath) -> String {
            func pad(_ text: String, _ width: Int) -> String {
                text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
            }
            func memory(_ kib: Int?) -> String { kib.map { String(format: "%6.1f", Double($0) / 1024) } ?? "     ?" }
            let path = keyPath.description.count > 36 ? String(keyPath.description.prefix(33)) + "..." : keyPath.description
            let speedUp = fullMedian / lazyMedian
            return pad(String(format: "%.1f MB", Double(fileBytes) / 1_000_000), 11) + pad(String(records), 9)
                + pad(path, 38) + pad(format(lazyMedian), 19) + memory(lazyGrowthKiB) + "     "
                + pad(format(fullMedian), 26) + memory(fullGrowthKiB) + String(format: "   %8.0f×", speedUp)
        }
    }

    private static func measure(path: String, keyPath: PlistKeyPath, settings: Settings) throws -> Measurement {
        func lazyLookup() throws -> PlistValue? {
            try LazyBinaryPlist(contentsOfFile: path).node(at: keyPath)?.materialize()
        }
        func fullLookup() throws -> PlistValue? {
            try Plist.read(FileReader.read(path), options: PlistReadOptions(keepsLayout: false)).value[keyPath: keyPath]
        }
        // Warm the page cache and the code once, then gauge memory on one run of each.
        let expected = try fullLookup()
        let lazyAnswer = try lazyLookup()
        let lazyGauge = MemoryGauge.start()
        _ = try lazyLookup()
        let lazyGrowth = lazyGauge?.growthKiB()
        let fullGauge = MemoryGauge.start()
        _ = try fullLookup()
        let fullGrowth = fullGauge?.growthKiB()

        let clock = ContinuousClock()
        var lazyTimes: [Duration] = []
        for _ in 0..<settings.runs {
            var answer: PlistValue?
            lazyTimes.append(try clock.measure { answer = try lazyLookup() })
            withExtendedLifetime(answer) {}
        }
        var fullTimes: [Duration] = []
        for _ in 0..<settings.fullRuns {
            var answer: PlistValue?
            fullTimes.append(try clock.measure { answer = try fullLookup() })
            withExtendedLifetime(answer) {}
        }
        return Measurement(
            lazyMedian: median(lazyTimes), lazyGrowthKiB: lazyGrowth, fullMedian: median(fullTimes),
            fullGrowthKiB: fullGrowth, agree: expected != nil && expected == lazyAnswer)
    }

    private static func median(_ times: [Duration]) -> Duration {
        let sorted = times.sorted()
        return sorted.isEmpty ? .zero : sorted[sorted.count / 2]
    }

    private static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.1f µs", seconds * 1e6)
    }
}
