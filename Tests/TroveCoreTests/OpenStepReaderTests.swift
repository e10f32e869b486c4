import Foundation
import Testing

@testable import TroveCore
import TroveTestSupport

private func readOpenStep(
    _ text: String, limits: PlistLimits = .default, options: OpenStepPlistReader.Options = []
) throws(PlistError) -> PlistValue {
    try OpenStepPlistReader(limits: limits, options: options).read(Array(text.utf8))
}

private func readOpenStep(bytes: [UInt8], options: OpenStepPlistReader.Options = []) throws(PlistError) -> PlistValue {
    try OpenStepPlistReader(options: options).read(bytes)
}

/// What the toolchain's Foundation (CoreFoundation's old-style parser) reads from `bytes`.
private func foundationReads(_ bytes: [UInt8]) -> PlistValue? {
    var format = PropertyListSerialization.PropertyListFormat.openStep
    guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
    else { return nil }
    return TextFixtures.plistValue(fromFoundation: object)
}

struct OpenStepGrammarCase: Sendable, CustomStringConvertible {
    var text: String
    var expected: PlistValue
    var description: String { text.debugDescription }
}

@Suite("OpenStep reader: grammar")
struct OpenStepReaderGrammarTests {
    static let cases: [OpenStepGrammarCase] = [
        .init(text: "Hello", expected: "Hello"),
        .init(text: "AZaz09_$/:.-", expected: "AZaz09_$/:.-"),
        .init(text: "\"a b\"", expected: "a b"),
        .init(text: "'single \"quoted\"'", expected: "single \"quoted\""),
        .init(text: "\"日本語 ✓\"", expected: "日本語 ✓"),
        .init(text: "{ a = b; \"c d\" = 'e'; }", expected: ["a": "b", "c d": "e"]),
        .init(text: "{}", expected: .dictionary([:])),
        .init(text: "()", expected: []),
        .init(text: "(a)", expected: ["a"]),
        .init(text: "(a, b, )", expected: ["a", "b"]),
        .init(text: "(104,101,)", expected: ["104", "101"]),
        .init(text: "{ a = 1; a = 2; }", expected: ["a": "2"]),
        .init(text: "{ \"\" = Hello; }", expected: ["": "Hello"]),
        .init(text: "{ k = { n = (1, (2, {})); }; }", expected: ["k": ["n": ["1", ["2", .dictionary([:])]]]]),
        .init(text: "<0fbd77 1c>", expected: .data(Data([0x0F, 0xBD, 0x77, 0x1C]))),
        .init(text: "<0F\tBD\r\n77\n>", expected: .data(Data([0x0F, 0xBD, 0x77]))),
        .init(text: "<>", expected: .data(Data())),
        .init(text: "< >", expected: .data(Data())),
        // Escapes.
        .init(text: #""\a\b\f\n\r\t\v""#, expected: "\u{07}\u{08}\u{0C}\n\r\t\u{0B}"),
        .init(text: #""q\"b\\s\'""#, expected: "q\"b\\s'"),
        .init(text: #""\d\x41\u00e9""#, expected: "dx41u00e9"),
        .init(text: #""\101\0017\1234""#, expected: "A\u{01}7S4"),
        .init(text: #""\370\372\375\376\200""#, expected: "\u{142}\u{153}\u{FF}\u{0}\u{A0}"),
        .init(text: #""\775""#, expected: "\u{FF}"),
        .init(text: #""\U4e16\U754C""#, expected: "世界"),
        .init(text: #""\U41Z\U003""#, expected: "AZ\u{03}"),
        .init(text: #""\UD83D\UDE00""#, expected: "😀"),
        .init(text: "\"\\é\"", expected: "é"),
        .init(text: "\"a\\\nb\"", expected: "a\nb"),
        .init(text: "\"raw\nline\ttab\"", expected: "raw\nline\ttab"),
        // Comments and whitespace.
        .init(text: "( a, // line, with ) and \"\n /* block ( */ b /* x */ )", expected: ["a", "b"]),
        .init(text: "(a,\u{2028}b\u{2029})", expected: ["a", "b"]),
        .init(text: "(a,\rb\r)", expected: ["a", "b"]),
        .init(text: "/", expected: "/"),
        .init(text: "(a/b, //c\n d)", expected: ["a/b", "d"]),
        .init(text: "  \n\t", expected: .dictionary([:])),
        .init(text: "// only a comment", expected: .dictionary([:])),
        .init(text: "/* unterminated", expected: .dictionary([:])),
        .init(text: "/* a */ /* b */", expected: .dictionary([:])),
        // The .strings form.
        .init(text: "a = b;\n\"c\" = \"d\";\n", expected: ["a": "b", "c": "d"]),
        .init(text: "\"Key\"; \"Key2\";", expected: ["Key": "Key", "Key2": "Key2"]),
        .init(text: "a = (x, y); b = { c = d; };", expected: ["a": ["x", "y"], "b": ["c": "d"]]),
        .init(text: "a = b; }", expected: ["a": "b"]),
        .init(text: "a = b; /* x */ ; c", expected: ["a": "b"]),
    ]

    @Test("reads", arguments: cases)
    func reads(_ c: OpenStepGrammarCase) throws {
        let value = try readOpenStep(c.text)
        #expect(value == c.expected)
    }

    @Test("agrees with Foundation's old-style parser", arguments: cases)
    func agreesWithFoundation(_ c: OpenStepGrammarCase) throws {
        let foundation = try #require(foundationReads(Array(c.text.utf8)), "Foundation rejected \(c)")
        #expect(foundation == c.expected)
    }

    @Test func byteOrderMarksSelectTheEncoding() throws {
        let text = "(\"Hello\", \"世界\")"
        let expected: PlistValue = ["Hello", "世界"]
        #expect(try readOpenStep(bytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8)) == expected)
        let be = [0xFE, 0xFF] + text.utf16.flatMap { u -> [UInt8] in [UInt8(u >> 8), UInt8(u & 0xFF)] }
        let le = [0xFF, 0xFE] + text.utf16.flatMap { u -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        #expect(try readOpenStep(bytes: be) == expected)
        #expect(try readOpenStep(bytes: le) == expected)
        let be32 = [0x00, 0x00, 0xFE, 0xFF] + text.unicodeScalars.flatMap { s -> [UInt8] in
            let v = s.value
            return [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        #expect(try readOpenStep(bytes: be32) == expected)
        let astral = [0xFF, 0xFE] + "\"😀\"".utf16.flatMap { u -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        #expect(try readOpenStep(bytes: astral) == "😀")
    }

    @Test func gnustepValuesReadAsTypesWhenEnabled() throws {
        let text = """
            { i = <*I-5>; big = <*I18446744073709551615>; r = <*R1.5>; y = <*BY>; n = <*BN>;
              d = <*D2024-01-01 12:00:00 +0000>; z = <*D2024-01-01 12:00:00 +0100>; b = <[YWJj]>;
              e = <[]>; plain = <01>; }
            """
        let value = try readOpenStep(text, options: .gnustepExtensions)
        let expected: PlistValue = [
            "i": .integer(-5), "big": .integer(PlistInteger(UInt64.max)), "r": .real(1.5),
            "y": .bool(true), "n": .bool(false),
            "d": .date(PlistDate(secondsSinceReferenceDate: 725_803_200)),
            "z": .date(PlistDate(secondsSinceReferenceDate: 725_803_200 - 3600)),
            "b": .data(Data("abc".utf8)), "e": .data(Data()), "plain": .data(Data([1])),
        ]
        #expect(value == expected)
    }
}

typealias OpenStepErrorCase = ReaderErrorCase<OpenStepPlistReader.Options>

@Suite("OpenStep reader: errors")
struct OpenStepReaderErrorTests {
    static let cases: [OpenStepErrorCase] = [
        .init("(", .unexpectedEnd, 1, 2),
        .init("{", .unexpectedEnd, 1, 2),
        .init("{a=b;", .unexpectedEnd, 1, 6),
        .init("{a=b", .unexpectedEnd, 1, 5),
        .init("{a=", .unexpectedEnd, 1, 4),
        .init("{0=(((/", .unexpectedEnd, 1, 8),
        .init("{\"A\"=A}", .syntax, 1, 7),
        .init("{a=;}", .syntax, 1, 4),
        .init("{a b}", .syntax, 1, 4),
        .init("{ {a=b;} = c; }", .syntax, 1, 3),
        .init("{a=b;;}", .syntax, 1, 6),
        .init("(A,,\"\",)", .syntax, 1, 4),
        .init("(,)", .syntax, 1, 2),
        .init("(a b)", .syntax, 1, 4),
        .init("(\n  a,\n  #)", .syntax, 3, 3),
        .init("(\r\n  a,\r\n  ?)", .syntax, 3, 3),
        .init("(日本, クオート無し)", .syntax, 1, 2),
        .init("(a\u{0}b)", .syntax, 1, 3),
        .init("a b", .syntax, 1, 3),
        .init("a = b", .unexpectedEnd, 1, 6),
        .init("a = b; c", .unexpectedEnd, 1, 9),
        .init("<ab> cde", .badRoot, 1, 6),
        .init("{a=b;} x", .badRoot, 1, 8),
        .init("(a) (b)", .badRoot, 1, 5),
        .init("<3>", .badData, 1, 2),
        .init("<3 3>", .badData, 1, 2),
        .init("<EQ>", .badData, 1, 2),
        .init("<zz>", .badData, 1, 2),
        .init("<33", .unexpectedEnd, 1, 4),
        .init("<", .unexpectedEnd, 1, 2),
        .init("(<*I5>)", .badData, 1, 3),
        .init("<[YWJj]>", .badData, 1, 2),
        .init("\"hi", .unexpectedEnd, 1, 1),
        .init("(\n\"hi\\", .unexpectedEnd, 2, 1),
        .init("\"\\02", .unexpectedEnd, 1, 1),
        .init("\"\\u231", .unexpectedEnd, 1, 1),
        .init("\"\\U\"", .badEscape, 1, 2),
        .init("\"\\Uzz\"", .badEscape, 1, 2),
        .init("\"x\\UD800\"", .badString, 1, 3),
        .init("\"\\UD800x\"", .badString, 1, 2),
        .init("\"\\UDC00\"", .badString, 1, 2),
        .init("\"\\UD800\\UD800\"", .badString, 1, 2),
        .init(bytes: [0x28, 0x22, 0xFF, 0x22, 0x29], .badEncoding, 1, 3),
        .init(bytes: [0x0A, 0x28, 0x22, 0xC3, 0x28], .badEncoding, 2, 3),
        .init(bytes: [0xFE, 0xFF, 0x01], .badEncoding, 1, 1),
        .init(bytes: [0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00], .badEncoding, 1, 1),
        .init(bytes: [], .unexpectedEnd, 0, 0),
        // GNUstep values, when enabled, still have to be well formed.
        .init("<*I>", .badInteger, 1, 4, options: .gnustepExtensions),
        .init("<*I1x>", .badInteger, 1, 4, options: .gnustepExtensions),
        .init("<*I18446744073709551616>", .badInteger, 1, 4, options: .gnustepExtensions),
        .init("<*I-9223372036854775809>", .badInteger, 1, 4, options: .gnustepExtensions),
        .init("<*Rx>", .badReal, 1, 4, options: .gnustepExtensions),
        .init("<*BX>", .syntax, 1, 4, options: .gnustepExtensions),
        .init("<*D5>", .badDate, 1, 4, options: .gnustepExtensions),
        .init("<*D2023-02-30 00:00:00 +0000>", .badDate, 1, 4, options: .gnustepExtensions),
        .init("<*Q1>", .syntax, 1, 3, options: .gnustepExtensions),
        .init("<*", .unexpectedEnd, 1, 3, options: .gnustepExtensions),
        .init("<*I3", .unexpectedEnd, 1, 5, options: .gnustepExtensions),
        .init("<[33==]", .unexpectedEnd, 1, 7, options: .gnustepExtensions),
        .init("<[33==", .unexpectedEnd, 1, 7, options: .gnustepExtensions),
        .init("<[3*==]>", .badData, 1, 3, options: .gnustepExtensions),
    ]

    @Test("rejects with a typed, located error", arguments: cases)
    func rejects(_ c: OpenStepErrorCase) {
        c.expectRefusal(naming: .openStep) { c throws(PlistError) in try OpenStepPlistReader(options: c.options).read(c.bytes) }
    }

    @Test func nestingUpToTheLimitIsFineAndBeyondFails() throws {
        let ok = String(repeating: "(", count: 512) + String(repeating: ")", count: 512)
        #expect(try readOpenStep(ok).kind == .array)
        let tooDeep = String(repeating: "(", count: 513) + String(repeating: ")", count: 513)
        #expect(throws: PlistError.self) { try readOpenStep(tooDeep) }
        do {
            _ = try readOpenStep(tooDeep)
        } catch {
            #expect(error.code == .depthLimit)
            #expect(error.location == .lineColumn(line: 1, column: 513))
        }
        let dicts = String(repeating: "{a=", count: 3) + "x" + String(repeating: ";}", count: 3)
        #expect(try readOpenStep(dicts, limits: PlistLimits(maxDepth: 3)) == ["a": ["a": ["a": "x"]]])
        #expect(throws: PlistError.self) { try readOpenStep(dicts, limits: PlistLimits(maxDepth: 2)) }
    }

    @Test func hostileNestingFailsWithoutExhaustingTheStack() {
        let bomb = String(repeating: "(", count: 200_000)
        do {
            _ = try readOpenStep(bomb)
            Issue.record("a 200 000-deep array was accepted")
        } catch {
            #expect(error.code == .depthLimit)
        }
        // No setting goes past PlistLimits.depthCeiling, so the depth limit still applies.
        let unbounded = PlistLimits(maxDepth: .max)
        do {
            _ = try readOpenStep(bomb, limits: unbounded)
            Issue.record("an unterminated 200 000-deep array was accepted")
        } catch {
            #expect(error.code == .depthLimit)
        }
    }

    @Test func valueCountLimit() throws {
        #expect(try readOpenStep("(a, b, c)", limits: PlistLimits(maxValues: 4)) == ["a", "b", "c"])
        do {
            _ = try readOpenStep("(a, b, c)", limits: PlistLimits(maxValues: 3))
            Issue.record("the value limit was not enforced")
        } catch {
            #expect(error.code == .sizeLimit)
        }
    }

    @Test func errorsCarryTheKeyPath() {
        let cases: [(String, String)] = [
            ("{ objects = { ABC = { isa = PBXGroup; name = \"x; }; }; }", "objects.ABC.name"),
            ("( a, (b, #) )", "1.1"),
            ("{ a = { b = c; d = <zz>; }; }", "a.d"),
            ("a = b; c = (x, y, {z = ;});", "c.2.z"),
        ]
        for (text, path) in cases {
            do {
                _ = try readOpenStep(text)
                Issue.record("read \(text)")
            } catch {
                #expect(error.keyPath?.description == path, "\(error)")
            }
        }
    }

    @Test func errorsNameTheProblem() {
        do {
            _ = try readOpenStep("{\n  key = value\n}")
        } catch {
            #expect(error.message.contains("';'"))
            #expect(error.message.contains("key"))
            #expect(error.location == .lineColumn(line: 3, column: 1))
            #expect(error.description.hasPrefix("OpenStep: 3:1:"))
        }
        do {
            _ = try readOpenStep("(<*I5>)")
        } catch {
            #expect(error.message.contains("gnustepExtensions"))
        }
    }
}

@Suite("OpenStep reader: robustness")
struct OpenStepReaderRobustnessTests {
    static let seedDocuments: [String] = [
        "{ a = (1, \"two\\n\", <0fbd>, {x=y;}); \"k\\U00e9\" = 'v\\101'; /* c */ // d\n }",
        "\"k\" = \"v\";\n\"k2\";\n/* end */",
        "(<*I5>, <*D2024-01-01 12:00:00 +0000>, <[YWJj]>, <*BY>)",
    ]

    @Test func everyPrefixEitherReadsOrThrows() {
        for document in Self.seedDocuments {
            let bytes = Array(document.utf8)
            var accepted = 0
            for length in 0...bytes.count {
                for options in [OpenStepPlistReader.Options(), .gnustepExtensions] {
                    if (try? OpenStepPlistReader(options: options).read(Array(bytes[..<length]))) != nil { accepted += 1 }
                }
            }
            // The whole document (at least) reads; a typed error is the only other outcome.
            #expect(accepted >= 1)
        }
    }

    @Test func mutatedInputsNeverTrap() {
        var mutator = ByteMutator(
            random: SplitMix(seed: 42),
            alphabet: Array("{}()<>=;,\"'\\/*UI0aZ \n\u{0}".utf8) + [0xC3, 0xA9, 0xFF, 0xE2, 0x80, 0xA8],
            emptyReplacement: 0x28)
        let outcome = mutator.readMutations(rounds: 600, of: Self.seedDocuments, naming: .openStep) { round, bytes throws(PlistError) in
            _ = try OpenStepPlistReader(options: round % 2 == 0 ? [] : .gnustepExtensions).read(bytes)
        }
        // Both outcomes occur, so the mutations reach the grammar rather than one early check.
        #expect(outcome.accepted > 0)
        #expect(outcome.rejected > 0)
    }
}

@Suite("OpenStep reader: repeated keys")
struct OpenStepReaderRepeatedKeyTests {
    @Test("a repeated key keeps its first position and its last value, braced or in a strings body", arguments: [3, 10, 40])
    func repeatedKeys(count: Int) throws {
        let entries = (0..<count).map { "k\($0) = \($0);" } + ["k1 = again;", "k\(count - 1) = last;"]
        let keys = (0..<count).map { "k\($0)" }
        var values = (0..<count).map { PlistValue.string("\($0)") }
        values[1] = "again"
        values[count - 1] = "last"
        let body = entries.joined(separator: " ")
        for text in ["{" + body + "}", "{outer = ({" + body + "});}", body] {
            var value = try readOpenStep(text)
            if let outer = value.dictionaryValue?["outer"]?.arrayValue?.first { value = outer }
            let dictionary = try #require(value.dictionaryValue, "\(text.prefix(20))")
            #expect(dictionary.keys == keys, "\(text.prefix(20))")
            #expect(dictionary.values == values, "\(text.prefix(20))")
            #expect(dictionary["k1"] == "again" && dictionary["k\(count - 1)"] == "last")
        }
    }
}
