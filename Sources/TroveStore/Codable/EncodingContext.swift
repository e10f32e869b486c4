import Foundation

/// The `Encoder` a value's `encode(to:)` talks to, for the whole of one `PlistEncoder` call.
///
/// It follows Foundation's `PropertyListEncoder` step for step, because the bytes depend on it:
/// a stack of containers being built, where a value may push exactly one (asking twice for the
/// same kind gives the same container back), and a coding path that nested values extend. A
/// `superEncoder()` is a context of its own that writes what it encoded into its parent's
/// container when it is released, as Foundation's referencing encoder does; so the `super` key
/// lands where Foundation puts it.
final class EncodingContext: Encoder {
    // The mutable state is used from one thread and never in overlapping accesses; unchecked
    // exclusivity saves the dynamic checks, about a tenth of encoding.
    /// Containers and values pushed and not yet taken by the value that asked for them.
    @exclusivity(unchecked) var storage: [EncodedNode] = []
    /// The current coding path.
    @exclusivity(unchecked) var node: CodingPathNode?
    let options: PlistEncoder.Options
    /// The uniquing domain of what this encoder makes (see ``EncodingDomain``).
    let domain: EncodingDomain
    /// Hands out domains; shared by an encoder and its `superEncoder()`s.
    private let domains: DomainCounter
    /// For a `superEncoder()`: the encoder it was made from and where its result goes.
    private let parent: EncodingContext?
    private let writeBack: WriteBack?

    /// Where a `superEncoder()`'s result is stored when it is released.
    enum WriteBack {
        case array(EncodedArray, index: Int)
        case dictionary(EncodedDictionary, key: String)
    }

    /// Numbers the domains of one encoding.
    final class DomainCounter {
        var last: EncodingDomain = 0
    }

    init(options: PlistEncoder.Options) {
        self.options = options
        self.domain = 0
        self.domains = DomainCounter()
        self.parent = nil
        self.writeBack = nil
    }

    /// A `superEncoder()` of `parent`, at `parent`'s current path plus `step`.
    init(referencing parent: EncodingContext, step: CodingPathStep, writeBack: WriteBack) {
        self.options = parent.options
        self.domains = parent.domains
        parent.domains.last += 1
        self.domain = parent.domains.last
        self.parent = parent
        self.writeBack = writeBack
        self.node = CodingPathNode(parent: parent.node, step: step)
    }

    deinit {
        guard let writeBack else { return }
        var value: EncodedNode
        switch storage.count {
        case 0: value = .dictionary(EncodedDictionary(domain: domain))
        case 1: value = storage[0]
        default: preconditionFailure("Referencing encoder deallocated with multiple containers on stack.")
        }
        switch value {
        case .array, .dictionary, .foreign: break
        default: value = .foreign(ForeignScalar(node: value, domain: domain))
        }
        switch writeBack {
        case let .array(array, index): array.elements.insert(value, at: index)
        case let .dictionary(dictionary, key): dictionary.insert(value, forKey: key)
        }
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// True while the value at the current path has not pushed anything yet. The path and the
    /// stack grow together, so more stack than path means the value already encoded something.
    var canEncodeNewValue: Bool {
        let depth = node?.depth ?? 0
        guard let parent else { return storage.count == depth }
        return storage.count == depth - (parent.node?.depth ?? 0) - 1
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let dictionary: EncodedDictionary
        if canEncodeNewValue {
            dictionary = EncodedDictionary(domain: domain)
            storage.append(.dictionary(dictionary))
        } else {
            guard case .dictionary(let existing)? = storage.last else {
                preconditionFailure("Attempt to push new keyed encoding container when already previously encoded at this path.")
            }
            dictionary = existing
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(encoder: self, node: node, dictionary: dictionary))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if canEncodeNewValue {
            array = EncodedArray(domain: domain)
            storage.append(.array(array))
        } else {
            guard case .array(let existing)? = storage.last else {
                preconditionFailure("Attempt to push new unkeyed encoding container when already previously encoded at this path.")
            }
            array = existing
        }
        return PlistUnkeyedEncodingContainer(encoder: self, node: node, array: array)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: - Values

    /// Encodes a nested value at `parent` plus `step`; a value that encodes nothing is an empty
    /// dictionary, as in Foundation.
    @inline(__always)
    func wrap<T: Encodable>(_ value: T, parent: CodingPathNode?, step: CodingPathStep?) throws -> EncodedNode {
        try wrapGeneric(value, parent: parent, step: step) ?? .dictionary(EncodedDictionary(domain: domain))
    }

    /// Encodes a nested value, or returns nil when it pushed nothing.
    ///
    /// Scalars, dates, data and `[String: T]` are recognized by type and built directly, which
    /// gives what their `encode(to:)` would give through a single-value container, without the
    /// path step and the push. `[String: T]` has its entries sorted by key, as Foundation sorts
    /// them ("some semblance of encoding stability" for the binary writer, which otherwise keeps
    /// the order of encoding).
    func wrapGeneric<T: Encodable>(_ value: T, parent: CodingPathNode?, step: CodingPathStep?) throws -> EncodedNode? {
        if let scalar = Self.scalar(value) { return scalar }
        if let collection = collectionType(T.self) {
            return try collection.encode(value, into: self, path: CodingPathNode.appending(parent, step))
        }
        let depth = storage.count
        let savedNode = node
        node = CodingPathNode.appending(parent, step)
        defer { node = savedNode }
        do {
            try value.encode(to: self)
        } catch {
            if storage.count > depth { storage.removeLast() }
            throw error
        }
        guard storage.count > depth else { return nil }
        return storage.removeLast()
    }

    /// Which types are collections the encoder writes itself.
    @exclusivity(unchecked) private var collectionTypes = TypeMemo<(any EncodedCollection.Type)?>()

    @inline(__always)
    private func collectionType<T>(_ type: T.Type) -> (any EncodedCollection.Type)? {
        collectionTypes.answer(for: type) { $0 as? any EncodedCollection.Type }
    }

    /// The node of a value whose type the encoder spells itself, or nil.
    @inline(__always)
    static func scalar<T>(_ value: T) -> EncodedNode? {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .signed(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Date.self { return .date(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate) }
        if T.self == Data.self { return .data(unsafeBitCast(value, to: Data.self)) }
        if T.self == Int64.self { return .signed(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Float.self { return .float(unsafeBitCast(value, to: Float.self)) }
        if T.self == UInt64.self { return .unsigned(unsafeBitCast(value, to: UInt64.self)) }
        if T.self == UInt.self { return .unsigned(UInt64(unsafeBitCast(value, to: UInt.self))) }
        if T.self == Int32.self { return .signed(Int64(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt32.self { return .signed(Int64(unsafeBitCast(value, to: UInt32.self))) }
        if T.self == Int16.self { return .signed(Int64(unsafeBitCast(value, to: Int16.self))) }
        if T.self == UInt16.self { return .signed(Int64(unsafeBitCast(value, to: UInt16.self))) }
        if T.self == Int8.self { return .signed(Int64(unsafeBitCast(value, to: Int8.self))) }
        if T.self == UInt8.self { return .signed(Int64(unsafeBitCast(value, to: UInt8.self))) }
        return nil
    }

    /// The entries of a `[String: T]`, sorted by key, in a dictionary pushed for the duration
    /// (so the stack and the path stay in step for the nested values, as in Foundation).
    func encodeEntries<Value: Encodable>(_ entries: [String: Value], path: CodingPathNode?) throws -> EncodedNode {
        let depth = storage.count
        storage.append(.dictionary(EncodedDictionary(domain: domain)))
        defer { storage.removeSubrange(depth...) }
        let sorted = entries.sorted { $0.key < $1.key }
        var keys: [String] = []
        var values: [EncodedNode] = []
        keys.reserveCapacity(sorted.count)
        values.reserveCapacity(sorted.count)
        for (key, value) in sorted {
            keys.append(key)
            values.append(try wrap(value, parent: path, step: .key(PlistCodingKey(stringValue: key))))
        }
        return .dictionary(EncodedDictionary(domain: domain, distinctKeys: keys, values: values))
    }

    /// The elements of a `[T]`, in an array pushed for the duration as
    /// ``encodeEntries(_:path:)`` does: the same nodes and paths as the array's own
    /// `encode(to:)` through an unkeyed container gives, without the container and the dynamic
    /// dispatch per element, and with the array's size known up front.
    func encodeElements<Element: Encodable>(_ elements: [Element], path: CodingPathNode?) throws -> EncodedNode {
        let depth = storage.count
        let array = EncodedArray(domain: domain)
        storage.append(.array(array))
        defer { storage.removeSubrange(depth...) }
        let savedNode = node
        node = path
        defer { node = savedNode }
        var nodes: [EncodedNode] = []
        nodes.reserveCapacity(elements.count)
        // An index loop: `enumerated()` over an array of a type only known at run time looks up
        // the metadata of its sequence, iterator and tuple types at every call.
        var index = 0
        while index < elements.count {
            let element = elements[index]
            defer { index += 1 }
            if let scalar = Self.scalar(element) {
                nodes.append(scalar)
            } else {
                nodes.append(try wrap(element, parent: path, step: .index(index)))
            }
        }
        array.elements = nodes
        return .array(array)
    }
}

/// The collections the encoder writes itself: `[String: T]`, with its keys sorted (see
/// ``EncodingContext/wrapGeneric(_:parent:step:)``), and `[T]`, without an unkeyed container
/// (see ``EncodingContext/encodeElements(_:path:)``).
protocol EncodedCollection {
    /// Encodes `value`, which is of type `Self`: the caller found `T` to be `Self` by its type.
    static func encode<T>(_ value: T, into context: EncodingContext, path: CodingPathNode?) throws -> EncodedNode
}

extension Array: EncodedCollection where Element: Encodable {
    static func encode<T>(_ value: T, into context: EncodingContext, path: CodingPathNode?) throws -> EncodedNode {
        try context.encodeElements(unsafeBitCast(value, to: Self.self), path: path)
    }
}

extension Dictionary: EncodedCollection where Key == String, Value: Encodable {
    static func encode<T>(_ value: T, into context: EncodingContext, path: CodingPathNode?) throws -> EncodedNode {
        try context.encodeEntries(unsafeBitCast(value, to: Self.self), path: path)
    }
}

// MARK: - Single value

extension EncodingContext: SingleValueEncodingContainer {
    private func push(_ value: EncodedNode) {
        precondition(canEncodeNewValue, "Attempt to encode value through single value container when previously value already encoded.")
        storage.append(value)
    }

    func encodeNil() throws { push(.null) }
    func encode(_ value: Bool) throws { push(.bool(value)) }
    func encode(_ value: String) throws { push(.string(value)) }
    func encode(_ value: Double) throws { push(.double(value)) }
    func encode(_ value: Float) throws { push(.float(value)) }
    func encode(_ value: Int) throws { push(.signed(Int64(value))) }
    func encode(_ value: Int8) throws { push(.signed(Int64(value))) }
    func encode(_ value: Int16) throws { push(.signed(Int64(value))) }
    func encode(_ value: Int32) throws { push(.signed(Int64(value))) }
    func encode(_ value: Int64) throws { push(.signed(value)) }
    func encode(_ value: UInt) throws { push(.unsigned(UInt64(value))) }
    func encode(_ value: UInt8) throws { push(.signed(Int64(value))) }
    func encode(_ value: UInt16) throws { push(.signed(Int64(value))) }
    func encode(_ value: UInt32) throws { push(.signed(Int64(value))) }
    func encode(_ value: UInt64) throws { push(.unsigned(value)) }

    func encode<T: Encodable>(_ value: T) throws {
        precondition(canEncodeNewValue, "Attempt to encode value through single value container when previously value already encoded.")
        storage.append(try wrap(value, parent: node, step: nil))
    }
}
