import Foundation
import TroveCore

/// A `[String: V]` of `Encodable` values, which archives as an `NSDictionary` rather than as an
/// object whose keys are the dictionary's keys.
protocol ArchiveCodableStringDictionary {
    func encodeArchiveEntries(with encoder: ArchiveEncoder, path: [any CodingKey]) throws -> PlistValue
}

extension Dictionary: ArchiveCodableStringDictionary where Key == String, Value: Encodable {
    func encodeArchiveEntries(with encoder: ArchiveEncoder, path: [any CodingKey]) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.dictionary) {
            var keyReferences: [PlistValue] = []
            for key in keys { keyReferences.append(.uid(UInt64(encoder.encodeScalar(.string(key))))) }
            var valueReferences: [PlistValue] = []
            for value in values {
                valueReferences.append(try encoder.encodeCodableField(value, className: nil, path: path).asReference(in: encoder))
            }
            encoder.setField(.array(keyReferences), forKey: "NS.keys")
            encoder.setField(.array(valueReferences), forKey: "NS.objects")
        }
        return .uid(UInt64(uid))
    }
}

extension ArchiveEncoder {
    /// Encodes an `Encodable` value: values the archive knows (strings, numbers, dates, data,
    /// URLs, UUIDs and collections of them) as Foundation objects, `[String: V]` as an
    /// `NSDictionary`, and anything else through its `encode(to:)`: a keyed container becomes a
    /// keyed object named `className` (or the name set for the type, or the type's name), an
    /// unkeyed container an `NSArray`, a single value the value itself. A class instance is
    /// written once: later references to it refer to its first object.
    func encodeCodableField<T: Encodable>(_ value: T, className: String?, path: [any CodingKey] = []) throws -> PlistValue {
        if let representable = value as? any ArchiveRepresentable {
            return try representable.encodeArchiveField(with: self)
        }
        if let dictionary = value as? any ArchiveCodableStringDictionary {
            return try dictionary.encodeArchiveEntries(with: self, path: path)
        }
        // A class instance is written once and referred to after, as NSKeyedArchiver does;
        // a value is written at each use.
        let instance: AnyObject? = type(of: value) is AnyClass ? value as AnyObject : nil
        let name = className ?? codableClassNames[ObjectIdentifier(T.self)] ?? String(describing: T.self)
        if let instance {
            if let known = knownInstance(instance) { return .uid(UInt64(known)) }
            // Reached again before it has an entry: it refers to itself through single-value
            // containers only, so there is no object to refer back to.
            guard codableInstancesWithoutEntry.insert(ObjectIdentifier(instance)).inserted else {
                let components = path.map { key -> PlistKeyPath.Component in key.intValue.map { .index($0) } ?? .key(key.stringValue) }
                throw PlistError(
                    .referenceCycle, keyPath: PlistKeyPath(components: components),
                    "\(name) refers back to itself through single-value containers only, which give it no object to refer to")
            }
        }
        defer { if let instance { codableInstancesWithoutEntry.remove(ObjectIdentifier(instance)) } }
        let box = CodableArchiveEncoderBox(archive: self, codingPath: path, className: name, instance: instance)
        return try nested {
            try value.encode(to: box)
            let field = try box.finish()
            // An instance written as a single value (no object of its own) refers to that value.
            if let instance, knownInstance(instance) == nil, case .uid(let uid) = field, uid != 0 {
                registerInstance(instance, at: Int(uid))
            }
            return field
        }
    }

}

/// The `Encoder` a `Codable` value writes itself to. It keeps its own fields (a value may fill a
/// nested container while its outer one is open) and stores its object when the value is done.
final class CodableArchiveEncoderBox: Encoder {
    enum Mode {
        case none
        case keyed
        case unkeyed
        case single(PlistValue?)
    }

    let archive: ArchiveEncoder
    let codingPath: [any CodingKey]
    let className: String
    /// The class instance being encoded, registered as soon as it has an entry, so that a
    /// reference back to it from inside (a cycle) is a reference to that entry.
    private let instance: AnyObject?
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var mode: Mode = .none
    private var entry: Int?
    private var fields = FieldContext()
    private var elements: [PlistValue] = []
    private var nested: [CodableArchiveEncoderBox] = []

    init(archive: ArchiveEncoder, codingPath: [any CodingKey], className: String, instance: AnyObject? = nil) {
        self.archive = archive
        self.codingPath = codingPath
        self.className = className
        self.instance = instance
    }

    /// The entry of this value's object, reserved on first use.
    var reference: PlistValue {
        if let entry { return .uid(UInt64(entry)) }
        let reserved = archive.reserveEntry()
        entry = reserved
        if let instance { archive.registerInstance(instance, at: reserved) }
        return .uid(UInt64(reserved))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .none = mode {
            mode = .keyed
            _ = reference
        }
        return KeyedEncodingContainer(CodableArchiveKeyedContainer<Key>(box: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .none = mode {
            mode = .unkeyed
            _ = reference
        }
        return CodableArchiveUnkeyedContainer(box: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CodableArchiveSingleContainer(box: self)
    }

    func set(_ field: PlistValue, forKey key: String) { fields.set(field, forKey: ArchiveEncoder.escape(key)) }

    func append(_ element: PlistValue) { elements.append(element.asReference(in: archive)) }

    /// A nested value whose object this one refers to; it is stored when this one finishes.
    func nestedBox(at key: any CodingKey, className: String) -> CodableArchiveEncoderBox {
        let box = CodableArchiveEncoderBox(archive: archive, codingPath: codingPath + [key], className: className)
        nested.append(box)
        return box
    }

    /// Ends the value: stores its object and returns the field that refers to it.
    func finish() throws -> PlistValue {
        for box in nested { _ = try box.finish() }
        switch mode {
        case .none:
            if let entry {
                archive.storeObject(at: entry, fields: fields, record: ArchiveClassRecord(name: className, chain: [className, "NSObject"]))
                return .uid(UInt64(entry))
            }
            throw EncodingError.invalidValue(
                className, EncodingError.Context(codingPath: codingPath, debugDescription: "\(className) encoded nothing"))
        case .keyed:
            let uid = Int(reference.uidValue ?? 0)
            archive.storeObject(at: uid, fields: fields, record: ArchiveClassRecord(name: className, chain: [className, "NSObject"]))
            return .uid(UInt64(uid))
        case .unkeyed:
            let uid = Int(reference.uidValue ?? 0)
            var arrayFields = FieldContext()
            arrayFields.set(.array(elements), forKey: "NS.objects")
            archive.storeObject(at: uid, fields: arrayFields, record: FoundationClass.array)
            return .uid(UInt64(uid))
        case .single(let value):
            guard let value else {
                throw EncodingError.invalidValue(
                    className, EncodingError.Context(codingPath: codingPath, debugDescription: "\(className) encoded nothing"))
            }
            return value
        }
    }
}

struct CodableArchiveKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CodableArchiveEncoderBox
    var codingPath: [any CodingKey] { box.codingPath }

    mutating func encodeNil(forKey key: Key) throws { box.set(.uid(0), forKey: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.set(try box.archive.encodeCodableField(value, className: nil, path: codingPath + [key]), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = box.nestedBox(at: key, className: "NSObject")
        let container = nested.container(keyedBy: NestedKey.self)
        box.set(nested.reference, forKey: key.stringValue)
        return container
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = box.nestedBox(at: key, className: "NSArray")
        let container = nested.unkeyedContainer()
        box.set(nested.reference, forKey: key.stringValue)
        return container
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: ArchiveCodingKey("super")) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(forKey: key as any CodingKey) }

    private func superEncoder(forKey key: any CodingKey) -> any Encoder {
        let nested = box.nestedBox(at: key, className: "NSObject")
        box.set(nested.reference, forKey: key.stringValue)
        return nested
    }
}

struct CodableArchiveUnkeyedContainer: UnkeyedEncodingContainer {
    let box: CodableArchiveEncoderBox
    var codingPath: [any CodingKey] { box.codingPath }
    private(set) var count = 0

    init(box: CodableArchiveEncoderBox) { self.box = box }

    mutating func encodeNil() throws {
        box.append(.uid(0))
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.append(try box.archive.encodeCodableField(value, className: nil, path: codingPath + [ArchiveCodingKey(index: count)]))
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = box.nestedBox(at: ArchiveCodingKey(index: count), className: "NSObject")
        let container = nested.container(keyedBy: NestedKey.self)
        box.append(nested.reference)
        count += 1
        return container
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = box.nestedBox(at: ArchiveCodingKey(index: count), className: "NSArray")
        let container = nested.unkeyedContainer()
        box.append(nested.reference)
        count += 1
        return container
    }

    mutating func superEncoder() -> any Encoder {
        let nested = box.nestedBox(at: ArchiveCodingKey(index: count), className: "NSObject")
        box.append(nested.reference)
        count += 1
        return nested
    }
}

struct CodableArchiveSingleContainer: SingleValueEncodingContainer {
    let box: CodableArchiveEncoderBox
    var codingPath: [any CodingKey] { box.codingPath }

    mutating func encodeNil() throws { box.mode = .single(.uid(0)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.mode = .single(try box.archive.encodeCodableField(value, className: nil, path: codingPath))
    }
}

/// A key or index on a coding path.
struct ArchiveCodingKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ key: String) {
        stringValue = key
        intValue = nil
    }

    init(index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
