extension PlistKeyOrder {
    /// Up to this many keys, sorting positions with ``precedes(_:_:)`` costs less than setting up
    /// the prefix sort below.
    static let directSortLimit = 12

    /// The positions of `keys` in CoreFoundation's key order: `result[i]` is the position of the
    /// `i`th smallest key. No two keys may be equal.
    ///
    /// A dictionary read from a binary file lists its keys in CF's hash order, so writing it as
    /// XML sorts keys that arrive shuffled. Comparing the strings themselves costs two
    /// storage lookups and, through an array, a retain and release of each per comparison; a
    /// large dictionary's strings are also scattered over the heap. So each key's first eight
    /// bytes become one integer that orders like the key, the sort compares those, and only keys
    /// that share their first eight bytes compare the rest, in one buffer holding every key's
    /// UTF-8 bytes.
    ///
    /// - Complexity: O(*n* log *n*) comparisons, each O(1) unless the two keys share their first
    ///   eight bytes; O(total key bytes) to copy the keys.
    static func sortedPositions(of keys: UnsafeBufferPointer<String>) -> [Int] {
        guard keys.count > directSortLimit else {
            return keys.indices.sorted { precedes(keys[$0], keys[$1]) }
        }
        var byteCount = 0
        for key in keys { byteCount += key.utf8.count }
        guard byteCount < Int(UInt32.max), keys.count < Int(UInt32.max) else {
            return keys.indices.sorted { precedes(keys[$0], keys[$1]) }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(byteCount)
        var entries = [PrefixedKey]()
        entries.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            let start = bytes.count
            if key.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: key.utf8)
            }
            entries.append(PrefixedKey(
                prefix: orderedPrefix(of: bytes[start...]), start: UInt32(truncatingIfNeeded: start),
                length: UInt32(truncatingIfNeeded: bytes.count - start), position: position))
        }
        bytes.withUnsafeBufferPointer { bytes in
            entries.sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                return tailPrecedes(a, b, in: bytes)
            }
        }
        return entries.map(\.position)
    }

    /// One key for the sort: the integer of its first eight bytes, where it lives in the shared
    /// byte buffer, and its position in the dictionary.
    struct PrefixedKey {
        var prefix: UInt64
        var start: UInt32
        var length: UInt32
        var position: Int
    }

    /// The first eight UTF-8 bytes of a key as a big-endian integer, zero-padded, with the lead
    /// bytes 0xEE and 0xEF (U+E000...U+FFFF) moved above 0xF0...0xF4 (scalars above U+FFFF, whose
    /// UTF-16 surrogates sort below U+E000): comparing two prefixes then agrees with
    /// ``precedes(_:_:)`` whenever they differ. 0xF8 and 0xF9 never occur in UTF-8.
    @inline(__always)
    static func orderedPrefix(of key: ArraySlice<UInt8>) -> UInt64 {
        var prefix: UInt64 = 0
        var taken = 0
        for byte in key.prefix(8) {
            let ordered = byte == 0xEE ? 0xF8 : byte == 0xEF ? 0xF9 : byte
            prefix = prefix << 8 | UInt64(ordered)
            taken += 1
        }
        return prefix << (8 * (8 - taken))
    }

    /// ``precedes(_:_:)`` for two keys with equal prefixes, compared in the byte buffer. When
    /// both are eight bytes or longer their first eight bytes are equal; otherwise a zero byte
    /// padded the shorter, so the comparison starts over.
    @inline(__always)
    static func tailPrecedes(_ a: PrefixedKey, _ b: PrefixedKey, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let (aLength, bLength) = (Int(a.length), Int(b.length))
        let common = min(aLength, bLength)
        var i = common >= 8 ? 8 : 0
        let (x, y) = (Int(a.start), Int(b.start))
        while i < common && bytes[x + i] == bytes[y + i] { i += 1 }
        guard i < common else { return aLength < bLength }
        let (p, q) = (bytes[x + i], bytes[y + i])
        if p >= 0xF0 && (q == 0xEE || q == 0xEF) { return true }
        if q >= 0xF0 && (p == 0xEE || p == 0xEF) { return false }
        return p < q
    }
}
