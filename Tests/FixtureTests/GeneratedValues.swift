import Foundation
import Trove
import TroveTestSupport

/// The values the live-peer cross-checks exchange with Foundation and plistlib: a fixed catalogue
/// of edge cases followed by seeded random trees, a few hundred in all.
enum GeneratedValues {
    /// One generated value and a name that says what it exercises.
    struct Case: Sendable, CustomStringConvertible {
        var id: Int
        var name: String
        var value: PlistValue

        var description: String { "case \(id) (\(name))" }
    }

    static let seed: UInt64 = 0x7A0E_2026_0000_0001

    /// All cases, edge catalogue first.
    static let all: [Case] = {
        var cases: [Case] = []
        func add(_ name: String, _ value: PlistValue) { cases.append(Case(id: cases.count, name: name, value: value)) }
        for (name, value) in edgeScalars { add(name, value) }
        // Each scalar also inside an array and a dictionary, where writers take other code paths.
        add("all edge scalars in an array", .array(edgeScalars.map(\.1)))
        add(
            "all edge scalars in a dictionary",
            .dictionary(PlistDictionary(edgeScalars.enumerated().map { ("k\($0.offset) \($0.element.0)", $0.element.1) })))
        for (name, value) in edgeContainers { add(name, value) }
        var rng = SplitMix(seed: seed)
        while cases.count < 320 {
            add("random tree", randomValue(depth: 0, using: &rng))
        }
        return cases
    }()

    static let edgeScalars: [(String, PlistValue)] = {
        var list: [(String, PlistValue)] = []
        let integers: [(String, PlistInteger)] = [
            ("0", 0), ("1", 1), ("-1", -1), ("Int64.min", PlistInteger(Int64.min)), ("Int64.max", PlistInteger(Int64.max)),
            ("UInt64.max", PlistInteger(UInt64.max)), ("Int64.max + 1", PlistInteger(UInt64(Int64.max) + 1)),
            ("255", 255), ("256", 256), ("65535", 65535), ("65536", 65536), ("2^32 - 1", 4_294_967_295),
            ("2^32", 4_294_967_296), ("-128", -128), ("-129", -129), ("-32768", -32768), ("-2^31", -2_147_483_648),
            ("-2^31 - 1", -2_147_483_649),
        ]
        list += integers.map { ("integer \($0.0)", .integer($0.1)) }
        let doubles: [(String, Double)] = [
            ("0.0", 0), ("-0.0", -0.0), ("NaN", .nan), ("+infinity", .infinity), ("-infinity", -.infinity), ("1.5", 1.5),
            ("0.1", 0.1), ("smallest subnormal", .leastNonzeroMagnitude), ("greatest finite", .greatestFiniteMagnitude),
            ("1e300", 1e300), ("-123456.789", -123_456.789), ("2^53 + 2", 9_007_199_254_740_994),
        ]
        list += doubles.map { ("real \($0.0)", .real(PlistReal($0.1))) }
        let floats: [(String, Float)] = [
            ("1.5", 1.5), ("0.1", 0.1), ("-0.0", -0.0), ("greatest finite", .greatestFiniteMagnitude), ("infinity", .infinity),
            ("smallest normal", .leastNormalMagnitude),
        ]
        list += floats.map { ("real32 \($0.0)", .real(PlistReal($0.1))) }
        list += [("bool true", .bool(true)), ("bool false", .bool(false))]
        func secondsSince2001(_ year: Int64, _ month: Int64, _ day: Int64) -> Double {
            Double((GoldenValue.daysSince1970(year: year, month: month, day: day) - 11_323) * 86_400)
        }
        let dates: [(String, Double)] = [
            ("reference date", 0), ("one second before 2001", -1), ("fractional 1.5 s", 1.5), ("-0.5 s", -0.5),
            ("1970 epoch", secondsSince2001(1970, 1, 1)), ("1900-01-01", secondsSince2001(1900, 1, 1)),
            ("1600-03-01", secondsSince2001(1600, 3, 1)), ("2038-01-19 03:14:07", 2_147_483_647 - 978_307_200),
            ("microseconds", 123_456_789.123_456), ("sub-microsecond", 0.000_000_3),
            ("year 4001", secondsSince2001(4001, 1, 1)), ("1999-12-31 fractional", secondsSince2001(1999, 12, 31) + 0.25),
        ]
        list += dates.map { ("date \($0.0)", .date(PlistDate(secondsSinceReferenceDate: $0.1))) }
        var bytes = SplitMix(seed: seed ^ 0xDA7A)
        let large = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &bytes) })
        list += [
            ("empty data", .data(Data())), ("one byte", .data(Data([0]))), ("all byte values", .data(Data((0...255).map { UInt8($0) }))),
            ("100 KB data", .data(large)),
        ]
        let strings: [(String, String)] = [
            ("empty", ""), ("ascii", "hello"), ("markup <&>", "<a href=\"x\">&amp; 'q'</a>"), ("CDATA end", "]]>"),
            ("Latin-1", "Grüße, café"), ("CJK", "日本語のテキスト"), ("astral emoji", "😀🇫🇷"), ("astral math", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"),
            ("combining", "e\u{301}"), ("tab and newline", "a\tb\nc"), ("carriage return", "line1\r\nline2\rline3"),
            ("C0 controls", "x\u{1}y\u{8}z\u{1F}"), ("DEL", "a\u{7F}b"), ("leading and trailing spaces", "  padded  "),
            ("only spaces", "   "), ("long", String(repeating: "long string ", count: 1_000)), ("$null lookalike", "$null"),
            ("U+FEFF inside", "a\u{FEFF}b"), ("private use", "\u{E000}\u{F8FF}"), ("NUL", "a\u{0}b"),
        ]
        list += strings.map { ("string \($0.0)", .string($0.1)) }
        let uids: [(String, UInt64)] = [("0", 0), ("1", 1), ("255", 255), ("256", 256), ("UInt32.max", UInt64(UInt32.max))]
        list += uids.map { ("uid \($0.0)", .uid($0.1)) }
        list += [("null", .null)]
        return list
    }()

    static let edgeContainers: [(String, PlistValue)] = {
        var deep: PlistValue = .string("bottom")
        for i in 0..<60 { deep = i.isMultiple(of: 2) ? .array([deep]) : .dictionary(["d\(i)": deep]) }
        return [
            ("empty array", .array([])), ("empty dictionary", .dictionary([:])), ("array of empties", .array([.array([]), .dictionary([:]), .string(""), .data(Data())])),
            ("dictionary with empty key", .dictionary(["": .integer(1), "a": .array([])])),
            ("non-ASCII keys", .dictionary(["clé": .bool(true), "ключ": .bool(false), "😀": .integer(3), "<&>": .string("v")])),
            // Two keys each to CF and plistlib (code units differ), one key each to Swift's `==`.
            ("canonically equivalent keys", .dictionary(["é": .integer(1), "e\u{301}": .integer(2), "K": .integer(3), "\u{212A}": .integer(4)])),
            ("60 levels of nesting", deep),
            ("null in array", .array([.null, .integer(1), .null])),
            ("uids in a keyed-archive shape", .dictionary(["$top": .dictionary(["root": .uid(1)]), "$objects": .array([.string("$null"), .uid(2), .uid(0)])])),
            ("many keys", .dictionary(PlistDictionary((0..<300).map { ("key\($0)", .integer(PlistInteger($0 * 1_000))) }))),
            ("many equal strings", .array(Array(repeating: .string("same"), count: 50))),
        ]
    }()

    /// A random value; containers only near the root so that values stay small.
    static func randomValue(depth: Int, using rng: inout SplitMix) -> PlistValue {
        let pick = Int.random(in: 0..<(depth < 3 ? 12 : 9), using: &rng)
        switch pick {
        case 0: return .integer(randomInteger(using: &rng))
        case 1:
            let bits = rng.next()
            let value = Double(bitPattern: bits)
            return .real(value.isFinite ? PlistReal(value) : PlistReal(Double(Int64(bitPattern: bits) >> 11)))
        case 2: return .real(PlistReal(Float(Int.random(in: -100_000...100_000, using: &rng)) / 64))
        case 3: return .bool(Bool.random(using: &rng))
        case 4:
            // Years 1600-2400, often with a fraction below the microsecond.
            let seconds = Double.random(in: -12_600_000_000...12_600_000_000, using: &rng)
            return .date(PlistDate(secondsSinceReferenceDate: Bool.random(using: &rng) ? seconds.rounded(.down) : seconds))
        case 5: return .data(Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 6, 7: return .string(randomString(using: &rng))
        case 8:
            let kinds = Int.random(in: 0..<20, using: &rng)
            return kinds == 0 ? .null : kinds == 1 ? .uid(UInt64.random(in: 0...70_000, using: &rng)) : .string(randomString(using: &rng))
        case 9:
            return .array((0..<Int.random(in: 0...6, using: &rng)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            var dict = PlistDictionary()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                dict[randomString(using: &rng)] = randomValue(depth: depth + 1, using: &rng)
            }
            return .dictionary(dict)
        }
    }

    static func randomInteger(using rng: inout SplitMix) -> PlistInteger {
        let magnitude = rng.next() >> UInt64.random(in: 0...63, using: &rng)
        if Bool.random(using: &rng), let negative = PlistInteger(isNegative: true, magnitude: magnitude >> 1) { return negative }
        return PlistInteger(magnitude)
    }

    /// Strings mixing ASCII, markup, Latin-1, CJK, astral characters and (rarely) controls.
    static func randomString(using rng: inout SplitMix) -> String {
        let pools: [[Unicode.Scalar]] = [
            Array("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789_-.".unicodeScalars),
            Array("<>&\"';=/".unicodeScalars),
            Array("éüßøçñ€£".unicodeScalars),
            Array("日本中文한국어".unicodeScalars),
            Array("😀🎉𝄞🐍".unicodeScalars),
            ["\t", "\n", "\u{1}", "\u{7F}"],
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...16, using: &rng) {
            let pool = Int.random(in: 0..<100, using: &rng)
            let chosen = pool < 60 ? pools[0] : pool < 72 ? pools[1] : pool < 82 ? pools[2] : pool < 90 ? pools[3] : pool < 97 ? pools[4] : pools[5]
            scalars.append(chosen[Int.random(in: 0..<chosen.count, using: &rng)])
        }
        return String(scalars)
    }
}
