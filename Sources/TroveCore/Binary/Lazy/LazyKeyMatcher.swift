/// Compares dictionary key objects with one key, as the full reader's dictionary would.
///
/// Keys are equal when their code units are (see ``PlistDictionary``): the Kelvin sign U+212A is
/// not `K`. An ASCII key is settled against an ASCII or UTF-16 key object without decoding it,
/// since only the same ASCII units can spell it; any other key is compared with the decoded text.
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
    func matches(_ header: BinaryObjectMarker, in table: LazyObjectTable) throws(PlistError) -> Bool {
        if let ascii {
            switch header.byte >> 4 {
            case 0x5:
                // A byte above 0x7F is Latin-1 text, never an ASCII key's byte.
                let stored = table.payload(header)
                return stored.count == ascii.count && stored.elementsEqual(ascii)
            case 0x6:
                let units = LazyUTF16Units(bytes: table.bytes, start: header.payload, count: header.count)
                if units.count == ascii.count && units.elementsEqual(ascii, by: { $0 == UInt16($1) }) { return true }
                // Other text is decoded all the same, so that a key with an unpaired surrogate is
                // the error the full reader reports, not a miss.
                if units.contains(where: { $0 >= 0x80 }) { _ = try table.string(header) }
                return false
            default:
                break
            }
        }
        return try table.string(header).hasSameUTF8(as: key)
    }
}
