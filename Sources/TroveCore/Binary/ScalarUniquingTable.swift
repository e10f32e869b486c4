import CTroveFastPaths
import Foundation

/// The binary writer's index of scalar objects by their canonical encoding (the bytes written
/// without layout notes), so that equal strings, numbers, dates and data become one object.
///
/// Without notes, a scalar's encoding is a function of its kind and its bits or code units, and
/// two different scalars never encode alike (the marker byte tells kinds and widths apart), so
/// uniquing by encoding is uniquing by exact value: 0.0 and -0.0, a 32- and a 64-bit real, or two
/// canonically equivalent strings stay distinct objects, as CoreFoundation's literal `CFEqual`
/// keeps them.
///
/// The table stores only slot numbers and the low 32 bits of each slot's hash: a scalar is
/// hashed once, resizing reuses the stored hashes, and candidates are compared against the
/// caller's own storage, the encodings it keeps in one buffer (the plain encoder's objects, the
/// planner's objects). Encodings are hashed with ``SeededByteHash``, several times cheaper than
/// the standard library's SipHash `Hasher`; the probes are budgeted (eight per lookup plus a
/// constant), and a table whose hash is being defeated by crafted input rehashes every entry with
/// `Hasher` and goes on with that, so no input makes uniquing quadratic.
///
/// The buckets sit behind a pointer, so probing and inserting pay no uniqueness or bounds checks
/// (an `Array` of buckets spent a third of an insert on them); the type is non-copyable, so
/// exactly one owner frees them.
///
/// Invariants: `bucketCount` is a power of two and at least twice `count`, so linear probing
/// always meets an empty bucket (slot `UInt32.max`); a bucket holds a slot index into the
/// caller's storage next to the low bits of that slot's hash under the current hash function,
/// eight bytes in all, so a probe touches one cache line.
struct ScalarUniquingTable: ~Copyable {
    private struct Bucket {
        var slot: UInt32
        var hash: UInt32

        static let empty = Bucket(slot: .max, hash: 0)
        var isEmpty: Bool { slot == .max }
    }

    /// What a lookup found.
    enum Lookup {
        /// The slot already holding an identical scalar.
        case found(Int)
        /// No identical scalar yet; ``insert(_:at:)`` the value's slot here.
        case absent(Insertion)
    }

    /// Where a scalar that a lookup did not find goes: its hash, and the empty
    /// bucket the probe ended on, which takes the slot unless the table grows first.
    struct Insertion {
        var hash: Int
        fileprivate var bucket: Int
    }

    private var buckets: UnsafeMutablePointer<Bucket>
    private var bucketCount: Int
    private(set) var count = 0
    /// The seed of the fast hash, which callers keying scalars their own way hash with.
    let seed: UInt64
    /// True once the probe budget ran out and every hash became a `Hasher` hash.
    private(set) var usesSipHash = false
    /// Probes left before the table gives up on the fast hash.
    private var probeBudget = 64

    /// A table for about `minimumCapacity` scalars; tests pass a fixed `seed`.
    init(minimumCapacity: Int = 0, seed: UInt64 = SeededByteHash.processSeed) {
        var size = 16
        while size < 2 * minimumCapacity { size &*= 2 }
        bucketCount = size
        buckets = Self.emptyBuckets(size)
        self.seed = seed
    }

    deinit { buckets.deallocate() }

    private static func emptyBuckets(_ count: Int) -> UnsafeMutablePointer<Bucket> {
        let buckets = UnsafeMutablePointer<Bucket>.allocate(capacity: count)
        buckets.initialize(repeating: .empty, count: count)
        return buckets
    }

    /// Finds the slot whose scalar `matches` says is identical to the one looked up.
    ///
    /// `hash(false)` is the scalar's hash under the fast function (seeded with ``seed``),
    /// `hash(true)` its `Hasher` hash; `sipHashOfSlot` gives the `Hasher` hash of a stored
    /// slot's scalar, asked for every entry once, when crafted input has used up the probe
    /// budget.
    @inline(__always)
    mutating func lookup(
        hash hashing: (_ sipHash: Bool) -> Int, matches: (Int) -> Bool, sipHashOfSlot: (Int) -> Int
    ) -> Lookup {
        var hash = hashing(usesSipHash)
        probeBudget &+= 8
        let mask = bucketCount &- 1
        var tag = UInt32(truncatingIfNeeded: hash)
        var bucket = hash & mask
        while true {
            let entry = buckets[bucket]
            if entry.isEmpty { return .absent(Insertion(hash: hash, bucket: bucket)) }
            if entry.hash == tag && matches(Int(entry.slot)) { return .found(Int(entry.slot)) }
            probeBudget &-= 1
            if probeBudget < 0 && !usesSipHash {
                // The table keeps its size, so the probe starts over from the new hash.
                switchToSipHash(sipHashOfSlot)
                hash = hashing(true)
                tag = UInt32(truncatingIfNeeded: hash)
                bucket = hash & mask
                continue
            }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Makes room for `capacity` scalars in all, so that a caller that can tell how many are
    /// coming rebuilds the table once rather than at every doubling on the way there.
    mutating func reserve(capacity: Int) {
        guard 2 * capacity > bucketCount else { return }
        var size = bucketCount
        while size < 2 * capacity { size &*= 2 }
        rebuild(size: size) { $0 }
    }

    /// Whether the table holds as many scalars as make its buckets, grown by doubling, too many
    /// for the nearer caches (see ``isLarge``): a count rather than a size, since a table
    /// reserved ahead is large long before it holds many.
    var holdsMany: Bool { count > 1 << 13 }

    /// Whether the buckets are too many to stay in the processor's nearer caches (256 KB and
    /// more), so that touching a probe's bucket ahead of time pays.
    var isLarge: Bool { bucketCount >= 1 << 15 }

    /// Whether the buckets are past a typical last-level cache (8 MB and more), so that even
    /// the few probes of a small container's scalars are misses worth overlapping.
    var isHuge: Bool { bucketCount >= 1 << 20 }

    /// Starts loading the bucket where a lookup of a scalar with fast hash `hash` will begin.
    @inline(__always)
    func prefetch(hash: Int) {
        guard !usesSipHash else { return }
        trove_prefetch(buckets + (hash & (bucketCount &- 1)))
    }

    /// Records `slot` (below `UInt32.max`) where a lookup said it goes; nothing
    /// may have been inserted since that lookup.
    @inline(__always)
    mutating func insert(_ slot: Int, at insertion: Insertion) {
        precondition(slot >= 0 && slot < Int(UInt32.max), "uniquing slot out of range")
        let entry = Bucket(slot: UInt32(truncatingIfNeeded: slot), hash: UInt32(truncatingIfNeeded: insertion.hash))
        if 2 * (count + 1) > bucketCount {
            grow()
            place(entry)
        } else {
            buckets[insertion.bucket] = entry
        }
        count += 1
    }

    /// Rehashes every entry with `Hasher`, once the probe budget shows the fast hash is being
    /// defeated.
    @inline(never)
    private mutating func switchToSipHash(_ sipHashOfSlot: (Int) -> Int) {
        usesSipHash = true
        rebuild(size: bucketCount) { Bucket(slot: $0.slot, hash: UInt32(truncatingIfNeeded: sipHashOfSlot(Int($0.slot)))) }
    }

    @inline(__always)
    private mutating func place(_ entry: Bucket) {
        let mask = bucketCount &- 1
        var bucket = Int(entry.hash) & mask
        while !buckets[bucket].isEmpty { bucket = (bucket &+ 1) & mask }
        buckets[bucket] = entry
    }

    /// Doubles the table, reusing the stored hashes.
    @inline(never)
    private mutating func grow() {
        rebuild(size: bucketCount * 2) { $0 }
    }

    /// Moves every entry, as `rehashed` makes it, into `size` new buckets.
    private mutating func rebuild(size: Int, _ rehashed: (Bucket) -> Bucket) {
        let old = buckets
        let oldCount = bucketCount
        buckets = Self.emptyBuckets(size)
        bucketCount = size
        for i in 0..<oldCount where !old[i].isEmpty { place(rehashed(old[i])) }
        old.deallocate()
    }

    // MARK: - Encodings

    /// Finds the slot whose encoding is the same bytes as `encoding`, for callers that keep the
    /// encodings of their slots in one buffer starting at `base`; `encodingOf` gives where a
    /// stored slot's encoding lies in it. `fastHash` hashes an encoding under the table's seed;
    /// a caller may take it differently by kind of scalar (equal encodings are of one kind), as
    /// long as equal encodings always hash alike.
    @inline(__always)
    mutating func lookup(
        encoding: UnsafeRawBufferPointer, in base: UnsafeRawPointer,
        fastHash: (_ seed: UInt64, _ encoding: UnsafeRawBufferPointer) -> Int,
        encodingOf: (Int) -> (first: Int, count: Int)
    ) -> Lookup {
        lookup(
            hash: { [seed] sipHash in sipHash ? Self.sipHash(encoding) : fastHash(seed, encoding) },
            matches: { slot in
                let held = encodingOf(slot)
                // Never nil: an encoding is at least its marker byte.
                return held.count == encoding.count
                    && Self.sameBytes(base + held.first, encoding.baseAddress!, count: encoding.count)
            },
            sipHashOfSlot: { slot in
                let held = encodingOf(slot)
                return Self.sipHash(UnsafeRawBufferPointer(start: base + held.first, count: held.count))
            })
    }

    /// Whether `count` bytes at `a` and at `b` are the same; up to 16 bytes with two loads from
    /// each (overlapping when fewer), rather than a call to `memcmp`.
    @inline(__always)
    static func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count n: Int) -> Bool {
        switch n {
        case 0: return true
        case 1: return a.load(as: UInt8.self) == b.load(as: UInt8.self)
        case 2...3:
            return a.loadUnaligned(as: UInt16.self) == b.loadUnaligned(as: UInt16.self)
                && a.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self) == b.loadUnaligned(fromByteOffset: n - 2, as: UInt16.self)
        case 4...7:
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == b.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        case 8...16:
            return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        default:
            return memcmp(a, b, n) == 0
        }
    }

    /// The `Hasher` hash of an encoding, which a table defeated by crafted input switches to. It
    /// reads every byte, so encodings crafted to share their ends (see
    /// ``fastHash(encoding:seed:)``) cannot defeat it too.
    static func sipHash(_ encoding: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: encoding)
        return hasher.finalize()
    }

    /// The fast hash of bytes: all of them up to 128, else the first and last 64 only (an
    /// encoding's first bytes hold its length), since hashing whole multi-megabyte objects would
    /// cost more than copying them.
    static func fastHash(encoding: UnsafeRawBufferPointer, seed: UInt64) -> Int {
        let n = encoding.count
        guard n > 128 else { return Int(truncatingIfNeeded: SeededByteHash.hash(encoding, seed: seed).hash) }
        let head = SeededByteHash.hash(UnsafeRawBufferPointer(rebasing: encoding[..<64]), seed: seed).hash
        return Int(truncatingIfNeeded: SeededByteHash.hash(UnsafeRawBufferPointer(rebasing: encoding[(n - 64)...]), seed: head).hash)
    }
}
