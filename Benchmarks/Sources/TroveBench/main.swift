import Foundation
import BenchmarkModels
import Trove

// TroveBench: Trove against Foundation's PropertyListSerialization and libplist, in one process.
// Usage is in Benchmarks/README.md and `--help`.

let usage = """
    usage: TroveBench [--quick | --full] [options]
      --quick              fewer, shorter timed runs
      --full               longer runs for stable numbers (many minutes)
      --filter TEXT        only cases whose name contains TEXT (repeatable)
      --no-fixtures        only the generated inputs
      --fixtures DIR       fixture corpus (default: $TROVE_FIXTURES, else ../shared/fixtures)
      --memory MODE        peak memory: inline (default; gauged in this process on a warm-up run),
                           child (a fresh process per case, operation and engine; slower), none
      --no-memory          same as --memory none
      --layout             also measure Trove's lossless path (layout notes kept and followed)
      --write-corpus DIR   write every input as NAME.binary.plist / NAME.xml.plist into DIR and exit
                           (with --scaling also mixed-100m, the size scaling's largest document)
      --lazy [--quick|--full] [--sizes 10,100]
                           only the lazy lookup benchmark: one key from generated ~10/100 MB binary plists
      --preferences [--quick]
                           only the preferences benchmark: Trove's Preferences against UserDefaults
      --archive [--quick|--full] [--sizes 1000,10000,...]
                           only the keyed-archive benchmark: archive and unarchive object graphs against
                           Foundation's NSKeyedArchiver/NSKeyedUnarchiver
      --unsettled          time each run right after another engine's run, with no untimed run of
                           the same engine between (it then pays for the other engine's frees)
      --no-extra           skip the OpenStep, JSON and Codable cases (Trove and Foundation only)
      --scaling            print Trove's throughput against document size, nesting depth and
                           dictionary size, with libplist's beside it, instead of the
                           comparison, and exit
    """

enum MemoryMode: String {
    case inline, child, none
}

struct Options {
    var plan = RunPlan.standard
    var filters: [String] = []
    var includesFixtures = true
    var fixtureDirectory: String?
    var memory = MemoryMode.inline
    var includesLayout = false
    var corpusOutput: String?
    var includesExtraCases = true
    var scaling = false
    var settles = true

    init(arguments: [String]) {
        var remaining = arguments[...]
        func value(for flag: String) -> String {
            guard let next = remaining.popFirst() else { fail("\(flag) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": plan = .quick
            case "--full": plan = .full
            case "--filter": filters.append(value(for: argument))
            case "--no-fixtures": includesFixtures = false
            case "--fixtures": fixtureDirectory = value(for: argument)
            case "--memory":
                guard let mode = MemoryMode(rawValue: value(for: argument)) else { fail("--memory takes inline, child or none") }
                memory = mode
            case "--no-memory": memory = .none
            case "--layout": includesLayout = true
            case "--write-corpus": corpusOutput = value(for: argument)
            case "--no-extra": includesExtraCases = false
            case "--scaling": scaling = true
            case "--unsettled": settles = false
            case "--help", "-h":
                print(usage)
                exit(0)
            default: fail("unknown option \(argument)")
            }
        }
    }

    func selects(_ name: String) -> Bool {
        filters.isEmpty || filters.contains { name.contains($0) }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("TroveBench: \(message)\n\(usage)\n".utf8))
    exit(2)
}

func engines(includingLayout: Bool) -> [any PlistEngine] {
    includingLayout
        ? [TroveEngine(), TroveLayoutEngine(), FoundationEngine(), LibplistEngine()]
        : [TroveEngine(), FoundationEngine(), LibplistEngine()]
}

let startedAt = ContinuousClock.now

/// Progress on standard error, stamped with the seconds since start, so the table stays clean.
func progress(_ message: String) {
    let seconds = (ContinuousClock.now - startedAt).components.seconds
    FileHandle.standardError.write(Data("[\(seconds) s] \(message)\n".utf8))
}

/// The machine, so that a table can be read in context.
func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
    let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
        .split(separator: " ").prefix(3).joined(separator: " ")
    return "\(ProcessInfo.processInfo.activeProcessorCount) CPUs (\(model)); load average \(load)"
}

// A probe child measures one engine on one operation and exits; see MemoryProbe.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == LazyLookupBenchmark.flag { exit(LazyLookupBenchmark.run(arguments: arguments.dropFirst())) }
if arguments.first == PreferencesBenchmark.flag { exit(PreferencesBenchmark.run(arguments: arguments.dropFirst())) }
if arguments.first == ArchiveBenchmark.flag { exit(ArchiveBenchmark.run(arguments: arguments.dropFirst())) }
if arguments.first == MemoryProbe.childFlag {
    guard arguments.count >= 5 else { fail("probe child needs: corpus case operation engine") }
    let status = MemoryProbe.runChild(
        corpus: URL(fileURLWithPath: arguments[1]), caseName: arguments[2], operation: arguments[3],
        engineName: arguments[4], engines: engines(includingLayout: arguments.dropFirst(5).contains("--layout")))
    exit(status)
}

let options = Options(arguments: arguments)
#if DEBUG
progress("warning: this is a debug build; numbers are meaningless. Build with -c release (see Benchmarks/README.md).")
#endif

print("TroveBench \(options.plan.name) run, \(ISO8601DateFormatter().string(from: Date()))")
print("machine: \(machineDescription())")
print("command: \(CommandLine.arguments.joined(separator: " "))")
print()

if options.scaling && options.corpusOutput == nil {
    Scaling.run(quick: options.plan.name == RunPlan.quick.name)
    print("total time \((ContinuousClock.now - startedAt).components.seconds) s")
    exit(0)
}

// The corpus: generated shapes first, then the large fixtures.
progress("generating inputs")
var entries: [CorpusEntry] = []
var corpusNotes: [String] = []
for shape in Corpus.generatedShapes() where options.selects(shape.name) {
    do {
        entries.append(try Corpus.generate(name: shape.name, summary: shape.summary, value: shape.make()))
    } catch {
        corpusNotes.append("\(shape.name): cannot be generated: \(error)")
    }
}
if options.includesFixtures {
    if let directory = Corpus.fixtureDirectory(override: options.fixtureDirectory) {
        var skipped: [String] = []
        entries += Corpus.largeFixtures(in: directory, skipped: &skipped).filter { options.selects($0.name) }
        corpusNotes += skipped.map { "skipped fixture \($0)" }
    } else {
        corpusNotes.append("fixtures not found (set TROVE_FIXTURES or pass --fixtures DIR); generated inputs only")
    }
}

/// The inputs section: what each case is, its exact bytes' checksums and what the peers made of it.
func inputsSection(_ entries: [CorpusEntry], checks: [String: String], notes: [String]) -> String {
    var lines = ["inputs (FNV-1a 64 checksums of the exact bytes measured):"]
    for entry in entries {
        let sizes = DocumentFormat.allCases.compactMap { format in
            entry.documents[format].map { "\(format.label) \($0.count) B \(String(format: "%016llx", fnv1a64($0)))" }
        }
        lines.append("  \(entry.name): \(entry.summary)")
        lines.append("    \(sizes.joined(separator: ", "))")
        if let check = checks[entry.name] { lines.append("    \(check)") }
    }
    lines += notes.map { "  \($0)" }
    return lines.joined(separator: "\n")
}

if let corpusOutput = options.corpusOutput {
    print(inputsSection(entries, checks: [:], notes: corpusNotes))
    let directory = URL(fileURLWithPath: corpusOutput)
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for entry in entries { try entry.write(to: directory) }
        // The Codable model's documents, as Foundation's encoder writes them, for TroveProfile's
        // `codable-*` operations.
        if options.selects("codable-2k") {
            let export = RecordExport.generate(count: 2_000)
            for format in DocumentFormat.allCases {
                let encoder = PropertyListEncoder()
                encoder.outputFormat = format == .binary ? .binary : .xml
                try encoder.encode(export).write(to: Corpus.fileURL(directory: directory, name: "codable-2k", format: format))
            }
        }
        // With --scaling, the size scaling's largest point too, for profiling what 100 MB costs.
        if options.scaling {
            let records = CorpusGenerator().mixedRecords(count: 850 * 100)
            try Plist.write(records, as: .binary).write(to: Corpus.fileURL(directory: directory, name: "mixed-100m", format: .binary))
            try Plist.write(records, as: .xml).write(to: Corpus.fileURL(directory: directory, name: "mixed-100m", format: .xml))
        }
        print("corpus written to \(directory.path)")
        exit(0)
    } catch {
        fail("cannot write the corpus: \(error)")
    }
}

// Check and time case by case; the decoded values the check produces are the encoders' inputs.
let measuredEngines = engines(includingLayout: options.includesLayout)
let runner = Runner(plan: options.plan, gaugesMemory: options.memory == .inline, settles: options.settles)
var results: [OperationResult] = []
var checks: [String: String] = [:]
for entry in entries {
    progress("checking and timing \(entry.name)")
    let scratch = Dictionary(uniqueKeysWithValues: measuredEngines.map { ($0.name, EngineScratch()) })
    checks[entry.name] = CorpusCheck.describe(entry, scratch: scratch)
    results += runner.run(entry.makeCase(engines: measuredEngines), scratch: scratch)
}

// Peak memory in child processes, one per case, operation and engine.
if options.memory == .child {
    let corpus = FileManager.default.temporaryDirectory.appendingPathComponent("trovebench-\(getpid())")
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    do {
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for entry in entries { try entry.write(to: corpus) }
        for index in results.indices {
            progress("memory \(results[index].caseName) \(results[index].operation)")
            for engine in measuredEngines.map(\.name) where results[index].outcomes[engine]?.median != nil {
                results[index].memory[engine] = MemoryProbe.measure(
                    executable: executable, corpus: corpus, caseName: results[index].caseName,
                    operation: results[index].operation, engine: engine,
                    extraArguments: options.includesLayout ? ["--layout"] : [])
            }
        }
    } catch {
        corpusNotes.append("memory probes skipped: \(error)")
    }
    try? FileManager.default.removeItem(at: corpus)
}

// OpenStep, JSON and Codable: Trove and Foundation only, inline memory only (not rebuilt in probe children).
if options.includesExtraCases && options.corpusOutput == nil {
    var extraCases: [BenchmarkCase] = []
    for (name, value) in [("text:config-2k", CorpusGenerator().configuration()), ("text:mixed-1m", CorpusGenerator().mixedRecords(count: 850))]
    where options.selects(name) {
        do { extraCases.append(try .textFormats(name: name, value: value)) } catch { corpusNotes.append("\(name): \(error)") }
    }
    if options.selects("codable-2k") {
        do { extraCases.append(try .codableRecords(name: "codable-2k", count: 2_000)) } catch { corpusNotes.append("codable-2k: \(error)") }
    }
    for extra in extraCases {
        progress("timing \(extra.name)")
        let scratch = Dictionary(uniqueKeysWithValues: measuredEngines.map { ($0.name, EngineScratch()) })
        results += runner.run(extra, scratch: scratch)
    }
}

let report = Report(engines: measuredEngines.map(\.name), peers: ["Foundation", "libplist"], showsMemory: options.memory != .none)
print(inputsSection(entries, checks: checks, notes: corpusNotes))
print()
print(report.table(results))
print()
print(report.summary(results))
if let working = report.decodeWorkingMemory(results) {
    print()
    print("Decode working memory: the peak apart from the decoded values, over the input size N.")
    print(working)
}
let failures = report.failures(results)
if !failures.isEmpty {
    print()
    print("failures:")
    for failure in failures { print("  \(failure)") }
}
print()
print("MB/s: 10^6 bytes of the case's document in that format per second (the same byte count for every engine),")
print("median of \(options.plan.name)-mode runs after warm-up; ratios above 1 mean Trove is faster.")
switch options.memory {
case .inline:
    print("+MiB: growth of the resident set during one warm-up run, after freed heap pages were returned and the")
    print("kernel's high-water mark reset: the working memory the operation itself needed (the tree for decode).")
    print("values MiB: what stayed resident with the decoded value alive, once freed heap pages were returned;")
    print("work/N: (+MiB - values) over the input's size, the figure the target 'under 4·N plus the decoded values' bounds.")
case .child:
    print("+MiB: growth of the resident set during one run, in a fresh child process, over its level after loading")
    print("the input (and, for encode, after decoding it): the working memory the operation itself needed.")
    print("values MiB and work/N: as in the inline mode, read in the child.")
case .none:
    break
}
let elapsed = ContinuousClock.now - startedAt
print("total time \(elapsed.components.seconds) s (\(options.plan.name) mode)")
