/// A fast seeded hash of a byte string, eight bytes a step, for the tables that the readers and
/// writers build for one call and throw away.
///
/// The standard library's `Hasher` (SipHash) costs a few hundred instructions per short string,
/// which was a fifth of the binary writer's time and most of a dictionary's repeat check. This
/// hash mixes each 64-bit word with one multiply and shift. It is not a defence against crafted
/// input by itself: every table that uses it caps the probes it will make and falls back to a
/// `Hasher`-based path past the cap, so colliding input costs a slower path, never quadratic time.
enum SeededByteHash {
    /// A seed for one table: random per process, like the standard library's own hashing seed.
    /// Drawing a new one from the system generator per table was a `getrandom` call per read,
    /// a noticeable part of reading a 2 KB file; the tables' probe caps, not the seed's
    /// freshness, are what keeps crafted input from costing quadratic time.
    static let processSeed = UInt64.random(in: .min ... .max)

    /// The hash of `bytes` under `seed`, and whether every byte was ASCII (callers whose equality
    /// is `String ==` may only trust byte hashes for ASCII text).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> (hash: UInt64, isASCII: Bool) {
        var h = seed ^ (UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        var seen: UInt64 = 0
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            seen |= word
            h = mix(h ^ word)
            i += 8
        }
        if i < n {
            // The last partial word: a string of 8 bytes or more rereads its last eight
            // (overlapping the word before).
            let tail = n >= 8 ? bytes.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) : word(ofShort: bytes)
            seen |= tail
            h = mix(h ^ tail)
        }
        return (finalized(h), seen & 0x8080_8080_8080_8080 == 0)
    }

    /// The bytes of `bytes` (fewer than eight) as a little-endian word, zero above them: put
    /// together from a 4-, a 2- and a 1-byte load rather than a byte at a time.
    @inline(__always)
    static func word(ofShort bytes: UnsafeRawBufferPointer) -> UInt64 {
        let n = bytes.count
        var word: UInt64 = 0
        var k = 0
        if n & 4 != 0 {
            word = UInt64(bytes.loadUnaligned(as: UInt32.self))
            k = 4
        }
        if n & 2 != 0 {
            word |= UInt64(bytes.loadUnaligned(fromByteOffset: k, as: UInt16.self)) << UInt64(8 * k)
            k += 2
        }
        if n & 1 != 0 { word |= UInt64(bytes[k]) << UInt64(8 * k) }
        return word
    }

    /// ``hash(_:seed:)`` of the `count` (at most 15) bytes held in `low` and then `high`, least
    /// significant first: the same value, put together from the words instead of loaded from
    /// memory. Bits above the bytes are ignored.
    @inline(__always)
    static func hash(low: UInt64, high: UInt64, count n: Int, seed: UInt64) -> UInt64 {
        var h = seed ^ (UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15)
        if n >= 8 {
            h = mix(h ^ low)
            if n > 8 {
                // The last eight bytes, as the byte loop's overlapping load reads them.
                let shift = UInt64(truncatingIfNeeded: 8 &* (n &- 8))
                h = mix(h ^ (low >> shift | high << (64 &- shift)))
            }
        } else if n > 0 {
            h = mix(h ^ (low & (~0 >> UInt64(truncatingIfNeeded: 64 &- 8 &* n))))
        }
        return finalized(h)
    }

    /// The hash of a string's UTF-8 code units.
    @inline(__always)
    static func hash(_ string: String, seed: UInt64) -> (hash: UInt64, isASCII: Bool) {
        if let h = string.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0), seed: seed) }) {
            return h
        }
        // A bridged string: made native once rather than read unit by unit.
        var copy = string
        return copy.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// The hash of one 64-bit word under `seed`, for numbers and bit patterns.
    @inline(__always)
    static func hash(word: UInt64, seed: UInt64) -> UInt64 {
        finalized(mix(seed ^ word))
    }

    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        let m = x &* 0x94D0_49BB_1331_11EB
        return m ^ (m >> 31)
    }

    /// Spreads every input bit over both the high bits (which tables keep as a tag) and the low
    /// bits (which pick the bucket).
    @inline(__always)
    static func finalized(_ x: UInt64) -> UInt64 {
        var h = x ^ (x >> 29)
        h &*= 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }
}
