import Foundation
import Testing

@testable import TroveCore

/// Edits of small OpenStep and JSON documents written back with their layout notes, compared
/// with the exact text expected: comments, blank lines, quoting, spellings and encoding stay, and
/// new text follows the document's style.
@Suite("Text formats: edits keep the rest of the text")
struct TextLosslessEditTests {
    /// Reads `text` in `format` with layout, applies `edit`, and returns the text written back.
    static func edited(
        _ text: String, _ format: PlistFormat, encoding: String.Encoding = .utf8,
        _ edit: (inout PlistValue) throws -> Void
    ) throws -> String {
        let bytes = try #require(text.data(using: encoding))
        var document = try bytes.withUnsafeBytes { try format.reader().readDocument($0, keepingLayout: true) }
        #expect(try Plist.write(document) == bytes, "the unchanged document comes back byte for byte")
        try edit(&document.value)
        let output = try Plist.write(document)
        let reread = try Plist.read(output, options: PlistReadOptions(keepsLayout: false))
        #expect(reread.value == document.value, "the output reads back as the edited value")
        return try #require(String(data: output, encoding: encoding))
    }

    static let project = """
        // !$*UTF8*$!
        {
        \tarchiveVersion = 1; // the format's version
        \tobjects = {

        /* Begin PBXBuildFile section */
        \t\tA1 /* a.swift in Sources */ = {isa = PBXBuildFile; fileRef = F1 /* a.swift */; };
        \t\tA2 /* b.swift in Sources */ = {isa = PBXBuildFile; fileRef = F2 /* b.swift */; };
        /* End PBXBuildFile section */
        \t};
        \tfiles = (
        \t\tA1 /* a.swift in Sources */,
        \t\tA2,
        \t);
        }

        """

    @Test func replacingAValueKeepsEveryComment() throws {
        let output = try Self.edited(Self.project, .openStep) { try $0.replace("F9", at: "objects.A1.fileRef") }
        #expect(output == Self.project.replacingOccurrences(of: "fileRef = F1", with: "fileRef = F9"))
    }

    @Test func anInsertedEntryTakesItsSiblingsIndentationBeforeTheSectionEnd() throws {
        let output = try Self.edited(Self.project, .openStep) {
            try $0.insert(["isa": "PBXBuildFile", "fileRef": "F3"], at: "objects.A3")
            try $0.insert("A3", at: "files", placement: .append)
        }
        let expected = Self.project
            .replacingOccurrences(
                of: "/* End PBXBuildFile section */",
                with: "\t\tA3 = {\n\t\t\tisa = PBXBuildFile;\n\t\t\tfileRef = F3;\n\t\t};\n/* End PBXBuildFile section */")
            .replacingOccurrences(of: "\t\tA2,\n", with: "\t\tA2,\n\t\tA3,\n")
        #expect(output == expected)
    }

    @Test func aRemovedEntryTakesItsLineAndLeavesTheSectionMarkers() throws {
        let output = try Self.edited(Self.project, .openStep) {
            _ = try $0.removeValue(at: "objects.A1")
            _ = try $0.removeValue(at: "archiveVersion")
            _ = try $0.removeValue(at: "files.0")
        }
        let expected = Self.project
            .replacingOccurrences(of: "\tarchiveVersion = 1; // the format's version\n", with: "")
            .replacingOccurrences(of: "\t\tA1 /* a.swift in Sources */ = {isa = PBXBuildFile; fileRef = F1 /* a.swift */; };\n", with: "")
            .replacingOccurrences(of: "\t\tA1 /* a.swift in Sources */,\n", with: "")
        #expect(output == expected)
    }

    static let strings = """
        /* Localizable.strings, kept by hand */

        /* Greeting */
        "hello" = "Hello";

        /* Farewell */
        "bye" = 'Bye';
        "ok";

        """

    @Test func stringsFileInUTF16KeepsItsEncodingCommentsAndQuoting() throws {
        let replaced = try Self.edited(Self.strings, .openStep, encoding: .utf16) {
            try $0.replace("À bientôt", at: "bye")
            try $0.replace("Okay", at: "ok")
        }
        #expect(replaced == Self.strings
            .replacingOccurrences(of: "'Bye'", with: "\"À bientôt\"")
            .replacingOccurrences(of: "\"ok\";", with: "\"ok\" = \"Okay\";"))
        let added = try Self.edited(Self.strings, .openStep, encoding: .utf16) { try $0.insert("New", at: "new") }
        #expect(added == Self.strings + "\"new\" = \"New\";\n")
        let removed = try Self.edited(Self.strings, .openStep, encoding: .utf16) { _ = try $0.removeValue(at: "hello") }
        #expect(removed == Self.strings.replacingOccurrences(of: "\n/* Greeting */\n\"hello\" = \"Hello\";\n", with: ""))
    }

    @Test func theUTF16ByteOrderMarkIsKept() throws {
        let bytes: [UInt8] = [0xFF, 0xFE] + Array("a = b;\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        var document = try Plist.read(Data(bytes))
        #expect(Array(try Plist.write(document)) == bytes)
        try document.value.replace("c", at: "a")
        let expected: [UInt8] = [0xFF, 0xFE] + Array("a = c;\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(Array(try Plist.write(document)) == expected)
    }

    /// A byte-order mark with nothing after it is an empty `.strings` file, and comes back as it was.
    @Test(arguments: [[0xFE, 0xFF], [0xFF, 0xFE], [0xEF, 0xBB, 0xBF], [0x00, 0x00, 0xFE, 0xFF]] as [[UInt8]])
    func aByteOrderMarkAloneIsKept(_ bytes: [UInt8]) throws {
        let document = try bytes.withUnsafeBytes { try PlistFormat.openStep.reader().readDocument($0, keepingLayout: true) }
        #expect(document.value == .dictionary([:]))
        #expect(Array(try Plist.write(document)) == bytes)
    }

    @Test func aValueThatBecomesAContainerIsIndentedInPlace() throws {
        let output = try Self.edited(Self.project, .openStep) { try $0.replace(["one", "two words"], at: "archiveVersion") }
        #expect(output == Self.project.replacingOccurrences(
            of: "archiveVersion = 1;", with: "archiveVersion = (\n\t\tone,\n\t\t\"two words\",\n\t);"))
    }

    @Test func oneLineContainersStayOnOneLine() throws {
        let output = try Self.edited("{a = 1; b = (x, y); }\n", .openStep) {
            try $0.insert("2", at: "c")
            try $0.insert("z", at: "b", placement: .append)
        }
        #expect(output == "{a = 1; b = (x, y, z); c = 2; }\n")
    }

    @Test func commentOnlyStringsFileGainsEntriesAfterItsComments() throws {
        let output = try Self.edited("/* nothing yet */\n", .openStep) { try $0.insert("value", at: "key") }
        #expect(output == "/* nothing yet */\n\"key\" = \"value\";\n")
    }

    static let resolved = """
        {
          "pins" : [
            {
              "identity" : "apple-toolbox",
              "version" : "3.1.2"
            }
          ],
          "version" : 2
        }
        """

    @Test func prettyJSONKeepsItsSpacingAndAddsEntriesInItsStyle() throws {
        let output = try Self.edited(Self.resolved, .json) {
            try $0.replace(3, at: "version")
            try $0.insert("0c13c5f", at: "pins.0.revision")
            try $0.insert(["identity": "swift-argument-parser", "urls": ["https://github.com/apple"]], at: "pins", placement: .append)
        }
        let expected = """
            {
              "pins" : [
                {
                  "identity" : "apple-toolbox",
                  "version" : "3.1.2",
                  "revision" : "0c13c5f"
                },
                {
                  "identity" : "swift-argument-parser",
                  "urls" : [
                    "https://github.com/apple"
                  ]
                }
              ],
              "version" : 3
            }
            """
        #expect(output == expected)
    }

    @Test func removingTheLastJSONEntryRemovesTheCommaBeforeIt() throws {
        let output = try Self.edited(Self.resolved, .json) { _ = try $0.removeValue(at: "version") }
        #expect(output == Self.resolved.replacingOccurrences(of: "  ],\n  \"version\" : 2\n", with: "  ]\n"))
    }

    @Test func jsonNumberSpellingsAndEscapesStay() throws {
        let text = #"{"a": 1.0, "b": 1e3, "c": -0, "d": "caf\u00e9 \/", "e": [1,2]}"#
        let output = try Self.edited(text, .json) {
            try $0.replace(2, at: "a")
            try $0.insert("x/y", at: "e", placement: .append)
        }
        #expect(output == #"{"a": 2, "b": 1e3, "c": -0, "d": "caf\u00e9 \/", "e": [1,2,"x\/y"]}"#)
        let compact = try Self.edited(#"{"a":[1,2],"b":{}}"#, .json) { try $0.insert("new/path", at: "b.x") }
        #expect(compact == #"{"a":[1,2],"b":{"x":"new/path"}}"#)
    }

    @Test("a repeated key keeps its earlier entries, and an edit changes the one that counts", arguments: [PlistFormat.json, .openStep])
    func repeatedKeys(_ format: PlistFormat) throws {
        let text = format == .json ? #"{"a": 1, "b": 2, "a": 3}"# : "{a = 1; b = 2; a = 3; }"
        let replaced = try Self.edited(text, format) { try $0.replace("4", at: "a") }
        #expect(replaced == (format == .json ? #"{"a": 1, "b": 2, "a": "4"}"# : "{a = 1; b = 2; a = 4; }"))
        let added = try Self.edited(text, format) { try $0.insert("5", at: "c") }
        #expect(added == (format == .json ? #"{"a": 1, "b": 2, "c": "5", "a": 3}"# : "{a = 1; b = 2; c = 5; a = 3; }"))
        let removed = try Self.edited(text, format) { _ = try $0.removeValue(at: "a") }
        #expect(removed == (format == .json ? #"{"b": 2}"# : "{b = 2; }"))
    }

    @Test func reorderedKeysFollowTheValue() throws {
        let output = try Self.edited("{\n\ta = 1; // one\n\tb = 2;\n}\n", .openStep) {
            guard case .dictionary(let entries) = $0 else { return }
            $0 = .dictionary(PlistDictionary(entries.reversed().map { ($0.key, $0.value) }))
        }
        #expect(output == "{\n\tb = 2;\n\ta = 1; // one\n}\n")
    }

    @Test func anEditedValueTheFormatCannotHoldIsATypedError() throws {
        var document = try Plist.read(Data(#"{"a": [1]}"#.utf8))
        try document.value.insert(.date(PlistDate(secondsSinceReferenceDate: 0)), at: "a", placement: .append)
        #expect(throws: PlistError.self) { try Plist.write(document) }
        do {
            _ = try Plist.write(document)
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.keyPath == ["a", 1])
        }
    }
}
