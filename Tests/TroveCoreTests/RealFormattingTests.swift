import CTroveFastPaths
import Foundation
import Testing
import TroveTestSupport

/// `trove_format_real_g17` takes an exact integer path for most doubles; it must print exactly
/// what `snprintf("%.17g")` prints (CoreFoundation's spelling of reals) for every value. Likewise
/// `trove_parse_decimal` must read every number it accepts exactly as `strtod` does.
@Suite("Real formatting and parsing")
struct RealFormattingTests {
    private static func fast(_ d: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 40)
        let n = trove_format_real_g17(&buffer, 40, d)
        return String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func reference(_ d: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 40)
        let n = trove_format_real_g17_reference(&buffer, 40, d)
        return String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test("values people write, powers of ten and their neighbours, and the edges of the fast path")
    func chosenValues() {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.1, 0.2, 0.3, 0.85, 1.5, 2.5, 3.14159, 86400, 1e15, 1e16, 1e17, 1e18,
            9007199254740992, 9007199254740994, 123456789012345680, 1e-4, 1e-5, 0.0001, 0.00012, 1e22, 1e23,
            Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, Double.leastNonzeroMagnitude,
            .pi, .ulpOfOne, 1 / 3.0, 2 / 3.0, -683.404, 299792458, 6.02214076e23, 1.602176634e-19,
            Double(Float(0.1)), Double(Float.greatestFiniteMagnitude), .infinity, -.infinity, .nan,
        ]
        for exponent in -330...310 {
            let p = pow(10.0, Double(exponent))
            values += [p, p.nextUp, p.nextDown, -p, 2 * p, 5 * p, 9.999999999999999 * p]
        }
        for exponent in -1074...1023 {
            let p = Double(sign: .plus, exponent: exponent, significand: 1)
            values += [p, p.nextUp, p.nextDown]
        }
        var mismatches: [String] = []
        for d in values where Self.fast(d) != Self.reference(d) {
            mismatches.append("\(d.bitPattern): \(Self.fast(d)) vs \(Self.reference(d))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("random doubles across the whole fast-path range print as snprintf prints them")
    func randomValues() {
        var random = SplitMix(seed: 0x6_17)
        var mismatches: [String] = []
        var checked = 0
        for _ in 0..<300_000 {
            let bits = random.next()
            // Half uniformly over all bit patterns (mostly the snprintf fallback), half with a
            // binary exponent around where the exact path runs: about 1e-12 to 1e45.
            let d: Double
            if bits & 1 == 0 {
                d = Double(bitPattern: bits)
            } else {
                let exponent = UInt64(1023 - 40) + (bits >> 1) % 190
                d = Double(bitPattern: (bits & (1 << 63)) | exponent << 52 | (random.next() & ((1 << 52) - 1)))
            }
            checked += 1
            if Self.fast(d) != Self.reference(d) { mismatches.append("\(d.bitPattern): \(Self.fast(d)) vs \(Self.reference(d))") }
        }
        #expect(checked == 300_000)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("short decimals and integers, whose 17-digit spellings end in zeros or in long tails")
    func decimalsAndIntegers() {
        var mismatches: [String] = []
        for i in 0..<20_000 {
            for d in [Double(i) / 1000, Double(i) / 7, Double(i) * 1e12 + 0.5, Double(i) * 1_000_003, -Double(i) / 100] {
                if Self.fast(d) != Self.reference(d) { mismatches.append("\(d.bitPattern): \(Self.fast(d)) vs \(Self.reference(d))") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// The fast parse when it takes the text, else `strtod`'s answer through `Double(_:)`.
    private static func parsed(_ text: String) -> (fast: Double?, reference: Double?) {
        var value = 0.0
        let bytes = Array(text.utf8)
        let taken = bytes.withUnsafeBufferPointer { trove_parse_decimal($0.baseAddress, $0.count, &value) } != 0
        return (taken ? value : nil, Double(text))
    }

    @Test("decimal text of every shape parses to the bits strtod gives, or is left to strtod")
    func parsingMatchesStrtod() {
        var random = SplitMix(seed: 0xDEC1)
        var mismatches: [String] = []
        var fastCount = 0
        func check(_ text: String) {
            let (fast, reference) = Self.parsed(text)
            guard let fast else { return }
            fastCount += 1
            if fast.bitPattern != reference?.bitPattern { mismatches.append("\(text): \(fast) vs \(String(describing: reference))") }
        }
        // The writer's own spellings must come back bit for bit.
        for _ in 0..<100_000 {
            let exponent = UInt64(1023 - 40) + random.next() % 110
            let d = Double(bitPattern: (random.next() & (1 << 63)) | exponent << 52 | (random.next() & ((1 << 52) - 1)))
            var buffer = [CChar](repeating: 0, count: 40)
            let n = trove_format_real_g17(&buffer, 40, d)
            let text = String(decoding: buffer[0..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            check(text)
            #expect(Self.parsed(text).fast.map { $0.bitPattern == d.bitPattern } ?? true, "\(text)")
        }
        // Random digit strings: 1 to 22 digits, a point anywhere or nowhere, exponents either way,
        // so halfway cases, 19- and 20-digit mantissas and both range limits all come up.
        for _ in 0..<200_000 {
            let length = 1 + Int(random.next() % 22)
            var digits = (0..<length).map { _ in Character(String(random.next() % 10)) }
            if random.next() % 4 == 0 { digits[0] = "0" }
            var text = String(digits)
            if random.next() % 3 != 0 {
                let point = Int(random.next() % UInt64(length + 1))
                text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            }
            if random.next() % 2 == 0 { text += "e\(Int(random.next() % 80) - 40)" }
            if random.next() % 2 == 0 { text = "-" + text }
            check(text)
        }
        // Exact ties between two doubles (2^53 + 1 and its kin) and the normal range's edges.
        for text in ["9007199254740993", "9007199254740995", "18014398509481989", "0.5", "-0", "0.000",
                     "2.2250738585072014e-308", "1.7976931348623157e308", "4.9e-324", "123456789012345678901",
                     "1e19", "1e-21", "1e-22", "00000.00001", "5.", ".5", "+1.5e+3"] {
            check(text)
        }
        #expect(fastCount > 200_000)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// `trove_real_is_g17`'s answer for `text` and `d`.
    private static func isG17(_ text: [UInt8], _ d: Double) -> Int32 {
        text.withUnsafeBufferPointer { trove_real_is_g17($0.baseAddress, $0.count, d) }
    }

    @Test("a real's text is called its %.17g exactly when it is snprintf's spelling")
    func canonicalRealText() {
        var random = SplitMix(seed: 0x6_18)
        var mutator = ByteMutator(random: SplitMix(seed: 0x6_19), alphabet: Array("0123456789.-+eE".utf8), emptyReplacement: UInt8(ascii: "0"))
        var wrong: [String] = []
        var decided = 0
        for round in 0..<200_000 {
            let bits = random.next()
            let d: Double
            switch round % 4 {
            case 0: d = Double(bitPattern: bits)
            case 1: d = Double(Int64(bitPattern: bits) % 100_000) / 1000
            default:
                let exponent = UInt64(1023 - 40) + (bits >> 1) % 190
                d = Double(bitPattern: (bits & (1 << 63)) | exponent << 52 | (random.next() & ((1 << 52) - 1)))
            }
            let spelled = Array(Self.reference(d).utf8)
            let answer = Self.isG17(spelled, d)
            // Zero, subnormals, NaN, infinities and magnitudes outside the exact path are left to spelling.
            if answer == -1 {
                if d.isFinite, d != 0, d.isNormal, abs(d) > 1e-10, abs(d) < 1e40 { wrong.append("\(d): undecided") }
                continue
            }
            decided += 1
            if answer != 1 { wrong.append("\(d): its own spelling \(String(decoding: spelled, as: UTF8.self)) refused") }
            // Other texts: mutated, shortened, the shortest round-trip spelling, Swift's description.
            var others = [mutator.mutated(spelled), Array(spelled.dropLast()), Array("\(d)".utf8), Array(String(format: "%.16g", d).utf8)]
            others.append(Array(String(format: "%.17e", d).utf8))
            for other in others where Self.isG17(other, d) != (other == spelled ? 1 : 0) {
                wrong.append("\(d): \(String(decoding: other, as: UTF8.self)) vs \(String(decoding: spelled, as: UTF8.self))")
            }
        }
        #expect(decided > 100_000)
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        // Each notation: plain with a fraction, plain whole, `0.000ddd`, and both exponent widths.
        for (text, d) in [("267.72199999999998", 267.722), ("1000", 1000.0), ("0.00072211828036430632", 0.00072211828036430632),
                          ("1.5393373958778421e-07", 1.5393373958778421e-07), ("9.9999999999999992e+22", 1e23), ("-2.5", -2.5),
                          ("1e+17", 1e17), ("10000000000000000", 1e16), ("0.0001", 0.0001)] {
            #expect(Self.isG17(Array(text.utf8), d) == 1, "\(text)")
            #expect(Self.reference(d) == text, "\(text)")
        }
        #expect(Self.isG17(Array("1e+23".utf8), 1e23) == 0)
        #expect(Self.isG17(Array("1.0000000000000001e+300".utf8), 1e300) == -1)
        #expect(Self.isG17(Array("2.5".utf8), -2.5) == 0)
        #expect(Self.isG17(Array("0.0".utf8), 0) == -1)
    }

    /// A decimal laid out as `%.17g` lays out `digits` (no trailing zero) with the first digit's
    /// decimal exponent `x`, whether or not it is any double's spelling.
    private static func laidOut(_ digits: [UInt8], exponent x: Int, negative: Bool) -> [UInt8] {
        var text: [UInt8] = negative ? Array("-".utf8) : []
        if x < -4 || x >= 17 {
            text.append(digits[0])
            if digits.count > 1 { text += Array(".".utf8) + digits[1...] }
            text += Array(String(format: "e%@%02d", x < 0 ? "-" : "+", abs(x)).utf8)
        } else if x >= 0 {
            for k in 0...x { text.append(k < digits.count ? digits[k] : UInt8(ascii: "0")) }
            if digits.count > x + 1 { text += Array(".".utf8) + digits[(x + 1)...] }
        } else {
            text += Array("0.".utf8) + [UInt8](repeating: UInt8(ascii: "0"), count: -x - 1) + digits
        }
        return text
    }

    @Test("the parse calls a text its value's %.17g exactly when snprintf spells the value so")
    func canonicalRealTextWhileParsing() {
        var random = SplitMix(seed: 0x6_1A)
        var mutator = ByteMutator(random: SplitMix(seed: 0x6_1B), alphabet: Array("0123456789.-+eE".utf8), emptyReplacement: UInt8(ascii: "0"))
        var wrong: [String] = []
        var decided = 0, canonical = 0
        func check(_ text: [UInt8]) {
            var value = 0.0, plainValue = 0.0
            var answer: Int32 = 7
            let parsed = text.withUnsafeBufferPointer { trove_parse_decimal_g17($0.baseAddress, $0.count, &value, &answer) }
            let plainParsed = text.withUnsafeBufferPointer { trove_parse_decimal($0.baseAddress, $0.count, &plainValue) }
            let shown = String(decoding: text, as: UTF8.self)
            guard parsed == plainParsed, parsed == 0 || value.bitPattern == plainValue.bitPattern else {
                return wrong.append("\(shown): parsed otherwise than by trove_parse_decimal")
            }
            guard parsed != 0 else { return }
            if answer == -1 {
                if value != 0 { wrong.append("\(shown): undecided") }
                return
            }
            decided += 1
            let isSpelling = Array(Self.reference(value).utf8) == text
            if isSpelling { canonical += 1 }
            if answer != (isSpelling ? 1 : 0) { wrong.append("\(shown): \(answer), snprintf spells \(Self.reference(value))") }
        }
        for round in 0..<300_000 {
            // 17 digits lie closer together than doubles, so most random 17-digit decimals are not
            // the spelling of the double they read as, and some lie exactly halfway.
            let length = round % 3 == 0 ? 1 + random.below(17) : 17
            var digits = (0..<length).map { _ in UInt8(ascii: "0") + UInt8(random.below(10)) }
            digits[0] = UInt8(ascii: "1") + UInt8(random.below(9))
            while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
            let text = Self.laidOut(digits, exponent: random.below(44) - 12, negative: random.below(2) == 0)
            check(text)
            check(mutator.mutated(text))
            // The spelling of a double, and its neighbours in the last digit.
            let d = Double(bitPattern: UInt64(1023 - 40 + random.below(130)) << 52 | (random.next() & ((1 << 52) - 1)))
            let spelled = Array(Self.reference(d).utf8)
            check(spelled)
            check(mutator.mutated(spelled))
        }
        for text in ["267.72199999999998", "1000", "0.00072211828036430632", "1.5393373958778421e-07", "9.9999999999999992e+22",
                     "-2.5", "1e+17", "10000000000000000", "0.0001", "114.233", "1e+23", "100.", "0100", "+2.5", "2.50"] {
            check(Array(text.utf8))
        }
        #expect(decided > 500_000)
        #expect(canonical > 250_000)
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        var value = 0.0
        var answer: Int32 = 7
        #expect(trove_parse_decimal_g17(Array("267.72199999999998".utf8), 18, &value, &answer) == 1 && answer == 1)
        #expect(trove_parse_decimal_g17(Array("267.722".utf8), 7, &value, &answer) == 1 && answer == 0)
        #expect(trove_parse_decimal_g17(Array("1E+17".utf8), 5, &value, &answer) == 1 && answer == 0)
        #expect(trove_parse_decimal_g17(Array("-0.0".utf8), 4, &value, &answer) == 1 && answer == -1)
    }
}
