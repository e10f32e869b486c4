import Foundation

/// Where the shared fixture corpus is: `$TROVE_FIXTURES`, or `../shared/fixtures` beside the
/// package root. Every test target that reads the corpus finds it here, and disables its corpus
/// tests with ``unavailableReason`` when it is absent.
public enum FixtureLocation {
    /// The corpus directory, or nil when no `MANIFEST.tsv` was found.
    public static let root: URL? = {
        var candidates: [URL] = []
        if let fromEnvironment = ProcessInfo.processInfo.environment["TROVE_FIXTURES"], !fromEnvironment.isEmpty {
            candidates.append(URL(fileURLWithPath: fromEnvironment, isDirectory: true))
        }
        candidates.append(defaultRoot)
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
    }()

    /// `<package root>/../shared/fixtures`, the package root being three levels above this file.
    public static var defaultRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TroveTestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures", isDirectory: true)
    }

    /// Why corpus tests are disabled, naming the places that were searched.
    public static var unavailableReason: String {
        let fromEnvironment = ProcessInfo.processInfo.environment["TROVE_FIXTURES"].map { "TROVE_FIXTURES=\($0) or " } ?? ""
        return "fixture corpus not found at \(fromEnvironment)\(defaultRoot.path) (no MANIFEST.tsv); set TROVE_FIXTURES"
    }

    /// The manifest's rows as column name to field, in file order; empty when the corpus is absent
    /// or the manifest unreadable.
    public static func manifestRows() -> [[String: String]] {
        guard let root,
            let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return lines.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == header.count else { return nil }
            return Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
    }
}
