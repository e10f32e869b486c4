import Foundation
import Testing

@testable import TroveCore
import TroveTestSupport

private func text(_ value: PlistValue, _ options: OpenStepPlistWriter.Options = []) throws(PlistError) -> String {
    String(decoding: try OpenStepPlistWriter(options).write(value), as: UTF8.self)
}

private func foundationReads(_ bytes: [UInt8]) -> PlistValue? {
    var format = PropertyListSerialization.PropertyListFormat.openStep
    guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
    else { return nil }
    return TextFixtures.plistValue(fromFoundation: object)
}

/// What an old-style round trip can keep: every non-container scalar other than data becomes
/// the string the writer spells it as.
private func stringified(_ value: PlistValue) -> PlistValue {
    switch value {
    case .integer(let i): return .string(i.description)
    case .real(let r): return .string(OpenStepNumberText.real(r))
    case .bool(let b): return .string(b ? "YES" : "NO")
    case .date(let d): return .string(OpenStepDates.gnustepString(d))
    case .array(let items): return .array(items.map(stringified))
    case .dictionary(let dict): return .dictionary(PlistDictionary(dict.map { ($0.key, stringified($0.value)) }))
    default: return value
    }
}

/// Random text-format values for the writer round trips, drawn from the shared seeded generator
/// so that failures reproduce.
struct TextValueGenerator {
    var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    static let alphabet: [String] = [
        "a", "Z", "0", "9", "_", "$", "/", ":", ".", "-", " ", "\"", "'", "\\", "\n", "\t", "\r", "\u{0}",
        "\u{1}", "\u{1F}", "\u{7F}", "é", "ß", "日", "😀", "\u{2028}", "{", "}", "(", ")", ";", "=", ",",
        "<", ">", "*", "//", "/*", "*/", "+", "@", "#",
    ]

    mutating func string() -> String {
        (0..<random.below(8)).map { _ in Self.alphabet[random.below(Self.alphabet.count)] }.joined()
    }

    /// A value of strings, data, arrays and dictionaries (what old-style text holds).
    mutating func openStepValue(depth: Int = 0) -> PlistValue {
        let pick = depth > 3 ? random.below(2) : random.below(4)
        switch pick {
        case 0: return .string(string())
        case 1: return .data(Data((0..<random.below(9)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 2: return .array((0..<random.below(4)).map { _ in openStepValue(depth: depth + 1) })
        default:
            var dict = PlistDictionary()
            for _ in 0..<random.below(4) { dict[string()] = openStepValue(depth: depth + 1) }
            return .dictionary(dict)
        }
    }

    /// Any value except UID and null.
    mutating func typedValue(depth: Int = 0) -> PlistValue {
        switch random.below(depth > 3 ? 6 : 8) {
        case 0: return .string(string())
        case 1: return .integer(random.below(2) == 0 ? PlistInteger(Int64(bitPattern: random.next())) : PlistInteger(random.next()))
        case 2:
            let doubles: [Double] = [0.1, -2.5, 3, 1e300, .leastNonzeroMagnitude, -0.0, 123456789.125, Double(bitPattern: random.next() >> 2)]
            return .real(PlistReal(doubles[random.below(doubles.count)]))
        case 3: return .bool(random.below(2) == 0)
        case 4: return .date(PlistDate(secondsSinceReferenceDate: Double(Int64(random.below(4_000_000_000)) - 2_000_000_000)))
        case 5: return .data(Data((0..<random.below(6)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 6: return .array((0..<random.below(4)).map { _ in typedValue(depth: depth + 1) })
        default:
            var dict = PlistDictionary()
            for _ in 0..<random.below(4) { dict[string()] = typedValue(depth: depth + 1) }
            return .dictionary(dict)
        }
    }
}

@Suite("OpenStep writer")
struct OpenStepWriterTests {
    @Test func layoutFollowsXcodeStyle() throws {
        let value: PlistValue = [
            "name": "Example",
            "list": ["one", "two words"],
            "empty": .dictionary([:]),
            "none": [],
            "bytes": .data(Data([0x0F, 0xBD, 0x77, 0x1C, 0x2B])),
            "nested": ["k": ["x"]],
        ]
        let expected = """
            {
            \tname = Example;
            \tlist = (
            \t\tone,
            \t\t"two words",
            \t);
            \tempty = {
            \t};
            \tnone = (
            \t);
            \tbytes = <0fbd771c 2b>;
            \tnested = {
            \t\tk = (
            \t\t\tx,
            \t\t);
            \t};
            }

            """
        #expect(try text(value) == expected)
    }

    @Test func topLevelScalarsAndEmptyValues() throws {
        #expect(try text("Hello") == "Hello\n")
        #expect(try text("") == "\"\"\n")
        #expect(try text(.data(Data())) == "<>\n")
        #expect(try text([]) == "(\n)\n")
        #expect(try text(.dictionary([:])) == "{\n}\n")
    }

    @Test func quotingAndEscapes() throws {
        #expect(try text("a/b:c.d-e_f$9") == "a/b:c.d-e_f$9\n")
        #expect(try text("http://x") == "\"http://x\"\n")
        #expect(try text("a b") == "\"a b\"\n")
        #expect(try text("say \"hi\" \\o/") == "\"say \\\"hi\\\" \\\\o/\"\n")
        #expect(try text("l1\nl2\tt\r\u{07}\u{08}\u{0C}\u{0B}") == "\"l1\\nl2\\tt\\r\\a\\b\\f\\v\"\n")
        #expect(try text("\u{0}\u{1B}\u{7F}") == "\"\\U0000\\U001B\\U007F\"\n")
        #expect(try text("café 日本") == "\"café 日本\"\n")
        #expect(try text("café 😀", .escapesNonASCII) == "\"caf\\U00E9 \\UD83D\\UDE00\"\n")
        #expect(try text(["k y": "v"]) == "{\n\t\"k y\" = v;\n}\n")
    }

    @Test("a root string that starts like a binary plist is quoted so detection reads it back as text")
    func rootStringThatLooksBinary() throws {
        #expect(try text("bplist00") == "\"bplist00\"\n")
        #expect(try text(["bplist00"]) == "(\n\tbplist00,\n)\n")
        for value: PlistValue in ["bplist00", "bplist", "bplist15x"] {
            let bytes = try OpenStepPlistWriter().write(value)
            #expect(try Plist.read(Data(bytes)).value == value)
        }
    }

    @Test func scalarsWithoutAnOldStyleTypeBecomeStrings() throws {
        let value: PlistValue = [
            .integer(-42), .integer(PlistInteger(UInt64.max)), .real(0.1), .real(3.0), .real(1e300),
            .real(PlistReal(Float(0.1))), .bool(true), .bool(false),
            .date(PlistDate(secondsSinceReferenceDate: 725_803_200.75)),
        ]
        let expected = """
            (
            \t-42,
            \t18446744073709551615,
            \t0.1,
            \t3,
            \t"1e+300",
            \t0.1,
            \tYES,
            \tNO,
            \t"2024-01-01 12:00:00 +0000",
            )

            """
        #expect(try text(value) == expected)
    }

    @Test func gnustepTypedFormReadsBackAsTypes() throws {
        let value: PlistValue = [
            "i": .integer(-42), "u": .integer(PlistInteger(UInt64.max)), "r": .real(0.1), "b": .bool(true),
            "n": .bool(false), "d": .date(PlistDate(secondsSinceReferenceDate: 725_803_200)),
            "data": .data(Data([1, 2])), "s": "text",
        ]
        let written = try OpenStepPlistWriter(.gnustepTyped).write(value)
        let output = String(decoding: written, as: UTF8.self)
        #expect(output.contains("i = <*I-42>;"))
        #expect(output.contains("r = <*R0.1>;"))
        #expect(output.contains("b = <*BY>;"))
        #expect(output.contains("d = <*D2024-01-01 12:00:00 +0000>;"))
        #expect(try OpenStepPlistReader(options: .gnustepExtensions).read(written) == value)
    }

    @Test func sortedKeysUseCodeUnitOrder() throws {
        let value: PlistValue = ["b": "1", "B": "2", "a": "3", "é": "4"]
        #expect(try text(value, .sortedKeys) == "{\n\tB = 2;\n\ta = 3;\n\tb = 1;\n\t\"é\" = 4;\n}\n")
    }

    @Test func uidAndNullAreUnsupported() {
        for (value, path) in [(PlistValue.array(["a", .uid(3)]), "1"), (["k": ["x": .null]], "k.x")] {
            do {
                _ = try OpenStepPlistWriter().write(value)
                Issue.record("wrote \(value)")
            } catch {
                #expect(error.code == .unsupportedValue)
                #expect(error.format == .openStep)
                #expect(error.keyPath?.description == path)
            }
        }
    }

    @Test func nestingBeyondTheLimitIsRefused() throws {
        var value: PlistValue = "leaf"
        for _ in 0..<4 { value = [value] }
        #expect(try OpenStepPlistWriter(maxDepth: 4).write(value).isEmpty == false)
        #expect(throws: PlistError.self) { try OpenStepPlistWriter(maxDepth: 3).write(value) }
    }

    @Test("generated values read back equal, by our reader and by Foundation", arguments: 0..<40)
    func generatedRoundTrip(seed: Int) throws {
        var generator = TextValueGenerator(seed: UInt64(seed) &* 7919)
        let value = generator.openStepValue()
        for options in [OpenStepPlistWriter.Options(), .escapesNonASCII] {
            let bytes = try OpenStepPlistWriter(options).write(value)
            #expect(try OpenStepPlistReader().read(bytes) == value)
            let foundation = try #require(foundationReads(bytes), "Foundation rejected: \(String(decoding: bytes, as: UTF8.self))")
            #expect(foundation == value)
        }
        let ascii = try OpenStepPlistWriter(.escapesNonASCII).write(value)
        #expect(ascii.allSatisfy { $0 < 0x80 })
    }

    @Test("typed values read back as their string spellings, or as types in GNUstep form", arguments: 0..<30)
    func generatedTypedRoundTrip(seed: Int) throws {
        var generator = TextValueGenerator(seed: UInt64(seed) &+ 1000)
        let value = generator.typedValue()
        let bytes = try OpenStepPlistWriter().write(value)
        #expect(try OpenStepPlistReader().read(bytes) == stringified(value))
        #expect(foundationReads(bytes) == stringified(value))
        let typed = try OpenStepPlistWriter(.gnustepTyped).write(value)
        #expect(try OpenStepPlistReader(options: .gnustepExtensions).read(typed) == value)
    }
}

@Suite("OpenStep writer: fixture corpus", .enabled(if: TextFixtures.isAvailable, TextFixtures.skipMessage))
struct OpenStepWriterCorpusTests {
    static let rows: [TextFixtures.Row] = TextFixtures.rows.filter { row in
        row.category == "openstep"
            || (row.category == "large" && (row.path.hasSuffix(".pbxproj") || row.path.hasSuffix(".strings")))
    }

    @Test("corpus files re-read equal through our writer", arguments: rows)
    func rewriteReadsBackEqual(_ row: TextFixtures.Row) throws {
        let value = try OpenStepPlistReader().read(try TextFixtures.bytes(row.path))
        let written = try OpenStepPlistWriter().write(value)
        #expect(try OpenStepPlistReader().read(written) == value)
        #expect(foundationReads(written) == value)
    }
}
