/// Turns the keys and values a reader collected for one dictionary into a ``PlistDictionary``,
/// resolving repeated keys as CoreFoundation does: first position, last value.
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

    /// The dictionary of `keys[i]: values[i]`, and whether any key occurred more than once.
    /// `keys` and `values` have the same count.
    func assemble(keys: [String], values: [PlistValue]) -> (dictionary: PlistDictionary, repeated: Bool) {
        precondition(keys.count == values.count, "a dictionary needs as many keys as values")
        if keys.count > PlistDictionary.linearSearchLimit {
            let built = keys.withUnsafeBufferPointer { PlistKeyIndex.build(checking: $0, seed: seed) }
            if case .success(let index) = built {
                return (PlistDictionary(keys: keys, values: values, index: index), false)
            }
        } else if keys.count < 2 || hasNoRepeats(keys) {
            return (PlistDictionary(keys: keys, values: values, index: nil), false)
        }
        return (PlistDictionary(zip(keys, values)), true)
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
