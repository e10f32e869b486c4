import OrderedCollections

/// The entries of a property-list dictionary, in the order they were read or inserted.
///
/// Files keep key order (XML in document order, binary in the order of the key references), and
/// a faithful rewrite needs it, so the storage is an `OrderedDictionary`. Equality and hashing
/// ignore order: two dictionaries with the same entries are equal, as they are to Apple's readers.
public struct PlistDictionary: Sendable {
    /// The ordered storage. Mutating it directly is fine; the type adds no invariants of its own.
    public var storage: OrderedDictionary<String, PlistValue>

    /// An empty dictionary.
    @inlinable
    public init() { storage = [:] }

    /// A dictionary with room for `capacity` entries.
    @inlinable
    public init(minimumCapacity capacity: Int) {
        storage = OrderedDictionary(minimumCapacity: capacity)
    }

    /// Wraps existing ordered storage.
    @inlinable
    public init(_ storage: OrderedDictionary<String, PlistValue>) { self.storage = storage }

    /// Builds a dictionary from key-value pairs; a repeated key keeps its first position and its
    /// last value (what CoreFoundation and plistlib do with duplicate keys in a file).
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        storage = [:]
        for (k, v) in pairs { storage[k] = v }
    }

    /// The value for `key`, or nil. Setting nil removes the entry.
    @inlinable
    public subscript(key: String) -> PlistValue? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// The keys in order.
    @inlinable
    public var keys: OrderedSet<String> { storage.keys }

    /// The values in key order.
    @inlinable
    public var values: OrderedDictionary<String, PlistValue>.Values { storage.values }

    /// The number of entries.
    @inlinable
    public var count: Int { storage.count }

    /// True when there are no entries.
    @inlinable
    public var isEmpty: Bool { storage.isEmpty }

    /// Inserts or replaces the value for `key`; a new key goes at the end.
    @inlinable
    public mutating func updateValue(_ value: PlistValue, forKey key: String) {
        storage[key] = value
    }

    /// Removes the entry for `key` and returns its value.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        storage.removeValue(forKey: key)
    }

    /// The entries sorted by key, in the order CoreFoundation's XML writer uses.
    public func sortedByKey() -> PlistDictionary {
        var copy = self
        copy.storage.sort { PlistKeyOrder.precedes($0.key, $1.key) }
        return copy
    }
}

extension PlistDictionary: RandomAccessCollection {
    public typealias Element = (key: String, value: PlistValue)
    public typealias Index = Int

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { storage.count }

    @inlinable
    public subscript(position: Int) -> (key: String, value: PlistValue) {
        (storage.keys[position], storage.values[position])
    }
}

extension PlistDictionary: Equatable {
    /// Same entries, in any order. Nested values compare without recursion (see
    /// ``PlistValue/==(_:_:)``).
    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        PlistValueEquality.equal(.dictionary(lhs), .dictionary(rhs))
    }
}

extension PlistDictionary: Hashable {
    /// Order-independent: each entry is hashed on its own and the results are combined with a
    /// commutative operation, without recursion.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(PlistValueDigest.digest(.dictionary(self)))
    }
}

extension PlistDictionary: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self.init(elements)
    }
}

/// The key order CoreFoundation's XML writer sorts dictionary keys into.
///
/// CF sorts with `CFStringCompare(a, b, 0)`: a literal comparison of UTF-16 code units.
public enum PlistKeyOrder {
    /// True when `a` sorts before `b` by UTF-16 code units.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        // Compared on UTF-8 bytes when both strings are native: UTF-8 byte order is scalar
        // order, which is UTF-16 order except that a scalar above U+FFFF (a surrogate pair,
        // 0xD800...) sorts before U+E000...U+FFFF. At the first differing byte the two strings
        // share every earlier scalar, so that byte is a lead byte in both or a continuation byte
        // of the same lead; only leads 0xF0... (above U+FFFF) against 0xEE/0xEF (U+E000...)
        // need the order flipped.
        let fast: Bool?? = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let common = min(x.count, y.count)
                var i = 0
                while i < common && x[i] == y[i] { i += 1 }
                guard i < common else { return x.count < y.count }
                let (p, q) = (x[i], y[i])
                if p >= 0xF0 && (q == 0xEE || q == 0xEF) { return true }
                if q >= 0xF0 && (p == 0xEE || p == 0xEF) { return false }
                return p < q
            }
        }
        if let decided = fast.flatMap({ $0 }) { return decided }
        var ia = a.utf16.makeIterator()
        var ib = b.utf16.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case let (x?, y?):
                if x != y { return x < y }
            case (nil, _?): return true
            case (_, nil): return false
            }
        }
    }
}
