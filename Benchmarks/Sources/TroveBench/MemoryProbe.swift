import Foundation
#if canImport(Glibc)
import CSystemMemory
import Glibc
#endif

/// Growth of the resident set while a body runs, measured in the current process.
///
/// Before the body, freed heap pages are handed back to the kernel (`malloc_trim`) and the
/// kernel's high-water mark is reset (`/proc/self/clear_refs`), so the growth is the body's own
/// working memory rather than what earlier work left behind. Where the mark cannot be reset
/// (not Linux, or a restricted /proc) the gauge reports nothing.
struct MemoryGauge {
    private let baselineKiB: Int

    /// Starts a measurement, or nil when this system cannot measure one.
    static func start() -> MemoryGauge? {
        ResidentMemory.releaseFreedMemory()
        guard let baseline = ResidentMemory.statusField("VmRSS"), ResidentMemory.resetPeak() else { return nil }
        return MemoryGauge(baselineKiB: baseline)
    }

    /// KiB the resident set rose above its level at `start()`.
    func growthKiB() -> Int? {
        ResidentMemory.statusField("VmHWM").map { max(0, $0 - baselineKiB) }
    }

    /// KiB the resident set stays above its level at `start()` once freed heap pages are handed
    /// back: while the body's result is still alive, the memory the result itself holds (for a
    /// decode, the decoded values). Call it after ``growthKiB()``, whose peak it does not disturb.
    func retainedKiB() -> Int? {
        ResidentMemory.releaseFreedMemory()
        return ResidentMemory.statusField("VmRSS").map { max(0, $0 - baselineKiB) }
    }

    /// The peak and, after it, what the result holds; call it with the result still alive. Nil
    /// when the peak cannot be read.
    func use() -> MemoryUse? {
        guard let peak = growthKiB() else { return nil }
        return MemoryUse(peakKiB: peak, retainedKiB: retainedKiB())
    }
}

/// What one gauged run of an operation used.
struct MemoryUse {
    /// How far the resident set rose at its highest.
    var peakKiB: Int
    /// What was still resident with the result alive (see ``MemoryGauge/retainedKiB()``), when
    /// it could be read.
    var retainedKiB: Int?

    /// The peak beyond what the result holds: the operation's transient working memory (for a
    /// decode, the input's bookkeeping and buffers apart from the decoded values).
    var workingKiB: Int? { retainedKiB.map { max(0, peakKiB - $0) } }
}

/// Peak memory of one engine on one operation, measured in a fresh child process
/// (`--memory child`): slower than the in-process gauge, but nothing that ran before can
/// influence it.
enum MemoryProbe {
    /// Arguments that make the executable act as a probe child.
    static let childFlag = "--probe-memory"

    /// Runs the child for one engine and operation; nil when it fails.
    static func measure(executable: URL, corpus: URL, caseName: String, operation: String, engine: String,
                        extraArguments: [String]) -> MemoryUse? {
        let process = Process()
        process.executableURL = executable
        process.arguments = [childFlag, corpus.path, caseName, operation, engine] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let text = String(data: bytes, encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        return field("peak-growth-kib").map { MemoryUse(peakKiB: $0, retainedKiB: field("retained-kib")) }
    }

    /// The child's side: prints `peak-growth-kib=N` (and `retained-kib=M` where it can be read)
    /// and exits 0, or exits 1 with a message.
    static func runChild(corpus: URL, caseName: String, operation: String, engineName: String,
                         engines: [any PlistEngine]) -> Int32 {
        do {
            let entry = try Corpus.load(name: caseName, from: corpus)
            let benchmark = entry.makeCase(engines: engines)
            guard let found = benchmark.operations.first(where: { $0.name == operation }),
                  let run = found.engines.first(where: { $0.engine == engineName }) else {
                throw EngineFailure("no operation \(operation) for engine \(engineName)")
            }
            let body = try run.prepare(EngineScratch())
            var growth = try measureOnce(body)
            // A quick body's first run mostly measures code pages and one-time setup being
            // faulted in; its second run shows the working memory. A slow body's first run is
            // dominated by real work, and repeating it would double the probe's time.
            if growth.elapsed < .milliseconds(250) {
                growth = try measureOnce(body)
            }
            print("peak-growth-kib=\(growth.use.peakKiB)")
            if let retained = growth.use.retainedKiB { print("retained-kib=\(retained)") }
            return 0
        } catch {
            FileHandle.standardError.write(Data("probe failed: \(error)\n".utf8))
            return 1
        }
    }

    /// Runs the body once from a freshly reset high-water mark, or against the lifetime peak
    /// (an upper bound) where the mark cannot be reset.
    private static func measureOnce(_ body: TimedBody) throws -> (use: MemoryUse, elapsed: Duration) {
        let gauge = MemoryGauge.start()
        let before = ResidentMemory.statusField("VmRSS") ?? ResidentMemory.lifetimePeakKiB()
        let clock = ContinuousClock()
        let start = clock.now
        let produced = try body()
        let elapsed = clock.now - start
        var use = gauge?.use()
        if use == nil, let peak = ResidentMemory.lifetimePeakKiB(), let before {
            use = MemoryUse(peakKiB: max(0, peak - before), retainedKiB: nil)
        }
        withExtendedLifetime(produced) {}
        guard let use else { throw EngineFailure("cannot read memory statistics") }
        return (use, elapsed)
    }
}

/// Reading and resetting the process's resident-set figures.
enum ResidentMemory {
    /// Lets the measured body start from a resident set without the preparation's garbage.
    static func releaseFreedMemory() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }

    /// Resets the kernel's resident high-water mark (Linux 4.0+, `clear_refs` value 5).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// A `kB` field of /proc/self/status.
    static func statusField(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits)
        }
        return nil
    }

    /// The process's lifetime peak from `getrusage` (an upper bound for the body's growth when
    /// the peak cannot be reset).
    static func lifetimePeakKiB() -> Int? {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss) / 1024
        #endif
    }
}
