import Foundation

/// The binary writer's index of scalar slots by exact value, so that equal strings, numbers,
/// dates and data become one object.
///
/// A dictionary keyed by ``ScalarKey`` did the same job but hashed each scalar two or three times
/// (lookup, insert, and again on every resize) and held a second copy of every key. This table
/// stores only slot numbers and each slot's full hash: a scalar is hashed once, with the
/// standard library's seeded `Hasher` (so crafted input cannot force collisions), resizing
/// reuses the stored hashes, and candidates are compared against the planner's own slots.
///
/// Invariants: `buckets.count` is a power of two and at least twice `count`, so linear probing
/// always meets an empty bucket (slot -1); a bucket holds a slot index into the array passed to
/// ``find(_:hash:in:)`` next to that slot's hash, so a probe touches one cache line, not two.
struct ScalarUniquingTable {
    private struct Bucket {
        var slot: Int
        var hash: Int
    }

    private var buckets: [Bucket]
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        var size = 16
        while size < 2 * minimumCapacity { size &*= 2 }
        buckets = Array(repeating: Bucket(slot: -1, hash: 0), count: size)
    }

    /// The hash of a scalar under ``ScalarUniquingTable/identical(_:_:)``'s notion of equality;
    /// nil for containers, which are never uniqued.
    static func hash(_ value: PlistValue) -> Int? {
        var hasher = Hasher()
        switch value {
        case .string(let s):
            hasher.combine(0 as UInt8)
            // A no-op for native strings; a bridged one is made native once rather than hashed
            // byte by byte.
            var native = s
            native.makeContiguousUTF8()
            _ = native.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .integer(let i):
            hasher.combine(1 as UInt8)
            hasher.combine(i.magnitude)
            hasher.combine(i.isNegative)
        case .real(let r):
            if r.width == .single {
                hasher.combine(2 as UInt8)
                hasher.combine(Float(r.value).bitPattern)
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(r.value.bitPattern)
            }
        case .date(let d):
            hasher.combine(4 as UInt8)
            hasher.combine(d.secondsSinceReferenceDate.bitPattern)
        case .data(let d):
            hasher.combine(5 as UInt8)
            // The length and both ends, as Foundation's own Data hash takes a bounded prefix:
            // hashing whole multi-megabyte blobs would cost more than writing them. Equal
            // candidates are still compared in full by `identical`.
            hasher.combine(d.count)
            d.withUnsafeBytes { bytes in
                let edge = min(bytes.count, 64)
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<edge]))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - edge)...]))
            }
        case .bool(let b):
            hasher.combine(6 as UInt8)
            hasher.combine(b)
        case .uid(let u):
            hasher.combine(7 as UInt8)
            hasher.combine(u)
        case .null:
            hasher.combine(8 as UInt8)
        case .array, .dictionary:
            return nil
        }
        return hasher.finalize()
    }

    /// Exact identity of two scalars, the equality ``ScalarKey`` defines: kind plus bit pattern
    /// or UTF-8 code units. Containers are never identical here.
    static func identical(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)):
            return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)):
            guard x.width == y.width else { return false }
            return x.width == .single
                ? Float(x.value).bitPattern == Float(y.value).bitPattern
                : x.value.bitPattern == y.value.bitPattern
        case let (.date(x), .date(y)):
            return x.secondsSinceReferenceDate.bitPattern == y.secondsSinceReferenceDate.bitPattern
        case let (.data(x), .data(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case let (.uid(x), .uid(y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    /// The slot already holding a scalar identical to `value`, whose hash is `hash`.
    @inline(__always)
    func find(_ value: PlistValue, hash: Int, in slots: [BinaryObjectPlanner.Slot]) -> Int? {
        let mask = buckets.count &- 1
        var bucket = hash & mask
        while true {
            let entry = buckets[bucket]
            if entry.slot < 0 { return nil }
            if entry.hash == hash && Self.identical(slots[entry.slot].value, value) { return entry.slot }
            bucket = (bucket &+ 1) & mask
        }
    }

    /// Records `slot` under `hash`; the caller has checked that no identical scalar is present.
    mutating func insert(_ slot: Int, hash: Int) {
        if 2 * (count + 1) > buckets.count { grow() }
        place(slot, hash: hash)
        count += 1
    }

    @inline(__always)
    private mutating func place(_ slot: Int, hash: Int) {
        let mask = buckets.count &- 1
        var bucket = hash & mask
        while buckets[bucket].slot >= 0 { bucket = (bucket &+ 1) & mask }
        buckets[bucket] = Bucket(slot: slot, hash: hash)
    }

    /// Doubles the table, reusing the stored hashes.
    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: Bucket(slot: -1, hash: 0), count: old.count * 2)
        for entry in old where entry.slot >= 0 {
            place(entry.slot, hash: entry.hash)
        }
    }
}
