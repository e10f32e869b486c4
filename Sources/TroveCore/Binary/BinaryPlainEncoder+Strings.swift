import Foundation

/// The plain encoder's strings: keys and string values are first asked of the recent strings by
/// their representation, and otherwise encoded (ASCII or UTF-16) and uniqued by their UTF-8's
/// hash, computed ahead for the keys of a large dictionary (see ``BinaryPlainEncoder``).
extension BinaryPlainEncoder {
    /// Numbers the keys of a dictionary of 64 keys or more while the uniquing table is too large
    /// for the nearer caches (the keys of small records mostly repeat, and the recent-strings
    /// cache answers them without a probe). Each distinct key's probe was a cache miss that the processor could not
    /// overlap with the work in between (a third of writing a 200,000-key dictionary), so each
    /// key's hash is computed `lookahead` keys early and its bucket touched then; the key uses
    /// the hash when its turn comes.
    ///
    /// The values' numbers are looked ahead at by ``number(_:)`` (see ``prefetchUniquing(of:)``).
    mutating func numberKeysLookingAhead(_ keys: UnsafeBufferPointer<String>, referencesAt first: Int) throws(PlistError) {
        let seed = uniqued.seed
        // Hashes of the keys `i ..< i + lookahead`, key `k` at `k % lookahead`.
        var ahead = [Int](repeating: 0, count: Self.lookahead)
        for k in 0..<Self.lookahead {
            ahead[k] = Self.hash(keys[k], seed: seed)
            uniqued.prefetch(hash: ahead[k])
        }
        for i in 0..<keys.count {
            let hash = ahead[i % Self.lookahead]
            if i + Self.lookahead < keys.count {
                let next = Self.hash(keys[i + Self.lookahead], seed: seed)
                uniqued.prefetch(hash: next)
                ahead[i % Self.lookahead] = next
            }
            // Never nil: the dictionary has 64 keys or more.
            let key = keys.baseAddress! + i
            references.store(
                try stringObject(UnsafeRawPointer(key).load(as: StringRepresentation.self), hash: hash) { key.pointee }, at: first &+ i)
        }
    }

    /// The object of a string, looked up first by the string's representation: a dictionary key
    /// repeated across many records is usually one shared storage object (the binary reader
    /// decodes a key object once) or a small string held inline, and two `String` values with the
    /// same sixteen bytes have the same contents, so a repeat costs one compare instead of an
    /// encoding, a hash and a probe, and the string itself (`text`) is not even read. A miss goes
    /// to the uniquing table, which decides exactly; the cache only remembers its answers.
    @inline(__always)
    mutating func stringObject(
        _ representation: StringRepresentation, hash knownHash: Int? = nil, text: () -> String
    ) throws(PlistError) -> UInt32 {
        let slot = recentStrings.slot(representation.low, representation.high)
        if let object = recentStrings.object(at: slot, representation.low, representation.high) { return object }
        let object = try uniquedStringObject(representation, hash: knownHash, text: text)
        recentStrings.remember(object, at: slot, representation.low, representation.high)
        return object
    }

    /// The object of a string the recent strings did not know: encoded and uniqued. A small
    /// ASCII string (most keys, short names and numbers spelled out) is encoded and hashed from
    /// its two words, as a short scalar is; any other is read through its UTF-8 (see
    /// ``appendString(_:hash:)``). Either way the hash is that of the UTF-8, so a string unifies
    /// with an equal one held the other way.
    private mutating func uniquedStringObject(
        _ representation: StringRepresentation, hash knownHash: Int?, text: () -> String
    ) throws(PlistError) -> UInt32 {
        let start = scalarBytes.count
        let hash: Int
        if readsSmallASCII, let small = representation.smallASCII, small.count < 15 {
            // The marker and the text, at most fifteen bytes: an inline count, no extended one.
            scalarBytes.append(
                0x50 | UInt64(truncatingIfNeeded: small.count) | small.low << 8, small.low >> 56 | small.high << 8,
                count: 1 &+ small.count)
            hash = knownHash ?? Int(truncatingIfNeeded: SeededByteHash.hash(
                low: small.low, high: small.high, count: small.count, seed: uniqued.seed))
        } else if readsTailAllocatedUTF8, let utf8 = representation.tailAllocatedUTF8 {
            // The value being written holds the string, so its bytes stay put.
            hash = appendString(utf8: utf8, hash: knownHash, text: text)
        } else {
            hash = appendString(text(), hash: knownHash)
        }
        return try uniquedObject(encodedFrom: start, fastHash: { _, _ in hash })
    }

    /// Encodes `string` into the scalar bytes, ASCII when every byte is below 0x80 (found while
    /// hashing it) and UTF-16 otherwise, and returns its fast uniquing hash: `knownHash`, or that
    /// of its UTF-8 as ``hash(_:seed:)`` takes it.
    private mutating func appendString(_ string: String, hash knownHash: Int?) -> Int {
        let contiguous = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendString(utf8: UnsafeRawBufferPointer(utf8), hash: knownHash) { string }
        }
        if let contiguous { return contiguous }
        scalarBytes.appendBinaryString(string, note: nil)
        return knownHash ?? Self.hash(string, seed: uniqued.seed)
    }

    /// ``appendString(_:hash:)`` for a string whose UTF-8 is `utf8`; `text` gives the string
    /// itself, which only a string with non-ASCII bytes (encoded as UTF-16) is read through.
    private mutating func appendString(utf8 bytes: UnsafeRawBufferPointer, hash knownHash: Int?, text: () -> String) -> Int {
        let hash: Int
        let isASCII: Bool
        if let knownHash {
            hash = knownHash
            isASCII = bytes.isASCII
        } else if bytes.count <= 128 {
            // The same value as `ScalarUniquingTable.fastHash` takes for up to 128 bytes.
            let hashed = SeededByteHash.hash(bytes, seed: uniqued.seed)
            hash = Int(truncatingIfNeeded: hashed.hash)
            isASCII = hashed.isASCII
        } else {
            hash = ScalarUniquingTable.fastHash(encoding: bytes, seed: uniqued.seed)
            isASCII = bytes.isASCII
        }
        if isASCII {
            scalarBytes.appendBinaryMarker(0x5, count: bytes.count)
            scalarBytes.append(contentsOf: bytes)
        } else {
            scalarBytes.appendBinaryUTF16(text(), note: nil)
        }
        return hash
    }

    /// The fast uniquing hash of a string: that of its UTF-8 (which the string's encoding is a
    /// function of and determines), so that it is known before the string is encoded. Like a
    /// long encoding's, a long string's covers its first and last 64 bytes.
    @inline(__always)
    static func hash(_ string: String, seed: UInt64) -> Int {
        if let hash = string.utf8.withContiguousStorageIfAvailable({ ScalarUniquingTable.fastHash(encoding: UnsafeRawBufferPointer($0), seed: seed) }) {
            return hash
        }
        var native = string
        native.makeContiguousUTF8()
        return native.utf8.withContiguousStorageIfAvailable { ScalarUniquingTable.fastHash(encoding: UnsafeRawBufferPointer($0), seed: seed) } ?? 0
    }
}
