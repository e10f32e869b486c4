import Foundation
import TroveCore

/// A keyed container over one dictionary of the value tree.
///
/// Keys are found through the dictionary's own index (no table is built per container, as
/// Foundation builds a Swift dictionary). Foundation matches keys by Swift string equality, so a
/// key that is absent byte for byte is looked for once more by `==`, which finds it in another
/// Unicode normalization.
struct PlistKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: DecodingContext
    let node: CodingPathNode?
    let dictionary: PlistDictionary

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    @inline(__always)
    private func lookup(_ key: Key) -> PlistValue? {
        let name = key.stringValue
        if let position = dictionary.index(forKey: name) { return dictionary.values[position] }
        return dictionary.keys.lastIndex(where: { $0 == name }).map { dictionary.values[$0] }
    }

    @inline(__always)
    private func value(for key: Key) throws -> PlistValue {
        guard let value = lookup(key) else { throw missing(key) }
        return value
    }

    @inline(never)
    private func missing(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(key, DecodingError.Context(
            codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key).isCodableNull }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unwrapBool(value(for: key), parent: node, step: .key(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unwrapString(value(for: key), parent: node, step: .key(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try float(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(value(for: key), as: type, parent: node, step: .key(key))
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try decoder.unwrapInteger(value(for: key), as: T.self, parent: node, step: .key(key))
    }

    @inline(__always)
    private func float<T: BinaryFloatingPoint>(_ key: Key) throws -> T {
        try decoder.unwrapFloatingPoint(value(for: key), as: T.self, parent: node, step: .key(key))
    }

    /// The value for `key` unless it is absent or null.
    @inline(__always)
    private func present(_ key: Key) -> PlistValue? {
        guard let value = lookup(key), !value.isCodableNull else { return nil }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.unwrapBool($0, parent: node, step: .key(key)) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.unwrapString($0, parent: node, step: .key(key)) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try floatIfPresent(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try floatIfPresent(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.unwrap($0, as: type, parent: node, step: .key(key)) }
    }

    @inline(__always)
    private func integerIfPresent<T: FixedWidthInteger>(_ key: Key) throws -> T? {
        try present(key).map { try decoder.unwrapInteger($0, as: T.self, parent: node, step: .key(key)) }
    }

    @inline(__always)
    private func floatIfPresent<T: BinaryFloatingPoint>(_ key: Key) throws -> T? {
        try present(key).map { try decoder.unwrapFloatingPoint($0, as: T.self, parent: node, step: .key(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try value(for: key)
        return try decoder.with(value, node: CodingPathNode(parent: node, step: .key(key))) {
            try decoder.container(keyedBy: type)
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try value(for: key)
        return try decoder.with(value, node: CodingPathNode(parent: node, step: .key(key))) {
            try decoder.unkeyedContainer()
        }
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(name: "super", step: .superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(name: key.stringValue, step: .key(key))
    }

    private func superDecoder(name: String, step: CodingPathStep) -> any Decoder {
        let child = CodingPathNode(parent: node, step: step)
        let found = dictionary.index(forKey: name).map { dictionary.values[$0] }
            ?? dictionary.keys.lastIndex(where: { $0 == name }).map { dictionary.values[$0] }
        guard let found else {
            return MissingKeyDecoder(codingPath: CodingPathNode.path(child), userInfo: decoder.userInfo)
        }
        return DecodingContext(value: found, node: child, userInfo: decoder.userInfo, flavor: decoder.flavor)
    }
}

/// An unkeyed container over one array of the value tree.
struct PlistUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: DecodingContext
    let node: CodingPathNode?
    let elements: [PlistValue]
    private(set) var currentIndex = 0

    init(decoder: DecodingContext, node: CodingPathNode?, elements: [PlistValue]) {
        self.decoder = decoder
        self.node = node
        self.elements = elements
    }

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element, or Foundation's error for a container at its end.
    @inline(__always)
    private func next<T>(_ type: T.Type) throws -> PlistValue {
        guard currentIndex < elements.count else { throw atEnd(type) }
        return elements[currentIndex]
    }

    @inline(never)
    private func atEnd<T>(_ type: T.Type) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(
            codingPath: CodingPathNode.path(node, appending: .index(currentIndex)),
            debugDescription: "Unkeyed container is at end."))
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self).isCodableNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.unwrapBool(next(type), parent: node, step: .index(currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.unwrapString(next(type), parent: node, step: .index(currentIndex))
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double { try float() }
    mutating func decode(_ type: Float.Type) throws -> Float { try float() }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try decoder.unwrap(next(type), as: type, parent: node, step: .index(currentIndex))
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>() throws -> T {
        let result = try decoder.unwrapInteger(next(T.self), as: T.self, parent: node, step: .index(currentIndex))
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func float<T: BinaryFloatingPoint>() throws -> T {
        let result = try decoder.unwrapFloatingPoint(next(T.self), as: T.self, parent: node, step: .index(currentIndex))
        currentIndex += 1
        return result
    }

    /// The next element unless it is null, and whether the container is at its end. At the end
    /// Foundation's `decodeIfPresent` returns nil rather than throwing, and so does this one; a
    /// null is nil and is passed over.
    @inline(__always)
    private func upcoming() -> (value: PlistValue?, atEnd: Bool) {
        guard currentIndex < elements.count else { return (nil, true) }
        let value = elements[currentIndex]
        return (value.isCodableNull ? nil : value, false)
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        let (value, atEnd) = upcoming()
        if atEnd { return nil }
        let result = try value.map { try decoder.unwrapBool($0, parent: node, step: .index(currentIndex)) }
        currentIndex += 1
        return result
    }

    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        let (value, atEnd) = upcoming()
        if atEnd { return nil }
        let result = try value.map { try decoder.unwrapString($0, parent: node, step: .index(currentIndex)) }
        currentIndex += 1
        return result
    }

    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try floatIfPresent() }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try floatIfPresent() }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent() }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        let (value, atEnd) = upcoming()
        if atEnd { return nil }
        let result = try value.map { try decoder.unwrap($0, as: type, parent: node, step: .index(currentIndex)) }
        currentIndex += 1
        return result
    }

    private mutating func integerIfPresent<T: FixedWidthInteger>() throws -> T? {
        let (value, atEnd) = upcoming()
        if atEnd { return nil }
        let result = try value.map { try decoder.unwrapInteger($0, as: T.self, parent: node, step: .index(currentIndex)) }
        currentIndex += 1
        return result
    }

    private mutating func floatIfPresent<T: BinaryFloatingPoint>() throws -> T? {
        let (value, atEnd) = upcoming()
        if atEnd { return nil }
        let result = try value.map { try decoder.unwrapFloatingPoint($0, as: T.self, parent: node, step: .index(currentIndex)) }
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoder.with(value, node: CodingPathNode(parent: node, step: .index(currentIndex))) {
            try decoder.container(keyedBy: type)
        }
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next((any UnkeyedDecodingContainer).self)
        let container = try decoder.with(value, node: CodingPathNode(parent: node, step: .index(currentIndex))) {
            try decoder.unkeyedContainer()
        }
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next((any UnkeyedDecodingContainer).self)
        let child = DecodingContext(
            value: value, node: CodingPathNode(parent: node, step: .index(currentIndex)),
            userInfo: decoder.userInfo, flavor: decoder.flavor)
        currentIndex += 1
        return child
    }
}
