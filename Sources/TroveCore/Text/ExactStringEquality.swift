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
