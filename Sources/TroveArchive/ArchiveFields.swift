import TroveCore

/// The keys and values of one keyed object (or class record) of `$objects`, as stored: escaped
/// keys, references as UIDs.
@usableFromInline
struct ArchiveFields {
    enum Storage {
        case values(PlistDictionary)
        case binary(BinaryFields)
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    /// The value stored for `key` (the first, when a binary file repeats it), or nil.
    subscript(key: String) -> PlistValue? {
        get throws(PlistError) {
            switch storage {
            case .values(let fields):
                return fields[key]
            case .binary(let fields):
                return try fields.reader.value(forKey: key, in: fields)
            }
        }
    }

    /// Whether `key` is stored.
    func contains(_ key: String) throws(PlistError) -> Bool {
        switch storage {
        case .values(let fields): return fields.index(forKey: key) != nil
        case .binary(let fields): return try fields.reader.object(forKey: key, in: fields) != nil
        }
    }

    /// Every key and value, in the archive's order (a key a binary file repeats, once, with its
    /// first value).
    func dictionary() throws(PlistError) -> PlistDictionary {
        switch storage {
        case .values(let fields):
            return fields
        case .binary(let fields):
            let (view, dictionary) = (fields.reader.view, fields.dictionary)
            var result = PlistDictionary(minimumCapacity: dictionary.count)
            for slot in 0..<dictionary.count {
                let key = try view.key(slot, of: dictionary)
                guard result.index(forKey: key) == nil else { continue }
                let object = try view.object(try view.value(atSlot: slot, of: dictionary))
                result.updateValue(try fields.reader.fieldValue(object), forKey: key)
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
        case .binary(let fields):
            guard let object = try fields.reader.object(forKey: key, in: fields) else { return nil }
            let header = try fields.reader.view.object(object)
            return header.kind == .array ? header.count : nil
        }
    }

    /// The references listed by the array stored for `key`.
    func references(forKey key: String) throws(PlistError) -> StoredReferences {
        switch storage {
        case .values(let fields):
            guard let listed = fields[key] else { return .missing }
            guard case .array(let references) = listed else { return .notAnArray(listed.kind) }
            return .array(ArchiveReferences(.values(references)))
        case .binary(let fields):
            guard let object = try fields.reader.object(forKey: key, in: fields) else { return .missing }
            return try fields.reader.references(try fields.reader.view.object(object))
        }
    }

    /// The array stored for `key` as the archive's `$objects`; the caller has checked that it
    /// is one.
    func archiveObjects(forKey key: String) throws(PlistError) -> ArchiveObjects {
        switch storage {
        case .values(let fields):
            guard case .array(let elements)? = fields[key] else { return .values([]) }
            return .values(elements)
        case .binary(let fields):
            guard let object = try fields.reader.object(forKey: key, in: fields) else { return .values([]) }
            return .binary(fields.reader, try fields.reader.view.object(object))
        }
    }
}

/// A dictionary object of a binary archive read in place, and its key layout.
///
/// Copied with every object's fields, so it holds the reader without retaining it: fields are
/// made by the reader and used only while the ``ArchiveTable`` that holds the reader is alive.
struct BinaryFields {
    unowned(unsafe) let reader: BinaryArchiveReader
    let dictionary: BinaryObjectHeader
    let layout: BinaryKeyLayout
}
