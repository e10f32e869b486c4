/// The entries of a property-list dictionary, in the order they were read or inserted.
///
/// Files keep key order (XML in document order, binary in the order of the key references), and
/// a faithful rewrite needs it, so keys and values are two arrays in that order. Keys are equal
/// when their code units are, as they are to CoreFoundation, `NSDictionary` and plistlib: "é" as
/// one scalar and "e" with a combining accent are two keys here, although Swift's `==` calls the
/// strings equal, so a file holding both reads and rewrites without losing either.
///
/// Equality and hashing ignore order: two dictionaries with the same entries are equal, as they
/// are to Apple's readers.
///
/// Up to 16 entries a lookup compares keys in turn; a larger dictionary keeps a hash table of
/// positions, built when the dictionary is made and shared by its copies until one of them
/// changes.
public struct PlistDictionary: Sendable {
    // The optional reference comes first: `PlistValue` keeps its case in the spare bits of its
    // payloads' last word, and an optional has none to give, so with the table last every value
    // grew from 24 bytes to 25 (32 in an array).
    /// Present exactly when there are more than ``linearSearchLimit`` keys.
    private var table: PlistKeyIndex?
    /// The keys in order; no two are equal.
    public private(set) var keys: [String]
    /// The values in key order.
    public private(set) var values: [PlistValue]

    /// Up to this many keys, comparing them in turn is cheaper than keeping a table.
    static let linearSearchLimit = 16

    /// An empty dictionary.
    public init() {
        keys = []
        values = []
    }

    /// A dictionary with room for `capacity` entries.
    public init(minimumCapacity capacity: Int) {
        self.init()
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// Builds a dictionary from key-value pairs; a repeated key keeps its first position and its
    /// last value (what CoreFoundation's XML reader does with duplicate keys in a file).
    ///
    /// - Complexity: Expected O(*n*).
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        self.init(minimumCapacity: pairs.underestimatedCount)
        for (key, value) in pairs { updateValue(value, forKey: key) }
    }

    /// A dictionary of `keys[i]: values[i]` in that order, built in one step: the fast way for a
    /// layer that produces distinct keys (a Codable encoder's keyed container, an archive's
    /// object) to make a dictionary, without the lookup per key that inserting one at a time costs.
    ///
    /// - Precondition: `keys` and `values` have the same count and no two keys have the same
    ///   code units. Both are checked; a repeated key stops the program, since a dictionary
    ///   built from it would not be one.
    /// - Complexity: O(*n*) expected.
    public init(uniqueKeys keys: [String], values: [PlistValue]) {
        precondition(keys.count == values.count, "a dictionary needs as many keys as values")
        if keys.count > Self.linearSearchLimit {
            let built = keys.withUnsafeBufferPointer { PlistKeyIndex.build(checking: $0) }
            guard case .success(let index) = built else { preconditionFailure("a repeated dictionary key") }
            self.init(keys: keys, values: values, index: index)
        } else {
            for i in keys.indices.dropFirst() {
                for j in 0..<i { precondition(!keys[i].hasSameUTF8(as: keys[j]), "a repeated dictionary key: \(keys[i])") }
            }
            self.init(keys: keys, values: values, index: nil)
        }
        _checkInvariants()
    }

    /// ``init(uniqueKeys:values:)`` without the check, for this package's layers that prove the
    /// keys distinct byte for byte as they collect them (the Codable encoder's uniquing): one
    /// pass, no key compared. Repeated keys break lookups.
    package init(distinctKeys keys: [String], values: [PlistValue]) {
        self.init(uncheckedUniqueKeys: keys, values: values)
    }

    /// A dictionary of `keys[i]: values[i]`; the caller has proven the keys distinct.
    init(uncheckedUniqueKeys keys: [String], values: [PlistValue]) {
        assert(keys.count == values.count, "a dictionary needs as many keys as values")
        self.keys = keys
        self.values = values
        reindex()
    }

    /// A dictionary of `keys[i]: values[i]`, proven distinct by the binary reader, which also
    /// knows each key's ``SeededByteHash`` under `seed`. (Kept apart from the initializer above so
    /// that the decode path of every dictionary does not test an optional argument.)
    init(uncheckedUniqueKeys keys: [String], values: [PlistValue], hashes: UnsafeBufferPointer<UInt64>, seed: UInt64) {
        assert(keys.count == values.count, "a dictionary needs as many keys as values")
        self.keys = keys
        self.values = values
        table = keys.count > Self.linearSearchLimit
            ? keys.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: $0, knownHashes: hashes, seed: seed) } : nil
    }

    /// A dictionary of `keys[i]: values[i]` and its finished index; nil for a dictionary small
    /// enough to go without one.
    init(keys: [String], values: [PlistValue], index: PlistKeyIndex?) {
        assert(keys.count == values.count && (index == nil) == (keys.count <= Self.linearSearchLimit))
        self.keys = keys
        self.values = values
        table = index
    }

    /// The value for `key`, or nil. Setting nil removes the entry.
    ///
    /// - Complexity: Expected O(1) to read (a scan of at most 16 keys, or one hash lookup);
    ///   setting is ``updateValue(_:forKey:)`` or ``removeValue(forKey:)``.
    public subscript(key: String) -> PlistValue? {
        get { index(forKey: key).map { values[$0] } }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The position of `key` in ``keys`` and ``values``, or nil.
    ///
    /// - Complexity: Expected O(1).
    public func index(forKey key: String) -> Int? {
        keys.withUnsafeBufferPointer { keys in
            if let table { return table.position(of: key, in: keys) }
            return keys.firstIndex { $0.hasSameUTF8(as: key) }
        }
    }

    /// The number of entries.
    public var count: Int { keys.count }

    /// True when there are no entries.
    public var isEmpty: Bool { keys.isEmpty }

    /// Inserts or replaces the value for `key`; a new key goes at the end. Returns the value
    /// replaced, or nil when the key is new.
    ///
    /// - Complexity: Amortized expected O(1); O(*n*) when the table is shared with a copy (it is
    ///   copied first) or grows.
    @discardableResult
    public mutating func updateValue(_ value: PlistValue, forKey key: String) -> PlistValue? {
        if table != nil {
            if !isKnownUniquelyReferenced(&table) {
                // A table shared with a copy is copied only when a key is added.
                if let position = index(forKey: key) { return replaceValue(at: position, with: value) }
                table = table?.copy()
            }
            // One probe sequence both finds an existing key and places a new one: the key goes
            // in at the end and comes out again if it was there already.
            keys.append(key)
            if let existing = keys.withUnsafeBufferPointer({ table?.insert(keys.count - 1, of: $0) }) {
                keys.removeLast()
                return replaceValue(at: existing, with: value)
            }
            values.append(value)
            _checkInvariants()
            return nil
        }
        if let position = index(forKey: key) { return replaceValue(at: position, with: value) }
        keys.append(key)
        values.append(value)
        if keys.count > Self.linearSearchLimit { reindex() }
        _checkInvariants()
        return nil
    }

    /// Sets the value at `position` and returns the one it held.
    private mutating func replaceValue(at position: Int, with value: PlistValue) -> PlistValue {
        let old = values[position]
        values[position] = value
        return old
    }

    /// Removes the entry for `key` and returns its value. Later keys move up one position.
    ///
    /// - Complexity: O(*n*): the keys after it move, and the table renumbers their positions.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        guard let position = index(forKey: key) else { return nil }
        if table != nil {
            if !isKnownUniquelyReferenced(&table) { table = table?.copy() }
            keys.withUnsafeBufferPointer { table?.remove(position, of: $0) }
        }
        keys.remove(at: position)
        let old = values.remove(at: position)
        if keys.count <= Self.linearSearchLimit || table?.needsRebuild == true { reindex() }
        _checkInvariants()
        return old
    }

    /// Checks the invariants (debug builds only): as many values as keys, a table exactly when
    /// there are more than ``linearSearchLimit`` keys, and the table's own invariants (which, for
    /// small tables, include finding every key at its position, so that no two keys are equal).
    @inline(__always)
    func _checkInvariants() {
        #if DEBUG
        precondition(keys.count == values.count, "\(keys.count) keys and \(values.count) values")
        precondition((table != nil) == (keys.count > Self.linearSearchLimit), "a table for \(keys.count) keys: \(table != nil)")
        if let table {
            keys.withUnsafeBufferPointer { table._checkInvariants($0) }
        } else {
            for i in keys.indices.dropFirst() {
                for j in 0..<i { precondition(!keys[i].hasSameUTF8(as: keys[j]), "repeated key \(keys[i])") }
            }
        }
        #endif
    }

    /// The entries sorted by key, in the order CoreFoundation's XML writer uses.
    ///
    /// - Complexity: O(*n* log *n*).
    public func sortedByKey() -> PlistDictionary {
        let order = keys.withUnsafeBufferPointer { PlistKeyOrder.sortedPositions(of: $0) }
        var sorted = PlistDictionary()
        sorted.keys = order.map { keys[$0] }
        sorted.values = order.map { values[$0] }
        sorted.reindex()
        return sorted
    }

    /// Builds the table for the current keys, or drops it when they are few enough to scan.
    /// Inlined, because most dictionaries a reader makes are small and never build one.
    @inline(__always)
    private mutating func reindex() {
        table = keys.count > Self.linearSearchLimit
            ? keys.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: $0) } : nil
    }
}

extension PlistDictionary: RandomAccessCollection {
    public typealias Element = (key: String, value: PlistValue)
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> (key: String, value: PlistValue) {
        (keys[position], values[position])
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
