import OrderedCollections

/// Turns the keys and values a reader collected for one dictionary into a ``PlistDictionary``,
/// resolving repeated keys as CoreFoundation does: first position, last value.
///
/// Inserting entries one at a time into an `OrderedDictionary` looks each key up before adding
/// it: a linear scan of string comparisons below 16 entries, SipHash and probing with a full
/// string comparison per occupied bucket above. Most dictionaries in a file have no repeated key,
/// so the assembler first proves that cheaply — a seeded multiplicative hash of each key's UTF-8
/// bytes in a scratch table that is reused for every dictionary of a read — and then hands both
/// arrays to the collection unchecked. Only a dictionary that really repeats a key takes the
/// one-at-a-time path. Byte hashes agree with `String` equality only for ASCII, so a dictionary
/// with any other key is checked with `String`'s own hash instead.
///
/// The hash is not for strangers' eyes: its seed is random per process, and the number of
/// probes per dictionary is capped, so input crafted to collide costs a fallback to the
/// collection's own (SipHash) insertion, never quadratic time.
///
/// Invariant: between calls every slot of the table is zero.
struct PlistDictionaryAssembler: ~Copyable {
    /// Open addressing, linear probing. A slot is zero when empty, else the high 32 bits of the
    /// key's hash above the key's position plus one.
    private var slots: UnsafeMutablePointer<UInt64>
    /// A power of two.
    private var capacity: Int
    private let seed: UInt64
    /// How many dictionaries hit the probe cap and were left to the collection's own insertion.
    private(set) var probeCapHits = 0

    /// Up to this many keys, pairwise comparison is cheaper than hashing.
    static let pairwiseLimit = 4

    /// An assembler with the process's random seed; tests pass a fixed `seed` to make collisions
    /// reproducible.
    init(seed: UInt64 = SeededByteHash.processSeed) {
        capacity = 64
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        self.seed = seed
    }

    deinit { slots.deallocate() }

    /// The dictionary of `keys[i]: values[i]`, and whether any key occurred more than once.
    /// `keys` and `values` have the same count.
    mutating func assemble(
        keys: ContiguousArray<String>, values: ContiguousArray<PlistValue>
    ) -> (dictionary: PlistDictionary, repeated: Bool) {
        precondition(keys.count == values.count, "a dictionary needs as many keys as values")
        if keys.count < 2 || hasNoRepeats(keys) {
            return (PlistDictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: values)), false)
        }
        var storage = OrderedDictionary<String, PlistValue>(minimumCapacity: keys.count)
        var repeated = false
        for i in keys.indices where storage.updateValue(values[i], forKey: keys[i]) != nil {
            repeated = true
        }
        return (PlistDictionary(storage), repeated)
    }

    /// True when no two keys are equal. False means "repeated, or could not tell cheaply".
    private mutating func hasNoRepeats(_ keys: ContiguousArray<String>) -> Bool {
        let n = keys.count
        if n <= Self.pairwiseLimit {
            for i in 1..<n {
                for j in 0..<i where keys[i] == keys[j] { return false }
            }
            return true
        }
        guard n < Int(UInt32.max) else { return false }
        switch insertAll(keys, hashingBytes: true) {
        case .unique: return true
        case .repeated: return false
        case .needsUnicodeHash:
            // Swift compares strings by canonical equivalence: "é" as one scalar equals "e" and a
            // combining accent, and the Kelvin sign equals "K". Byte hashes cannot see that, so a
            // dictionary with a non-ASCII key is hashed the way `String` hashes itself.
            return insertAll(keys, hashingBytes: false) == .unique
        }
    }

    private enum Verdict { case unique, repeated, needsUnicodeHash }

    /// Inserts every key's position into the table, stopping at the first repeat. With
    /// `hashingBytes`, keys are hashed by their UTF-8 bytes, which is only consistent with string
    /// equality while every key is ASCII.
    private mutating func insertAll(_ keys: ContiguousArray<String>, hashingBytes: Bool) -> Verdict {
        let n = keys.count
        // Only the first `wanted` slots are used (and cleared), so a large dictionary earlier in
        // the read does not make every later small one pay for the whole table.
        let wanted = Self.tableSize(forKeys: n)
        if wanted > capacity { grow(to: wanted) }
        // The table is at most half full, so an honest key set needs about 1.5 probes a key.
        // More than this many means the hash is being defeated: let the collection decide.
        var probesLeft = 8 * n + 64
        let mask = wanted - 1
        var verdict = Verdict.unique
        keys.withUnsafeBufferPointer { keys in
            insertion: for i in 0..<n {
                let h: UInt64
                if hashingBytes {
                    guard let byteHash = Self.hash(keys[i], seed: seed) else {
                        verdict = .needsUnicodeHash
                        break insertion
                    }
                    h = byteHash
                } else {
                    var hasher = Hasher()
                    hasher.combine(keys[i])
                    h = SeededByteHash.mix(UInt64(UInt(bitPattern: hasher.finalize())) ^ seed)
                }
                let tag = h & 0xFFFF_FFFF_0000_0000
                var slot = Int(truncatingIfNeeded: h) & mask
                while true {
                    let entry = slots[slot]
                    if entry == 0 {
                        slots[slot] = tag | UInt64(i + 1)
                        break
                    }
                    probesLeft -= 1
                    if probesLeft < 0 {
                        verdict = .repeated
                        probeCapHits += 1
                        break insertion
                    }
                    if entry & 0xFFFF_FFFF_0000_0000 == tag
                        && keys[Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1] == keys[i] {
                        verdict = .repeated
                        break insertion
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
        slots.update(repeating: 0, count: wanted)
        return verdict
    }

    /// The slots used for `count` keys: a power of two at least twice the count.
    static func tableSize(forKeys count: Int) -> Int {
        var size = 16
        while size < 2 * count { size *= 2 }
        return size
    }

    private mutating func grow(to wanted: Int) {
        slots.deallocate()
        capacity = wanted
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
    }

    /// A seeded hash of the key's UTF-8 bytes; nil when the key is not ASCII.
    @inline(__always)
    static func hash(_ key: String, seed: UInt64) -> UInt64? {
        let (h, isASCII) = SeededByteHash.hash(key, seed: seed)
        return isASCII ? h : nil
    }
}
