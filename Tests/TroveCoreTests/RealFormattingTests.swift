import CTroveFastPaths
import Foundation
import Testing
import TroveTestSupport

/// `trove_format_real_g17` takes an exact integer path for most doubles; it must print exactly
/// what `snprintf("%.17g")` prints (CoreFoundation's spelling of reals) for every value.
@Suite("Real formatting")
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
            // binary exponent where the exact path runs: about 1e-12 to 1e23.
            let d: Double
            if bits & 1 == 0 {
                d = Double(bitPattern: bits)
            } else {
                let exponent = UInt64(1023 - 40) + (bits >> 1) % 117
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
}
