import Foundation
import Testing
import Trove
import TroveTestSupport

/// Every corpus file read as its manifest row says it must be: valid files decode to their golden
/// value, hostile files are rejected with a ``PlistError`` in bounded time, and `no-crash` files
/// finish either way.
@Suite(
    "Corpus: reading", .serialized,
    .enabled(if: FixtureCorpus.isAvailable, FixtureCorpus.unavailableReason))
struct CorpusReadTests {
    @Test("The manifest parses and every listed file exists")
    func manifestIsComplete() throws {
        #expect(FixtureCorpus.manifestProblems.isEmpty, "\(FixtureCorpus.manifestProblems)")
        let root = try #require(FixtureCorpus.root)
        for row in FixtureCorpus.rows {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(row.path).path), "\(row.path) is listed but missing")
        }
        #expect(FixtureCorpus.rows.count > 100, "the manifest lists only \(FixtureCorpus.rows.count) rows")
    }

    /// OpenStep and JSON rows are checked by the text-format corpus suites in TroveCoreTests
    /// (`OpenStepCorpusTests`, `JSONCorpusTests`); here they are counted and named, not hidden.
    @Test("OpenStep and JSON rows are left to the text-format corpus suites, visibly")
    func outOfScopeRowsAreCounted() throws {
        let skipped = FixtureCorpus.rowsOutOfScope
        var byCategory: [String: Int] = [:]
        for row in skipped {
            byCategory[row.category.rawValue, default: 0] += 1
            // Out of scope must mean "text that is not XML", judged from the whole file.
            let bytes = try FixtureCorpus.contents(of: row)
            let format = bytes.withUnsafeBytes { PlistFormat.detect($0) }
            #expect(format != .binary && format != .xml, "\(row.path) detects as \(String(describing: format)) but was skipped")
        }
        let summary = byCategory.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("corpus: \(skipped.count) of \(FixtureCorpus.rows.count) rows are OpenStep/JSON, checked by the OpenStep/JSON corpus suites (\(summary)); in scope \(FixtureCorpus.rowsInScope.count)")
    }

    @Test("Valid binary and XML files decode to their golden value", arguments: CorpusRowSets.mustDecode)
    func validFileDecodes(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        guard let outcome = await HangGuard.read(bytes, seconds: HangGuard.validDeadline) else {
            Issue.record("\(row.path): reading did not finish within \(HangGuard.validDeadline) s")
            return
        }
        let document: PlistDocument
        switch outcome {
        case .success(let d): document = d
        case .failure(let error):
            Issue.record("\(row.path) (\(row.expectation.rawValue)) was rejected: \(error.code.rawValue): \(error)")
            return
        }
        #expect(document.format == (row.scope == .binary ? .binary : .xml), "\(row.path) read as \(document.format)")
        guard let expected = try CorpusExpectations.expectedValue(of: row) else { return }
        if let difference = ValueComparison.firstDifference(document.value, expected.value, rules: expected.rules) {
            Issue.record("\(row.path): value differs from \(expected.source): \(difference)")
        }
    }

    @Test("Hostile binary and XML files are rejected with a PlistError", arguments: CorpusRowSets.mustReject)
    func hostileFileIsRejected(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        guard let outcome = await HangGuard.read(bytes, seconds: HangGuard.rejectDeadline) else {
            Issue.record("\(row.path): no verdict within \(HangGuard.rejectDeadline) s (hang?)")
            return
        }
        switch outcome {
        case .success(let document):
            Issue.record("\(row.path) must be rejected but decoded to \(ValueComparison.brief(document.value)); notes: \(row.notes.prefix(200))")
        case .failure(let error):
            CorpusExpectations.checkErrorIsLocated(error, row: row)
        }
    }

    @Test("Files readers disagree on finish without crashing", arguments: CorpusRowSets.noCrash)
    func disputedFileFinishes(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        let outcome = await HangGuard.read(bytes, seconds: HangGuard.rejectDeadline)
        #expect(outcome != nil, "\(row.path): no verdict within \(HangGuard.rejectDeadline) s (hang?)")
        if case .failure(let error)? = outcome {
            CorpusExpectations.checkErrorIsLocated(error, row: row)
        }
    }

    /// Checks the harness, not the library: every golden parses, and where Foundation (Apple's
    /// CoreFoundation code) can express the file's values, it reads the file as the expected value.
    @Test("Harness sanity: goldens parse and agree with Foundation's reading")
    func goldensAgreeWithFoundation() throws {
        var agreed = 0, compared = 0
        for row in CorpusRowSets.mustDecode {
            guard let expected = try CorpusExpectations.expectedValue(of: row) else { continue }
            // Foundation has no public UID type, so files holding UIDs cannot be compared.
            if ValueComparison.containsUID(expected.value) { continue }
            let foundation: PlistValue
            do {
                foundation = try FoundationPeer.read(try FixtureCorpus.contents(of: row))
            } catch {
                print("harness: Foundation cannot read or express \(row.path): \(error)")
                continue
            }
            compared += 1
            if let d = ValueComparison.firstDifference(foundation, expected.value, rules: expected.rules) {
                if let known = Self.knownFoundationDifferences[row.path] {
                    print("harness: known difference, \(row.path): \(known); \(d)")
                } else {
                    Issue.record("\(row.path): Foundation's reading differs from the \(expected.source): \(d)")
                }
            } else {
                agreed += 1
            }
        }
        print("harness: Foundation agrees with the expected value of \(agreed) of \(compared) corpus files without UIDs")
        #expect(compared > 0)
    }

    /// Files where the toolchain's Foundation was seen to read something other than the manifest's
    /// expected value. The tests keep the manifest's value; these are reported for the lead.
    static let knownFoundationDifferences: [String: String] = [:]

    /// One line of corpus numbers for the report, read sequentially.
    @Test("Summary: corpus read numbers")
    func summary() async throws {
        var decoded = 0, matched = 0, compared = 0, rejected = 0
        var failures: [String] = []
        for row in CorpusRowSets.mustDecode {
            let bytes = try FixtureCorpus.contents(of: row)
            guard case .success(let document)? = await HangGuard.read(bytes, seconds: HangGuard.validDeadline) else {
                failures.append(row.path)
                continue
            }
            decoded += 1
            if let expected = try CorpusExpectations.expectedValue(of: row) {
                compared += 1
                if ValueComparison.firstDifference(document.value, expected.value, rules: expected.rules) == nil {
                    matched += 1
                } else {
                    failures.append(row.path + " (value)")
                }
            }
        }
        for row in CorpusRowSets.mustReject {
            let bytes = try FixtureCorpus.contents(of: row)
            if case .failure? = await HangGuard.read(bytes, seconds: HangGuard.rejectDeadline) {
                rejected += 1
            } else {
                failures.append(row.path + " (not rejected)")
            }
        }
        print(
            "corpus read: decoded \(decoded) of \(CorpusRowSets.mustDecode.count) valid binary/XML files; "
                + "equal to expected value \(matched) of \(compared); rejected \(rejected) of \(CorpusRowSets.mustReject.count) hostile files")
        if !failures.isEmpty { print("corpus read failures: \(failures.joined(separator: ", "))") }
        #expect(decoded == CorpusRowSets.mustDecode.count && matched == compared, "valid files failing: see the list above")
        #expect(rejected == CorpusRowSets.mustReject.count, "hostile files not rejected: see the list above")
    }
}

/// The argument lists of the corpus tests, by what the manifest expects.
enum CorpusRowSets {
    /// Valid and valid-lenient binary/XML files, and every keyed archive's plist layer.
    static let mustDecode: [FixtureRow] = FixtureCorpus.rowsInScope.filter(\.mustDecode)
    /// Binary/XML files a correct reader must reject (keyed-archive must-reject rows are valid plists).
    static let mustReject: [FixtureRow] = FixtureCorpus.rowsInScope.filter {
        $0.expectation == .mustReject && $0.category != .keyedArchive
    }
    /// Binary/XML files where either verdict is acceptable.
    static let noCrash: [FixtureRow] = FixtureCorpus.rowsInScope.filter { $0.expectation == .noCrash }
    /// Files whose plist layer is valid and that the library reads today.
    static var valid: [FixtureRow] { mustDecode }
}

/// What each row is expected to decode to, and how errors must look.
enum CorpusExpectations {
    struct Expected {
        var value: PlistValue
        var rules: ComparisonRules
        /// Where the expected value comes from, for messages.
        var source: String
    }

    /// The golden value (normalised for Apple's reading), or the value the manifest notes give in
    /// prose for files plistlib cannot read; nil when neither exists.
    static func expectedValue(of row: FixtureRow) throws -> Expected? {
        if let golden = try FixtureCorpus.golden(of: row) {
            // plistlib keeps CF$UID dictionaries as dictionaries; CoreFoundation's XML reader makes UIDs.
            let value = row.scope == .xml ? GoldenValue.normalisingXMLUIDs(golden) : golden
            // plistlib rounds binary dates to microseconds.
            return Expected(value: value, rules: .microsecondDates, source: "golden (plistlib)")
        }
        guard let prose = try valueFromNotes(of: row) else { return nil }
        return Expected(value: prose, rules: .exact, source: "value stated in the manifest notes")
    }

    /// Values the manifest notes state for files that have no golden (Apple's reading, where
    /// plistlib's differs or fails). Keyed by file name so the hold-out set, with other names, is
    /// simply not covered by this table.
    static func valueFromNotes(of row: FixtureRow) throws -> PlistValue? {
        switch row.path {
        case "binary/go-plist-int128.bplist":
            // Apple keeps only the low 8 bytes of a 16-byte integer: 0x090a0b0c0d0e0f10.
            return .integer(PlistInteger(UInt64(0x090a_0b0c_0d0e_0f10)))
        case "xml/dd-plist-test-xml-utf-32be-bom.plist":
            return try FixtureCorpus.golden(ofPath: "xml/dd-plist-test-xml-utf-16be-bom.plist")
        case "xml/dd-plist-test-xml-utf-32le-bom.plist":
            return try FixtureCorpus.golden(ofPath: "xml/dd-plist-test-xml-utf-16le-bom.plist")
        case "xml/go-plist-unusual-xml-s08.plist", "xml/go-plist-unusual-xml-s09.plist":
            return .dictionary(["test": .string("value")])
        case "xml/go-plist-unusual-xml-s10.plist":
            return .dictionary(["test": .string("apple")])
        case "xml/go-plist-unusual-xml-s11.plist":
            return .dictionary(["test": .string("apple"), "\">test": .string("libplist")])
        default:
            return nil
        }
    }

    /// Errors name their format and carry a location of the right kind: a byte offset for binary
    /// input, a line and column for XML.
    static func checkErrorIsLocated(_ error: PlistError, row: FixtureRow) {
        let expectedFormat: PlistFormat = row.scope == .binary ? .binary : .xml
        #expect(error.format == expectedFormat, "\(row.path): error format \(String(describing: error.format)), expected \(expectedFormat): \(error)")
        #expect(!error.message.isEmpty, "\(row.path): error has no message")
        switch (row.scope, error.location) {
        case (.binary, .byteOffset?), (.xml, .lineColumn?):
            break
        default:
            Issue.record("\(row.path): error location \(String(describing: error.location)) is not a \(row.scope == .binary ? "byte offset" : "line:column"): \(error)")
        }
    }
}
