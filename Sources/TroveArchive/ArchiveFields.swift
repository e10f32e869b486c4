import TroveCore

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
            case .binary(let reader, let dictionary):
                guard let object = try reader.lookUp(key, in: dictionary) else { return nil }
                if let scalar = try reader.view.smallScalar(object) { return scalar }
                return try reader.fieldValue(try reader.view.object(object))
            }
        }
    }

    /// Whether `key` is stored.
    func contains(_ key: String) throws(PlistError) -> Bool {
        switch storage {
        case .values(let fields): return fields.index(forKey: key) != nil
        case .binary(let reader, let dictionary): return try reader.lookUp(key, in: dictionary) != nil
        }
    }

    /// Every key and value, in the archive's order (a key a binary file repeats, once, with its
    /// first value).
    func dictionary() throws(PlistError) -> PlistDictionary {
        switch storage {
        case .values(let fields):
            return fields
        case .binary(let reader, let dictionary):
            var result = PlistDictionary(minimumCapacity: dictionary.count)
            for slot in 0..<dictionary.count {
                let key = try reader.view.key(slot, of: dictionary)
                guard result.index(forKey: key) == nil else { continue }
                let object = try reader.view.object(try reader.view.reference(dictionary.count + slot, of: dictionary))
                result.updateValue(try reader.fieldValue(object), forKey: key)
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
        case .binary(let reader, let dictionary):
            guard let object = try reader.lookUp(key, in: dictionary) else { return nil }
            let header = try reader.view.object(object)
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
        case .binary(let reader, let dictionary):
            guard let object = try reader.lookUp(key, in: dictionary) else { return .values([]) }
            return .binary(reader, try reader.view.object(object))
        }
    }
}
