import Foundation
import Testing

@testable import TroveCore

/// Old-style rows of the fixture corpus: every `openstep/` file and the big Xcode projects and
/// `.strings` files in `large/`.
private let validOpenStepRows: [TextFixtures.Row] = TextFixtures.rows.filter { row in
    row.category == "openstep"
        || (row.category == "large" && (row.path.hasSuffix(".pbxproj") || row.path.hasSuffix(".strings")))
}

/// Malformed rows that must be rejected and that an old-style reader is the one to reject:
/// text that format detection hands to the OpenStep reader.
private let rejectedOpenStepRows: [TextFixtures.Row] = TextFixtures.rows.filter { row in
    guard row.category == "malformed", row.expectation == "must-reject", !row.path.hasSuffix(".json"),
        let bytes = try? TextFixtures.bytes(row.path)
    else { return false }
    return bytes.withUnsafeBytes { PlistFormat.detect($0) } == .openStep
}

private func foundationValue(_ bytes: [UInt8]) -> PlistValue? {
    var format = PropertyListSerialization.PropertyListFormat.openStep
    guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
    else { return nil }
    return TextFixtures.plistValue(fromFoundation: object)
}

@Suite("OpenStep reader: fixture corpus", .enabled(if: TextFixtures.isAvailable, TextFixtures.skipMessage))
struct OpenStepCorpusTests {
    @Test func corpusHasTheExpectedRows() {
        #expect(validOpenStepRows.count >= 28)
        #expect(rejectedOpenStepRows.count >= 25)
    }

    @Test("valid old-style files read, and as Foundation reads them", arguments: validOpenStepRows)
    func validFileReads(_ row: TextFixtures.Row) throws {
        let bytes = try TextFixtures.bytes(row.path)
        let value = try OpenStepPlistReader().read(bytes)
        if let foundation = foundationValue(bytes) {
            #expect(value == foundation)
        } else {
            Issue.record("Foundation could not read \(row.path) to compare")
        }
    }

    @Test("must-reject old-style files are rejected with a located error", arguments: rejectedOpenStepRows)
    func malformedFileIsRejected(_ row: TextFixtures.Row) throws {
        let bytes = try TextFixtures.bytes(row.path)
        do {
            let value = try OpenStepPlistReader().read(bytes)
            Issue.record("read \(value.kind) from a must-reject file")
        } catch {
            #expect(error.format == .openStep)
            if error.code != .unexpectedEnd || !bytes.isEmpty {
                #expect(error.location != nil, "\(error)")
            }
        }
    }

    @Test func octalEscapesMatchApplesExpectedStrings() throws {
        let value = try OpenStepPlistReader().read(try TextFixtures.bytes("openstep/sf-oldStyle-getSlashedChars_octal.plist"))
        let golden = try TextFixtures.bytes("binary/sf-oldStyle-getSlashedChars_octal_expected.plist.golden.json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(golden)) as? [String: Any])
        let entries = try #require(json["array"] as? [[String: String]])
        let expected = PlistValue.array(entries.compactMap { $0["string"].map(PlistValue.string) })
        #expect(entries.count == 580)
        #expect(value == expected)
    }

    @Test func documentedValuesOfSelectedFiles() throws {
        let escapes = try OpenStepPlistReader().read(try TextFixtures.bytes("openstep/go-plist-escapes-openstep.txt"))
        #expect(escapes["Hex1"] == "xAB")
        #expect(escapes["Unicode1"] == "u00AC")
        #expect(escapes["Unicode2"] == "\u{AD}")
        #expect(escapes["Octal1"] == "\u{1B}")
        let truncated = try OpenStepPlistReader().read(
            try TextFixtures.bytes("openstep/go-plist-various-truncated-escapes-openstep.txt"))
        #expect(truncated == "x1u02\u{03}\u{04}\u{05}7")
        let comment = try OpenStepPlistReader().read(try TextFixtures.bytes("openstep/dd-plist-github-issue73-5.plist"))
        #expect(comment == .dictionary([:]))
        let ja = try OpenStepPlistReader().read(
            try TextFixtures.bytes("openstep/strings-GoogleSoftwareUpdate-ja.Localizable.strings"))
        #expect(ja["alldone-success-button1"] == "OK")
    }

    @Test func gnustepFileIsRejectedByDefaultAndTypedWhenEnabled() throws {
        let bytes = try TextFixtures.bytes("malformed/go-plist-map-containing-all-variations-of-all-types-gnustep.txt")
        #expect(throws: PlistError.self) { try OpenStepPlistReader().read(bytes) }
        let value = try OpenStepPlistReader(options: .gnustepExtensions).read(bytes)
        #expect(value["booleans"] == [.bool(true), .bool(false)])
        #expect(value["floats"] == [.real(32.0), .real(64.0)])
        #expect(value["intarray"]?[2] == .integer(16))
        #expect(value["strings"]?[1] == "Hello, 世界")
        let date = try #require(value["date"]?.dateValue)
        #expect(date.iso8601String == "2013-11-27T00:34:00Z")
    }
}
