import Foundation
import Testing

@testable import TroveCore
import TroveTestSupport

private func readJSON(
    _ text: String, limits: PlistLimits = .default, options: JSONPlistReader.Options = []
) throws(PlistError) -> PlistValue {
    try JSONPlistReader(limits: limits, options: options).read(Array(text.utf8))
}

/// What Foundation's `JSONSerialization` reads, as a ``PlistValue``.
func foundationJSONValue(_ bytes: [UInt8]) -> PlistValue? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
        return nil
    }
    return TextFixtures.plistValue(fromFoundation: object)
}

struct JSONReadCase: Sendable, CustomStringConvertible {
    var text: String
    var expected: PlistValue
    /// False where this reader deliberately differs from `JSONSerialization`.
    var foundationAgrees = true
    var description: String { text.debugDescription }
}

@Suite("JSON reader: grammar")
struct JSONReaderGrammarTests {
    static let cases: [JSONReadCase] = [
        .init(text: #"{"a":1,"b":[true,false,null],"c":"s"}"#, expected: ["a": .integer(1), "b": [.bool(true), .bool(false), .null], "c": "s"]),
        .init(text: " \n\t[ 1 , { } , [ ] ]\r\n ", expected: [.integer(1), .dictionary([:]), []]),
        .init(text: "{}", expected: .dictionary([:])),
        .init(text: "[]", expected: []),
        .init(text: #"{"a":1,"a":2}"#, expected: ["a": .integer(2)]),
        .init(text: #"{"":{"":[]}}"#, expected: ["": ["": []]]),
        // Numbers: integers stay integers, exactly, across Int64.min ... UInt64.max.
        .init(text: "[0, -0, 42, -42]", expected: [.integer(0), .integer(0), .integer(42), .integer(-42)]),
        .init(text: "[9223372036854775807, 18446744073709551615]", expected: [.integer(PlistInteger(Int64.max)), .integer(PlistInteger(UInt64.max))]),
        .init(text: "[-9223372036854775808]", expected: [.integer(PlistInteger(Int64.min))], foundationAgrees: false),
        .init(text: "[18446744073709551616, -9223372036854775809]", expected: [.real(18446744073709551616.0), .real(-9223372036854775809.0)]),
        .init(text: "[123456789012345678901234567890]", expected: [.real(1.2345678901234568e29)]),
        .init(text: "[1.5, -0.25, 1e2, 1E-2, 2.5E+3, 0.1, 1.0]", expected: [.real(1.5), .real(-0.25), .real(100.0), .real(0.01), .real(2500.0), .real(0.1), .real(1.0)]),
        .init(text: "[-0.0]", expected: [.real(-0.0)], foundationAgrees: false),
        .init(text: "[1e-400]", expected: [.real(0.0)]),
        // Strings.
        .init(text: #"["\"\\\/\b\f\n\r\t"]"#, expected: ["\"\\/\u{08}\u{0C}\n\r\t"]),
        .init(text: #"["\u0041\u00e9\u00E9\u4e16\ud83d\ude00\u0000"]"#, expected: ["Aéé世😀\u{0}"]),
        .init(text: "[\"raw é 日本 😀 \u{7F}\"]", expected: ["raw é 日本 😀 \u{7F}"]),
        // Top-level scalars (RFC 8259).
        .init(text: "\"str\"", expected: "str"),
        .init(text: " 5 ", expected: .integer(5)),
        .init(text: "true", expected: .bool(true)),
        .init(text: "null", expected: .null),
        // Trailing commas, as JSONSerialization accepts them.
        .init(text: "[1,]", expected: [.integer(1)]),
        .init(text: #"{"a":1,}"#, expected: ["a": .integer(1)]),
    ]

    @Test("reads", arguments: cases)
    func reads(_ c: JSONReadCase) throws {
        #expect(try readJSON(c.text) == c.expected)
    }

    @Test("agrees with JSONSerialization", arguments: cases.filter(\.foundationAgrees))
    func agreesWithFoundation(_ c: JSONReadCase) throws {
        let foundation = try #require(foundationJSONValue(Array(c.text.utf8)))
        #expect(foundation == c.expected)
    }

    @Test func integersAndRealsAreKeptApart() throws {
        let value = try readJSON("[1, 1.0, 1e0]")
        #expect(value[0]?.kind == .integer)
        #expect(value[1]?.kind == .real)
        #expect(value[2]?.kind == .real)
    }

    @Test func encodingsAreDetectedWithAndWithoutByteOrderMarks() throws {
        let text = #"{"k":["é","😀"]}"#
        let expected: PlistValue = ["k": ["é", "😀"]]
        let utf16BE = text.utf16.flatMap { u -> [UInt8] in [UInt8(u >> 8), UInt8(u & 0xFF)] }
        let utf16LE = text.utf16.flatMap { u -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        let utf32BE = text.unicodeScalars.flatMap { s -> [UInt8] in
            [UInt8(s.value >> 24), UInt8(s.value >> 16 & 0xFF), UInt8(s.value >> 8 & 0xFF), UInt8(s.value & 0xFF)]
        }
        let utf32LE = text.unicodeScalars.flatMap { s -> [UInt8] in
            [UInt8(s.value & 0xFF), UInt8(s.value >> 8 & 0xFF), UInt8(s.value >> 16 & 0xFF), UInt8(s.value >> 24)]
        }
        let inputs: [[UInt8]] = [
            Array(text.utf8), [0xEF, 0xBB, 0xBF] + Array(text.utf8),
            utf16BE, [0xFE, 0xFF] + utf16BE, utf16LE, [0xFF, 0xFE] + utf16LE,
            utf32BE, [0, 0, 0xFE, 0xFF] + utf32BE, utf32LE, [0xFF, 0xFE, 0, 0] + utf32LE,
        ]
        for input in inputs {
            #expect(try JSONPlistReader().read(input) == expected, "\(input.prefix(8))")
        }
        #expect(try JSONPlistReader().read(Array("7".utf8)) == .integer(7))
    }

    @Test func strictModeRejectsTrailingCommas() {
        for text in ["[1,]", #"{"a":1,}"#] {
            do {
                _ = try readJSON(text, options: .strict)
                Issue.record("strict mode accepted \(text)")
            } catch {
                #expect(error.code == .syntax)
            }
        }
    }
}

typealias JSONErrorCase = ReaderErrorCase<JSONPlistReader.Options>

@Suite("JSON reader: errors")
struct JSONReaderErrorTests {
    static let cases: [JSONErrorCase] = [
        .init("", .unexpectedEnd, 1, 1),
        .init("  \n ", .unexpectedEnd, 2, 2),
        .init("[", .unexpectedEnd, 1, 2),
        .init(#"{"a":1"#, .unexpectedEnd, 1, 7),
        .init(#"{"a":"#, .unexpectedEnd, 1, 6),
        .init(#"{"a""#, .unexpectedEnd, 1, 5),
        .init(#"["abc"#, .unexpectedEnd, 1, 6),
        .init("[1] x", .badRoot, 1, 5),
        .init(#"{"Extra value after close": true} "misplaced quoted value""#, .badRoot, 1, 35),
        .init(#"{"Illegal invocation": alert()}"#, .syntax, 1, 24),
        .init(#"["Illegal backslash escape: \x15"]"#, .badEscape, 1, 29),
        .init(#"["Illegal backslash escape: \017"]"#, .badEscape, 1, 29),
        .init(#"["no" "seperator"]"#, .syntax, 1, 7),
        .init(#"{"Missing colon" null}"#, .syntax, 1, 18),
        .init(#"{"Comma instead of colon", null}"#, .syntax, 1, 26),
        .init(#"["Colon instead of comma": false]"#, .syntax, 1, 26),
        .init("[\"\ttab\"]", .badString, 1, 3),
        .init("[\"line\nbreak\"]", .badString, 1, 7),
        .init("[0e+]", .syntax, 1, 5),
        .init("[0e]", .syntax, 1, 4),
        .init(#"{"minus but no digits": -}"#, .syntax, 1, 25),
        .init(#"["42\u3", "foo"]"#, .badEscape, 1, 5),
        .init(#"["mismatch"}"#, .syntax, 1, 12),
        .init(#"["double extra comma",,]"#, .syntax, 1, 23),
        .init(#"[   , "<-- missing value"]"#, .syntax, 1, 5),
        .init(#"["Extra close"]]"#, .badRoot, 1, 16),
        .init(#"{unquoted_key: "keys must be quoted"}"#, .syntax, 1, 2),
        .init("{1:2}", .syntax, 1, 2),
        .init("[01]", .syntax, 1, 2),
        .init("[-01]", .syntax, 1, 2),
        .init("[1.]", .syntax, 1, 4),
        .init("[1.e5]", .syntax, 1, 4),
        .init("[.5]", .syntax, 1, 2),
        .init("[+1]", .syntax, 1, 2),
        .init("['a']", .syntax, 1, 2),
        .init("[NaN]", .syntax, 1, 2),
        .init("[Infinity]", .syntax, 1, 2),
        .init("[tru]", .syntax, 1, 2),
        .init("[nul", .syntax, 1, 2),
        .init("/*x*/[1]", .syntax, 1, 1),
        .init("[1E400]", .badReal, 1, 2),
        .init("[-1e400]", .badReal, 1, 2),
        .init(#"["\ud800"]"#, .badString, 1, 3),
        .init(#"["\ud800\u0041"]"#, .badString, 1, 3),
        .init(#"["\udc00x"]"#, .badString, 1, 3),
        .init(#"["é\uDC00"]"#, .badString, 1, 4),
        .init("[\n  1,\n  x]", .syntax, 3, 3),
        .init("[\r\n  1,\r\n  x]", .syntax, 3, 3),
        .init(bytes: [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], .badEncoding, 1, 3),
        .init(bytes: [0x5B, 0x00, 0x00, 0xD8, 0x5D, 0x00], .badEncoding, 1, 2),
    ]

    @Test("rejects with a typed, located error", arguments: cases)
    func rejects(_ c: JSONErrorCase) {
        c.expectRefusal(naming: .json) { c throws(PlistError) in try JSONPlistReader().read(c.bytes) }
    }

    @Test func errorsCarryTheKeyPath() {
        let cases: [(String, String)] = [
            (#"{"a":[1,{"b":tru}]}"#, "a.1.b"),
            (#"{"a":{"b":1,"c":"x\q"}}"#, "a.c"),
            (#"[0,[1,2,01]]"#, "1.2"),
        ]
        for (text, path) in cases {
            do {
                _ = try readJSON(text)
                Issue.record("read \(text)")
            } catch {
                #expect(error.keyPath?.description == path, "\(error)")
            }
        }
    }

    @Test func nestingLimit() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try readJSON(ok).kind == .array)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        do {
            _ = try readJSON(tooDeep)
            Issue.record("513 levels were accepted")
        } catch {
            #expect(error.code == .depthLimit)
            #expect(error.location == .lineColumn(line: 1, column: 513))
        }
        let objects = String(repeating: #"{"a":"#, count: 3) + "1" + String(repeating: "}", count: 3)
        #expect(try readJSON(objects, limits: PlistLimits(maxDepth: 3)) == ["a": ["a": ["a": .integer(1)]]])
        #expect(throws: PlistError.self) { try readJSON(objects, limits: PlistLimits(maxDepth: 2)) }
    }

    @Test func hostileNestingFailsWithoutExhaustingTheStack() {
        let bomb = String(repeating: "[", count: 200_000)
        do {
            // No setting goes past PlistLimits.depthCeiling, so the depth limit still applies.
            _ = try readJSON(bomb, limits: PlistLimits(maxDepth: .max))
            Issue.record("an unterminated 200 000-deep array was accepted")
        } catch {
            #expect(error.code == .depthLimit)
        }
    }

    @Test func valueCountLimit() throws {
        #expect(try readJSON("[1,2,3]", limits: PlistLimits(maxValues: 4)).count == 3)
        #expect(throws: PlistError.self) { try readJSON("[1,2,3]", limits: PlistLimits(maxValues: 3)) }
    }
}

@Suite("JSON reader: robustness")
struct JSONReaderRobustnessTests {
    static let seedDocument = #"{"a":[1,-2.5e3,true,false,null,"x\u00e9\ud83d\ude00\n"],"b":{"c":{}},"d":18446744073709551615}"#

    @Test func everyPrefixEitherReadsOrThrows() {
        let bytes = Array(Self.seedDocument.utf8)
        var accepted = 0
        for length in 0...bytes.count {
            do {
                _ = try JSONPlistReader().read(Array(bytes[..<length]))
                accepted += 1
            } catch {
                #expect(error.location != nil)
            }
        }
        // No proper prefix of an object is complete JSON.
        #expect(accepted == 1)
    }

    @Test func mutatedInputsNeverTrap() {
        var mutator = ByteMutator(
            random: SplitMix(seed: 7), alphabet: Array("{}[]:,\"\\u0123456789eE.-+tfn /".utf8) + [0xC3, 0xA9, 0xFF, 0x00],
            emptyReplacement: 0x5B)
        let outcome = mutator.readMutations(rounds: 600, of: [Self.seedDocument], naming: .json) { _, bytes throws(PlistError) in
            _ = try JSONPlistReader().read(bytes)
        }
        // Both outcomes occur, so the mutations reach the grammar rather than one early check.
        #expect(outcome.accepted > 0)
        #expect(outcome.rejected > 0)
    }
}

@Suite("JSON reader: repeated keys")
struct JSONReaderRepeatedKeyTests {
    /// The entries a dictionary of `count` keys reads as when `k1` and the last key come again with
    /// new values: every key once, in first-occurrence order, with its last value.
    static func expectation(count: Int) -> (keys: [String], values: [PlistValue]) {
        let keys = (0..<count).map { "k\($0)" }
        var values = (0..<count).map { PlistValue.integer(PlistInteger($0)) }
        values[1] = "again"
        values[count - 1] = "last"
        return (keys, values)
    }

    @Test("a repeated key keeps its first position and its last value, in dictionaries of every size", arguments: [3, 10, 40])
    func repeatedKeys(count: Int) throws {
        let entries = (0..<count).map { #""k\#($0)":\#($0)"# } + [#""k1":"again""#, #""k\#(count - 1)":"last""#]
        let object = "{" + entries.joined(separator: ",") + "}"
        let (keys, values) = Self.expectation(count: count)
        for text in [object, #"{"outer":[\#(object)]}"#] {
            var value = try readJSON(text)
            if let outer = value.dictionaryValue?["outer"]?.arrayValue?.first { value = outer }
            let dictionary = try #require(value.dictionaryValue)
            #expect(dictionary.keys == keys)
            #expect(dictionary.values == values)
            #expect(dictionary["k1"] == "again" && dictionary["k\(count - 1)"] == "last")
        }
    }
}
