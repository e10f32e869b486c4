import Foundation

/// A keyed container writing into one ``EncodedDictionary``.
///
/// Paths follow Foundation's, quirks included: a nested value's path is the encoder's current
/// path plus the key (not the container's), and so is a `superEncoder()`'s.
struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: EncodingContext
    let node: CodingPathNode?
    let dictionary: EncodedDictionary

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    mutating func encodeNil(forKey key: Key) throws { dictionary.insert(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { dictionary.insert(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { dictionary.insert(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { dictionary.insert(.double(value), forKey: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { dictionary.insert(.float(value), forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { dictionary.insert(.signed(value), forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { dictionary.insert(.unsigned(UInt64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { dictionary.insert(.signed(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { dictionary.insert(.unsigned(value), forKey: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let wrapped: EncodedNode
        if let scalar = EncodingContext.scalar(value) {
            wrapped = scalar
        } else {
            wrapped = try encoder.wrap(value, parent: encoder.node, step: .key(key))
        }
        dictionary.insert(wrapped, forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let name = key.stringValue
        let nested: EncodedDictionary
        if let existing = dictionary[name] {
            guard case .dictionary(let existingDictionary) = existing else {
                preconditionFailure("Attempt to re-encode into nested KeyedEncodingContainer<\(Key.self)> for key \"\(name)\" is invalid: non-keyed container already encoded for this key")
            }
            nested = existingDictionary
        } else {
            nested = EncodedDictionary(domain: encoder.domain)
            dictionary.insert(.dictionary(nested), forKey: name)
        }
        let container = PlistKeyedEncodingContainer<NestedKey>(
            encoder: encoder, node: CodingPathNode(parent: node, step: .key(key)), dictionary: nested)
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = key.stringValue
        let nested: EncodedArray
        if let existing = dictionary[name] {
            guard case .array(let existingArray) = existing else {
                preconditionFailure("Attempt to re-encode into nested UnkeyedEncodingContainer for key \"\(name)\" is invalid: keyed container/single value already encoded for this key")
            }
            nested = existingArray
        } else {
            nested = EncodedArray(domain: encoder.domain)
            dictionary.insert(.array(nested), forKey: name)
        }
        return PlistUnkeyedEncodingContainer(encoder: encoder, node: CodingPathNode(parent: node, step: .key(key)), array: nested)
    }

    mutating func superEncoder() -> any Encoder {
        EncodingContext(referencing: encoder, step: .superKey, writeBack: .dictionary(dictionary, key: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        EncodingContext(referencing: encoder, step: .key(key), writeBack: .dictionary(dictionary, key: key.stringValue))
    }
}

/// An unkeyed container appending to one ``EncodedArray``.
struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: EncodingContext
    let node: CodingPathNode?
    let array: EncodedArray

    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    var count: Int { array.elements.count }

    mutating func encodeNil() throws { array.elements.append(.null) }
    mutating func encode(_ value: Bool) throws { array.elements.append(.bool(value)) }
    mutating func encode(_ value: String) throws { array.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws { array.elements.append(.double(value)) }
    mutating func encode(_ value: Float) throws { array.elements.append(.float(value)) }
    mutating func encode(_ value: Int) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { array.elements.append(.signed(value)) }
    mutating func encode(_ value: UInt) throws { array.elements.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { array.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { array.elements.append(.unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = EncodingContext.scalar(value) {
            array.elements.append(scalar)
            return
        }
        let wrapped = try encoder.wrap(value, parent: encoder.node, step: .index(count))
        array.elements.append(wrapped)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let step = CodingPathStep.index(count)
        let nested = EncodedDictionary(domain: encoder.domain)
        array.elements.append(.dictionary(nested))
        let container = PlistKeyedEncodingContainer<NestedKey>(
            encoder: encoder, node: CodingPathNode(parent: node, step: step), dictionary: nested)
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let step = CodingPathStep.index(count)
        let nested = EncodedArray(domain: encoder.domain)
        array.elements.append(.array(nested))
        return PlistUnkeyedEncodingContainer(encoder: encoder, node: CodingPathNode(parent: node, step: step), array: nested)
    }

    mutating func superEncoder() -> any Encoder {
        EncodingContext(referencing: encoder, step: .index(count), writeBack: .array(array, index: count))
    }
}
