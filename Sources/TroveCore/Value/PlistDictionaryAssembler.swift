/// Turns the keys and values a reader collected for one dictionary into a ``PlistDictionary``,
/// resolving repeated keys as CoreFoundation's reader of that format does (see
/// ``RepeatedKeyRule``).
///
/// Most dictionaries in a file have no repeated key, so the assembler proves that and hands both
/// arrays over unchanged. For a dictionary large enough to keep a hash table, the proof is the
/// table's construction (``PlistKeyIndex/build(checking:seed:)``), so its keys are hashed once
/// for both jobs. A smaller one is checked pairwise up to ``pairwiseLimit`` keys, and above that in
/// a scratch table reused for every dictionary of a read, with no allocation per dictionary.
/// Only a dictionary that really repeats a key is built one entry at a time.
struct PlistDictionaryAssembler: ~Copyable {
    /// Room for the keys of any dictionary without a table of its own; empty between calls.
    private let scratch: PlistKeyIndex
    private let seed: UInt64

    /// Up to this many keys, pairwise comparison is cheaper than hashing.
    static let pairwiseLimit = 4

    /// An assembler with the process's random seed; tests pass a fixed `seed` to make collisions
    /// reproducible.
    init(seed: UInt64 = SeededByteHash.processSeed) {
        scratch = PlistKeyIndex(capacity: PlistDictionary.linearSearchLimit, seed: seed)
        self.seed = seed
    }

    /// The dictionary of `keys[i]: values[i]`, and whether any key occurred more than once; a
    /// repeated key keeps its first position and the value `rule` picks. `keys` and `values`
    /// have the same count.
    func assemble(
        keys: [String], values: [PlistValue], keeping rule: RepeatedKeyRule
    ) -> (dictionary: PlistDictionary, repeated: Bool) {
        precondition(keys.count == values.count, "a dictionary needs as many keys as values")
        if keys.count > PlistDictionary.linearSearchLimit {
            let built = keys.withUnsafeBufferPointer { PlistKeyIndex.build(checking: $0, seed: seed) }
            if case .success(let index) = built {
                return (PlistDictionary(keys: keys, values: values, index: index), false)
            }
        } else if keys.count < 2 || hasNoRepeats(keys) {
            return (PlistDictionary(keys: keys, values: values, index: nil), false)
        }
        switch rule {
        case .lastValue:
            return (PlistDictionary(zip(keys, values)), true)
        case .firstValue:
            var dictionary = PlistDictionary(minimumCapacity: keys.count)
            for (key, value) in zip(keys, values) where dictionary.index(forKey: key) == nil {
                dictionary.updateValue(value, forKey: key)
            }
            return (dictionary, true)
        }
    }

    /// True when no two of at most ``PlistDictionary/linearSearchLimit`` keys are equal.
    private func hasNoRepeats(_ keys: [String]) -> Bool {
        let n = keys.count
        if n <= Self.pairwiseLimit {
            for i in 1..<n {
                for j in 0..<i where keys[i].hasSameUTF8(as: keys[j]) { return false }
            }
            return true
        }
        defer { scratch.removeAll() }
        return keys.withUnsafeBufferPointer { keys in
            keys.indices.allSatisfy { scratch.insert($0, of: keys) == nil }
        }
    }
}

/// Which value a dictionary keeps for a key its document repeats. The key always stays at its
/// first position.
///
/// CoreFoundation differs by format: its binary reader builds a dictionary adding only keys not
/// yet present, so the first entry wins; its XML reader (and the OpenStep and JSON readers) set
/// each entry in turn, so the last one wins.
enum RepeatedKeyRule: Sendable {
    /// The first entry's value (binary plists).
    case firstValue
    /// The last entry's value (XML, OpenStep, JSON).
    case lastValue
}
