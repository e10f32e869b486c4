import Foundation
import Testing

/// Runs one edit with trove and with plutil on separate copies of `sample`, and expects the same
/// exit status and, on success, the same value (plutil re-serialises, so bytes are not compared).
func expectEditMatchesPlutil(
    _ arguments: [String], on sample: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let directory = try TemporaryDirectory()
    let ours = try directory.copy(sample, as: "ours.plist")
    let theirs = try directory.copy(sample, as: "theirs.plist")
    let ourResult = try await trove(arguments: arguments + [ours])
    let binary = try #require(TestEnvironment.plutil)
    let theirResult = try await runProcess(binary, arguments + [theirs])
    #expect(ourResult.status == theirResult.status, "\(arguments): \(ourResult.stderrText) vs \(theirResult.stderrText)",
            sourceLocation: sourceLocation)
    if theirResult.status == 0 {
        let ourBytes = try bytes(of: ours)
        #expect(try foundationFormat(ourBytes) == foundationFormat(bytes(of: sample)), "\(arguments): format changed",
                sourceLocation: sourceLocation)
        #expect(try foundationValue(ourBytes) == foundationValue(bytes(of: theirs)), "\(arguments)", sourceLocation: sourceLocation)
    } else {
        #expect(try bytes(of: ours) == bytes(of: sample), "\(arguments): input changed on failure", sourceLocation: sourceLocation)
        // The messages are plutil's, after the `FILE: ` prefix.
        let ourMessage = ourResult.stderrText.replacingOccurrences(of: "\(ours): ", with: "")
        let theirMessage = theirResult.stderrText.replacingOccurrences(of: "\(theirs): ", with: "")
        #expect(ourMessage == theirMessage, "\(arguments)", sourceLocation: sourceLocation)
    }
}

@Suite("trove insert and replace", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct InsertCommandTests {
    static let preferences = TestEnvironment.sample("Preferences.plist")
    static let catalog = TestEnvironment.sample("Catalog.plist")

    static let preferenceEdits: [[String]] = [
        ["-insert", "AutoSaveInterval", "-integer", "5"],
        ["-insert", "New", "-integer", "-5"],
        ["-insert", "New", "-float", "2.25"],
        ["-insert", "New", "-bool", "YES"],
        ["-insert", "New", "-bool", "true"],
        ["-insert", "New", "-bool", "no"],
        ["-insert", "New", "-string", ""],
        ["-insert", "New", "-date", "2024-01-02T03:04:05Z"],
        ["-insert", "New", "-data", "aGVs bG8="],
        ["-insert", "New", "-json", "{\"a\":[1,2.5,true,\"s\"],\"b\":{}}"],
        ["-insert", "New", "-json", "5"],
        ["-insert", "New", "-xml", "<dict><key>a</key><array><integer>1</integer></array></dict>"],
        ["-insert", "New", "-xml", "junk"],
        ["-insert", "New", "-dictionary"],
        ["-insert", "New", "-array"],
        ["-insert", "Window.Width", "-integer", "1024"],
        ["-insert", "Window.Frame", "-integer", "1"],
        ["-insert", "Window.Frame.x", "-string", "a"],
        ["-insert", "Nope.deeper", "-string", "a"],
        ["-insert", "RecentDocuments.0", "-string", "first"],
        ["-insert", "RecentDocuments.1", "-string", "second"],
        ["-insert", "RecentDocuments.3", "-string", "last"],
        ["-insert", "RecentDocuments.4", "-string", "beyond"],
        ["-insert", "RecentDocuments.-1", "-string", "negative"],
        ["-insert", "RecentDocuments.x", "-string", "not a number"],
        ["-insert", "RecentDocuments", "-string", "appended", "-append"],
        ["-insert", "Window", "-string", "appended", "-append"],
        ["-insert", "ZoomLevels.1", "-float", "0.75"],
        ["-replace", "AutoSaveInterval", "-integer", "600"],
        ["-replace", "AutoSaveInterval", "-string", "now a string"],
        ["-replace", "Brand.New", "-integer", "1"],
        ["-replace", "Fresh", "-integer", "1"],
        ["-replace", "Window.Zoomed", "-bool", "YES"],
        ["-replace", "RecentDocuments.1", "-integer", "7"],
        ["-replace", "RecentDocuments.3", "-integer", "7"],
        ["-replace", "RecentDocuments.9", "-integer", "7"],
        ["-replace", "RecentDocuments", "-integer", "7", "-append"],
        ["-replace", "Window", "-array"],
    ]

    @Test("edits of an XML file give plutil's value, status and message", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: preferenceEdits)
    func preferencesMatchPlutil(arguments: [String]) async throws {
        try await expectEditMatchesPlutil(arguments, on: Self.preferences)
    }

    @Test("edits of a binary file give plutil's value, status and message", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: [
            ["-insert", "Books.0.Tags.1", "-string", "x"],
            ["-insert", "Books.1.Subtitle", "-string", "Le Petit Prince"],
            ["-replace", "Counters.Largest", "-integer", "-1"],
            ["-replace", "Empty.Array", "-json", "[[],{}]"],
            ["-insert", "Empty.Array", "-string", "x", "-append"],
            ["-insert", "Books.9.Title", "-string", "x"],
          ])
    func catalogMatchesPlutil(arguments: [String]) async throws {
        try await expectEditMatchesPlutil(arguments, on: Self.catalog)
    }

    @Test("an insert into an XML file changes only the inserted lines")
    func xmlInsertKeepsTheRestOfTheFile() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let result = try await trove("insert", "Window.Width", "--integer", "1024", copy)
        #expect(result.status == 0, "\(result.stderrText)")
        let original = String(decoding: try bytes(of: Self.preferences), as: UTF8.self)
        let zoomed = "\t\t<key>Zoomed</key>\n\t\t<false/>\n"
        try #require(original.contains(zoomed))
        let expected = original.replacingOccurrences(
            of: zoomed, with: zoomed + "\t\t<key>Width</key>\n\t\t<integer>1024</integer>\n")
        #expect(String(decoding: try bytes(of: copy), as: UTF8.self) == expected)
    }

    @Test("replacing a value and putting it back gives the original bytes, XML and binary", arguments: [
        (preferences, "Window.Frame", "{{0, 0}, {1, 1}}", "{{120, 80}, {1024, 768}}"),
        (catalog, "Title", "Another title", "Trove sample catalogue"),
    ])
    func replaceAndRestoreIsLossless(sample: String, path: String, temporary: String, original: String) async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(sample, as: "copy.plist")
        #expect(try await trove("replace", path, "--string", temporary, copy).status == 0)
        #expect(try bytes(of: copy) != bytes(of: sample))
        #expect(try await trove("replace", path, "--string", original, copy).status == 0)
        #expect(try bytes(of: copy) == bytes(of: sample))
    }

    @Test("an OpenStep file keeps its comments through replace, insert and remove, and a JSON file its layout")
    func textFilesKeepTheirText() async throws {
        let directory = try TemporaryDirectory()
        let project = """
            // !$*UTF8*$!
            {
            \tname = Trove; // the product
            \t/* Build settings */
            \tsettings = {
            \t\tSWIFT_VERSION = 5.0;
            \t};
            }

            """
        let path = try directory.write(Data(project.utf8), as: "project.pbxproj")
        #expect(try await trove("replace", "settings.SWIFT_VERSION", "--string", "6.0", path).status == 0)
        var expected = project.replacingOccurrences(of: "5.0", with: "6.0")
        #expect(String(decoding: try bytes(of: path), as: UTF8.self) == expected)
        #expect(try await trove("insert", "settings.TARGET", "--string", "macOS 15", path).status == 0)
        expected = expected.replacingOccurrences(of: "6.0;\n", with: "6.0;\n\t\tTARGET = \"macOS 15\";\n")
        #expect(String(decoding: try bytes(of: path), as: UTF8.self) == expected)
        #expect(try await trove("remove", "name", path).status == 0)
        expected = expected.replacingOccurrences(of: "\tname = Trove; // the product\n", with: "")
        #expect(String(decoding: try bytes(of: path), as: UTF8.self) == expected)

        let json = """
            {
                "name": "Trove",
                "tags": ["plist", "json"],
                "version": 1.0
            }

            """
        let jsonPath = try directory.write(Data(json.utf8), as: "package.json")
        #expect(try await trove("insert", "tags", "--string", "text", "--append", jsonPath).status == 0)
        #expect(try await trove("remove", "version", jsonPath).status == 0)
        let edited = json.replacingOccurrences(of: #""json"]"#, with: #""json", "text"]"#)
            .replacingOccurrences(of: ",\n    \"version\": 1.0", with: "")
        #expect(String(decoding: try bytes(of: jsonPath), as: UTF8.self) == edited)
    }

    @Test("a JSON file stays JSON, compact or with -r as plutil -r writes it", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func jsonFileStaysJSON() async throws {
        let directory = try TemporaryDirectory()
        let json = Data("{\"b\":[1,2],\"a\":{\"c\":true}}".utf8)
        let compact = try directory.write(json, as: "compact.json")
        let readable = try directory.write(json, as: "readable.json")
        let theirs = try directory.write(json, as: "theirs.json")
        #expect(try await trove("insert", "a.d", "--string", "x", compact).status == 0)
        #expect(try await trove("insert", "a.d", "--string", "x", "-r", readable).status == 0)
        #expect(try await plutil("-insert", "a.d", "-string", "x", "-r", theirs).status == 0)
        let compactBytes = try bytes(of: compact)
        #expect(!compactBytes.contains(UInt8(ascii: "\n")))
        #expect(try JSONSerialization.jsonObject(with: compactBytes) as? NSDictionary
            == JSONSerialization.jsonObject(with: bytes(of: theirs)) as? NSDictionary)
        #expect(try bytes(of: readable) == bytes(of: theirs))
    }

    @Test("standard input is edited to standard output, and -o writes elsewhere leaving the input alone")
    func stdinAndOutputPath() async throws {
        let piped = try await trove("insert", "Added", "--integer", "18446744073709551615", "-", stdin: try bytes(of: Self.preferences))
        #expect(piped.status == 0, "\(piped.stderrText)")
        let value = try #require(try foundationValue(piped.stdout) as? [String: Any])
        #expect((value["Added"] as? NSNumber)?.uint64Value == UInt64.max)

        let directory = try TemporaryDirectory()
        let output = directory.path("out.plist")
        let result = try await trove("replace", "Version", "--integer", "4", "-o", output, Self.catalog)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try foundationFormat(bytes(of: output)) == .binary)
        #expect((try foundationValue(bytes(of: output)) as? [String: Any])?["Version"] as? Int == 4)
    }

    @Test("a value that does not parse is a usage error and nothing is written", arguments: [
        ["--integer", "abc"], ["--integer", "1.5"], ["--integer", "18446744073709551616"], ["--float", "x"],
        ["--float", "nan"], ["--date", "2024-01-02"], ["--data", "!!!"], ["--json", "{bad"], ["--json", "[null]"],
        [], ["--bool", "YES", "--string", "x"],
    ])
    func badValues(value: [String]) async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let result = try await trove(arguments: ["insert", "New"] + value + [copy])
        #expect(result.status == 64, "\(value): \(result.stderrText)")
        #expect(try bytes(of: copy) == bytes(of: Self.preferences))
    }

    @Test("integers keep the full range and floats their value")
    func numberRange() async throws {
        for (text, expected) in [("-9223372036854775808", "-9223372036854775808"), ("+12", "12"), (" 7 ", "7")] {
            let result = try await trove("insert", "N", "--integer", text, "-o", "-", Self.preferences)
            #expect(result.status == 0, "\(text): \(result.stderrText)")
            let value = try #require(try foundationValue(result.stdout) as? [String: Any])
            #expect((value["N"] as? NSNumber)?.stringValue == expected)
        }
        let real = try await trove("insert", "F", "--float", "1e-3", "-o", "-", Self.preferences)
        #expect((try foundationValue(real.stdout) as? [String: Any])?["F"] as? Double == 0.001)
    }
}
