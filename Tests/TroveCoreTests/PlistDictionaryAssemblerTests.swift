import OrderedCollections
import Testing
import TroveTestSupport
@testable import TroveCore

/// The readers build every dictionary through ``PlistDictionaryAssembler``; it must decide
/// exactly as inserting the entries one at a time does (first position, last value).
@Suite("Dictionary assembler")
struct PlistDictionaryAssemblerTests {
    /// The definition the assembler must match.
    private static func oneAtATime(_ keys: [String], _ values: [PlistValue]) -> (OrderedDictionary<String, PlistValue>, Bool) {
        var storage = OrderedDictionary<String, PlistValue>()
        var repeated = false
        for (key, value) in zip(keys, values) where storage.updateValue(value, forKey: key) != nil { repeated = true }
        return (storage, repeated)
    }

    private static func check(
        _ assembler: inout PlistDictionaryAssembler, _ keys: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let values = keys.indices.map { PlistValue.integer(PlistInteger($0)) }
        let (expected, expectedRepeated) = oneAtATime(keys, values)
        let (dictionary, repeated) = assembler.assemble(keys: ContiguousArray(keys), values: ContiguousArray(values))
        #expect(repeated == expectedRepeated, "keys \(keys)", sourceLocation: sourceLocation)
        // Order matters here: the dictionary's own == ignores it.
        #expect(Array(dictionary.storage.keys) == Array(expected.keys), sourceLocation: sourceLocation)
        #expect(Array(dictionary.storage.values) == Array(expected.values), sourceLocation: sourceLocation)
        // A lookup works, which it would not if an unchecked duplicate corrupted the hash table.
        for key in Set(keys) { #expect(dictionary[key] == expected[key], sourceLocation: sourceLocation) }
    }

    @Test("random key sets of every size, with and without repeats, match one-at-a-time insertion")
    func matchesInsertion() {
        var random = SplitMix(seed: 0xD1C7)
        var assembler = PlistDictionaryAssembler(seed: 0x5EED)
        // Short keys (inline strings), long keys (heap strings) and non-ASCII keys; a small
        // alphabet makes repeats likely, a large one rare.
        let alphabets: [[String]] = [["a", "b", "c"], (0..<40).map { "key-\($0)" },
                                     (0..<500).map { "a-long-key-that-does-not-fit-inline-\($0)" },
                                     ["é", "中文", "😀", "e\u{301}", "\u{E000}", "𝄞x", "ÿ"]]
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
        #expect(assembler.probeCapHits == 0)
    }

    @Test("a repeat in the last position and keys equal only as Unicode text are found")
    func edgeRepeats() {
        var assembler = PlistDictionaryAssembler(seed: 1)
        let many = (0..<100).map { "k\($0)" }
        Self.check(&assembler, many + ["k0"])
        Self.check(&assembler, many + ["k99"])
        // Canonically equivalent spellings are one Swift String key, also when one of them is
        // ASCII (the Kelvin sign is "K", the Greek question mark ";").
        Self.check(&assembler, (0..<10).map { "x\($0)" } + ["e\u{301}", "é"])
        Self.check(&assembler, (0..<10).map { "x\($0)" } + ["K", "\u{212A}"])
        Self.check(&assembler, ["\u{37E}"] + (0..<10).map { "x\($0)" } + [";"])
        #expect("\u{212A}" == "K")
    }

    @Test("keys that all land in one slot use up the probe cap and still assemble correctly")
    func probeCapFallsBack() {
        let seed: UInt64 = 0xC011_1DE5
        let count = 40
        let mask = UInt64(PlistDictionaryAssembler.tableSize(forKeys: count) - 1)
        var colliding: [String] = []
        var candidate = 0
        while colliding.count < count {
            let key = "candidate-\(candidate)"
            if let h = PlistDictionaryAssembler.hash(key, seed: seed), h & mask == 0 { colliding.append(key) }
            candidate += 1
        }
        var assembler = PlistDictionaryAssembler(seed: seed)
        Self.check(&assembler, colliding)
        Self.check(&assembler, colliding + [colliding[7]])
        #expect(assembler.probeCapHits == 2)
        // The table was left clean: an ordinary set of keys afterwards takes the hashed path.
        Self.check(&assembler, (0..<50).map { "after-\($0)" })
        #expect(assembler.probeCapHits == 2)
    }
}
