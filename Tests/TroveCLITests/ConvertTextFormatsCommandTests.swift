import Foundation
import Testing

@Suite("trove convert json and openstep", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct ConvertTextFormatsCommandTests {
    /// Property lists JSON can hold (no dates or data), built with Foundation types and written by
    /// Foundation, so that neither the input nor the expected output comes from Trove.
    static func jsonCompatibleDocuments() -> [[String: Any]] {
        [
            ["name": "Trove", "count": 3, "ratio": 0.25, "enabled": true, "off": false],
            [
                "nested": ["b": [1, 2, 3], "a": ["x": "y"], "Z": [] as [Any], "empty": [:] as [String: Any]],
                "item10": "ten", "item9": "nine", "Item9": "Nine", "ü": "umlaut",
                "escapes": "quote \" slash / back \\ tab \t newline \n", "日本": "語 😀",
                "big": NSNumber(value: UInt64.max), "small": NSNumber(value: Int64.min),
                "reals": [0.1, -2.5, 1e300, 1.5e-7, 3.0] as [Double],
            ],
            ["list": [["k": 1], ["k": 2]] as [Any], "": "empty key"],
        ]
    }

    private func writeInputs(_ directory: TemporaryDirectory) throws -> [String] {
        var paths: [String] = []
        for (index, document) in Self.jsonCompatibleDocuments().enumerated() {
            let xml = try PropertyListSerialization.data(fromPropertyList: document, format: .xml, options: 0)
            let binary = try PropertyListSerialization.data(fromPropertyList: document, format: .binary, options: 0)
            paths.append(try directory.write(xml, as: "doc\(index).xml"))
            paths.append(try directory.write(binary, as: "doc\(index).bplist"))
        }
        return paths
    }

    @Test("compact JSON has the value plutil -convert json gives", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func compactJSONMatchesPlutilByValue() async throws {
        let directory = try TemporaryDirectory()
        for path in try writeInputs(directory) {
            let ours = try await trove("convert", "json", "-o", "-", path)
            #expect(ours.status == 0, "\(path): \(ours.stderrText)")
            let theirs = try await plutil("-convert", "json", "-o", "-", path)
            try #require(theirs.status == 0, "plutil failed on \(path): \(theirs.stderrText)")
            #expect(!ours.stdoutText.contains("\n  "), "compact output is not indented")
            let ourValue = try #require(try JSONSerialization.jsonObject(with: ours.stdout) as? NSObject)
            let theirValue = try #require(try JSONSerialization.jsonObject(with: theirs.stdout) as? NSObject)
            #expect(ourValue == theirValue, "\(path)")
        }
    }

    @Test("-r JSON is byte-identical to plutil -convert json -r", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func readableJSONMatchesPlutilByBytes() async throws {
        let directory = try TemporaryDirectory()
        for path in try writeInputs(directory) {
            let ours = try await trove("convert", "-f", "json", "-r", "-o", "-", path)
            #expect(ours.status == 0, "\(path): \(ours.stderrText)")
            let theirs = try await plutil("-convert", "json", "-r", "-o", "-", path)
            try #require(theirs.status == 0, "plutil failed on \(path): \(theirs.stderrText)")
            #expect(ours.stdoutText == theirs.stdoutText, "\(path)")
        }
    }

    @Test("a file with dates or data cannot become JSON, as in plutil, and is left untouched", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func datesHaveNoJSONForm() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(TestEnvironment.sample("Preferences.plist"), as: "Preferences.plist")
        let before = try bytes(of: copy)
        let ours = try await trove("convert", "json", copy)
        #expect(ours.status == 1)
        #expect(ours.stderrText.hasPrefix("\(copy): "))
        #expect(ours.stderrText.contains("Invalid object in plist for JSON format"))
        #expect(try bytes(of: copy) == before)
        #expect(try await plutil("-convert", "json", "-o", "-", copy).status == 1)
    }

    @Test("converting in place to JSON replaces the file with JSON that reads back to the same value")
    func inPlaceJSONReadsBack() async throws {
        let directory = try TemporaryDirectory()
        let original = try #require(Self.jsonCompatibleDocuments().last)
        let path = try directory.write(
            try PropertyListSerialization.data(fromPropertyList: original, format: .binary, options: 0), as: "doc.plist")
        let result = try await trove("convert", "json", path)
        #expect(result.status == 0, "\(result.stderrText)")
        let written = try bytes(of: path)
        #expect(written.first == UInt8(ascii: "{"))
        let decoded = try #require(try JSONSerialization.jsonObject(with: written) as? NSObject)
        #expect(decoded == (original as NSDictionary))
    }

    @Test("an OpenStep or JSON file converted into its own format keeps its text; -r still re-indents JSON")
    func textFilesKeepTheirTextInTheirOwnFormat() async throws {
        let directory = try TemporaryDirectory()
        let strings = Data("/* Greeting */\n\"hello\" = 'Hello';\n".utf8)
        let json = Data("{\n    \"b\": 1.0,\n    \"a\": [1, 2]\n}\n".utf8)
        let stringsPath = try directory.write(strings, as: "Localizable.strings")
        let jsonPath = try directory.write(json, as: "doc.json")
        #expect(try await trove("convert", "openstep", "-o", "-", stringsPath).stdout == strings)
        #expect(try await trove("convert", "json", "-o", "-", jsonPath).stdout == json)
        #expect(try await trove("convert", "json", "-r", "-o", "-", jsonPath).stdout == Data("{\n  \"a\" : [\n    1,\n    2\n  ],\n  \"b\" : 1\n}".utf8))
    }

    @Test("openstep output reads back in Foundation as the same strings, arrays and dictionaries")
    func openStepReadsBackInFoundation() async throws {
        let directory = try TemporaryDirectory()
        let original: [String: Any] = [
            "name": "Trove", "two words": "a \"quoted\" value", "list": ["one", "two", ""],
            "nested": ["inner": "日本語", "empty": [:] as [String: Any]], "path": "/usr/bin:x.y",
        ]
        let path = try directory.write(
            try PropertyListSerialization.data(fromPropertyList: original, format: .xml, options: 0), as: "doc.plist")
        let result = try await trove("convert", "openstep", "-o", "-", path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try foundationFormat(result.stdout) == .openStep)
        #expect(try foundationValue(result.stdout) == (original as NSDictionary))
    }

    @Test("openstep writes numbers and booleans as strings, which Foundation reads back as strings")
    func openStepScalarsBecomeStrings() async throws {
        let result = try await trove("convert", "openstep", "-o", "-", TestEnvironment.sample("Preferences.plist"))
        #expect(result.status == 0, "\(result.stderrText)")
        let decoded = try #require(try foundationValue(result.stdout) as? [String: Any])
        #expect(decoded["AutoSaveInterval"] as? String == "300")
        #expect(decoded["ShowToolbar"] as? String == "YES")
        #expect((decoded["Window"] as? [String: Any])?["Frame"] as? String == "{{120, 80}, {1024, 768}}")
    }
}
