import Foundation
import TroveCore

/// The keyed dictionary tree: an object graph spelled as nested property-list dictionaries, for
/// the stores that hold plain property lists (XML, binary, OpenStep, JSON). `Formats.md`,
/// "Keyed dictionary trees", is the specification; in short:
///
/// - an object is a dictionary with `$class` (its class name), `$classes` when its class chain
///   is not just the class and `NSObject`, and its keys (a user key `$x` spelled `$$x`);
/// - an object referenced more than once carries `$id` (1, 2, ... in the order written) where it
///   is written first, and every later reference is `{"$ref": N}`, so shared objects and cycles
///   survive; Foundation's value classes (arrays, dictionaries, dates, UUIDs, URLs, ...) are
///   values and are written out at each use;
/// - `NSArray` is a plain array, `NSDictionary` with string keys a plain dictionary (keys
///   starting with `$` get one more `$`), strings, numbers and booleans are themselves, data is
///   data (in JSON, which has none, an `NSData` object whose `NS.data` is base64 text);
/// - `$null` is a missing key, or `{"$null": true}` inside an array.
enum KeyedDictionaryTree {
    /// Classes whose instances are values: written at each use, never given an `$id`.
    static let valueClasses: Set<String> = [
        "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet", "NSOrderedSet",
        "NSMutableOrderedSet", "NSDate", "NSData", "NSMutableData", "NSString", "NSMutableString", "NSUUID", "NSURL",
        "NSNull", "NSValue", "NSNumber", "NSIndexSet", "NSMutableIndexSet", "NSAttributedString", "NSMutableAttributedString",
    ]

    static func escape(_ key: String) -> String { key.hasPrefix("$") ? "$" + key : key }

    static func unescape(_ key: String) -> String { key.hasPrefix("$$") ? String(key.dropFirst()) : key }
}

/// Spells an archive's object table as a keyed dictionary tree.
struct KeyedTreeWriter {
    let objects: [PlistValue]
    let archive: KeyedArchive
    let limits: KeyedArchiveLimits
    let dataAsText: Bool
    private var referenceCounts: [Int]
    private var ids: [Int: Int] = [:]
    private var onPath: Set<Int> = []
    private var emitted = 0
    private var depth = 0

    init(archive: KeyedArchive, limits: KeyedArchiveLimits, dataAsText: Bool) {
        self.archive = archive
        self.objects = archive.objects
        self.limits = limits
        self.dataAsText = dataAsText
        var counts = [Int](repeating: 0, count: archive.objects.count)
        func count(_ value: PlistValue) {
            switch value {
            case .uid(let uid) where uid < UInt64(counts.count): counts[Int(uid)] += 1
            case .array(let elements): elements.forEach(count)
            case .dictionary(let entries): entries.values.forEach(count)
            default: break
            }
        }
        for entry in archive.topLevel { count(entry.value) }
        for object in archive.objects {
            if case .dictionary(let fields) = object, fields["$class"] != nil {
                for (key, value) in fields where key != "$class" { count(value) }
            }
        }
        referenceCounts = counts
    }

    mutating func tree(_ field: PlistValue) throws -> PlistValue? {
        emitted += 1
        guard emitted <= limits.maxExpandedValues else {
            throw PlistError(.expansionLimit, "the tree would hold more than \(limits.maxExpandedValues) values (KeyedArchiveLimits.maxExpandedValues)")
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maxDepth else {
            throw PlistError(.depthLimit, "objects nest more than \(limits.maxDepth) deep (KeyedArchiveLimits.maxDepth)")
        }
        switch field {
        case .uid(0):
            return nil
        case .uid(let reference):
            guard reference < UInt64(objects.count) else {
                throw PlistError(.archiveBadReference, "reference \(reference) is past the \(objects.count) entries of $objects")
            }
            let index = Int(reference)
            let slot = archive.classIndex[index]
            guard slot >= 0, case .dictionary(let fields) = objects[index] else { return try scalar(objects[index]) }
            return try object(index, archive.classes[Int(slot)].record, fields)
        case .array(let elements):
            return .array(try elements.map { try tree($0) ?? .dictionary(["$null": true]) })
        case .dictionary(let entries):
            var result = PlistDictionary(minimumCapacity: entries.count)
            for (key, value) in entries {
                if let converted = try tree(value) { result.updateValue(converted, forKey: key) }
            }
            return .dictionary(result)
        default:
            return try scalar(field)
        }
    }

    private func scalar(_ value: PlistValue) throws -> PlistValue {
        if dataAsText, case .data(let bytes) = value {
            return .dictionary(["$class": "NSData", "NS.data": .string(bytes.base64EncodedString())])
        }
        return value
    }

    private mutating func object(_ index: Int, _ record: ArchiveClassRecord, _ fields: PlistDictionary) throws -> PlistValue {
        let isValue = KeyedDictionaryTree.valueClasses.contains(record.name)
        if !isValue, let id = ids[index] { return .dictionary(["$ref": .integer(PlistInteger(id))]) }
        if onPath.contains(index) {
            throw PlistError(.referenceCycle, "a \(record.name) contains itself; a tree can only close cycles through non-Foundation objects")
        }
        onPath.insert(index)
        defer { onPath.remove(index) }
        let otherKeys = fields.keys.filter { $0 != "$class" && $0 != "NS.objects" && $0 != "NS.keys" }
        if otherKeys.isEmpty, record.name == "NSArray" || record.name == "NSMutableArray", case .array(let references)? = fields["NS.objects"] {
            return .array(try references.map { try tree($0) ?? .dictionary(["$null": true]) })
        }
        if otherKeys.isEmpty, record.name == "NSDictionary" || record.name == "NSMutableDictionary",
            case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"], keys.count == values.count,
            let names = try? keys.map({ key -> String in
                guard case .uid(let uid) = key, uid < UInt64(objects.count), case .string(let name) = objects[Int(uid)] else {
                    throw PlistError(.badKey, "not a string key")
                }
                return name
            })
        {
            var result = PlistDictionary(minimumCapacity: names.count)
            for (name, value) in zip(names, values) {
                if let converted = try tree(value) { result.updateValue(converted, forKey: KeyedDictionaryTree.escape(name)) }
            }
            return .dictionary(result)
        }
        var result = PlistDictionary(minimumCapacity: fields.count + 2)
        result.updateValue(.string(record.name), forKey: "$class")
        if record.chain != [record.name, "NSObject"] {
            result.updateValue(.array(record.chain.map { .string($0) }), forKey: "$classes")
        }
        if !isValue, referenceCounts[index] > 1 {
            let id = ids.count + 1
            ids[index] = id
            result.updateValue(.integer(PlistInteger(id)), forKey: "$id")
        }
        for (key, value) in fields where key != "$class" {
            if let converted = try tree(value) { result.updateValue(converted, forKey: key) }
        }
        return .dictionary(result)
    }
}

/// Reads a keyed dictionary tree back into an archive's object table.
struct KeyedTreeReader {
    let limits: KeyedArchiveLimits
    private var objects: [PlistValue] = [.string("$null")]
    private var classRecords: [String: Int] = [:]
    private var idEntries: [PlistInteger: Int] = [:]
    private var defined: Set<PlistInteger> = []
    private var depth = 0

    init(limits: KeyedArchiveLimits) { self.limits = limits }

    /// The archive whose root is the tree.
    mutating func archive(root: PlistValue) throws -> KeyedArchive {
        let rootField = try reference(root)
        if let undefined = idEntries.keys.first(where: { !defined.contains($0) }) {
            throw PlistError(.archiveBadReference, "{\"$ref\": \(undefined)} names no object with that $id")
        }
        let value: PlistValue = .dictionary([
            "$version": .integer(PlistInteger(KeyedArchive.version)), "$archiver": .string(KeyedArchive.archiverName),
            "$top": .dictionary(["root": rootField]), "$objects": .array(objects),
        ])
        return try KeyedArchive(value: value, limits: limits)
    }

    private mutating func append(_ value: PlistValue) throws -> Int {
        guard objects.count < limits.maxObjects else {
            throw PlistError(.sizeLimit, "the tree holds more than \(limits.maxObjects) objects (KeyedArchiveLimits.maxObjects)")
        }
        objects.append(value)
        return objects.count - 1
    }

    /// A value as a reference (an element of a collection, a top-level value).
    private mutating func reference(_ value: PlistValue) throws -> PlistValue {
        switch value {
        case .array, .dictionary: return try field(value)
        default: return .uid(UInt64(try append(value)))
        }
    }

    /// A value as an object's field: scalars in place, containers and objects as references.
    private mutating func field(_ value: PlistValue) throws -> PlistValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maxDepth else {
            throw PlistError(.depthLimit, "the tree nests more than \(limits.maxDepth) deep (KeyedArchiveLimits.maxDepth)")
        }
        switch value {
        case .array(let elements):
            let entry = try append(.string("$null"))
            let references = try elements.map { try reference($0) }
            objects[entry] = .dictionary(["NS.objects": .array(references), "$class": .uid(UInt64(try classRecord("NSArray", nil)))])
            return .uid(UInt64(entry))
        case .dictionary(let entries):
            if entries.count == 1, let ref = entries["$ref"] {
                guard let id = Self.identifier(ref) else { throw PlistError(.archiveBadReference, "$ref \(ref) is not an integer") }
                return .uid(UInt64(try idEntry(id)))
            }
            if entries.count == 1, entries["$null"] != nil { return .uid(0) }
            guard case .string(let className)? = entries["$class"] else {
                let entry = try append(.string("$null"))
                var keys: [PlistValue] = []
                var values: [PlistValue] = []
                for (key, element) in entries {
                    keys.append(.uid(UInt64(try append(.string(KeyedDictionaryTree.unescape(key))))))
                    values.append(try reference(element))
                }
                objects[entry] = .dictionary([
                    "NS.keys": .array(keys), "NS.objects": .array(values),
                    "$class": .uid(UInt64(try classRecord("NSDictionary", nil))),
                ])
                return .uid(UInt64(entry))
            }
            let entry: Int
            if let id = entries["$id"] {
                guard let number = Self.identifier(id) else { throw PlistError(.archiveBadReference, "$id \(id) is not an integer") }
                guard !defined.contains(number) else { throw PlistError(.archiveBadReference, "$id \(number) is given twice") }
                entry = try idEntry(number)
                defined.insert(number)
            } else {
                entry = try append(.string("$null"))
            }
            var chain: [String]?
            if case .array(let names)? = entries["$classes"] { chain = names.compactMap(\.stringValue) }
            var fields = PlistDictionary(minimumCapacity: entries.count)
            for (key, element) in entries where key != "$class" && key != "$classes" && key != "$id" {
                if key == "NS.objects" || key == "NS.keys", case .array(let elements) = element {
                    fields.updateValue(.array(try elements.map { try reference($0) }), forKey: key)
                } else {
                    fields.updateValue(try field(element), forKey: key)
                }
            }
            fields.updateValue(.uid(UInt64(try classRecord(className, chain))), forKey: "$class")
            objects[entry] = .dictionary(fields)
            return .uid(UInt64(entry))
        default:
            return value
        }
    }

    /// An `$id` or `$ref` number: an integer, or its decimal text (OpenStep has only strings).
    static func identifier(_ value: PlistValue) -> PlistInteger? {
        switch value {
        case .integer(let number): return number
        case .string(let text): return Int64(text).map { PlistInteger($0) }
        default: return nil
        }
    }

    private mutating func idEntry(_ id: PlistInteger) throws -> Int {
        if let known = idEntries[id] { return known }
        let entry = try append(.string("$null"))
        idEntries[id] = entry
        return entry
    }

    private mutating func classRecord(_ name: String, _ chain: [String]?) throws -> Int {
        if let known = classRecords[name] { return known }
        let names = chain ?? [name, "NSObject"]
        let entry = try append(.dictionary(["$classname": .string(name), "$classes": .array(names.map { .string($0) })]))
        classRecords[name] = entry
        return entry
    }
}

extension KeyedArchiver {
    /// `root` as a keyed dictionary tree for a store in `format` (see `Formats.md`, "Keyed
    /// dictionary trees"): write it with `Plist.write(_:as:)`.
    public func treeValue<T: ArchiveRepresentable>(_ root: T, for format: PlistFormat) throws -> PlistValue {
        let archive = try KeyedArchive(value: try archivedValue(topLevel: [("root", root)]), limits: limits)
        guard let rootField = archive.topLevelValue(forKey: "root") else { return .dictionary([:]) }
        var writer = KeyedTreeWriter(archive: archive, limits: limits, dataAsText: format == .json)
        return try writer.tree(rootField) ?? .dictionary(["$null": true])
    }
}

extension KeyedUnarchiver {
    /// Decodes a keyed dictionary tree (read from any format by `Plist.read`) as `T`. Numbers,
    /// booleans and dates may be strings (OpenStep has nothing else), and data base64 text.
    public func decode<T: ArchiveRepresentable>(_ type: T.Type, fromTree tree: PlistValue) throws -> T {
        var reader = KeyedTreeReader(limits: limits)
        let archive = try reader.archive(root: tree)
        return try makeDecoder(archive.table, acceptsTextScalars: true).decodeTopLevel(T.self, key: "root")
    }

    /// The archive a keyed dictionary tree stands for, to decode generically or write as an
    /// `NSKeyedArchiver` archive.
    public func archive(fromTree tree: PlistValue) throws -> KeyedArchive {
        var reader = KeyedTreeReader(limits: limits)
        return try reader.archive(root: tree)
    }
}
