/// The objects of scalars the binary plain encoder met recently, by two words that stand for
/// each scalar exactly: a string's representation (``StringRepresentation``) or a short
/// scalar's encoding. Most documents repeat a few keys and small numbers many times, and a hit
/// here names the object without encoding, hashing or probing the uniquing table.
///
/// Direct-mapped: each pair of words has one entry, which the last pair mapped there takes
/// over. The cache only remembers the uniquing table's answers; a miss goes to the table, which
/// decides exactly, so the hit rate depends on the slot function and the output never does.
/// The caller must only remember pairs whose meaning cannot change during its use of the cache
/// (a string's storage stays alive, and so unchanged, while the value being written holds it).
///
/// Entries sit behind a pointer, as ``ScalarUniquingTable``'s buckets do, so a lookup or a store
/// pays no bounds or uniqueness check; the type is non-copyable, so one owner frees them.
struct BinaryRecentObjects: ~Copyable {
    private struct Entry {
        var low: UInt64
        var high: UInt64
        /// The object plus one; 0 in an entry nothing was remembered in.
        var objectPlusOne: UInt32
    }

    private let entries: UnsafeMutablePointer<Entry>
    /// 64 less the base-2 logarithm of the entry count: the slot is the top bits of a product.
    private let shift: UInt64

    /// A cache of `2^bits` entries, all empty.
    init(bits: Int) {
        precondition(bits > 0 && bits < 32, "a cache of 2 to 2^31 entries")
        entries = .allocate(capacity: 1 << bits)
        entries.initialize(repeating: Entry(low: 0, high: 0, objectPlusOne: 0), count: 1 << bits)
        shift = UInt64(64 - bits)
    }

    deinit { entries.deallocate() }

    /// The entry the pair `low`, `high` maps to: the top bits of a multiplicative mix, which
    /// depend on every bit of both words (a pointer's low bits, a number's last byte). The
    /// multiplier is ``SeededByteHash/mix(_:)``'s; others tried kept a third fewer of the
    /// corpus's short keys apart.
    @inline(__always)
    func slot(_ low: UInt64, _ high: UInt64) -> Int {
        Int(truncatingIfNeeded: ((low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0x94D0_49BB_1331_11EB) >> shift)
    }

    /// The object remembered for `low`, `high` in entry `slot`, or nil.
    @inline(__always)
    func object(at slot: Int, _ low: UInt64, _ high: UInt64) -> UInt32? {
        let entry = entries[slot]
        guard entry.low == low && entry.high == high && entry.objectPlusOne != 0 else { return nil }
        return entry.objectPlusOne &- 1
    }

    /// Remembers `object` (below `UInt32.max`) for `low`, `high` in entry `slot`.
    @inline(__always)
    func remember(_ object: UInt32, at slot: Int, _ low: UInt64, _ high: UInt64) {
        entries[slot] = Entry(low: low, high: high, objectPlusOne: object &+ 1)
    }
}
