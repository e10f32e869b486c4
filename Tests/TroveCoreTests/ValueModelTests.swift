import Foundation
import Testing
@testable import TroveCore

@Suite("Value model")
struct ValueModelTests {
    @Test("integers cover Int64.min ... UInt64.max exactly")
    func integerRange() {
        let min = PlistInteger(Int64.min)
        #expect(min.isNegative)
        #expect(min.int64Value == Int64.min)
        #expect(min.uint64Value == nil)
        #expect(min.bitPattern == UInt64(bitPattern: Int64.min))
        let max = PlistInteger(UInt64.max)
        #expect(max.int64Value == nil)
        #expect(max.uint64Value == UInt64.max)
        #expect(PlistInteger(isNegative: true, magnitude: UInt64(Int64.max) + 2) == nil)
        #expect(PlistInteger(isNegative: true, magnitude: 0) == PlistInteger(0))
        #expect(PlistInteger(-1) < PlistInteger(0))
        #expect(PlistInteger(Int64.max) < PlistInteger(UInt64(Int64.max) + 1))
        #expect(PlistInteger(-5) < PlistInteger(-4))
        #expect(PlistInteger(-1).bitPattern == UInt64.max)
        #expect(PlistInteger(Int64.min).description == "-9223372036854775808")
    }

    @Test("reals: NaN equals NaN, -0.0 differs from 0.0, width ignored by equality")
    func realEquality() {
        #expect(PlistReal(Double.nan) == PlistReal(Double.nan))
        #expect(PlistReal(-0.0) != PlistReal(0.0))
        #expect(PlistReal(Float(1.5)) == PlistReal(1.5))
        #expect(PlistReal(Float(0.1)).width == .single)
        #expect(PlistReal(0.1, width: .single).value == Double(Float(0.1)))
        var set = Set<PlistValue>()
        set.insert(.real(PlistReal(Double.nan)))
        set.insert(.real(PlistReal(-Double.nan)))
        #expect(set.count == 1)
    }

    @Test("dictionaries keep order but compare and hash without it")
    func dictionaryOrder() {
        let a: PlistValue = ["z": 1, "a": 2, "m": [true, "x"]]
        let b: PlistValue = ["a": 2, "m": [true, "x"], "z": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.dictionaryValue?.keys == ["z", "a", "m"])
        let c: PlistValue = ["a": 2, "m": [true, "y"], "z": 1]
        #expect(a != c)
        #expect(PlistDictionary([("k", 1), ("j", 2), ("k", 3)]).keys == ["k", "j"])
        #expect(PlistDictionary([("k", 1), ("j", 2), ("k", 3)])["k"] == 3)
    }

    @Test("kinds never compare equal across cases")
    func crossKindInequality() {
        #expect(PlistValue.int(1) != .double(1))
        #expect(PlistValue.bool(true) != .int(1))
        #expect(PlistValue.string("$null") != .null)
        #expect(PlistValue.uid(0) != .int(0))
        #expect(PlistValue.array([]) != .dictionary([:]))
    }

    @Test("subscripts and key paths read and write nested values")
    func subscripts() {
        var v: PlistValue = ["a": ["b": [10, 20, ["c.d": "deep"]]]]
        #expect(v["a"]?["b"]?[1] == 20)
        #expect(v[keyPath: "a.b.2.c\\.d"] == "deep")
        #expect(v[keyPath: "a.b.9"] == nil)
        #expect(v[keyPath: "a.b.x"] == nil)
        v["a"]?["b"]?[0] = "ten"
        #expect(v[keyPath: "a.b.0"] == "ten")
        v["new"] = .data(Data([1, 2]))
        #expect(v["new"]?.dataValue == Data([1, 2]))
        v["new"] = nil
        #expect(v["new"] == nil)
        #expect(PlistKeyPath("a\\.b.c").components == ["a.b", "c"])
        #expect(PlistKeyPath(components: ["a.b", "c\\"]).description == "a\\.b.c\\\\")
        #expect(PlistKeyPath(PlistKeyPath(components: ["x.y", "z"]).description).components == ["x.y", "z"])
    }

    @Test("typed accessors return nil for other kinds")
    func accessors() {
        let v: PlistValue = 42
        #expect(v.intValue == 42)
        #expect(v.doubleValue == 42)
        #expect(v.stringValue == nil)
        #expect(PlistValue.uint64(UInt64.max).intValue == nil)
        #expect(PlistValue.uint64(UInt64.max).uint64Value == UInt64.max)
        #expect(PlistValue.null.isNull)
        #expect(PlistValue.uid(7).uidValue == 7)
        #expect(PlistValue.array([1, 2]).count == 2)
        #expect(PlistValue.int(1).count == nil)
    }

    @Test("dates format as CoreFoundation's XML dates", arguments: [
        (0.0, "2001-01-01T00:00:00Z"),
        (-1.0, "2000-12-31T23:59:59Z"),
        (0.75, "2001-01-01T00:00:00Z"),
        (-0.25, "2000-12-31T23:59:59Z"),
        (-978_307_200.0, "1970-01-01T00:00:00Z"),
        (7_952_342_400.0, "2253-01-01T00:00:00Z"),
        (-63_113_904_000.0, "0001-01-01T00:00:00Z"),
    ])
    func dateFormatting(seconds: Double, text: String) {
        #expect(PlistDate(secondsSinceReferenceDate: seconds).iso8601String == text)
    }

    @Test("calendar arithmetic round-trips across eras")
    func civilRoundTrip() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = CivilTime.civil(fromDays: days)
            #expect(CivilTime.days(fromCivil: y, m, d) == days)
        }
        let c = CivilTime(secondsSinceReferenceDate: 123_456_789)
        #expect(c.secondsSinceReferenceDate == 123_456_789)
    }

    @Test("description is compact and unambiguous")
    func description() {
        let v: PlistValue = ["s": "a\"b", "n": .null, "u": .uid(3), "d": .bytes([0, 255]), "f": .float(1.5)]
        #expect(v.description == #"{"s": "a\"b", "n": null, "u": UID(3), "d": <00ff>, "f": 1.5f}"#)
    }

    @Test("CoreFoundation key order compares UTF-16 code units")
    func keyOrder() {
        #expect(PlistKeyOrder.precedes("B", "a"))
        #expect(PlistKeyOrder.precedes("a", "ab"))
        #expect(!PlistKeyOrder.precedes("ab", "ab"))
        // U+FF21 (one unit 0xFF21) sorts after U+1F600 (surrogates 0xD83D 0xDE00) in UTF-16 order,
        // though before it in scalar order.
        #expect(PlistKeyOrder.precedes("\u{1F600}", "\u{FF21}"))
    }
}

@Suite("Format detection")
struct FormatDetectionTests {
    func detect(_ bytes: [UInt8]) -> PlistFormat? {
        bytes.withUnsafeBytes { PlistFormat.detect($0) }
    }

    @Test func binaryAndXML() {
        #expect(detect(Array("bplist00".utf8)) == .binary)
        #expect(detect(Array("bplist0?".utf8)) == .binary)
        #expect(detect(Array("  \n<?xml version=\"1.0\"?><plist/>".utf8)) == .xml)
        #expect(detect(Array("<plist version=\"1.0\"><true/></plist>".utf8)) == .xml)
        #expect(detect(Array("<!DOCTYPE plist><plist/>".utf8)) == .xml)
        #expect(detect([0xEF, 0xBB, 0xBF] + Array("<?xml".utf8)) == .xml)
        let utf16LE: [UInt8] = [0xFF, 0xFE] + Array("<?xml".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(detect(utf16LE) == .xml)
        let utf16BENoBOM: [UInt8] = Array("<?xml".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(detect(utf16BENoBOM) == .xml)
    }

    @Test func textFormats() {
        #expect(detect(Array("<0fbd77>".utf8)) == .openStep)
        #expect(detect(Array("{ a = b; }".utf8)) == .openStep)
        #expect(detect(Array("[1, 2]".utf8)) == .json)
        #expect(detect([]) == nil)
    }
}
