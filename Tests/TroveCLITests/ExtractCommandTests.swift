import Foundation
import Testing

@Suite("trove extract", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct ExtractCommandTests {
    static let preferences = TestEnvironment.sample("Preferences.plist")
    static let catalog = TestEnvironment.sample("Catalog.plist")

    /// A dictionary holding the awkward raw cases: extreme reals, the integer range's ends, dates
    /// on both sides of 1970 and 2001, empty containers and a dotted key. Written by Foundation.
    static func awkwardDocument() throws -> Data {
        let document: [String: Any] = [
            "big": 1e300, "negative": -0.1, "tiny": 1e-10, "third": 1.0 / 3.0, "whole": 42.0,
            "max": NSNumber(value: UInt64.max), "min": NSNumber(value: Int64.min), "zero": 0,
            "old": Date(timeIntervalSinceReferenceDate: -3_155_760_000), "fraction": Date(timeIntervalSinceReferenceDate: 12.75),
            "empty dict": [:] as [String: Any], "empty array": [] as [Any], "empty string": "",
            "empty data": Data(), "bytes": Data([0, 1, 2, 250, 255]), "dotted.key": ["inner": "value"],
            "multi\nline": "text\nwith lines",
        ]
        return try PropertyListSerialization.data(fromPropertyList: document, format: .binary, options: 0)
    }

    /// The output lines as a set: plutil prints a dictionary's keys in hash order.
    private func lineSet(_ text: String) -> Set<Substring> { Set(text.split(separator: "\n", omittingEmptySubsequences: false)) }

    private func expectRawMatchesPlutil(_ path: String, file: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ours = try await trove("extract", path, "raw", file)
        let theirs = try await plutil("-extract", path, "raw", "-o", "-", file)
        #expect(ours.status == theirs.status, "\(path): \(ours.stderrText)", sourceLocation: sourceLocation)
        let isDictionary = (try await trove("type", path, file)).stdoutText == "dictionary\n"
        if isDictionary {
            #expect(lineSet(ours.stdoutText) == lineSet(theirs.stdoutText), "\(path)", sourceLocation: sourceLocation)
        } else {
            #expect(ours.stdoutText == theirs.stdoutText, "\(path)", sourceLocation: sourceLocation)
        }
    }

    @Test("raw output matches plutil for every key path of the samples", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: [preferences, catalog])
    func rawMatchesPlutilOnSamples(sample: String) async throws {
        let paths = TypeCommandTests.keyPaths(of: try foundationValue(try bytes(of: sample)))
        try #require(paths.count > 5)
        for path in paths { try await expectRawMatchesPlutil(path, file: sample) }
    }

    @Test("raw output matches plutil for extreme numbers, dates, empty values and escaped keys", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func rawMatchesPlutilOnAwkwardValues() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write(try Self.awkwardDocument(), as: "awkward.plist")
        let paths = TypeCommandTests.keyPaths(of: try foundationValue(try bytes(of: file)))
        #expect(paths.contains("dotted\\.key.inner"))
        for path in paths { try await expectRawMatchesPlutil(path, file: file) }
    }

    @Test("raw prints each kind as plutil documents it")
    func rawForms() async throws {
        let expected = [
            "AutoSaveInterval": "300\n", "DefaultFontSize": "13.500000\n", "LastLaunch": "2024-03-09T18:45:00Z\n",
            "LicenseToken": "VHJvdmVTYW1wbGVLZXk=\n", "RecentDocuments": "3\n", "ShowToolbar": "true\n",
            "SpellChecking": "false\n", "Window": "Frame\nZoomed\n", "RecentDocuments.2": "~/Desktop/日本語.txt\n",
        ]
        for (path, text) in expected {
            let result = try await trove("extract", path, "raw", Self.preferences)
            #expect(result.status == 0, "\(path): \(result.stderrText)")
            #expect(result.stdoutText == text, "\(path)")
        }
        let unterminated = try await trove("extract", "-n", "Window", "raw", Self.preferences)
        #expect(unterminated.stdoutText == "Frame\nZoomed")
    }

    @Test("xml1 output is byte-identical to plutil's", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: [(preferences, "Window"), (preferences, "RecentDocuments"), (preferences, "LastLaunch"),
                      (preferences, "DefaultFontSize"), (catalog, "Books"), (catalog, "Books.0")])
    func xmlMatchesPlutil(sample: String, path: String) async throws {
        let ours = try await trove("extract", path, "xml1", "-o", "-", sample)
        let theirs = try await plutil("-extract", path, "xml1", "-o", "-", sample)
        try #require(theirs.status == 0, "plutil: \(theirs.stderrText)")
        #expect(ours.status == 0, "\(ours.stderrText)")
        #expect(ours.stdoutText == theirs.stdoutText)
    }

    @Test("binary1 and json output have plutil's value; json -r has its bytes", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func binaryAndJSONMatchPlutil() async throws {
        let binary = try await trove("extract", "Window", "binary1", "-o", "-", Self.preferences)
        let plutilBinary = try await plutil("-extract", "Window", "binary1", "-o", "-", Self.preferences)
        #expect(binary.status == 0)
        #expect(binary.stdout.starts(with: Data("bplist00".utf8)))
        #expect(try foundationValue(binary.stdout) == foundationValue(plutilBinary.stdout))

        let json = try await trove("extract", "RecentDocuments", "json", "-o", "-", Self.preferences)
        let plutilJSON = try await plutil("-extract", "RecentDocuments", "json", "-o", "-", Self.preferences)
        #expect(json.status == 0)
        #expect(try JSONSerialization.jsonObject(with: json.stdout) as? NSObject
            == JSONSerialization.jsonObject(with: plutilJSON.stdout) as? NSObject)

        let pretty = try await trove("extract", "Window", "json", "-r", "-o", "-", Self.preferences)
        let plutilPretty = try await plutil("-extract", "Window", "json", "-r", "-o", "-", Self.preferences)
        #expect(pretty.stdoutText == plutilPretty.stdoutText)
    }

    @Test("a scalar has no JSON document form, as in plutil", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func scalarToJSONFails() async throws {
        let ours = try await trove("extract", "AutoSaveInterval", "json", "-o", "-", Self.preferences)
        #expect(ours.status == 1)
        #expect(ours.stderrText.contains("Invalid object in plist for JSON format"))
        #expect(try await plutil("-extract", "AutoSaveInterval", "json", "-o", "-", Self.preferences).status == 1)
    }

    @Test("without -o a plist format replaces the input, as plutil does")
    func replacesInputWithoutOutputPath() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let result = try await trove("extract", "Window", "binary1", copy)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
        let written = try bytes(of: copy)
        #expect(try foundationFormat(written) == .binary)
        #expect(try foundationValue(written) == (["Frame": "{{120, 80}, {1024, 768}}", "Zoomed": false] as NSDictionary))
    }

    @Test("raw with -o writes the text to that file")
    func rawToFile() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.path("out.txt")
        let result = try await trove("extract", "AutoSaveInterval", "raw", "-o", output, Self.preferences)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(String(decoding: try bytes(of: output), as: UTF8.self) == "300\n")
    }

    @Test("--expect passes a matching type and fails another with plutil's message, leaving the input alone")
    func expectType() async throws {
        let passing = try await trove("-extract", "DefaultFontSize", "raw", "-expect", "float", Self.preferences)
        #expect(passing.status == 0)
        #expect(passing.stdoutText == "13.500000\n")

        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let failing = try await trove("extract", "AutoSaveInterval", "xml1", "--expect", "float", copy)
        #expect(failing.status == 1)
        #expect(failing.stdout.isEmpty)
        #expect(failing.stderrText == "\(copy): Value at [AutoSaveInterval] expected to be float but is integer\n")
        #expect(try bytes(of: copy) == bytes(of: Self.preferences))
    }

    @Test("a missing key path fails with plutil's message and leaves the input alone")
    func missingPath() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let result = try await trove("extract", "Window.Nope", "xml1", copy)
        #expect(result.status == 1)
        #expect(result.stderrText == "\(copy): No value at that key path or invalid key path: Window.Nope\n")
        #expect(try bytes(of: copy) == bytes(of: Self.preferences))
    }

    @Test("usage errors exit with status 64", arguments: [
        ["extract", "Window", "raw"],
        ["extract", "Window", "yaml", "Samples/Preferences.plist"],
        ["extract", "Window", "raw", "--expect", "number", "Samples/Preferences.plist"],
        ["extract", "Window", "xml1", "-o", "out.plist", "a.plist", "b.plist"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await trove(arguments: arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }
}
