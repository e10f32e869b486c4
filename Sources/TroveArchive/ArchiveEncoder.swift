import Foundation
import TroveCore

/// Writes one object's keys while a ``KeyedArchiver`` builds an archive; handed to
/// ``KeyedArchivable/encode(to:)``.
///
/// It lays `$objects` out as Foundation's `NSKeyedArchiver` does: an object takes the next
/// entry when it is first referenced, the objects it holds follow in the order it encodes them,
/// and its class record is added after them the first time the class is used. Strings, numbers
/// and data are stored in place in `$objects` and shared when equal (`1`, `1.0` and `true` are
/// one entry, as they are one `NSNumber` to Foundation); dates, arrays, sets, dictionaries,
/// UUIDs and URLs are shared when equal; a class instance is shared by identity; other value
/// types are written once per use.
///
/// The encoder is valid only during the call it is handed to.
public final class ArchiveEncoder {
    /// The entries of `$objects` so far.
    var objects: [PlistValue] = [.string("$null")]
    /// Objects being or already encoded, by identity (the instances are kept alive meanwhile so
    /// that no identifier is reused).
    private var instanceIDs: [ObjectIdentifier: Int] = [:]
    private var retained: [AnyObject] = []
    /// `Codable` class instances whose `encode(to:)` is running and that have no entry yet.
    var codableInstancesWithoutEntry: Set<ObjectIdentifier> = []
    /// Strings, numbers and data stored in place, by their Foundation equality.
    private var scalarIDs: [ScalarKey: Int] = [:]
    /// Entries stored in place for generic objects, by exact value (kind included), so that a
    /// re-archived graph keeps `true` and `1` apart where its archive had them apart.
    private var exactScalarIDs: [PlistValue: Int] = [:]
    /// Foundation value objects (dates, collections, UUIDs, URLs), by their encoded fields.
    private var valueObjectIDs: [ValueObjectKey: Int] = [:]
    /// Class records already written. Keyed by the whole record, not the name: an archive read
    /// back may hold two records of one name with different chains, and each is kept.
    private var classIDs: [ArchiveClassRecord: Int] = [:]
    /// The fields of the objects being encoded, innermost last; the first is `$top`.
    private var contexts: [FieldContext] = [FieldContext()]
    /// Class names set for types by the archiver.
    let classNameOverrides: [ObjectIdentifier: String]
    /// Class names of nested `Codable` values by type.
    let codableClassNames: [ObjectIdentifier: String]
    /// How deep objects may nest while they are written (each level is a call of the object's
    /// `encode(to:)`, so this bounds the stack).
    let maxDepth: Int
    private var depth = 0

    init(
        classNameOverrides: [ObjectIdentifier: String] = [:], codableClassNames: [ObjectIdentifier: String] = [:],
        maxDepth: Int = KeyedArchiveLimits.default.maxDepth
    ) {
        self.classNameOverrides = classNameOverrides
        self.codableClassNames = codableClassNames
        self.maxDepth = maxDepth
    }

    /// Runs `body` one level deeper, refusing to go past ``maxDepth``.
    func nested<R>(_ body: () throws -> R) throws -> R {
        guard depth < maxDepth else {
            throw PlistError(.depthLimit, "objects nest more than \(maxDepth) deep (KeyedArchiveLimits.maxDepth)")
        }
        depth += 1
        defer { depth -= 1 }
        return try body()
    }

    // MARK: - Public API

    /// Encodes a value for `key` of the current object: numbers and booleans in place, everything
    /// else as a reference to an object of the archive. A key that starts with `$` is written
    /// with one more `$`, as Foundation does, so it never collides with the archive's own keys.
    public func encode<T: ArchiveRepresentable>(_ value: T, forKey key: String) throws {
        let field = try value.encodeArchiveField(with: self)
        setField(field, forKey: Self.escape(key))
    }

    /// Encodes an optional value: nil is a reference to `$null`, as `encodeObject(nil, forKey:)`
    /// writes it.
    public func encode<T: ArchiveRepresentable>(_ value: T?, forKey key: String) throws {
        guard let value else {
            setField(.uid(0), forKey: Self.escape(key))
            return
        }
        try encode(value, forKey: key)
    }

    /// Encodes a `Codable` value as a keyed object: its coding keys become the object's keys and
    /// nested `Codable` values nested objects. `className` is the class written for it (by
    /// default the type's name, or what ``KeyedArchiver/setClassName(_:forCodable:)`` set). A
    /// class instance met again anywhere in the archive is a reference to its first object.
    public func encodeCodable<T: Encodable>(_ value: T, forKey key: String, className: String? = nil) throws {
        let field = try encodeCodableField(value, className: className)
        setField(field, forKey: Self.escape(key))
    }

    /// Encodes the plain property-list value `value` for `key` (without escaping or wrapping):
    /// for fields Foundation stores in place, such as `NS.uuidbytes` data or `NS.special`.
    public func encodeInPlace(_ value: PlistValue, forKey key: String) {
        setField(value, forKey: Self.escape(key))
    }

    // MARK: - Objects

    /// Adds a keyed object (shared by identity when it is a class instance) and returns its entry.
    func encodeObject<T: KeyedArchivable>(_ value: T) throws -> Int {
        var identity: ObjectIdentifier?
        if T.self is AnyClass || type(of: value) is AnyClass {
            let object = value as AnyObject
            let id = ObjectIdentifier(object)
            if let known = instanceIDs[id] { return known }
            identity = id
            retained.append(object)
        }
        let uid = reserveEntry()
        if let identity { instanceIDs[identity] = uid }
        contexts.append(FieldContext())
        do {
            try nested { try value.encode(to: self) }
        } catch let error as PlistError {
            throw error
        } catch {
            var wrapped = PlistError(.archiveObjectFailed, "\(T.archiveClassName).encode(to:) failed: \(error)")
            wrapped.underlyingError = error
            throw wrapped
        }
        let record: ArchiveClassRecord
        if let instance = value as? any ArchiveInstanceClass {
            record = instance.archiveClassRecord
        } else if let mapped = classNameOverrides[ObjectIdentifier(type(of: value))] {
            // A mapped name is written without `$classes`, as Foundation writes it.
            record = ArchiveClassRecord(name: mapped, chain: [mapped], recordsChain: false)
        } else {
            let dynamicType = type(of: value)
            record = ArchiveClassRecord(name: dynamicType.archiveClassName, chain: dynamicType.archiveClassChain)
        }
        finishObject(at: uid, record: record)
        return uid
    }

    /// The entry of a class instance written (or being written) already.
    func knownInstance(_ object: AnyObject) -> Int? { instanceIDs[ObjectIdentifier(object)] }

    /// Records that `object` is written at entry `uid`, keeping it alive until the archive is
    /// finished so that no other instance gets its identifier.
    func registerInstance(_ object: AnyObject, at uid: Int) {
        instanceIDs[ObjectIdentifier(object)] = uid
        retained.append(object)
    }

    /// Adds an object of one of Foundation's value classes, written by `body`, and shares it with
    /// an equal one written before when `shared` (Foundation shares objects that are
    /// `isEqual:`; an equal object's contents are all shared already, so the new entry is the
    /// last and is dropped again).
    func encodeFoundationObject(
        _ record: ArchiveClassRecord, shared: Bool = true, _ body: () throws -> Void
    ) throws -> Int {
        let uid = reserveEntry()
        contexts.append(FieldContext())
        try nested(body)
        finishObject(at: uid, record: record)
        guard shared else { return uid }
        let encoded = ValueObjectKey(fields: objects[uid])
        if let known = valueObjectIDs[encoded] {
            if uid == objects.count - 1 { objects.removeLast() }
            return known
        }
        valueObjectIDs[encoded] = uid
        return uid
    }

    /// Stores a string, number or data in place in `$objects`, shared with an equal one.
    func encodeScalar(_ value: PlistValue) -> Int {
        let key = ScalarKey(value)
        if let known = scalarIDs[key] { return known }
        let uid = objects.count
        objects.append(value)
        scalarIDs[key] = uid
        return uid
    }

    /// Stores a value in place in `$objects`, shared only with an identical one (same kind).
    func encodeExactScalar(_ value: PlistValue) -> Int {
        if let known = exactScalarIDs[value] { return known }
        let uid = objects.count
        objects.append(value)
        exactScalarIDs[value] = uid
        return uid
    }

    /// The field for an object-typed value: a reference to it.
    func referenceField(_ uid: Int) -> PlistValue { .uid(UInt64(uid)) }

    /// Encodes an array of values as the array of references Foundation's collections store.
    func encodeReferences<S: Sequence>(_ elements: S) throws -> PlistValue where S.Element: ArchiveRepresentable {
        var references: [PlistValue] = []
        references.reserveCapacity(elements.underestimatedCount)
        for element in elements { references.append(.uid(UInt64(try element.encodeObjectReference(with: self)))) }
        return .array(references)
    }

    // MARK: - Fields

    func setField(_ value: PlistValue, forKey key: String) {
        contexts[contexts.count - 1].set(value, forKey: key)
    }

    static func escape(_ key: String) -> String {
        key.hasPrefix("$") ? "$" + key : key
    }

    func reserveEntry() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    private func finishObject(at uid: Int, record: ArchiveClassRecord) {
        storeObject(at: uid, fields: contexts.removeLast(), record: record)
    }

    /// Stores a finished object's fields in its entry, with its class record.
    func storeObject(at uid: Int, fields: FieldContext, record: ArchiveClassRecord) {
        var fields = fields
        fields.set(.uid(UInt64(classReference(record))), forKey: "$class")
        objects[uid] = .dictionary(fields.dictionary)
    }

    private func classReference(_ record: ArchiveClassRecord) -> Int {
        if let known = classIDs[record] { return known }
        var entries: [(String, PlistValue)] = [("$classname", .string(record.name))]
        if record.recordsChain { entries.append(("$classes", .array(record.chain.map { .string($0) }))) }
        if !record.hints.isEmpty { entries.append(("$classhints", .array(record.hints.map { .string($0) }))) }
        let uid = objects.count
        objects.append(.dictionary(PlistDictionary(entries)))
        classIDs[record] = uid
        return uid
    }

    /// The finished archive's property list, top-level keys in the order Foundation's binary
    /// writer puts them.
    func finish() -> PlistValue {
        let top = contexts[0].dictionary
        return .dictionary([
            "$version": .integer(PlistInteger(KeyedArchive.version)),
            "$archiver": .string(KeyedArchive.archiverName),
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
    }
}

/// The keys of one object being encoded, in the order they were written. Objects have a handful
/// of keys, so a repeated key is found by comparing them in turn.
struct FieldContext {
    private var keys: [String] = []
    private var values: [PlistValue] = []

    mutating func set(_ value: PlistValue, forKey key: String) {
        if let position = keys.firstIndex(of: key) {
            values[position] = value
        } else {
            keys.append(key)
            values.append(value)
        }
    }

    /// The fields as a dictionary (built key by key: the generic sequence initializer costs
    /// about 16,000 instructions an object across the module boundary).
    var dictionary: PlistDictionary {
        var result = PlistDictionary(minimumCapacity: keys.count)
        for index in keys.indices { result.updateValue(values[index], forKey: keys[index]) }
        return result
    }
}

/// An encoded Foundation value object (its fields: references, numbers in place, arrays of
/// references), hashed shallowly: what it refers to is already shared, so equal objects have
/// equal fields, and hashing needs no walk of nested values.
struct ValueObjectKey: Hashable {
    let fields: PlistValue

    static func == (lhs: ValueObjectKey, rhs: ValueObjectKey) -> Bool { lhs.fields == rhs.fields }

    func hash(into hasher: inout Hasher) {
        guard case .dictionary(let entries) = fields else {
            hasher.combine(fields)
            return
        }
        hasher.combine(entries.count)
        for (key, value) in entries {
            hasher.combine(key)
            Self.combine(value, into: &hasher)
        }
    }

    private static func combine(_ value: PlistValue, into hasher: inout Hasher) {
        switch value {
        case .uid(let uid): hasher.combine(uid)
        case .array(let elements):
            hasher.combine(elements.count)
            for element in elements {
                if case .uid(let uid) = element { hasher.combine(uid) } else { hasher.combine(element) }
            }
        default: hasher.combine(value)
        }
    }
}

/// A string, number or data stored in place, under Foundation's equality: numbers compare by
/// value whatever their type (`1 == 1.0 == true`), strings and data by their exact bytes.
struct ScalarKey: Hashable {
    private enum Storage {
        case string(String)
        case integer(PlistInteger)
        case real(Double)
        case data(Data)
        case other(PlistValue)
    }

    private let storage: Storage

    init(_ value: PlistValue) {
        switch value {
        case .string(let s): storage = .string(s)
        case .integer(let i): storage = .integer(i)
        case .bool(let b): storage = .integer(PlistInteger(b ? 1 : 0))
        case .real(let r):
            if r.value == r.value.rounded(), abs(r.value) < 9.0e18, let exact = Int64(exactly: r.value) {
                storage = .integer(PlistInteger(exact))
            } else {
                storage = .real(r.value)
            }
        case .data(let d): storage = .data(d)
        default: storage = .other(value)
        }
    }

    static func == (lhs: ScalarKey, rhs: ScalarKey) -> Bool {
        switch (lhs.storage, rhs.storage) {
        // Code units, not canonical equivalence: "é" and "e" + U+0301 are two strings to Foundation.
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.other(let a), .other(let b)): return a == b
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch storage {
        case .string(var s):
            hasher.combine(0 as UInt8)
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .integer(let i):
            hasher.combine(1 as UInt8)
            hasher.combine(i)
        case .real(let r):
            hasher.combine(2 as UInt8)
            hasher.combine(r)
        case .data(let d):
            hasher.combine(3 as UInt8)
            hasher.combine(d)
        case .other(let v):
            hasher.combine(4 as UInt8)
            hasher.combine(v)
        }
    }
}
