import Testing
import TroveTestSupport
@testable import TroveCore

/// The readers build every dictionary through ``PlistDictionaryAssembler``; it must decide
/// exactly as inserting the entries one at a time into a list does (first position, the value
/// the rule picks, keys equal when their code units are).
@Suite("Dictionary assembler")
struct PlistDictionaryAssemblerTests {
    /// The definition the assembler must match: a list searched by code units.
    static func oneAtATime(
        _ keys: [String], _ values: [PlistValue], keeping rule: RepeatedKeyRule
    ) -> (keys: [String], values: [PlistValue], repeated: Bool) {
        var outKeys: [String] = []
        var outValues: [PlistValue] = []
        var repeated = false
        for (key, value) in zip(keys, values) {
            if let i = outKeys.firstIndex(where: { Array($0.utf8) == Array(key.utf8) }) {
                if rule == .lastValue { outValues[i] = value }
                repeated = true
            } else {
                outKeys.append(key)
                outValues.append(value)
            }
        }
        return (outKeys, outValues, repeated)
    }

    private static func check(
        _ assembler: inout PlistDictionaryAssembler, _ keys: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for rule in [RepeatedKeyRule.firstValue, .lastValue] {
            check(&assembler, keys, keeping: rule, sourceLocation: sourceLocation)
        }
    }

    private static func check(
        _ assembler: inout PlistDictionaryAssembler, _ keys: [String], keeping rule: RepeatedKeyRule,
        sourceLocation: SourceLocation
    ) {
        let values = keys.indices.map { PlistValue.integer(PlistInteger($0)) }
        let expected = oneAtATime(keys, values, keeping: rule)
        let (dictionary, repeated) = assembler.assemble(keys: keys, values: values, keeping: rule)
        #expect(repeated == expected.repeated, "keys \(keys)", sourceLocation: sourceLocation)
        // Order matters here: the dictionary's own == ignores it.
        #expect(dictionary.keys.map { Array($0.utf8) } == expected.keys.map { Array($0.utf8) }, sourceLocation: sourceLocation)
        #expect(dictionary.values == expected.values, sourceLocation: sourceLocation)
        // Every key is found at its place, which it would not be if the table were wrong.
        for (i, key) in expected.keys.enumerated() {
            #expect(dictionary.index(forKey: key) == i, "\(key)", sourceLocation: sourceLocation)
        }
    }

    @Test("random key sets of every size, with and without repeats, match one-at-a-time insertion")
    func matchesInsertion() {
        var random = SplitMix(seed: 0xD1C7)
        var assembler = PlistDictionaryAssembler(seed: 0x5EED)
        // Short keys (inline strings), long keys (heap strings) and non-ASCII keys, among them
        // canonically equivalent spellings; a small alphabet makes repeats likely, a large one rare.
        let alphabets: [[String]] = [["a", "b", "c"], (0..<40).map { "key-\($0)" },
                                     (0..<500).map { "a-long-key-that-does-not-fit-inline-\($0)" },
                                     ["é", "中文", "😀", "e\u{301}", "\u{E000}", "𝄞x", "ÿ", "K", "\u{212A}"]]
        for size in [0, 1, 2, 3, 4, 5, 6, 15, 16, 17, 33, 200, 700] {
            for alphabet in alphabets {
                for _ in 0..<4 {
                    let keys = (0..<size).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                    Self.check(&assembler, keys)
                    // The same keys made distinct: the no-repeat path.
                    Self.check(&assembler, keys.enumerated().map { "\($0.element)#\($0.offset)" })
                }
            }
        }
    }

    @Test("a repeat in the last position is found; keys equal only as Unicode text are two keys")
    func edgeRepeats() {
        var assembler = PlistDictionaryAssembler(seed: 1)
        let many = (0..<100).map { "k\($0)" }
        Self.check(&assembler, many + ["k0"])
        Self.check(&assembler, many + ["k99"])
        for few in [2, 10, 30] {
            // Canonically equivalent spellings are one Swift String but two keys, as in CF; also
            // when one of them is ASCII (the Kelvin sign is "K", the Greek question mark ";").
            let pairs: [[String]] = [["e\u{301}", "é"], ["K", "\u{212A}"], ["\u{37E}", ";"]]
            for pair in pairs {
                let keys = pair + (0..<few).map { "x\($0)" }
                let (dictionary, repeated) = assembler.assemble(keys: keys, values: keys.map { .string($0) }, keeping: .lastValue)
                #expect(!repeated && dictionary.count == keys.count, "\(pair)")
                #expect(dictionary[pair[0]] == .string(pair[0]) && dictionary[pair[1]] == .string(pair[1]))
            }
        }
        #expect("\u{212A}" == "K")
    }
}
