import CTroveFastPaths

/// The hash table that finds a key's position among a dictionary's keys.
///
/// Keys are equal when their UTF-8 code units are, the relation CoreFoundation, Foundation's
/// `NSDictionary` and plistlib use (CF compares code units; no normalization). Hashing the bytes
/// is then exact for every key, and ``SeededByteHash`` hashes them for a fraction of what
/// `Hasher` costs (a SipHash table would be a fifth of the time to decode a large dictionary).
///
/// The table holds positions, not keys: the dictionary's key array is passed to every call.
/// ``SeededByteHash`` alone is no defence against input crafted to collide, so a table spends a
/// probe budget as it fills; once that is gone it rehashes every key with `Hasher` (SipHash under
/// the process's random seed) and stays so. Crafted keys cost a slower table, never quadratic time.
///
/// A dictionary shares its index between its copies, as its arrays share their buffers: the
/// index is changed only through a dictionary that holds the only reference (checked with
/// `isKnownUniquelyReferenced`), which is what makes the `@unchecked Sendable` sound.
///
/// Invariants: `bucketCount` is a power of two and at least twice `count` plus the removal
/// marks; a bucket is zero when empty, a removal mark, or the high 32 bits of its key's hash
/// above the key's position plus one; every position below `count` is in exactly one bucket.
final class PlistKeyIndex: @unchecked Sendable {
    private var buckets: UnsafeMutablePointer<UInt64>
    private(set) var bucketCount: Int
    /// How many positions are in the table.
    private(set) var count = 0
    /// Buckets holding ``removedMark``.
    private var removed = 0
    /// The low half of a bucket whose key was removed; never a position plus one, since
    /// positions stay below ``maximumCount``.
    private static let removedMark: UInt64 = 0xFFFF_FFFF
    /// True once the table hashes with `Hasher` (after crafted collisions, or by request).
    private(set) var usesKeyedHash: Bool
    private let seed: UInt64
    /// Probes left before the table gives up on ``SeededByteHash``. Each placed key adds eight, so
    /// honest keys (about 1.5 probes each in a table at most half full) never run out, and the
    /// probes a table ever makes stay linear in the keys it places.
    private var probeBudget = 64

    /// The largest number of positions a table holds: a position plus one fits the low 32 bits
    /// of a bucket. No dictionary that fits in memory comes near it.
    static let maximumCount = Int(UInt32.max) - 1

    /// An empty table with room for `capacity` keys; tests pass a fixed `seed`.
    init(capacity: Int, seed: UInt64 = SeededByteHash.processSeed, usesKeyedHash: Bool = false) {
        bucketCount = Self.bucketCount(for: capacity)
        buckets = .allocate(capacity: bucketCount)
        buckets.initialize(repeating: 0, count: bucketCount)
        self.seed = seed
        self.usesKeyedHash = usesKeyedHash
    }

    deinit { buckets.deallocate() }

    /// Checks the invariants (debug builds only; release builds compile it away): the bucket
    /// count is a power of two at least twice the positions and, for tables of up to 8,192
    /// buckets, the counts match the buckets and every position is found under its key.
    @inline(__always)
    func _checkInvariants(_ keys: UnsafeBufferPointer<String>) {
        #if DEBUG
        precondition(bucketCount >= 16 && bucketCount & (bucketCount - 1) == 0, "bucket count \(bucketCount) is not a power of two")
        precondition(2 * count <= bucketCount, "\(count) positions in \(bucketCount) buckets")
        precondition(count == keys.count, "\(count) positions for \(keys.count) keys")
        // The scans make a one-at-a-time build quadratic, so large tables skip them.
        guard bucketCount <= 8192 else { return }
        var used = 0
        var marks = 0
        for i in 0..<bucketCount {
            if buckets[i] == 0 { continue }
            if buckets[i] & 0xFFFF_FFFF == Self.removedMark { marks += 1 } else { used += 1 }
        }
        precondition(used == count && marks == removed, "\(used) used and \(marks) removed buckets, expected \(count) and \(removed)")
        for position in keys.indices {
            precondition(self.position(of: keys[position], in: keys) == position, "key \(position) is not found at its position")
        }
        #endif
    }

    /// The buckets for `count` keys: a power of two at least twice the count.
    static func bucketCount(for count: Int) -> Int {
        var size = 16
        while size < 2 * count { size *= 2 }
        return size
    }

    /// A table of `keys`, which the caller knows to be distinct (no key is compared).
    ///
    /// `knownHashes`, when given, holds each key's ``SeededByteHash`` under `seed`, which the
    /// binary reader has already computed for every key object of the file.
    static func build(
        uniqueKeys keys: UnsafeBufferPointer<String>, knownHashes: UnsafeBufferPointer<UInt64>? = nil,
        seed: UInt64 = SeededByteHash.processSeed
    ) -> PlistKeyIndex {
        precondition(keys.count <= maximumCount, "a dictionary of more than \(maximumCount) keys")
        assert(knownHashes.map { $0.count == keys.count } ?? true, "a hash for every key")
        let index = PlistKeyIndex(capacity: keys.count, seed: seed)
        let placed: Bool
        if let knownHashes {
            placed = index.placeUnique(keys.count) { knownHashes[$0] }
        } else {
            placed = index.placeUnique(keys.count) { index.hash(keys[$0]) }
        }
        guard placed else {
            index.rehashWithKeyedHash(keys, upTo: keys.count)
            return index
        }
        index.count = keys.count
        return index
    }

    /// A table of `keys`, or the first position whose key equals an earlier one.
    static func build(checking keys: UnsafeBufferPointer<String>, seed: UInt64 = SeededByteHash.processSeed)
        -> Result<PlistKeyIndex, RepeatedKey>
    {
        precondition(keys.count <= maximumCount, "a dictionary of more than \(maximumCount) keys")
        let index = PlistKeyIndex(capacity: keys.count, seed: seed)
        if let position = index.placeChecking(0..<keys.count, of: keys, hashOf: { index.hash(keys[$0]) }) {
            return .failure(RepeatedKey(position: position))
        }
        return .success(index)
    }

    /// Adds the keys at the positions of `range`, which follow every position in the table,
    /// checking each against the keys before it; returns the first position whose key equals an
    /// earlier one, or nil. `knownHashes[i]` is the ``SeededByteHash`` of `keys[i]` under the
    /// table's seed. The table needs room for them (``init(capacity:seed:usesKeyedHash:)``).
    ///
    /// The binary reader builds a dictionary decoded on two threads this way: the calling thread
    /// adds its half's keys while the worker still decodes, and the worker's after the join.
    func insertChecking(_ range: Range<Int>, of keys: UnsafeBufferPointer<String>, knownHashes: UnsafeBufferPointer<UInt64>) -> Int? {
        precondition(range.lowerBound == count && 2 * (range.upperBound + removed) <= bucketCount, "positions are added in order")
        return placeChecking(range, of: keys, hashOf: { knownHashes[$0] })
    }

    /// Places the keys at the positions of `range`, which follow every position in the table,
    /// each checked against the keys before it; returns the first position whose key repeats an
    /// earlier one, or nil. `hashOf` gives a position's key hash under the seeded hash.
    @inline(__always)
    private func placeChecking(_ range: Range<Int>, of keys: UnsafeBufferPointer<String>, hashOf: (Int) -> UInt64) -> Int? {
        var position = range.lowerBound
        if isLarge && !usesKeyedHash {
            // Each key's bucket is a cache miss the processor cannot overlap with the probe that
            // waits on it; hashing keys a few places ahead and touching their buckets lets those
            // misses run side by side (a 200,000-key dictionary spent 30% of its decode here).
            var repeated = false
            position = placeLookingAhead(range, hashOf: hashOf) { position, h in
                switch insert(position, of: keys, hash: h) {
                case .placed: return true
                case .repeated: repeated = true
                case .budgetSpent: break
                }
                return false
            }
            if repeated { return position }
        }
        // Small tables, and the rest of a large one once crafted collisions switched it to
        // `Hasher` (the hashes looked ahead are then stale): one key at a time.
        while position < range.upperBound {
            if insert(position, of: keys) != nil { return position }
            position += 1
        }
        return nil
    }

    /// How far ahead the large-table builds hash keys; a power of two.
    private static let lookahead = 8
    private var lookahead: Int { Self.lookahead }

    /// Whether the buckets are too many to stay in the processor's nearer caches (256 KB and
    /// more), so that touching a key's bucket ahead of its probe pays.
    private var isLarge: Bool { bucketCount >= 1 << 15 }

    @inline(__always)
    private func prefetch(_ h: UInt64) {
        trove_prefetch(buckets + (Int(truncatingIfNeeded: h) & (bucketCount &- 1)))
    }

    /// Places `count` distinct keys by the hashes `hashOf` gives, looking ahead in a large table
    /// as the checking build does; false when the probe budget ran out.
    @inline(__always)
    private func placeUnique(_ count: Int, _ hashOf: (Int) -> UInt64) -> Bool {
        guard isLarge else {
            for position in 0..<count where !insertUnique(hashOf(position), position: position) { return false }
            return true
        }
        return placeLookingAhead(count, hashOf: hashOf) { insertUnique($1, position: $0) } == count
    }

    /// Calls `place` with each position below `count` in order and its hash, which `hashOf` gave
    /// ``lookahead`` positions earlier, when that position's bucket was prefetched. Returns the
    /// first position `place` refused (it returned false), or `count`.
    @inline(__always)
    private func placeLookingAhead(_ count: Int, hashOf: (Int) -> UInt64, _ place: (Int, UInt64) -> Bool) -> Int {
        placeLookingAhead(0..<count, hashOf: hashOf, place)
    }

    /// ``placeLookingAhead(_:hashOf:_:)`` for the positions of `range`.
    @inline(__always)
    private func placeLookingAhead(_ range: Range<Int>, hashOf: (Int) -> UInt64, _ place: (Int, UInt64) -> Bool) -> Int {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: lookahead) { ahead in
            let end = range.upperBound
            for k in range.lowerBound..<min(range.lowerBound + lookahead, end) {
                ahead[k & (lookahead - 1)] = hashOf(k)
                prefetch(ahead[k & (lookahead - 1)])
            }
            for position in range {
                let h = ahead[position & (lookahead - 1)]
                if position + lookahead < end {
                    let next = hashOf(position + lookahead)
                    ahead[position & (lookahead - 1)] = next
                    prefetch(next)
                }
                if !place(position, h) { return position }
            }
            return end
        }
    }

    /// What ``insert(_:of:hash:)`` did with a key.
    private enum Insertion {
        case placed
        /// An equal key is at this position.
        case repeated(Int)
        /// The probe budget ran out; the table has switched to `Hasher` and the key is not in it.
        case budgetSpent
    }

    /// Adds `keys[position]`, whose hash is `h`, in a table with room for it, unless an equal key
    /// is there already.
    @inline(__always)
    private func insert(_ position: Int, of keys: UnsafeBufferPointer<String>, hash h: UInt64) -> Insertion {
        let tag = h & 0xFFFF_FFFF_0000_0000
        let mask = bucketCount &- 1
        var bucket = Int(truncatingIfNeeded: h) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 {
                buckets[bucket] = tag | UInt64(truncatingIfNeeded: position &+ 1)
                count += 1
                if !usesKeyedHash { probeBudget &+= 8 }
                return .placed
            }
            if entry & 0xFFFF_FFFF_0000_0000 == tag && entry & 0xFFFF_FFFF != Self.removedMark {
                let other = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) &- 1
                if keys[other].hasSameUTF8(as: keys[position]) { return .repeated(other) }
            }
            if !usesKeyedHash {
                probeBudget &-= 1
                if probeBudget < 0 {
                    rehashWithKeyedHash(keys, upTo: count)
                    return .budgetSpent
                }
            }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// A key of a dictionary being built that equals an earlier key.
    struct RepeatedKey: Error {
        let position: Int
    }

    /// The position of the key equal to `key`, or nil.
    @inline(__always)
    func position(of key: String, in keys: UnsafeBufferPointer<String>) -> Int? {
        let h = hash(key)
        let tag = h & 0xFFFF_FFFF_0000_0000
        let mask = bucketCount &- 1
        var bucket = Int(truncatingIfNeeded: h) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { return nil }
            if entry & 0xFFFF_FFFF_0000_0000 == tag && entry & 0xFFFF_FFFF != Self.removedMark {
                let position = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) &- 1
                if keys[position].hasSameUTF8(as: key) { return position }
            }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Adds `keys[position]`, which must be the position after every one in the table, unless an
    /// equal key is there already; returns that key's position, or nil when it was added.
    func insert(_ position: Int, of keys: UnsafeBufferPointer<String>) -> Int? {
        precondition(position == count && position < Self.maximumCount, "positions are added in order")
        if 2 * (count + removed + 1) > bucketCount { grow(keys, to: Self.bucketCount(for: 2 * (count + 1))) }
        while true {
            // A spent budget has rehashed the table with `Hasher`: the key is hashed again.
            switch insert(position, of: keys, hash: hash(keys[position])) {
            case .placed: return nil
            case .repeated(let other): return other
            case .budgetSpent: continue
            }
        }
    }

    /// Takes out `keys[position]`, which the caller then removes from its arrays: its bucket
    /// becomes a removal mark (probes pass over it) and every later position moves down one.
    ///
    /// One pass over the buckets, like the arrays' own shift; rebuilding the table instead hashed
    /// every key again for each removal. Marks count as occupied until the next rebuild, which
    /// ``needsRebuild`` asks for once they are a quarter of the table.
    func remove(_ position: Int, of keys: UnsafeBufferPointer<String>) {
        precondition(position < count, "a position in the table")
        let h = hash(keys[position])
        let mask = bucketCount &- 1
        var bucket = Int(truncatingIfNeeded: h) & mask
        let wanted = UInt64(truncatingIfNeeded: position &+ 1)
        while buckets[bucket] & 0xFFFF_FFFF != wanted { bucket = (bucket &+ 1) & mask }
        buckets[bucket] = Self.removedMark
        for i in 0..<bucketCount {
            let low = buckets[i] & 0xFFFF_FFFF
            if low > wanted && low != Self.removedMark { buckets[i] &-= 1 }
        }
        count -= 1
        removed += 1
    }

    /// True when removal marks fill a quarter of the table and lookups should not probe past
    /// them any longer.
    var needsRebuild: Bool { 4 * removed > bucketCount }

    /// An independent table with the same contents, for a dictionary about to change a shared one.
    func copy() -> PlistKeyIndex {
        let copy = PlistKeyIndex(capacity: 0, seed: seed, usesKeyedHash: usesKeyedHash)
        copy.buckets.deallocate()
        copy.bucketCount = bucketCount
        copy.buckets = .allocate(capacity: bucketCount)
        copy.buckets.initialize(from: buckets, count: bucketCount)
        copy.count = count
        copy.removed = removed
        copy.probeBudget = probeBudget
        return copy
    }

    /// Empties the table without giving back its buckets, for a scratch table used again.
    func removeAll() {
        buckets.update(repeating: 0, count: bucketCount)
        count = 0
        removed = 0
        probeBudget = 64
    }

    // MARK: - Hashing

    @inline(__always)
    private func hash(_ key: String) -> UInt64 {
        usesKeyedHash ? Self.keyedHash(key) : SeededByteHash.hash(key, seed: seed).hash
    }

    /// SipHash of the key's bytes under the process's random seed, spread like the seeded hash.
    @inline(never)
    private static func keyedHash(_ key: String) -> UInt64 {
        var hasher = Hasher()
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return SeededByteHash.finalized(UInt64(UInt(bitPattern: hasher.finalize())))
    }

    /// Places a hash known not to be in the table; false when the probe budget ran out first.
    @inline(__always)
    private func insertUnique(_ h: UInt64, position: Int) -> Bool {
        let mask = bucketCount &- 1
        var bucket = Int(truncatingIfNeeded: h) & mask
        while buckets[bucket] != 0 {
            if !usesKeyedHash {
                probeBudget &-= 1
                if probeBudget < 0 { return false }
            }
            bucket = (bucket &+ 1) & mask
        }
        buckets[bucket] = h & 0xFFFF_FFFF_0000_0000 | UInt64(truncatingIfNeeded: position &+ 1)
        if !usesKeyedHash { probeBudget &+= 8 }
        return true
    }

    /// Refills the table with the first `count` keys, all distinct, in `newBucketCount` buckets.
    private func refill(_ keys: UnsafeBufferPointer<String>, upTo count: Int, bucketCount newBucketCount: Int) {
        if newBucketCount != bucketCount {
            buckets.deallocate()
            bucketCount = newBucketCount
            buckets = .allocate(capacity: bucketCount)
            buckets.initialize(repeating: 0, count: bucketCount)
        } else {
            buckets.update(repeating: 0, count: bucketCount)
        }
        self.count = 0
        removed = 0
        for position in 0..<count {
            if !insertUnique(hash(keys[position]), position: position) {
                rehashWithKeyedHash(keys, upTo: count)
                return
            }
        }
        self.count = count
    }

    private func grow(_ keys: UnsafeBufferPointer<String>, to newBucketCount: Int) {
        refill(keys, upTo: count, bucketCount: newBucketCount)
    }

    /// Gives up on the seeded hash: every key is placed again by SipHash.
    private func rehashWithKeyedHash(_ keys: UnsafeBufferPointer<String>, upTo count: Int) {
        usesKeyedHash = true
        refill(keys, upTo: count, bucketCount: bucketCount)
    }
}
