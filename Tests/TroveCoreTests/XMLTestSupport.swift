import Foundation
import Testing

@testable import TroveCore

/// Helpers shared by the XML codec tests.
enum XMLTestSupport {
    /// Reads UTF-8 text as an XML plist.
    static func read(_ text: String, limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try read(bytes: Array(text.utf8), limits: limits).value
    }

    /// Reads bytes as an XML plist, returning the layout too.
    static func read(bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> (value: PlistValue, layout: XMLLayout?) {
        let result: Result<(value: PlistValue, layout: XMLLayout?), PlistError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try XMLPlistReader(limits: limits).read(raw) }
        }
        return try result.get()
    }

    /// The error reading `text` throws, or nil when it reads.
    static func error(reading text: String, limits: PlistLimits = .default) -> PlistError? {
        do {
            _ = try read(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// Wraps a value element in the canonical header.
    static func document(_ body: String) -> String {
        String(decoding: XMLCanonicalSpelling.header, as: UTF8.self) + body + "\n</plist>\n"
    }

    // MARK: Fixture corpus

    /// One manifest row.
    struct FixtureRow {
        var path: String
        var category: String
        var producer: String
        var expectation: String
        var notes: String

        /// Written by Apple software, per the producer column.
        var isAppleWritten: Bool {
            ["Apple", "macOS", "Xcode", "Cocoa", "Terminal"].contains { producer.contains($0) }
        }
    }

    /// The corpus directory: `TROVE_FIXTURES`, or `../shared/fixtures` beside the package root.
    static let fixtureRoot: URL? = {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["TROVE_FIXTURES"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env, isDirectory: true))
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
    }()

    static let corpusMissing: Comment = "fixture corpus not found (set TROVE_FIXTURES or place it at ../shared/fixtures)"

    static let rows: [FixtureRow] = {
        guard let root = fixtureRoot,
            let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7 else { return nil }
            return FixtureRow(path: f[0], category: f[1], producer: f[4], expectation: f[5], notes: f[6])
        }
    }()

    static func bytes(of row: FixtureRow) -> [UInt8]? {
        guard let root = fixtureRoot, let data = try? Data(contentsOf: root.appendingPathComponent(row.path)) else {
            return nil
        }
        return Array(data)
    }

    /// Rows whose content is an XML plist (detected from the bytes, not the name).
    static var xmlRows: [(FixtureRow, [UInt8])] {
        rows.compactMap { row in
            guard let b = bytes(of: row) else { return nil }
            let isXML = b.withUnsafeBytes { PlistFormat.detect($0) == .xml }
            return isXML ? (row, b) : nil
        }
    }
}
