/// Compares dictionary key objects with one key, as the full reader's dictionary would.
///
/// Decoded dictionaries compare keys as Swift strings, which means canonical equivalence: the
/// Kelvin sign U+212A equals `K`, and `é` equals `e` + U+0301. Two pure-ASCII spellings are equal
/// only when their bytes are, so the common case (an ASCII key against an ASCII or UTF-16 key
/// object holding ASCII) is settled without decoding; anything else is decoded and compared as a
/// string, so the answer is always the one the full reader gives.
struct LazyKeyMatcher {
    let key: String
    /// The key's bytes when every one of them is ASCII.
    private let ascii: [UInt8]?

    init(_ key: String) {
        self.key = key
        let utf8 = Array(key.utf8)
        ascii = utf8.allSatisfy { $0 < 0x80 } ? utf8 : nil
    }

    /// True when the string object `header` holds a key equal to ``key``.
    func matches(_ header: LazyObjectHeader, in table: LazyObjectTable) throws(PlistError) -> Bool {
        if let ascii {
            switch header.marker >> 4 {
            case 0x5:
                let stored = table.payload(header)
                if stored.count == ascii.count && stored.elementsEqual(ascii) { return true }
                if !stored.contains(where: { $0 >= 0x80 }) { return false }
            case 0x6:
                let units = LazyUTF16Units(bytes: table.bytes, start: header.payload, count: header.count)
                if units.count == ascii.count && units.elementsEqual(ascii, by: { $0 == UInt16($1) }) { return true }
                if !units.contains(where: { $0 >= 0x80 }) { return false }
            default:
                break
            }
        }
        return try table.string(header) == key
    }
}
