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
        let fast: Bool?? = utf8.withContiguousStorageIfAvailable { x in
            other.utf8.withContiguousStorageIfAvailable { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
        if let decided = fast.flatMap({ $0 }) { return decided }
        return utf8.count == other.utf8.count && utf8.elementsEqual(other.utf8)
    }
}
