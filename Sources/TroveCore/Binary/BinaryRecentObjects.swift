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
/// The cache starts small and takes its full size once it has remembered twice as many pairs
/// as the small one has entries: a small document fills (and the processor fetches) only a few
/// hundred bytes of entries, where setting up the full cache cost more than writing the whole
/// document, while a larger one pays for one more small cache. Growing moves the entries to
/// their slots in the full cache, so a document that grows into it keeps what it remembered.
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

    private var entries: UnsafeMutablePointer<Entry>
    /// 64 less the base-2 logarithm of the entry count: the slot is the top bits of a product.
    private var shift: UInt64
    /// The shift of the full-sized cache.
    private let fullShift: UInt64
    /// Pairs still to be remembered before the cache grows; negative once it is full-sized.
    private var untilGrowth: Int

    /// A cache of `2^initialBits` entries, all empty, that grows to `2^bits`.
    init(initialBits: Int, bits: Int) {
        precondition(initialBits > 0 && initialBits <= bits && bits < 32, "a cache of 2 to 2^31 entries")
        entries = Self.emptyEntries(1 << initialBits)
        shift = UInt64(64 - initialBits)
        fullShift = UInt64(64 - bits)
        untilGrowth = initialBits < bits ? 2 << initialBits : -1
    }

    deinit { entries.deallocate() }

    private static func emptyEntries(_ count: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: count)
        entries.initialize(repeating: Entry(low: 0, high: 0, objectPlusOne: 0), count: count)
        return entries
    }

    /// The entry the pair `low`, `high` maps to: the top bits of a multiplicative mix, which
    /// depend on every bit of both words (a pointer's low bits, a number's last byte). The
    /// multiplier is ``SeededByteHash/mix(_:)``'s; others tried kept a third fewer of the
    /// corpus's short keys apart.
    @inline(__always)
    func slot(_ low: UInt64, _ high: UInt64) -> Int {
        Self.slot(low, high, shift: shift)
    }

    @inline(__always)
    private static func slot(_ low: UInt64, _ high: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0x94D0_49BB_1331_11EB) >> shift)
    }

    /// The object remembered for `low`, `high` in entry `slot`, or nil.
    @inline(__always)
    func object(at slot: Int, _ low: UInt64, _ high: UInt64) -> UInt32? {
        let entry = entries[slot]
        guard entry.low == low && entry.high == high && entry.objectPlusOne != 0 else { return nil }
        return entry.objectPlusOne &- 1
    }

    /// Remembers `object` (below `UInt32.max`) for `low`, `high` in entry `slot`, which
    /// ``slot(_:_:)`` gave for them since the last call.
    @inline(__always)
    mutating func remember(_ object: UInt32, at slot: Int, _ low: UInt64, _ high: UInt64) {
        entries[slot] = Entry(low: low, high: high, objectPlusOne: object &+ 1)
        untilGrowth &-= 1
        if untilGrowth == 0 { grow() }
    }

    /// Makes the cache full-sized, each remembered pair moved to its slot there (where two land
    /// on one slot, one is kept: the cache may forget).
    @inline(never)
    private mutating func grow() {
        let oldCount = 1 << (64 - Int(shift))
        let old = entries
        shift = fullShift
        entries = Self.emptyEntries(1 << (64 - Int(shift)))
        for i in 0..<oldCount where old[i].objectPlusOne != 0 {
            let entry = old[i]
            entries[Self.slot(entry.low, entry.high, shift: shift)] = entry
        }
        old.deallocate()
        untilGrowth = -1
    }
}
