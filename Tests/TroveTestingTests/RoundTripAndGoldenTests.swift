import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting

@Suite("TroveTesting: round trips and golden files")
struct RoundTripAndGoldenTests {
    @Test("a file that survives passes; the report names the formats tried")
    func roundTripPasses() throws {
        let value: PlistValue = ["name": "x", "sizes": [1, 2], "when": .date(PlistDate(secondsSinceReferenceDate: 5))]
        let report = try PlistCheck.roundTrip(try Plist.write(value, as: .xml), name: "v.plist")
        #expect(report.passed)
        // JSON has no dates, OpenStep no integers: skipped, not failed.
        #expect(report.conversions.filter { if case .passed = $0.outcome { true } else { false } }.map(\.format) == [.binary, .xml])
    }

    @Test("a rewrite that loses bytes fails, naming the check and the byte")
    func roundTripFailsOnBytes() throws {
        // Two bytes no offset points to: valid, but the layout notes keep no copy of the input,
        // so the rewrite cannot reproduce them.
        var file = Array("bplist00".utf8)
        file += [0xA1, 1, 0x77, 0x77, 0x10, 5]  // [5], then the junk, then the integer 5 at offset 12
        file += [8, 12]  // offset table at 14
        file += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 14]
        let bytes = Data(file)
        do {
            try PlistCheck.roundTrip(bytes, name: "odd.plist")
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .roundTripFailed)
            #expect(error.message == """
                odd.plist (binary1) does not survive a round trip:
                  rewrite in binary1: the rewrite differs from the input at byte 10 (46 bytes written, 48 read)
                """)
        }
    }

    @Test("a missing golden is recorded in XML, then compared")
    func goldenRecordsThenCompares() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("goldens/settings.plist")
        let local = PlistGoldenRecording(isRequested: false, isOnCI: false)
        #expect(try PlistCheck.golden(["a": 1], at: path, recording: local) == .recorded("there was no golden file"))
        #expect(try Plist.read(try Data(contentsOf: URL(fileURLWithPath: path))).format == .xml)
        #expect(try PlistCheck.golden(["a": 1], at: path, recording: local) == .matched)
        do {
            try PlistCheck.golden(["a": 2], at: path, recording: local)
            Issue.record("expected a mismatch")
        } catch {
            #expect(error.kind == .goldenMismatch)
            #expect(error.message.contains("~ a: 1 -> 2"))
            #expect(error.message.hasSuffix("re-record it with TROVE_RECORD=1."))
        }
        // Recording on request replaces it.
        let rerecord = PlistGoldenRecording(environment: ["TROVE_RECORD": "1"])
        #expect(try PlistCheck.golden(["a": 2], at: path, recording: rerecord) == .recorded("TROVE_RECORD is set"))
        #expect(try PlistCheck.golden(["a": 2], at: path, recording: local) == .matched)
    }

    @Test("on CI nothing is recorded: a missing golden fails, TROVE_RECORD is ignored")
    func goldenOnCI() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("settings.plist")
        let ci = PlistGoldenRecording(environment: ["CI": "true", "TROVE_RECORD": "1"])
        #expect(ci.isOnCI && ci.isRequested)
        #expect(!PlistGoldenRecording(environment: ["CI": "false"]).isOnCI)
        #expect(throws: PlistTestFailure.self) { try PlistCheck.golden(["a": 1], at: path, recording: ci) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try Plist.write(["a": 1], as: .xml).write(to: URL(fileURLWithPath: path))
        #expect(throws: PlistTestFailure.self) { try PlistCheck.golden(["a": 2], at: path, recording: ci) }
        #expect(try PlistCheck.golden(["a": 1], at: path, recording: ci) == .matched)
    }

    struct Point: Codable, Equatable {
        var x: Int
        var label: String?
    }

    @Test("a Codable value's golden is its encoded value")
    func codableGolden() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("point.plist")
        let local = PlistGoldenRecording(isRequested: false, isOnCI: false)
        try PlistCheck.golden(encoding: [Point(x: 1, label: "a")], at: path, recording: local)
        #expect(try Plist.read(try Data(contentsOf: URL(fileURLWithPath: path))).value == [["x": 1, "label": "a"]])
        #expect(throws: PlistTestFailure.self) {
            try PlistCheck.golden(encoding: [Point(x: 2, label: "a")], at: path, recording: local)
        }
    }
}
