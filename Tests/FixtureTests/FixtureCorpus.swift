import Foundation
import Testing
import Trove
import TroveTestSupport

/// The shared fixture corpus: files written by Apple software and by other plist projects, listed
/// in `MANIFEST.tsv` with what a correct reader must do with each.
///
/// The corpus lives outside the repository. It is found through the `TROVE_FIXTURES` environment
/// variable, or at `../shared/fixtures` beside the package root. When it is absent every corpus test
/// is disabled with ``unavailableReason`` rather than failing.
enum FixtureCorpus {
    /// The corpus directory, or nil when no manifest was found (located by `FixtureLocation`,
    /// which every test target shares).
    static var root: URL? { FixtureLocation.root }

    /// True when the manifest was found and parsed.
    static var isAvailable: Bool { root != nil && !rows.isEmpty }

    /// Why corpus tests are disabled, naming the places that were searched.
    static var unavailableReason: Comment { Comment(rawValue: FixtureLocation.unavailableReason) }

    /// Every manifest row, in file order; empty when the corpus is absent.
    static var rows: [FixtureRow] { manifest.rows }

    /// Manifest lines that could not be parsed (reported by a test, not at load time).
    static var manifestProblems: [String] { manifest.problems }

    private static let manifest: (rows: [FixtureRow], problems: [String]) = loadManifest()

    /// `<package root>/../shared/fixtures`.
    static var defaultRoot: URL { FixtureLocation.defaultRoot }

    private static func loadManifest() -> (rows: [FixtureRow], problems: [String]) {
        guard let root else { return ([], []) }
        guard let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else {
            return ([], ["MANIFEST.tsv is not readable UTF-8"])
        }
        return ManifestParser.rows(fromTSV: text)
    }

    /// The bytes of a corpus file.
    static func contents(of row: FixtureRow) throws -> Data {
        guard let root else { throw CorpusError.missing("corpus root") }
        return try Data(contentsOf: root.appendingPathComponent(row.path))
    }

    /// The golden value of a row, parsed, or nil when the row has no golden file.
    static func golden(of row: FixtureRow) throws -> PlistValue? {
        guard let root else { return nil }
        let url = root.appendingPathComponent(row.path + ".golden.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try GoldenValue.parse(Data(contentsOf: url))
    }

    /// The golden value of another corpus file by path (for twins named in the notes).
    static func golden(ofPath path: String) throws -> PlistValue? {
        guard let row = rows.first(where: { $0.path == path }) else { throw CorpusError.missing(path) }
        return try golden(of: row)
    }

    /// Rows whose content this library reads today (binary or XML), by content, not by name.
    static var rowsInScope: [FixtureRow] { rows.filter { $0.scope != .outOfScope } }

    /// OpenStep and JSON rows, which the text-format corpus suites in TroveCoreTests check.
    static var rowsOutOfScope: [FixtureRow] { rows.filter { $0.scope == .outOfScope } }
}

/// Failures of the harness itself (not of the library under test).
enum CorpusError: Error, CustomStringConvertible {
    case missing(String)
    case badGolden(String)

    var description: String {
        switch self {
        case .missing(let what): return "missing from the corpus: \(what)"
        case .badGolden(let why): return "golden file unusable: \(why)"
        }
    }
}

/// One line of `MANIFEST.tsv`.
struct FixtureRow: Sendable, Hashable, CustomTestStringConvertible {
    /// The file's `category` column.
    enum Category: String, Sendable {
        case xml, binary, keyedArchive = "keyed-archive", openstep, json, malformed, large
    }

    /// The file's `expectation` column.
    enum Expectation: String, Sendable {
        case valid, mustReject = "must-reject", validLenient = "valid-lenient", noCrash = "no-crash"
    }

    /// Whether the current readers cover a row, decided from the file's content.
    enum Scope: Sendable, Hashable {
        case binary, xml, outOfScope
    }

    var path: String
    var category: Category
    var sourceRepo: String
    var sourcePath: String
    var producer: String
    var expectation: Expectation
    var notes: String
    /// Decided once from the file's first bytes with ``PlistFormat/detect(_:)``.
    var scope: Scope

    var testDescription: String { path }

    /// True for files written by Apple software, judged by the producer column.
    ///
    /// Producers that say outright that the bytes are not Apple's formatting (a WebKit test list
    /// written by hand as a plist, a Lokalise export) are not counted, whatever else they mention.
    var isAppleWritten: Bool {
        let producer = producer.lowercased()
        if producer.contains("not apple") { return false }
        let marks = ["apple", "macos", "xcode", "cocoa", "safari", "webkit", "terminal", "sharedfilelistd", "cfprefsd"]
        return marks.contains { producer.contains($0) }
    }

    /// True when the row's plist layer must decode: valid rows, and every keyed archive (whose
    /// `must-reject` is about the archiver layer, not the plist).
    var mustDecode: Bool {
        expectation == .valid || expectation == .validLenient || category == .keyedArchive
    }
}

/// Parses the manifest: tab-separated, one header row naming the columns.
enum ManifestParser {
    static func rows(fromTSV text: String) -> (rows: [FixtureRow], problems: [String]) {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        guard !lines.isEmpty else { return ([], ["MANIFEST.tsv is empty"]) }
        let header = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        guard let path = column("path"), let category = column("category"), let repo = column("source_repo"),
            let sourcePath = column("source_path"), let producer = column("producer"),
            let expectation = column("expectation"), let notes = column("notes")
        else { return ([], ["MANIFEST.tsv header lacks a required column: \(header)"]) }
        var problems: [String] = []
        let rows = lines.compactMap { line -> FixtureRow? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count,
                let parsedCategory = FixtureRow.Category(rawValue: fields[category]),
                let parsedExpectation = FixtureRow.Expectation(rawValue: fields[expectation])
            else {
                problems.append("unreadable row: \(line.prefix(120))")
                return nil
            }
            var row = FixtureRow(
                path: fields[path], category: parsedCategory, sourceRepo: fields[repo], sourcePath: fields[sourcePath],
                producer: fields[producer], expectation: parsedExpectation, notes: fields[notes], scope: .outOfScope)
            row.scope = scope(of: row)
            return row
        }
        return (rows, problems)
    }

    /// OpenStep and JSON categories are out of scope whatever their bytes; other rows are judged by
    /// content, so a `.strings` file in `large/` is out of scope and an XML file in `malformed/` is not.
    private static func scope(of row: FixtureRow) -> FixtureRow.Scope {
        if row.category == .openstep || row.category == .json { return .outOfScope }
        guard let root = FixtureCorpus.root,
            let handle = try? FileHandle(forReadingFrom: root.appendingPathComponent(row.path))
        else { return .outOfScope }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        let format = head.withUnsafeBytes { PlistFormat.detect($0) }
        switch format {
        case .binary?: return .binary
        case .xml?: return .xml
        default: return .outOfScope
        }
    }
}
