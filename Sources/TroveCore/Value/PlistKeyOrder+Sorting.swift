extension PlistKeyOrder {
    /// Up to this many keys, sorting positions with ``precedes(_:_:)`` costs less than setting up
    /// the prefix sort below.
    static let directSortLimit = 12

    /// From this many keys, a writer gets the sort's copy of the keys' bytes: below, the key
    /// strings are likely in the caches and the copy's object costs more than it saves.
    static let keyTextMinimum = 256

    /// The positions of `keys` in CoreFoundation's key order: `result[i]` is the position of the
    /// `i`th smallest key. No two keys may be equal.
    ///
    /// A dictionary read from a binary file lists its keys in CF's hash order, so writing it as
    /// XML sorts keys that arrive shuffled. Comparing the strings themselves costs two
    /// storage lookups and, through an array, a retain and release of each per comparison; a
    /// large dictionary's strings are also scattered over the heap. So each key's first sixteen
    /// bytes become two integers that order like the key, the sort compares those, and only keys
    /// that share their first sixteen bytes compare the rest, in one buffer holding every key's
    /// UTF-8 bytes. Sixteen rather than eight because preference keys share long prefixes
    /// (`NSWindow Frame `, `com.apple.`, a group name and a dot): with eight, most comparisons in
    /// such a dictionary would go on to the scattered tails.
    ///
    /// - Complexity: O(*n* log *n*) comparisons, each O(1) unless the two keys share their first
    ///   sixteen bytes; O(total key bytes) to copy the keys.
    static func sortedPositions(of keys: UnsafeBufferPointer<String>) -> [Int] {
        sortedKeys(of: keys).positions
    }

    /// ``sortedPositions(of:)`` and, for a dictionary of at least ``keyTextMinimum`` keys, the
    /// copy of the keys' bytes the sort made, which a writer can write the keys from: in sorted
    /// order the strings themselves are reached in random order over the heap, and for a
    /// dictionary too large for the caches each key costs a miss.
    static func sortedKeys(of keys: UnsafeBufferPointer<String>) -> SortedKeys {
        guard keys.count > directSortLimit else {
            return SortedKeys(positions: keys.indices.sorted { precedes(keys[$0], keys[$1]) })
        }
        var byteCount = 0
        for key in keys { byteCount += key.utf8.count }
        guard byteCount < Int(UInt32.max), keys.count < Int(UInt32.max) else {
            return SortedKeys(positions: keys.indices.sorted { precedes(keys[$0], keys[$1]) })
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(byteCount)
        var starts = [UInt32]()
        starts.reserveCapacity(keys.count + 1)
        var entries = [PrefixedKey]()
        entries.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            let start = bytes.count
            if key.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: key.utf8)
            }
            let prefix = orderedPrefix(of: bytes[start...])
            starts.append(UInt32(truncatingIfNeeded: start))
            entries.append(PrefixedKey(
                high: prefix.high, low: prefix.low, position: UInt32(truncatingIfNeeded: position),
                length: UInt32(truncatingIfNeeded: bytes.count - start)))
        }
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                entries.sort { a, b in
                    if a.high != b.high { return a.high < b.high }
                    if a.low != b.low { return a.low < b.low }
                    return tailPrecedes(a, b, starts: starts, in: bytes)
                }
            }
        }
        starts.append(UInt32(truncatingIfNeeded: bytes.count))
        let positions = entries.map { Int($0.position) }
        guard keys.count >= keyTextMinimum else { return SortedKeys(positions: positions) }
        return SortedKeys(positions: positions, text: SortedKeyText(bytes: bytes, starts: starts))
    }

    /// One key for the sort: the integers of its first sixteen bytes, its position in the
    /// dictionary (which also finds its bytes in the shared buffer) and its length. 24 bytes, so
    /// that the sort moves no more than with one prefix word and an `Int` position.
    struct PrefixedKey {
        var high: UInt64
        var low: UInt64
        var position: UInt32
        var length: UInt32
    }

    /// The first sixteen UTF-8 bytes of a key as a big-endian 128-bit integer in two words,
    /// zero-padded, with the lead bytes 0xEE and 0xEF (U+E000...U+FFFF) moved above 0xF0...0xF4
    /// (scalars above U+FFFF, whose UTF-16 surrogates sort below U+E000): comparing two prefixes
    /// then agrees with ``precedes(_:_:)`` whenever they differ. 0xF8 and 0xF9 never occur in
    /// UTF-8.
    @inline(__always)
    static func orderedPrefix(of key: ArraySlice<UInt8>) -> (high: UInt64, low: UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        var taken = 0
        for byte in key.prefix(16) {
            let ordered = UInt64(byte == 0xEE ? 0xF8 : byte == 0xEF ? 0xF9 : byte)
            if taken < 8 { words.0 |= ordered << (8 * (7 - taken)) } else { words.1 |= ordered << (8 * (15 - taken)) }
            taken += 1
        }
        return (words.0, words.1)
    }

    /// ``precedes(_:_:)`` for two keys with equal prefixes, compared in the byte buffer. When
    /// both are sixteen bytes or longer their first sixteen bytes are equal; otherwise a zero
    /// byte padded the shorter, so the comparison starts over.
    @inline(__always)
    static func tailPrecedes(
        _ a: PrefixedKey, _ b: PrefixedKey, starts: UnsafeBufferPointer<UInt32>, in bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let (aLength, bLength) = (Int(a.length), Int(b.length))
        let common = min(aLength, bLength)
        var i = common >= 16 ? 16 : 0
        let (x, y) = (Int(starts[Int(a.position)]), Int(starts[Int(b.position)]))
        while i < common && bytes[x + i] == bytes[y + i] { i += 1 }
        guard i < common else { return aLength < bLength }
        let (p, q) = (bytes[x + i], bytes[y + i])
        if p >= 0xF0 && (q == 0xEE || q == 0xEF) { return true }
        if q >= 0xF0 && (p == 0xEE || p == 0xEF) { return false }
        return p < q
    }
}
