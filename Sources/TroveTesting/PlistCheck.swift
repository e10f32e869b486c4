import Foundation
import Trove

/// Checks for tests that keep property lists, archives and Codable fixtures as files.
///
/// Each check throws a ``PlistTestFailure`` whose message says what differs and where, by key
/// path, so it works under any test framework:
///
/// ```swift
/// @Test func settingsFixture() throws {
///     try PlistCheck.roundTrip(file: "Fixtures/Settings.plist")
///     try PlistCheck.equal(try loadSettings(), file: "Fixtures/Settings.plist")
///     try PlistCheck.golden(makeDefaults(), at: "Goldens/defaults.plist")
///     let settings = try PlistCheck.codableRoundTrip(Settings.self, fixture: "Fixtures/Settings.plist")
/// }
/// ```
///
/// With Swift Testing, `expectPlistEqual(_:_:)` and the other `expect…` functions record the
/// failure as an issue at the call site and let the test go on; with XCTest,
/// `XCTAssertPlistEqual(_:_:)` and the other `XCTAssert…` functions do the same.
///
/// To test code that saves settings without touching the disk, give it a ``PlistStore`` of
/// ``MemoryStoreType`` (a volume of its own per test, so tests can run in parallel) and inspect
/// what it saved:
///
/// ```swift
/// let volume = MemoryStoreType()
/// let store = PlistStore(path: "/prefs.plist", type: volume)
/// try Editor(store: store).closeWindow()
/// try PlistCheck.equal(try store.load() ?? [:], ["Window": ["Open": false]])
/// ```
public enum PlistCheck {
    /// Checks that the property list at `path` survives Trove's writers, with the rules of
    /// `trove roundtrip`: written back in its own format with its layout notes, it gives the
    /// same bytes (binary and XML files); written in every other format that can hold its
    /// value, it reads back as the same value (formats that cannot, say JSON for a value with
    /// dates, are skipped, as ``PlistFormatCapability`` explains).
    ///
    /// - Returns: The report, for a test that also wants to know which formats were tried.
    /// - Throws: ``PlistTestFailure`` of kind ``PlistTestFailure/Kind/roundTripFailed`` naming
    ///   each format that lost something and what, by key path; or
    ///   ``PlistTestFailure/Kind/fileError`` when the file cannot be read.
    @discardableResult
    public static func roundTrip(file path: String, maxExpandedValues: Int = 1_000_000) throws(PlistTestFailure) -> PlistRoundtripReport {
        let bytes: Data
        do {
            bytes = try FileReader.read(path)
        } catch {
            throw PlistTestFailure(.fileError, "cannot read \(path): \(error)")
        }
        return try roundTrip(bytes, name: path, maxExpandedValues: maxExpandedValues)
    }

    /// Checks that the property list `bytes` survives Trove's writers; see ``roundTrip(file:maxExpandedValues:)``.
    /// `name` says which fixture it is in the message.
    @discardableResult
    public static func roundTrip(
        _ bytes: Data, name: String = "property list", maxExpandedValues: Int = 1_000_000
    ) throws(PlistTestFailure) -> PlistRoundtripReport {
        let document: PlistDocument
        do {
            document = try Plist.read(bytes)
        } catch {
            throw PlistTestFailure(.fileError, "\(name) does not read: \(error)")
        }
        let report = PlistRoundtripReport.check(
            document, input: bytes, maxExpandedValues: maxExpandedValues, maxShown: maxLinesShown)
        guard !report.passed else { return report }
        var lines = ["\(name) (\(document.format.rawValue)) does not survive a round trip:"]
        var differences: [PlistDifference] = []
        let checks = [("rewrite in \(document.format.rawValue)", report.lossless)]
            + report.conversions.map { ("conversion to \($0.format.rawValue)", $0.outcome) }
        for (check, outcome) in checks {
            guard case .failed(let reason, let found, let total) = outcome else { continue }
            lines.append("  \(check): \(reason)")
            lines += found.map { "    \($0)" }
            if total > found.count { lines.append("    … and \(total - found.count) more") }
            differences += found
        }
        throw PlistTestFailure(.roundTripFailed, lines.joined(separator: "\n"), differences: differences)
    }
}
