import Foundation
import Testing
import Trove

/// Every verb reports a bad file as one error line that starts with the file and the position:
/// `FILE:LINE:COLUMN: FORMAT: message` for text formats, `FILE: byte OFFSET: FORMAT: message`
/// for binary files. The inputs below put the fault at a place known from their bytes.
@Suite("error lines", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not found"))
struct ErrorLineTests {
    /// A bad input, where its fault is, and how the format is named.
    struct BadInput: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: Data
        /// The expected start of the error line after the file name.
        let position: String
        let format: String

        var testDescription: String { name }
    }

    /// A valid binary plist (`{"a": [1, 2]}` as plistlib writes it) with its top object's marker,
    /// at byte 8 right after the header, replaced by the unassigned marker 0xE0.
    static let badBinary: Data = {
        var bytes = Data([
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xD1, 0x01, 0x02, 0x51, 0x61, 0xA2, 0x03, 0x04,
            0x10, 0x01, 0x10, 0x02, 0x08, 0x0B, 0x0D, 0x10, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
        ])
        bytes[8] = 0xE0
        return bytes
    }()

    static let inputs: [BadInput] = [
        BadInput(name: "binary.plist", bytes: badBinary, position: ": byte 8: ", format: "binary"),
        // Line 2, column 4 is the second comma.
        BadInput(name: "data.json", bytes: Data("[1,\n 2,, 3]".utf8), position: ":2:4: ", format: "JSON"),
        // Line 2, column 3 is the ';' where ',' or ')' should be.
        BadInput(name: "old.plist", bytes: Data("(1,\n 2;)".utf8), position: ":2:3: ", format: "OpenStep"),
    ]

    @Test("lint, convert, print, type and extract all print FILE and the position first", arguments: inputs)
    func positionedLines(input: BadInput) async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(input.bytes, as: input.name)
        let expectedStart = path + input.position + input.format + ": "
        for arguments in [
            ["lint", path], ["convert", "-f", "xml1", path], ["print", path], ["type", "a", path],
            ["extract", "a", "xml1", path], ["convert", "-f", "swift", "-o", "-", path],
        ] {
            let result = try await trove(arguments: arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderrText.hasPrefix(expectedStart), "\(arguments): got \(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(arguments): one line")
        }
        #expect(try bytes(of: path) == input.bytes, "convert left the bad file as it was")
    }

    @Test("an XML error names the line of the fault, a column within it, and the key path")
    func xmlLine() async throws {
        let directory = try TemporaryDirectory()
        let text = "<plist>\n<dict>\n  <key>count</key>\n  <integer>12x</integer>\n</dict>\n</plist>\n"
        let path = try directory.write(Data(text.utf8), as: "bad.plist")
        let result = try await trove("lint", path)
        #expect(result.status == 1)
        let line = result.stderrText.trimmingCharacters(in: .newlines)
        // FILE:4:COLUMN: XML: message (at key path count)
        let afterFile = try #require(line.hasPrefix(path + ":4:") ? line.dropFirst(path.count + 3) : nil, "got \(line)")
        let column = try #require(Int(afterFile.prefix { $0.isNumber }), "got \(line)")
        #expect((1...25).contains(column), "column \(column) lies on line 4")
        #expect(afterFile.dropFirst(String(column).count).hasPrefix(": XML: "), "got \(line)")
        #expect(line.hasSuffix(" (at key path count)"), "got \(line)")
    }

    @Test("the line is built from the error's public fields: file, position, format, message, key path")
    func lineMatchesTheError() async throws {
        let directory = try TemporaryDirectory()
        for input in Self.inputs {
            let path = try directory.write(input.bytes, as: input.name)
            let error = try #require(Self.readError(input.bytes))
            var expected = path
            switch try #require(error.location) {
            case let .lineColumn(line, column): expected += ":\(line):\(column): "
            case .byteOffset(let offset): expected += ": byte \(offset): "
            }
            expected += "\(try #require(error.format).displayName): \(error.message)"
            if let keyPath = error.keyPath, !keyPath.components.isEmpty { expected += " (at key path \(keyPath))" }
            let result = try await trove("lint", path)
            #expect(result.stderrText == expected + "\n")
        }
    }

    @Test("errors without a position keep FILE: message, and lint's success line stays FILE: OK")
    func unpositioned() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.plist")
        let good = try directory.write(try Plist.write(["a": 1], as: .xml), as: "good.plist")
        let result = try await trove("lint", good, missing)
        #expect(result.stdoutText == "\(good): OK\n")
        #expect(result.stderrText == "\(missing): cannot open for reading: No such file or directory\n")

        let standardInput = try await trove("lint", "-", stdin: Data("(1,\n 2;)".utf8))
        #expect(standardInput.stderrText.hasPrefix("<stdin>:2:3: OpenStep: "), "got \(standardInput.stderrText)")
    }

    static func readError(_ bytes: Data) -> PlistError? {
        do {
            _ = try Plist.read(bytes)
            return nil
        } catch {
            return error
        }
    }
}
