import Foundation
import Testing
import TroveTestSupport

@testable import TroveCore

/// Locates the shared fixture corpus and reads its manifest, for the text-format tests.
enum TextFixtures {
    /// One manifest row.
    struct Row: Sendable, CustomStringConvertible {
        var path: String
        var category: String
        var expectation: String
        var notes: String
        var description: String { path }
    }

    /// The corpus root: `$TROVE_FIXTURES`, else `../shared/fixtures` beside the package root.
    static let root: URL? = {
        if let env = ProcessInfo.processInfo.environment["TROVE_FIXTURES"], !env.isEmpty {
            let url = URL(fileURLWithPath: env)
            return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.tsv").path) ? url : nil
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.tsv").path) ? url : nil
    }()

    /// True when the corpus is present; tests that need it are disabled otherwise.
    static var isAvailable: Bool { root != nil }

    static let skipMessage: Comment = "fixture corpus not found (set TROVE_FIXTURES or place it at ../shared/fixtures)"

    /// All manifest rows, or none when the corpus is absent.
    static let rows: [Row] = {
        guard let root, let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        var rows: [Row] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7 else { continue }
            rows.append(Row(path: fields[0], category: fields[1], expectation: fields[5], notes: fields[6]))
        }
        return rows
    }()

    static func bytes(_ path: String) throws -> [UInt8] {
        let root = try #require(root)
        return [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    /// A Foundation property-list object (as `PropertyListSerialization` or `JSONSerialization`
    /// return them) as a ``PlistValue``, so that their results can be compared with ours.
    static func plistValue(fromFoundation object: Any) -> PlistValue? { try? FoundationBridge.value(from: object) }
}
