extension LazyPlistNode {
    /// The elements of this array, one node at a time; empty for other kinds.
    public func elements() -> LazyPlistElements {
        LazyPlistElements(array: self)
    }

    /// The keys of this dictionary in file order, a repeated key once at its first position (the
    /// order ``materialize()`` gives); empty for other kinds. Keys are decoded, values are not.
    public func keys() throws(PlistError) -> [String] {
        guard kind == .dictionary else { return [] }
        return try entrySlots().map(\.key)
    }

    /// The entries of this dictionary in the order of ``keys()``, each value a node that is made
    /// (its header read and validated) only when the iterator reaches it; empty for other kinds.
    /// A repeated key yields the value of its first occurrence, as in ``child(forKey:)``.
    public func entries() throws(PlistError) -> LazyPlistEntries {
        guard kind == .dictionary else { return LazyPlistEntries(dictionary: self, slots: []) }
        return LazyPlistEntries(dictionary: self, slots: try entrySlots())
    }

    /// Every distinct key with the slot of its first occurrence, whose value it keeps (as
    /// CoreFoundation's binary reader does).
    private func entrySlots() throws(PlistError) -> [(key: String, valueSlot: Int)] {
        var slots: [(key: String, valueSlot: Int)] = []
        slots.reserveCapacity(header.count)
        var positionOfKey: [String: Int] = [:]
        positionOfKey.reserveCapacity(header.count)
        for slot in 0..<header.count {
            let key = try key(slot)
            if positionOfKey[key] == nil {
                positionOfKey[key] = slots.count
                slots.append((key, slot))
            }
        }
        return slots
    }
}

/// The elements of an array node, made one at a time.
///
/// Each call to ``next()`` reads one reference and validates the header it names, so iterating a
/// large array costs nothing up front and stops at the first malformed element.
public struct LazyPlistElements: Sendable {
    private let array: LazyPlistNode
    private var position = 0

    init(array: LazyPlistNode) { self.array = array }

    /// How many elements the array holds.
    public var count: Int { array.kind == .array ? array.header.count : 0 }

    /// The next element, or nil after the last.
    public mutating func next() throws(PlistError) -> LazyPlistNode? {
        guard position < count else { return nil }
        defer { position += 1 }
        return try array.child(referencedAt: array.referencePosition(position))
    }

    /// All remaining elements.
    public mutating func collect() throws(PlistError) -> [LazyPlistNode] {
        var nodes: [LazyPlistNode] = []
        nodes.reserveCapacity(count - position)
        while let node = try next() { nodes.append(node) }
        return nodes
    }
}

/// The entries of a dictionary node: keys decoded up front, values made one at a time.
public struct LazyPlistEntries: Sendable {
    private let dictionary: LazyPlistNode
    private let slots: [(key: String, valueSlot: Int)]
    private var position = 0

    init(dictionary: LazyPlistNode, slots: [(key: String, valueSlot: Int)]) {
        self.dictionary = dictionary
        self.slots = slots
    }

    /// How many distinct keys the dictionary holds.
    public var count: Int { slots.count }

    /// The next entry, or nil after the last.
    public mutating func next() throws(PlistError) -> (key: String, value: LazyPlistNode)? {
        guard position < slots.count else { return nil }
        let slot = slots[position]
        position += 1
        let value = try dictionary.child(referencedAt: dictionary.referencePosition(dictionary.header.count + slot.valueSlot))
        return (slot.key, value)
    }

    /// All remaining entries.
    public mutating func collect() throws(PlistError) -> [(key: String, value: LazyPlistNode)] {
        var result: [(key: String, value: LazyPlistNode)] = []
        result.reserveCapacity(slots.count - position)
        while let entry = try next() { result.append(entry) }
        return result
    }
}
