import Foundation
import TroveCore

/// `$objects` of an archive being decoded, held one of two ways: the values of a property list
/// already read (an XML archive, a ``KeyedArchive`` kept for a byte-exact rewrite), or a binary
/// plist read in place, where an object's fields are read from the file when it is decoded and
/// no value tree is built. Both answer with the same values and the same errors.
enum ArchiveObjects {
    case values([PlistValue])
    /// The reader, and the `$objects` array, whose entries are looked up when they are needed
    /// (a table of them would be one more cache miss per reference than the offset table).
    case binary(BinaryArchiveReader, BinaryObjectHeader)

    /// How many entries `$objects` has.
    var count: Int {
        switch self {
        case .values(let values): values.count
        case .binary(_, let objects): objects.count
        }
    }

    /// The fields of entry `index` when it is a dictionary, or nil.
    func fields(_ index: Int) throws(PlistError) -> ArchiveFields? {
        switch self {
        case .values(let values):
            guard case .dictionary(let fields) = values[index] else { return nil }
            return ArchiveFields(.values(fields))
        case .binary(let reader, let objects):
            let entry = try reader.entry(index, of: objects)
            return entry.kind == .dictionary ? ArchiveFields(.binary(reader, entry)) : nil
        }
    }

    /// The value of entry `index` when it is not a dictionary (a string, number or data stored
    /// in place), decoded whole; nil for a dictionary.
    func inlineValue(_ index: Int) throws(PlistError) -> PlistValue? {
        switch self {
        case .values(let values):
            if case .dictionary = values[index] { return nil }
            return values[index]
        case .binary(let reader, let objects):
            let entry = try reader.entry(index, of: objects)
            return entry.kind == .dictionary ? nil : try reader.view.value(entry)
        }
    }

    /// The value of entry `index`, decoded whole: a string, number or data stored in place.
    func value(_ index: Int) throws(PlistError) -> PlistValue {
        switch self {
        case .values(let values): return values[index]
        case .binary(let reader, let objects): return try reader.view.value(try reader.entry(index, of: objects))
        }
    }

    /// What entry `index` is, for messages.
    func kind(_ index: Int) throws(PlistError) -> PlistValue.Kind {
        switch self {
        case .values(let values): values[index].kind
        case .binary(let reader, let objects): try reader.entry(index, of: objects).kind
        }
    }
}

/// A binary archive read in place: the file, and what reading fields out of it has cost.
final class BinaryArchiveReader {
    let view: BinaryObjectView
    let limits: KeyedArchiveLimits
    /// Values read out of fields so far; a container the file shares between many fields is
    /// counted each time, so that no archive can make decoding quadratic unnoticed.
    @exclusivity(unchecked) private var valuesRead = 0
    /// Nested containers already decoded, by object: real archives have none.
    @exclusivity(unchecked) private var nested: [Int: PlistValue] = [:]

    init(view: BinaryObjectView, limits: KeyedArchiveLimits) {
        self.view = view
        self.limits = limits
    }

    /// The key objects read so far, numbered by text (see ``lookUp(_:in:)``).
    private let keyNumbering = BinaryKeyNumbering()

    /// The object that holds the value for `key` in `dictionary` (the first, when the key is
    /// repeated), or nil.
    func lookUp(_ key: String, in dictionary: BinaryObjectHeader) throws(PlistError) -> Int? {
        try view.value(forKey: key, in: dictionary, numbering: keyNumbering)
    }

    /// The object of entry `index` of the `$objects` array `objects`.
    func entry(_ index: Int, of objects: BinaryObjectHeader) throws(PlistError) -> BinaryObjectHeader {
        try view.object(try view.reference(index, of: objects))
    }

    /// The value a field's object holds: a scalar (most often a UID), an array of them (a
    /// collection's `NS.objects`), or rarely something nested.
    func fieldValue(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        switch object.kind {
        case .array:
            try count(object.count)
            var elements: [PlistValue] = []
            elements.reserveCapacity(object.count)
            for slot in 0..<object.count {
                let index = try view.reference(slot, of: object)
                if let scalar = try view.smallScalar(index) {
                    elements.append(scalar)
                    continue
                }
                let element = try view.object(index)
                if element.kind == .array || element.kind == .dictionary { return try nestedValue(object) }
                elements.append(try view.scalar(element))
            }
            return .array(elements)
        case .dictionary:
            return try nestedValue(object)
        default:
            return try view.scalar(object)
        }
    }

    private func nestedValue(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        if let known = nested[object.index] { return known }
        let value = try view.value(object)
        nested[object.index] = value
        return value
    }

    private func count(_ values: Int) throws(PlistError) {
        valuesRead += values
        guard valuesRead <= limits.maxExpandedValues else {
            throw PlistError(
                .expansionLimit,
                "the archive's fields hold more than \(limits.maxExpandedValues) values (KeyedArchiveLimits.maxExpandedValues)")
        }
    }
}

/// The keys and values of one keyed object (or class record) of `$objects`, as stored: escaped
/// keys, references as UIDs.
struct ArchiveFields {
    enum Storage {
        case values(PlistDictionary)
        case binary(BinaryArchiveReader, BinaryObjectHeader)
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    /// The value stored for `key` (the first, when a binary file repeats it), or nil.
    subscript(key: String) -> PlistValue? {
        get throws(PlistError) {
            switch storage {
            case .values(let fields):
                return fields[key]
            case .binary(let objects, let dictionary):
                guard let object = try objects.lookUp(key, in: dictionary) else { return nil }
                if let scalar = try objects.view.smallScalar(object) { return scalar }
                return try objects.fieldValue(try objects.view.object(object))
            }
        }
    }

    /// Whether `key` is stored.
    func contains(_ key: String) throws(PlistError) -> Bool {
        switch storage {
        case .values(let fields): return fields.index(forKey: key) != nil
        case .binary(let objects, let dictionary): return try objects.lookUp(key, in: dictionary) != nil
        }
    }

    /// Every key and value, in the archive's order (a key a binary file repeats, once, with its
    /// first value).
    func dictionary() throws(PlistError) -> PlistDictionary {
        switch storage {
        case .values(let fields):
            return fields
        case .binary(let objects, let dictionary):
            var result = PlistDictionary(minimumCapacity: dictionary.count)
            for slot in 0..<dictionary.count {
                let key = try objects.view.key(slot, of: dictionary)
                guard result.index(forKey: key) == nil else { continue }
                let object = try objects.view.object(try objects.view.reference(dictionary.count + slot, of: dictionary))
                result.updateValue(try objects.fieldValue(object), forKey: key)
            }
            return result
        }
    }

    /// The stored keys, in the archive's order.
    func keys() throws(PlistError) -> [String] {
        try dictionary().keys
    }

    /// How many elements the array stored for `key` has, or nil when the key is missing or does
    /// not hold an array. Nothing of the array is read.
    func arrayCount(forKey key: String) throws(PlistError) -> Int? {
        switch storage {
        case .values(let fields):
            guard case .array(let elements)? = fields[key] else { return nil }
            return elements.count
        case .binary(let objects, let dictionary):
            guard let object = try objects.lookUp(key, in: dictionary) else { return nil }
            let header = try objects.view.object(object)
            return header.kind == .array ? header.count : nil
        }
    }

    /// The array stored for `key` as the archive's `$objects`; the caller has checked that it
    /// is one.
    func archiveObjects(forKey key: String) throws(PlistError) -> ArchiveObjects {
        switch storage {
        case .values(let fields):
            guard case .array(let elements)? = fields[key] else { return .values([]) }
            return .values(elements)
        case .binary(let objects, let dictionary):
            guard let object = try objects.lookUp(key, in: dictionary) else { return .values([]) }
            return .binary(objects, try objects.view.object(object))
        }
    }
}
