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
            return entry.kind == .dictionary ? try reader.fields(entry) : nil
        }
    }

    /// What `$class` holds in entry `index` when it is a dictionary that has one, or nil.
    func classReference(_ index: Int) throws(PlistError) -> PlistValue? {
        switch self {
        case .values(let values):
            guard case .dictionary(let fields) = values[index] else { return nil }
            return fields["$class"]
        case .binary(let reader, let objects):
            let entry = try reader.entry(index, of: objects)
            guard entry.kind == .dictionary else { return nil }
            return try reader.value(forKey: "$class", in: try reader.binaryFields(entry))
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

    /// The text of entry `index` when it is a string stored in place, or nil.
    func string(_ index: Int) throws(PlistError) -> String? {
        switch self {
        case .values(let values):
            guard case .string(let text) = values[index] else { return nil }
            return text
        case .binary(let reader, let objects):
            let entry = try reader.entry(index, of: objects)
            return entry.kind == .string ? try reader.view.string(entry) : nil
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
