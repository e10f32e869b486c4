import Foundation
import TroveCore

/// An archived object decoded without a Swift type of its own: its class, its class chain and
/// its fields, as the archive holds them.
///
/// Unknown classes never make an archive unreadable: every keyed object can decode as an
/// `ArchivedObject`, which prints, converts to a plain property list and archives again
/// unchanged (same class record, same keys, same sharing). Objects are instances, so shared
/// references and cycles of the archive are shared references and cycles here.
public final class ArchivedObject: KeyedArchivable, ArchiveInstanceClass {
    /// The class record: `$classname`, `$classes` and `$classhints`.
    public var classRecord: ArchiveClassRecord
    /// The keys as the archive stores them (a user key starting with `$` keeps its escape `$$`),
    /// in the archive's order, without `$class`.
    public internal(set) var keys: [String]
    /// The values, in key order.
    public internal(set) var values: [ArchiveField]

    /// An object of class `record` with fields.
    public init(classRecord: ArchiveClassRecord, fields: [(key: String, value: ArchiveField)] = []) {
        self.classRecord = classRecord
        self.keys = fields.map(\.key)
        self.values = fields.map(\.value)
    }

    /// `$classname`.
    public var className: String { classRecord.name }

    /// The field stored under `key` (the stored spelling: `$$name` for a user key `$name`).
    public subscript(key: String) -> ArchiveField? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue { values[index] = newValue } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The fields in order.
    public var fields: [(key: String, value: ArchiveField)] { Array(zip(keys, values)).map { (key: $0.0, value: $0.1) } }

    public static var archiveClassName: String { "NSObject" }

    var archiveClassRecord: ArchiveClassRecord { classRecord }

    public func encode(to encoder: ArchiveEncoder) throws {
        for (key, value) in zip(keys, values) {
            encoder.setField(try value.encodeStored(with: encoder), forKey: key)
        }
    }

    /// Reads the object the decoder is positioned on, generically.
    public init(from decoder: ArchiveDecoder) throws {
        classRecord = ArchiveClassRecord(name: decoder.className, chain: decoder.classChain)
        keys = []
        values = []
        for (key, raw) in try decoder.storedFields() where key != "$class" {
            keys.append(key)
            values.append(try decoder.withPath(.key(key)) { try decoder.genericField(raw) })
        }
    }

    /// Whether two object graphs have the same classes, keys and values, and the same sharing:
    /// objects compare by their contents, each pair once, so cycles compare in finite time.
    public func isEquivalent(to other: ArchivedObject) -> Bool {
        var proven: Set<[ObjectIdentifier]> = []
        var pending: [(ArchivedObject, ArchivedObject)] = [(self, other)]
        var pairing: [ObjectIdentifier: ObjectIdentifier] = [:]
        while let (a, b) = pending.popLast() {
            let pair = [ObjectIdentifier(a), ObjectIdentifier(b)]
            if proven.contains(pair) { continue }
            if let partner = pairing[pair[0]], partner != pair[1] { return false }
            pairing[pair[0]] = pair[1]
            proven.insert(pair)
            guard a.classRecord.name == b.classRecord.name, a.classRecord.chain == b.classRecord.chain,
                a.keys.count == b.keys.count
            else { return false }
            for (key, value) in zip(a.keys, a.values) {
                guard let counterpart = b[key], value.matches(counterpart, pending: &pending) else { return false }
            }
        }
        return true
    }
}

/// Every object of an archive decoded without Swift types, and its top-level entries.
///
/// Archives hold cycles (a parent and its children pointing at each other), and
/// ``ArchivedObject``s refer to each other strongly, so the graph owns its objects: when the
/// graph is released it empties every object's fields, which breaks the cycles. Keep the graph
/// while you use its objects.
public final class ArchiveGraph {
    /// `$top`'s entries in the archive's order.
    public let topLevel: [(key: String, value: ArchiveField)]
    /// Every object of the graph.
    public let objects: [ArchivedObject]

    init(topLevel: [(key: String, value: ArchiveField)], objects: [ArchivedObject]) {
        self.topLevel = topLevel
        self.objects = objects
    }

    /// The top-level entry for `key`.
    public subscript(key: String) -> ArchiveField? { topLevel.first { $0.key == key }?.value }

    /// The entry under `root`, what `archivedData(withRootObject:)` writes.
    public var root: ArchiveField? { self["root"] }

    deinit {
        for object in objects {
            object.keys = []
            object.values = []
        }
    }
}

/// One value of an ``ArchivedObject``: stored in place, or a reference.
public indirect enum ArchiveField: ArchiveRepresentable {
    /// A value stored in the object's own dictionary (a number, a boolean, in-place bytes ...).
    case value(PlistValue)
    /// A reference to `$null`.
    case null
    /// A reference to a string, number or data stored in place in `$objects`.
    case inline(PlistValue)
    /// A reference to a keyed object.
    case object(ArchivedObject)
    /// An array holding references (`NS.objects`).
    case array([ArchiveField])
    /// A dictionary holding references.
    case dictionary([(key: String, value: ArchiveField)])

    /// Writes the field back as it was read.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        try encodeStored(with: encoder)
    }

    /// Reads any field generically.
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> ArchiveField {
        try decoder.genericField(field)
    }

    /// The value as the archive stores it, writing what it refers to.
    func encodeStored(with encoder: ArchiveEncoder) throws -> PlistValue {
        switch self {
        case .value(let value): return value
        case .null: return .uid(0)
        case .inline(let value): return .uid(UInt64(encoder.encodeExactScalar(value)))
        case .object(let object): return .uid(UInt64(try encoder.encodeObject(object)))
        case .array(let elements): return .array(try elements.map { try $0.encodeStored(with: encoder) })
        case .dictionary(let entries):
            return .dictionary(PlistDictionary(try entries.map { ($0.key, try $0.value.encodeStored(with: encoder)) }))
        }
    }

    fileprivate func matches(_ other: ArchiveField, pending: inout [(ArchivedObject, ArchivedObject)]) -> Bool {
        switch (self, other) {
        case (.value(let a), .value(let b)), (.inline(let a), .inline(let b)): return a == b
        case (.null, .null): return true
        case (.object(let a), .object(let b)):
            pending.append((a, b))
            return true
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where !x.matches(y, pending: &pending) { return false }
            return true
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            for entry in a {
                guard let counterpart = b.first(where: { $0.key == entry.key }),
                    entry.value.matches(counterpart.value, pending: &pending)
                else { return false }
            }
            return true
        default: return false
        }
    }
}

extension ArchiveDecoder {
    /// The stored keys and values of the current object, escapes kept.
    func storedFields() throws(PlistError) -> PlistDictionary {
        try currentFields?.dictionary() ?? PlistDictionary()
    }

    /// The generic object at entry `field` refers to, building every object it reaches without
    /// recursion: each keyed object gets its instance first and its fields after, so cycles and
    /// shared references need nothing special, and the work is linear in the objects reached.
    func genericObject(field: PlistValue) throws -> ArchivedObject {
        guard case .uid(let reference) = field else {
            throw error(.typeMismatch, "expected a reference to an object, found \(field.kind)")
        }
        guard case .object(let index, _, _) = try resolve(reference: reference) else {
            throw error(.typeMismatch, "expected an object, found \(ArchiveDecoder.describe(try table.objects.value(Int(reference))))")
        }
        var queue: [Int] = []
        let object = try shell(index, queue: &queue)
        try fill(&queue)
        return object
    }

    /// A stored value as an ``ArchiveField``, with the objects it refers to built.
    func genericField(_ raw: PlistValue) throws -> ArchiveField {
        var queue: [Int] = []
        let field = try genericField(raw, queue: &queue)
        try fill(&queue)
        return field
    }

    /// Reads the fields of every object in `queue`, appending the objects they reach.
    private func fill(_ queue: inout [Int]) throws {
        var cursor = 0
        while cursor < queue.count {
            let entry = queue[cursor]
            cursor += 1
            guard let target = genericObjects[entry], let fields = try table.objects.fields(entry) else { continue }
            for (key, raw) in try fields.dictionary() where key != "$class" {
                target.keys.append(key)
                target.values.append(try genericField(raw, queue: &queue))
            }
        }
    }

    private func genericField(_ raw: PlistValue, queue: inout [Int]) throws -> ArchiveField {
        switch raw {
        case .uid(let reference):
            switch try resolve(reference: reference) {
            case .null: return .null
            case .inline(let value): return .inline(value)
            case .object(let index, _, _): return .object(try shell(index, queue: &queue))
            }
        case .array(let elements):
            guard elements.contains(where: \.containsReference) else { return .value(raw) }
            return .array(try elements.map { try genericField($0, queue: &queue) })
        case .dictionary(let entries):
            guard entries.values.contains(where: \.containsReference) else { return .value(raw) }
            return .dictionary(try entries.map { (key: $0.key, value: try genericField($0.value, queue: &queue)) })
        default:
            return .value(raw)
        }
    }

    private func shell(_ index: Int, queue: inout [Int]) throws -> ArchivedObject {
        if let known = genericObjects[index] { return known }
        let record = table.classes[Int(table.classIndex[index])]
        try checkAllowed(record)
        guard genericObjects.count < limits.maxObjects else {
            throw error(.sizeLimit, "more than \(limits.maxObjects) objects (KeyedArchiveLimits.maxObjects)")
        }
        let object = ArchivedObject(classRecord: record.record)
        genericObjects[index] = object
        queue.append(index)
        return object
    }
}

extension PlistValue {
    /// Whether a UID is anywhere inside (one level of nesting suffices for real archives; deeper
    /// ones are checked too).
    var containsReference: Bool {
        switch self {
        case .uid: return true
        case .array(let elements): return elements.contains(where: \.containsReference)
        case .dictionary(let entries): return entries.values.contains(where: \.containsReference)
        default: return false
        }
    }
}
