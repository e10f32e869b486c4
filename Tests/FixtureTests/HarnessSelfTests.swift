import Foundation
import Testing
import Trove
import TroveTestSupport

/// Tests of the harness's own parts, so that a passing corpus or peer check means the library
/// passed, not that the harness compared nothing.
@Suite("Harness: its own parts")
struct HarnessSelfTests {
    @Test("Golden dates are exact seconds since 2001, fractions as microseconds")
    func goldenDates() throws {
        #expect(try GoldenValue.secondsSinceReferenceDate(iso: "2001-01-01T00:00:00Z") == 0)
        #expect(try GoldenValue.secondsSinceReferenceDate(iso: "2000-12-31T23:59:59.5Z") == -0.5)
        #expect(try GoldenValue.secondsSinceReferenceDate(iso: "1970-01-01T00:00:00Z") == -978_307_200)
        #expect(try GoldenValue.secondsSinceReferenceDate(iso: "2001-01-01T00:00:01.000001Z") == 1.000_001)
        #expect(try GoldenValue.secondsSinceReferenceDate(iso: "900-03-01T00:00:00Z") < -34_000_000_000)
        for bad in ["2001-01-01T00:00:00", "2001-13-01T00:00:00Z", "2001-01-01T00:00:00.1234567Z", "2001-01-01 00:00:00Z"] {
            #expect(throws: CorpusError.self, "\(bad) must not parse") { try GoldenValue.secondsSinceReferenceDate(iso: bad) }
        }
    }

    @Test("Golden integers cover Int64.min...UInt64.max and nothing beyond")
    func goldenIntegers() throws {
        #expect(try GoldenValue.integer(fromDecimal: "-9223372036854775808") == PlistInteger(Int64.min))
        #expect(try GoldenValue.integer(fromDecimal: "18446744073709551615") == PlistInteger(UInt64.max))
        #expect(try GoldenValue.integer(fromDecimal: "-0") == 0)
        for bad in ["18446744073709551616", "-9223372036854775809", "1e3", "", "0x10"] {
            #expect(throws: CorpusError.self, "\(bad) must not parse") { try GoldenValue.integer(fromDecimal: bad) }
        }
    }

    @Test("Golden documents keep types, order, and the last of repeated keys")
    func goldenDocument() throws {
        let text = #"""
            {"dict": [
             ["b", {"array": [{"integer": "1"}, {"real": "1.0"}, {"real": "-0.0"}, {"real": "nan"}, {"real": "-inf"}, {"bool": true}]}],
             ["a", {"string": "\u00e9\ud83d\ude00<&>"}],
             ["b", {"uid": 7}],
             ["d", {"data": "AAEC"}],
             ["t", {"date": "2001-01-01T00:00:02Z"}]
            ]}
            """#
        let value = try GoldenValue.parse(Data(text.utf8))
        guard case .dictionary(let dict) = value else {
            Issue.record("not a dictionary: \(value)")
            return
        }
        #expect(Array(dict.keys) == ["b", "a", "d", "t"])
        #expect(dict["b"] == .uid(7))
        #expect(dict["a"] == .string("é😀<&>"))
        #expect(dict["d"] == .data(Data([0, 1, 2])))
        #expect(dict["t"] == .date(PlistDate(secondsSinceReferenceDate: 2)))
        let reals = try GoldenValue.parse(Data(#"{"array": [{"integer": "1"}, {"real": "1.0"}, {"real": "-0.0"}, {"real": "nan"}]}"#.utf8))
        #expect(reals == .array([.integer(1), .real(1.0), .real(-0.0), .real(PlistReal(Double.nan))]))
        #expect(reals != .array([.integer(1), .real(1.0), .real(0.0), .real(PlistReal(Double.nan))]), "-0.0 must differ from 0.0")
    }

    @Test("CF$UID dictionaries normalise to UIDs as CoreFoundation reads them")
    func uidNormalisation() {
        func uidDict(_ n: PlistValue) -> PlistValue { .dictionary(["CF$UID": n]) }
        #expect(GoldenValue.normalisingXMLUIDs(uidDict(.integer(3))) == .uid(3))
        #expect(GoldenValue.normalisingXMLUIDs(uidDict(.integer(1_099_511_627_775))) == .uid(4_294_967_295))
        #expect(GoldenValue.normalisingXMLUIDs(uidDict(.integer(-1))) == .uid(4_294_967_295))
        #expect(GoldenValue.normalisingXMLUIDs(uidDict(.string("3"))) == uidDict(.string("3")))
        let twoEntries: PlistValue = .dictionary(["CF$UID": .integer(1), "x": .integer(2)])
        #expect(GoldenValue.normalisingXMLUIDs(twoEntries) == twoEntries)
    }

    @Test("Comparison rules forgive only what they name")
    func comparisonRules() {
        let date = { (s: Double) in PlistValue.date(PlistDate(secondsSinceReferenceDate: s)) }
        #expect(ValueComparison.firstDifference(date(10.000_000_4), date(10)) != nil)
        #expect(ValueComparison.firstDifference(date(10.000_000_4), date(10), rules: .microsecondDates) == nil)
        #expect(ValueComparison.firstDifference(date(10.000_01), date(10), rules: .microsecondDates) != nil)
        #expect(ValueComparison.firstDifference(date(-1), date(-0.5), rules: .wholeSecondDates) == nil)
        #expect(ValueComparison.firstDifference(date(0), date(-0.5), rules: .wholeSecondDates) != nil)
        #expect(ValueComparison.firstDifference(.real(0.0), .real(-0.0)) != nil)
        #expect(ValueComparison.firstDifference(.real(0.0), .real(-0.0), rules: .throughXML) == nil)
        #expect(ValueComparison.firstDifference(.uid(4_294_967_295), .uid(1_099_511_627_775), rules: .throughXML) == nil)
        #expect(ValueComparison.firstDifference(.uid(1), .uid(2), rules: .throughXML) != nil)
        let difference = ValueComparison.firstDifference(.array([.dictionary(["k": .integer(1)])]), .array([.dictionary(["k": .integer(2)])]))
        #expect(difference?.hasPrefix("root[0].k:") == true, "\(String(describing: difference))")
    }

    @Test("The hang guard gives up on work that does not finish, and returns work that does")
    func hangGuard() async {
        let slow = await HangGuard.run(seconds: 0.2) { () -> Int in
            Thread.sleep(forTimeInterval: 3)
            return 1
        }
        #expect(slow == nil)
        let fast = await HangGuard.run(seconds: 30) { 42 }
        #expect(fast == 42)
    }

    @Test("The object-table reader measures a hand-built binary plist")
    func objectTable() throws {
        // ["a"]: an array (object 0) holding the ASCII string "a" (object 1).
        var bytes = Array("bplist00".utf8) + [0xA1, 0x01, 0x51, 0x61] + [0x08, 0x0A]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 12]
        // The bytes are a real plist: Foundation reads them.
        #expect(try FoundationPeer.read(Data(bytes)) == .array([.string("a")]))
        let table = try BinaryObjectTable(Data(bytes))
        #expect(table.objectCount == 2)
        #expect(table.ranges == [8..<10, 10..<12])
        #expect(table.string(1) == "a")
        #expect(table.referenceCounts() == [1, 1])
        #expect(table.objectIndex(at: [.index(0)]) == 1)
        #expect(table.objectIndex(at: [.index(1)]) == nil)
        var truncated = bytes
        truncated.removeLast(3)
        #expect(throws: BinaryObjectTable.Malformed.self) { try BinaryObjectTable(Data(truncated)) }
    }

    @Test("The one-value edit picks a leaf, edits it and finds it again")
    func leafEdit() throws {
        let value: PlistValue = .dictionary(["flag": .bool(true), "list": .array([.integer(-1), .string("s")])])
        let leaves = LeafEdit.leaves(of: value)
        #expect(leaves.map(\.path) == [[.key("list"), .index(0)], [.key("list"), .index(1)]])
        #expect(LeafEdit.edited(.integer(-1)) == .integer(0))
        #expect(LeafEdit.edited(.integer(PlistInteger(UInt64.max))) == nil)
        #expect(LeafEdit.edited(.string("s")) == .string("sx"))
        let edited = try #require(LeafEdit.replacing(in: value, at: leaves[1].path[...], with: .string("sx")))
        #expect(edited == .dictionary(["flag": .bool(true), "list": .array([.integer(-1), .string("sx")])]))
        #expect(LeafEdit.textLines(Data("a\r\nb\n".utf8)) == ["a\r", "b", ""])
    }
}
