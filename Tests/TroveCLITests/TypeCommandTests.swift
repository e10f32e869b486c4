import Foundation
import Testing

@Suite("trove type", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct TypeCommandTests {
    static let preferences = TestEnvironment.sample("Preferences.plist")
    static let catalog = TestEnvironment.sample("Catalog.plist")

    /// Every key path of a value, containers included, in plutil's syntax.
    static func keyPaths(of value: Any, prefix: String? = nil) -> [String] {
        var paths: [String] = prefix.map { [$0] } ?? []
        func join(_ component: String) -> String {
            let escaped = component.replacingOccurrences(of: ".", with: "\\.")
            return prefix.map { "\($0).\(escaped)" } ?? escaped
        }
        if let dictionary = value as? [String: Any] {
            for (key, child) in dictionary { paths += keyPaths(of: child, prefix: join(key)) }
        } else if let array = value as? [Any] {
            for (index, child) in array.enumerated() { paths += keyPaths(of: child, prefix: join(String(index))) }
        }
        return paths
    }

    @Test("every key path of the samples has the type plutil -type prints", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: [preferences, catalog])
    func matchesPlutil(sample: String) async throws {
        let root = try foundationValue(try bytes(of: sample))
        let paths = Self.keyPaths(of: root)
        try #require(paths.count > 5)
        for path in paths {
            let ours = try await trove("type", path, sample)
            let theirs = try await plutil("-type", path, sample)
            #expect(ours.status == theirs.status, "\(path): \(ours.stderrText)")
            #expect(ours.stdoutText == theirs.stdoutText, "\(path)")
        }
    }

    @Test("a missing key path fails with plutil's message and status", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: ["nope", "RecentDocuments.7", "RecentDocuments.x", "Window.Frame.deeper", "AutoSaveInterval.0", ""])
    func missingPath(path: String) async throws {
        let ours = try await trove("type", path, Self.preferences)
        let theirs = try await plutil("-type", path, Self.preferences)
        #expect(ours.status == 1)
        #expect(theirs.status == 1)
        #expect(ours.stdout.isEmpty)
        #expect(ours.stderrText == "\(Self.preferences): No value at that key path or invalid key path: \(path)\n")
        #expect(theirs.stderrText.contains("No value at that key path or invalid key path: \(path)"))
    }

    @Test("-n leaves off the newline, as plutil does")
    func noNewline() async throws {
        let result = try await trove("type", "-n", "Window", Self.preferences)
        #expect(result.status == 0)
        #expect(result.stdoutText == "dictionary")
    }

    @Test("plutil's spelling -type works, a dot inside a key is escaped, and standard input is read")
    func plutilSpellingEscapesAndStdin() async throws {
        let document: [String: Any] = ["a.b": ["c": 1.5], "a": ["b": "wrong"]]
        let data = try PropertyListSerialization.data(fromPropertyList: document, format: .binary, options: 0)
        let result = try await trove("-type", "a\\.b.c", "-", stdin: data)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "float\n")
    }

    @Test("keyed archives are answered (plutil 6.3.1 refuses them): a reference is a uid")
    func keyedArchive() async throws {
        let archive = try NSKeyedArchiver.archivedData(withRootObject: ["key": "value"] as NSDictionary, requiringSecureCoding: false)
        let reference = try await trove("type", "$top.root", "-", stdin: archive)
        #expect(reference.status == 0, "\(reference.stderrText)")
        #expect(reference.stdoutText == "uid\n")
        #expect(try await trove("type", "$objects", "-", stdin: archive).stdoutText == "array\n")

        let raw = try await trove("extract", "$top.root", "raw", "-", stdin: archive)
        #expect(raw.status == 1)
        #expect(raw.stderrText.contains("has no raw form"))
    }

    @Test("a bad file is reported as by lint and fails")
    func badFile() async throws {
        let result = try await trove("type", "anything", TestEnvironment.sample("Broken.plist"))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix("\(TestEnvironment.sample("Broken.plist")):8:10: XML: "))
    }

    @Test("no file is a usage error")
    func usage() async throws {
        #expect(try await trove("type", "Window").status == 64)
    }
}
