import Foundation
import Trove

/// One input as it is stored on disk: a property list as a binary and an XML document.
///
/// Memory probes run in child processes that must measure exactly the parent's bytes without
/// paying for generating them, so every case's documents are written to a corpus directory that
/// children (and the run script's CLI comparison) read back.
struct CorpusEntry {
    let name: String
    let summary: String
    let origin: BenchmarkCase.Origin
    let documents: [DocumentFormat: Data]

    func makeCase(engines: [any PlistEngine]) -> BenchmarkCase {
        .plistDocuments(name: name, summary: summary, origin: origin, documents: documents, engines: engines)
    }

    func write(to directory: URL) throws {
        for (format, document) in documents {
            try document.write(to: Corpus.fileURL(directory: directory, name: name, format: format))
        }
    }
}

/// The benchmark inputs: generated shapes and the large fixture files.
enum Corpus {
    /// The synthetic shapes with their target sizes (of the XML document).
    static func generatedShapes() -> [(name: String, summary: String, make: () -> PlistValue)] {
        let generator = CorpusGenerator()
        return [
            ("config-2k", "application configuration, ~2 KB XML", { generator.configuration() }),
            ("mixed-1m", "records of every type, nested, ~1 MB XML", { generator.mixedRecords(count: 850) }),
            ("strings-10m", "long distinct strings, a sixth non-ASCII, ~10 MB XML", { generator.stringHeavy(entries: 7_200) }),
            ("numbers-10m", "integers of all widths and reals, ~10 MB XML", { generator.numberHeavy(series: 300, length: 500) }),
            ("dict-200k", "one dictionary with 200,000 keys", { generator.wideDictionary(count: 200_000) }),
            ("nested-200", "dictionaries and arrays nested 200 deep", { generator.deepNesting(depth: 200) }),
        ]
    }

    /// Generates one shape and writes it in both formats with Trove's writers.
    static func generate(name: String, summary: String, value: PlistValue) throws -> CorpusEntry {
        let documents: [DocumentFormat: Data] = [
            .binary: try Plist.write(value, as: .binary),
            .xml: try Plist.write(value, as: .xml),
        ]
        return CorpusEntry(name: name, summary: summary, origin: .generated, documents: documents)
    }

    /// The fixture directory: `$TROVE_FIXTURES`, else `../shared/fixtures` next to the repository.
    static func fixtureDirectory(override: String?) -> URL? {
        let candidates: [URL]
        if let override {
            candidates = [URL(fileURLWithPath: override)]
        } else if let fromEnvironment = ProcessInfo.processInfo.environment["TROVE_FIXTURES"], !fromEnvironment.isEmpty {
            candidates = [URL(fileURLWithPath: fromEnvironment)]
        } else {
            // Sources/TroveBench/Corpus.swift -> Benchmarks -> repository root.
            let repositoryRoot = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            candidates = [repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")]
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
    }

    /// The binary and XML files of category `large` in the fixture manifest. Each file's other
    /// format is written by Trove from Trove's reading of it; files Trove cannot read are reported
    /// and skipped.
    static func largeFixtures(in directory: URL, skipped: inout [String]) -> [CorpusEntry] {
        let manifest = directory.appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
            skipped.append("cannot read \(manifest.path)")
            return []
        }
        var entries: [CorpusEntry] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2, fields[1] == "large" else { continue }
            let relativePath = String(fields[0])
            let url = directory.appendingPathComponent(relativePath)
            guard let bytes = try? Data(contentsOf: url) else {
                skipped.append("\(relativePath): unreadable")
                continue
            }
            let detected = bytes.withUnsafeBytes { PlistFormat.detect($0) }
            let native: DocumentFormat
            switch detected {
            case .binary?: native = .binary
            case .xml?: native = .xml
            default: continue  // OpenStep and .strings files: not every engine reads them.
            }
            do {
                let value = try Plist.read(bytes, options: PlistReadOptions(keepsLayout: false)).value
                let other: DocumentFormat = native == .binary ? .xml : .binary
                let converted = try Plist.write(value, as: other == .binary ? .binary : .xml)
                let stem = url.deletingPathExtension().lastPathComponent
                entries.append(CorpusEntry(
                    name: "fx:" + stem,
                    summary: "fixture \(relativePath) (\(native.label); \(other.label) written by Trove)",
                    origin: .fixture(path: relativePath),
                    documents: [native: bytes, other: converted]))
            } catch {
                skipped.append("\(relativePath): Trove cannot read it: \(error)")
            }
        }
        return entries
    }

    /// Corpus files are named after the case; `:` and `/` are kept out of file names.
    static func fileURL(directory: URL, name: String, format: DocumentFormat) -> URL {
        let safe = String(name.map { $0 == ":" || $0 == "/" ? "_" : $0 })
        return directory.appendingPathComponent("\(safe).\(format.fileSuffix)")
    }

    /// Reads back an entry written by ``CorpusEntry/write(to:)``.
    static func load(name: String, from directory: URL) throws -> CorpusEntry {
        var documents: [DocumentFormat: Data] = [:]
        for format in DocumentFormat.allCases {
            let url = fileURL(directory: directory, name: name, format: format)
            if FileManager.default.fileExists(atPath: url.path) {
                documents[format] = try Data(contentsOf: url)
            }
        }
        guard !documents.isEmpty else { throw EngineFailure("no corpus files for \(name) in \(directory.path)") }
        return CorpusEntry(name: name, summary: "", origin: .generated, documents: documents)
    }
}
