import Foundation
import Testing
import Trove
import TroveTestSupport

/// Trove's `PlistEncoder` against the toolchain's `PropertyListEncoder`, live: the same bytes in
/// XML and binary for the same values, and the same refusals.
@Suite("Codable: encoder parity with Foundation")
struct CodableEncoderParityTests {
    /// Where two documents first differ, for a readable failure.
    static func firstDifference(_ a: Data, _ b: Data) -> String {
        let index = Array(zip(a, b)).firstIndex { $0 != $1 } ?? min(a.count, b.count)
        return "sizes \(a.count)/\(b.count), first difference at byte \(index)"
    }

    static func expectSameBytes<T: Encodable>(_ value: T, _ label: String, formats: [PlistFormat] = [.xml, .binary]) {
        for format in formats {
            let foundation = foundationEncode(value, as: format)
            let trove = troveEncode(value, as: format)
            switch (foundation, trove) {
            case let (.success(expected), .success(actual)):
                #expect(actual == expected, "\(label) \(format): \(firstDifference(actual, expected))")
            default:
                #expect(outcome(trove) == outcome(foundation), "\(label) \(format)")
            }
        }
    }

    @Test("generated documents: byte-identical XML and binary", arguments: 0..<60)
    func generatedDocuments(seed: Int) {
        var generator = ModelGenerator(seed: UInt64(seed))
        let document = generator.document()
        Self.expectSameBytes(document, "seed \(seed)")
    }

    @Test("scalars at their extremes")
    func scalarExtremes() {
        Self.expectSameBytes([Int64.min, Int64(Int32.min) - 1, -1, 0, 255, 256, 65_535, 65_536, Int64(UInt32.max), Int64(UInt32.max) + 1, .max], "Int64")
        Self.expectSameBytes([Int8.min, -1, 0, .max], "Int8")
        Self.expectSameBytes([Int16.min, .max], "Int16")
        Self.expectSameBytes([Int32.min, .max], "Int32")
        Self.expectSameBytes([UInt8.max, 0], "UInt8")
        Self.expectSameBytes([UInt16.max], "UInt16")
        Self.expectSameBytes([UInt32.max], "UInt32")
        Self.expectSameBytes([UInt64.max, 0, UInt64(Int64.max), UInt64(Int64.max) + 1, 5], "UInt64")
        Self.expectSameBytes([UInt.max, 7], "UInt")
        // Not `nan` beside `-nan`: whether Foundation stores them as one object depends on its
        // hash set's random seed (both are NaN, so equal, but they hash apart).
        Self.expectSameBytes([Float(0.1), -0.0, 0, .nan, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 16_777_216], "Float")
        Self.expectSameBytes([-Float.nan], "-nan Float")
        Self.expectSameBytes([0.1, -0.0, 0.0, .nan, .nan, .infinity, -.infinity, 1e20, 1e16, 1e15, 1.5e-10, .leastNonzeroMagnitude, 100, 123_456_789_012], "Double")
        Self.expectSameBytes([true, false, true, false], "Bool")
    }

    @Test("integers of different Swift types stay different objects")
    func integerTypes() {
        struct Mixed: Codable {
            var a: Int
            var b: UInt
            var c: UInt64
            var d: Int8
            var e: UInt32
        }
        Self.expectSameBytes([Mixed(a: 5, b: 5, c: 5, d: 5, e: 5), Mixed(a: -1, b: 0, c: .max, d: -1, e: .max)], "mixed")
    }

    @Test("strings: ASCII, UTF-16, long, escapes, canonical equivalents, $null")
    func strings() {
        Self.expectSameBytes(
            ["", "a", "é", "e\u{301}", "\u{e9}", "K", "\u{212A}", "$null", String(repeating: "x", count: 15), String(repeating: "é", count: 20),
             "\u{1F600}", "a\u{0}b", "<&>\"'", "\r\n\t", "\u{FEFF}bom"], "strings")
        Self.expectSameBytes([Optional("$null"), nil, "x"], "null and the string $null")
    }

    @Test("dates: fractions, before 1970, far past and future, NaN")
    func dates() {
        let seconds: [Double] = [0, -0.0, -0.5, 1.75, -978_307_200.25, 1e12, -1e11, -63_114_076_800, -63_114_076_801, .nan,
                                 Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate, 59.999]
        Self.expectSameBytes(seconds.map { Date(timeIntervalSinceReferenceDate: $0) }, "dates")
    }

    @Test("data: empty, every remainder, line wrapping at every depth")
    func data() {
        let blobs = [0, 1, 2, 3, 56, 57, 58, 59, 100, 1000].map { Data((0..<$0).map { UInt8(truncatingIfNeeded: $0 &* 37) }) }
        Self.expectSameBytes(blobs, "data")
        struct Deep: Codable {
            var data: Data
            var deeper: [Deep]
        }
        var deep = Deep(data: Data(repeating: 0xAB, count: 200), deeper: [])
        for level in 0..<12 { deep = Deep(data: Data(repeating: UInt8(level), count: 90 + level), deeper: [deep]) }
        Self.expectSameBytes(deep, "deep data")
        Self.expectSameBytes(Data([1, 2, 3]), "top-level data")
    }

    @Test("dictionaries: String keys sorted, Int keys, canonical keys, large")
    func dictionaries() {
        Self.expectSameBytes(["b": 1, "a": 2, "é": 3, "Z": 4, "e\u{301}z": 5, "": 6], "String keys")
        Self.expectSameBytes([5: "five", -1: "minus", 300: "many"], "Int keys")
        Self.expectSameBytes([1.5: "x"] as [Double: String], "Double keys")
        var large: [String: [Int]] = [:]
        for i in 0..<300 { large["key\(i)"] = [i, i % 7] }
        Self.expectSameBytes(large, "300 keys, two-byte references")
        Self.expectSameBytes(["k": [String: Int]()], "empty nested")
    }

    @Test("keyed containers: repeated keys, canonically equal keys, many keys")
    func keyedContainerEdges() {
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Keys: Encodable {
            let names: [String]
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                for (i, name) in names.enumerated() { try container.encode(i, forKey: AnyKey(stringValue: name)) }
            }
        }
        Self.expectSameBytes(Keys(names: ["b", "a", "b", "c", "a"]), "repeats")
        Self.expectSameBytes(Keys(names: ["e\u{301}", "\u{e9}", "b", "B", "\u{212A}", "K", "e\u{301}"]), "canonical")
        Self.expectSameBytes(Keys(names: (0..<40).map { "k\($0 % 25)" } + ["\u{212A}", "K", "\u{e9}", "e\u{301}"]), "many repeats")
    }

    @Test("nested containers, superEncoder and encodeNil")
    func containers() {
        struct Nested: Encodable {
            enum Keys: String, CodingKey { case a, b, c, superKey = "super" }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .b)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
                try container.encode(2, forKey: .c)
                try nested.encode("q", forKey: .a)
                try container.encode(3, forKey: .b)
                var list = container.nestedUnkeyedContainer(forKey: .superKey)
                try list.encode(true)
                try list.encodeNil()
                var inner = list.nestedUnkeyedContainer()
                try inner.encode(1.5)
                _ = list.superEncoder()
                try list.encode(false)
                let again = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
                _ = again
                var single = container.superEncoder(forKey: .c).singleValueContainer()
                try single.encode("replaced")
            }
        }
        Self.expectSameBytes(Nested(), "nested")
        struct UnkeyedSuper: Encodable {
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(1)
                let sup = list.superEncoder()
                var sub = sup.container(keyedBy: PlainKey.self)
                try sub.encode("x", forKey: PlainKey(stringValue: "k"))
                try list.encode(2)
            }
        }
        Self.expectSameBytes(UnkeyedSuper(), "unkeyed super")
        Self.expectSameBytes([Dog(name: "Rex", legs: 4, breed: "lab", tags: ["a"]), Dog(name: "Rex", legs: nil, breed: "Rex", tags: [])], "classes")
    }

    @Test("enums with associated values, optionals, nested optionals, empty values")
    func enumsAndOptionals() {
        Self.expectSameBytes([Shape.point, .circle(radius: 2), .polygon([1, 2], name: nil), .labelled("x", -3)], "enums")
        Self.expectSameBytes([Optional<Optional<Int>>.some(.none), .none, .some(.some(5))], "nested optionals")
        struct Empty: Codable {}
        struct NoValue: Encodable { func encode(to encoder: any Encoder) throws {} }
        Self.expectSameBytes([Empty()], "empty struct")
        Self.expectSameBytes([NoValue()], "value encoding nothing")
        Self.expectSameBytes(["a": [[Int]]()], "empty array")
    }

    @Test("top-level refusals are Foundation's, wrapped the same way")
    func topLevelRefusals() {
        struct NoValue: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Thrower: Encodable {
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(1)
                throw EncodingError.invalidValue(1, .init(codingPath: list.codingPath, debugDescription: "mine"))
            }
        }
        for format in [PlistFormat.xml, .binary] {
            func same<T: Encodable>(_ value: T, _ label: String) {
                let expected = outcome(foundationEncode(value, as: format))
                let actual = outcome(troveEncode(value, as: format))
                #expect(actual == expected, "\(label) \(format)")
                #expect(actual.description.hasPrefix("invalidValue") || label.hasPrefix("ok"), "\(label) \(format): \(actual)")
            }
            same(5, "Int")
            same(1.5, "Double")
            same("x", "String")
            same(Int?.none, "nil")
            same(true, "Bool")
            same(Date(timeIntervalSinceReferenceDate: 0), "Date")
            same(NoValue(), "nothing")
            same([Thrower()], "thrown")
            same(Data([1]), "ok data")
        }
    }

    @Test("coding paths seen by encode(to:) are Foundation's")
    func codingPaths() {
        final class Recorder: @unchecked Sendable { var paths: [String] = [] }
        struct Probe: Encodable {
            let recorder: Recorder
            enum Keys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var list = container.nestedUnkeyedContainer(forKey: .a)
                var keyed = list.nestedContainer(keyedBy: Keys.self)
                recorder.paths.append(describe(encoder.codingPath))
                recorder.paths.append(describe(list.codingPath))
                recorder.paths.append(describe(keyed.codingPath))
                recorder.paths.append(describe(keyed.superEncoder().codingPath))
                recorder.paths.append(describe(list.superEncoder().codingPath))
                try keyed.encode(Inner(recorder: recorder), forKey: .b)
                try container.encode([Inner(recorder: recorder)], forKey: .b)
            }
        }
        struct Inner: Encodable {
            let recorder: Recorder
            func encode(to encoder: any Encoder) throws {
                recorder.paths.append(describe(encoder.codingPath))
                var single = encoder.singleValueContainer()
                try single.encode(1)
            }
        }
        let foundation = Recorder()
        let trove = Recorder()
        _ = try? PropertyListEncoder().encode(Probe(recorder: foundation))
        _ = try? PlistEncoder().encode(Probe(recorder: trove))
        #expect(trove.paths == foundation.paths)
        #expect(foundation.paths.count == 7)
    }

    @Test("userInfo reaches encode(to:)")
    func userInfo() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "mode"))
        struct Reader: Encodable {
            let key: CodingUserInfoKey
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(encoder.userInfo[key] as? String ?? "none")
            }
        }
        var encoder = PlistEncoder(outputFormat: .xml)
        encoder.userInfo[key] = "custom"
        let decoded = try PropertyListDecoder().decode([String].self, from: encoder.encode(Reader(key: key)))
        #expect(decoded == ["custom"])
    }
}

/// A coding key made from any string.
struct PlainKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
