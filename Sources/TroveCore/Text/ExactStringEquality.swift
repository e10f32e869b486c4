import Foundation

extension String {
    /// True when both strings have the same UTF-8 code units: identity, not `==`'s canonical
    /// equivalence ("é" as one scalar and as "e" plus a combining accent are different here).
    ///
    /// The binary writer uniques strings by this, as CoreFoundation does by code units, and the
    /// layout code matches keys by it. `utf8.elementsEqual` gives the same answer through the
    /// generic element-by-element path, which cost the binary writer a tenth of its time; native
    /// and small strings expose their bytes, so this is one length check and a `memcmp`.
    @inline(__always)
    func hasSameUTF8(as other: String) -> Bool {
        // The same words are the same storage (or the same inline small string): a key shared by
        // many dictionaries, or a string met again, is decided without touching its bytes.
        if StringRepresentation(self) == StringRepresentation(other) { return true }
        let fast: Bool?? = utf8.withContiguousStorageIfAvailable { x in
            other.utf8.withContiguousStorageIfAvailable { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
        if let decided = fast.flatMap({ $0 }) { return decided }
        return utf8.count == other.utf8.count && utf8.elementsEqual(other.utf8)
    }
}

/// The two words a `String` value is made of on 64-bit platforms: a pointer to its storage (or
/// the tail of a small string held inline) and its count and flags. Two values with the same
/// words have the same contents, because a string's storage is never changed while a value
/// refers to it; different words say nothing, so this is only ever a shortcut before an exact
/// comparison. (`unsafeBitCast` traps if the sizes ever differ.)
struct StringRepresentation: Equatable {
    var low: UInt64
    var high: UInt64

    @inline(__always)
    init(_ string: String) { self = unsafeBitCast(string, to: StringRepresentation.self) }

    /// Whether the words stand for the same contents for as long as the program runs: a small
    /// string held inline or a literal, both marked immortal in the top bit of the second word.
    /// Other storage is freed with the last value that refers to it and may be reused for other
    /// text, so a cache that keeps the words and not the value may only keep these.
    var isImmortal: Bool { high >> 63 == 1 }

    /// Words no string has been seen with yet: a placeholder for empty cache slots, which must
    /// be told apart from a real entry by a flag of their own.
    static let placeholder = StringRepresentation(low: 0, high: 0)

    private init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }
}

extension StringRepresentation {
    /// The UTF-8 of a small ASCII string held inline in the words, least significant byte
    /// first (`low` holds bytes 0 to 7, `high` the rest, zero above them), and its count; nil
    /// for every other string. Only meaningful where ``readsSmallASCII`` is true, which callers
    /// check once rather than at every string.
    ///
    /// On 64-bit little-endian platforms the standard library keeps a string of up to 15 UTF-8
    /// bytes in the two words themselves: the bytes from the lowest address on, and in the top
    /// byte of `high` a discriminator (immortal, ASCII, small: `0xE` in the top four bits of an
    /// ASCII small string) above the count. Reading them here spares a writer the call that
    /// lends a small string's bytes out (which copies them to the stack first).
    @inline(__always)
    var smallASCII: (low: UInt64, high: UInt64, count: Int)? {
        guard high >> 60 == 0xE else { return nil }
        return (low, high & 0x00FF_FFFF_FFFF_FFFF, Int(truncatingIfNeeded: (high >> 56) & 0xF))
    }

    /// Whether small ASCII strings are laid out as ``smallASCII`` reads them, checked once on
    /// two strings whose words are known, so that a layout this code does not know (another
    /// byte order or word size) falls back to reading strings through the standard library.
    static let readsSmallASCII: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        let seven = StringRepresentation(String(decoding: [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67], as: UTF8.self))
        let fifteen = StringRepresentation(String(decoding: Array(0x61...0x6F as ClosedRange<UInt8>), as: UTF8.self))
        let nonASCII = StringRepresentation(String(decoding: [0xC3, 0xA9], as: UTF8.self))
        return seven.low == 0x0067_6665_6463_6261 && seven.high == 0xE700_0000_0000_0000
            && fifteen.low == 0x6867_6665_6463_6261 && fifteen.high == 0xEF6F_6E6D_6C6B_6A69
            && nonASCII.high >> 60 != 0xE
        #else
        return false
        #endif
    }()
}
