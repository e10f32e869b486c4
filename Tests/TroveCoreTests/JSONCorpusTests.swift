import Foundation
import Testing

@testable import TroveCore

private let validJSONRows: [TextFixtures.Row] = TextFixtures.rows.filter { $0.category == "json" }

private let rejectedJSONRows: [TextFixtures.Row] = TextFixtures.rows.filter {
    $0.category == "malformed" && $0.expectation == "must-reject" && $0.path.hasSuffix(".json")
}

@Suite("JSON reader: fixture corpus", .enabled(if: TextFixtures.isAvailable, TextFixtures.skipMessage))
struct JSONCorpusTests {
    @Test func corpusHasTheExpectedRows() {
        #expect(validJSONRows.count >= 17)
        #expect(rejectedJSONRows.count >= 20)
    }

    @Test("valid JSON files read, and as JSONSerialization reads them", arguments: validJSONRows)
    func validFileReads(_ row: TextFixtures.Row) throws {
        let bytes = try TextFixtures.bytes(row.path)
        let value = try JSONPlistReader().read(bytes)
        let foundation = try #require(foundationJSONValue(bytes), "JSONSerialization could not read \(row.path)")
        if row.path.hasSuffix("int64_min_max.json") {
            // JSONSerialization reads Int64.min as a real; the row requires the exact integer.
            #expect(value["INT64_MIN"] == .integer(PlistInteger(Int64.min)))
            #expect(value["INT64_MAX"] == .integer(PlistInteger(Int64.max)))
        } else {
            #expect(value == foundation)
        }
    }

    @Test("must-reject JSON files are rejected with a located error", arguments: rejectedJSONRows)
    func malformedFileIsRejected(_ row: TextFixtures.Row) throws {
        let bytes = try TextFixtures.bytes(row.path)
        do {
            let value = try JSONPlistReader().read(bytes)
            Issue.record("read \(value.kind) from a must-reject file")
        } catch {
            #expect(error.format == .json)
            #expect(error.location != nil, "\(error)")
        }
    }

    @Test func everyEncodingOfPass1ReadsTheSame() throws {
        let names = ["utf16be", "utf16le", "utf32be", "utf32le"]
        let values = try names.map { name in
            try JSONPlistReader().read(try TextFixtures.bytes("json/sf-json-pass1-\(name).json"))
        }
        #expect(values.count == 4)
        for value in values.dropFirst() { #expect(value == values[0]) }
        #expect(values[0]["glossary"]?["title"] == "example glossary")
    }

    @Test func packageResolvedValues() throws {
        let value = try JSONPlistReader().read(try TextFixtures.bytes("json/swiftpm-DuckDuckGo-Package.resolved"))
        #expect(value["version"]?.kind == .integer)
        #expect(value["pins"]?[0]?["identity"] == "apple-toolbox")
        #expect(value["pins"]?[0]?["state"]?["version"] == "3.1.2")
    }
}
