import Foundation
import TroveCore

/// Options for turning an archive into a plain property list.
public struct ArchivePlainOptions: Sendable, Hashable {
    /// Also decode keyed archives stored as data inside the archive (preferences and
    /// pasteboards nest them), replacing the data by their plain value.
    public var decodesNestedArchives: Bool

    /// Options; nested archives are left as data unless asked for.
    public init(decodesNestedArchives: Bool = false) {
        self.decodesNestedArchives = decodesNestedArchives
    }
}

/// Turns archived objects into plain property-list values, the way an analyst reads an archive:
///
/// - strings, numbers and data stay what they are; `NSString`/`NSMutableString` become strings,
///   `NSData`/`NSMutableData` data, `NSDate` dates;
/// - `NSArray`, `NSSet`, `NSOrderedSet` (and their mutable kinds) become arrays, `NSDictionary`
///   dictionaries (a key that is a number becomes its decimal text);
/// - `NSUUID` becomes its string, `NSURL` its absolute string;
/// - every other object (`NSNull` included) becomes a dictionary with a `$class` entry naming its
///   class and its own keys (stored spelling, so a user key `$x` stays `$$x`);
/// - a reference to an object that is still being converted (a cycle) becomes `{"$ref": N}`,
///   N being the object's entry in `$objects`; `$null` is left out of dictionaries and is
///   `"$null"` in arrays.
///
/// A shared object converts once and its value is reused, so conversion is linear in the
/// archive's objects even when the result, written out, repeats them.
struct ArchivePlainConverter {
    let decoder: ArchiveDecoder
    let options: ArchivePlainOptions
    private var cache: [Int: PlistValue] = [:]
    private var onPath: Set<Int> = []
    private var depth = 0

    init(decoder: ArchiveDecoder, options: ArchivePlainOptions = ArchivePlainOptions()) {
        self.decoder = decoder
        self.options = options
    }

    mutating func convert(_ field: PlistValue) throws -> PlistValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= decoder.limits.maxDepth else {
            throw decoder.error(.depthLimit, "objects nest more than \(decoder.limits.maxDepth) deep (KeyedArchiveLimits.maxDepth)")
        }
        switch field {
        case .uid(let reference):
            switch try decoder.resolve(reference: reference) {
            case .null: return nil
            case .inline(let value): return try plainScalar(value)
            case .object(let index, let record, let fields):
                if let done = cache[index] { return done }
                if onPath.contains(index) { return .dictionary(["$ref": .integer(PlistInteger(index))]) }
                onPath.insert(index)
                defer { onPath.remove(index) }
                let value = try convertObject(record, fields)
                cache[index] = value
                return value
            }
        case .array(let elements):
            return .array(try elements.map { try convert($0) ?? .string("$null") })
        case .dictionary(let entries):
            var result = PlistDictionary(minimumCapacity: entries.count)
            for (key, value) in entries {
                if let converted = try decoder.withPath(.key(key), { try convert(value) }) {
                    result.updateValue(converted, forKey: key)
                }
            }
            return .dictionary(result)
        default:
            return try plainScalar(field)
        }
    }

    private mutating func plainScalar(_ value: PlistValue) throws -> PlistValue {
        guard options.decodesNestedArchives, case .data(let bytes) = value, bytes.starts(with: Array("bplist00".utf8)) || bytes.starts(with: Array("<?xml".utf8)),
            let nested = try? KeyedArchive(data: bytes, limits: decoder.limits)
        else { return value }
        return try KeyedUnarchiver(allowedClasses: decoder.allowedClasses, limits: decoder.limits)
            .plainValue(of: nested, options: options)
    }

    private mutating func convertObject(_ record: ArchiveClass, _ fields: ArchiveFields) throws -> PlistValue {
        let chain = Set(record.chain)
        func field(_ key: String) throws -> PlistValue? { try fields[key] }
        if !chain.isDisjoint(with: FoundationClass.stringLike) || !chain.isDisjoint(with: FoundationClass.dataLike)
            || chain.contains("NSDate") || chain.contains("NSUUID") || chain.contains("NSURL")
        {
            if chain.contains("NSURL") {
                return .string(try URL.decodeArchiveField(.uid(0), orFields: fields, with: decoder).absoluteString)
            }
            if chain.contains("NSUUID") {
                guard let stored = try fields["NS.uuidbytes"], let bytes = try? Data.decodeArchiveField(stored, with: decoder), bytes.count == 16 else {
                    throw decoder.error(.typeMismatch, "\(record.name) has no 16-byte NS.uuidbytes")
                }
                var raw = UUID().uuid
                withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
                return .string(UUID(uuid: raw).uuidString)
            }
            if chain.contains("NSDate") {
                guard let stored = try fields["NS.time"], let time = try? Double.decodeArchiveField(stored, with: decoder) else {
                    throw decoder.error(.typeMismatch, "\(record.name) has no NS.time number")
                }
                return .date(PlistDate(secondsSinceReferenceDate: time))
            }
            if !chain.isDisjoint(with: FoundationClass.dataLike), let bytes = try decoder.plainField(field("NS.data")).flatMap(decoder.bytes) {
                return try plainScalar(.data(bytes))
            }
            if case .string(let s)? = try decoder.plainField(field("NS.string")) { return .string(s) }
            if let bytes = try decoder.plainField(field("NS.bytes"))?.dataValue, let s = String(data: bytes, encoding: .utf8) {
                return .string(s)
            }
        }
        if !chain.isDisjoint(with: FoundationClass.arrayLike) {
            let references = try decoder.collectionReferences(fields)
            var elements: [PlistValue] = []
            elements.reserveCapacity(references.count)
            for (index, reference) in references.enumerated() {
                elements.append(try decoder.withPath(.index(index)) { try convert(reference) } ?? .string("$null"))
            }
            return .array(elements)
        }
        if !chain.isDisjoint(with: FoundationClass.dictionaryLike) {
            let keys = try decoder.collectionReferences(fields, key: "NS.keys", legacyPrefix: "NS.key.")
            let values = try decoder.collectionReferences(fields, key: "NS.objects", legacyPrefix: "NS.object.")
            guard keys.count == values.count else {
                throw decoder.error(.typeMismatch, "\(record.name) has \(keys.count) keys but \(values.count) objects")
            }
            var result = PlistDictionary(minimumCapacity: keys.count)
            var plainKeys = true
            for (index, keyReference) in keys.enumerated() {
                let key: String
                switch try decoder.withPath(.index(index), { try convert(keyReference) }) {
                case .string(let s)?: key = s
                case .integer(let i)?: key = i.description
                case .real(let r)?: key = r.description
                default:
                    // A key that is an object: keep the dictionary as the object it is.
                    plainKeys = false
                    key = ""
                }
                guard plainKeys else { break }
                if let value = try decoder.withPath(.key(key), { try convert(values[index]) }) {
                    result.updateValue(value, forKey: key)
                }
            }
            if plainKeys { return .dictionary(result) }
            return try genericDictionary(record, fields)
        }
        return try genericDictionary(record, fields)
    }

    /// An object as a dictionary of its class and its own keys.
    private mutating func genericDictionary(_ record: ArchiveClass, _ fields: ArchiveFields) throws -> PlistValue {
        let stored = try fields.dictionary()
        var result = PlistDictionary(minimumCapacity: stored.count)
        result.updateValue(.string(record.name), forKey: "$class")
        for (key, value) in stored where key != "$class" {
            if let converted = try decoder.withPath(.key(key), { try convert(value) }) {
                result.updateValue(converted, forKey: key)
            }
        }
        return .dictionary(result)
    }
}

extension URL {
    /// An `NSURL` from its fields (used where the fields are at hand already).
    static func decodeArchiveField(_ ignored: PlistValue, orFields fields: ArchiveFields, with decoder: ArchiveDecoder) throws -> URL {
        var base: URL?
        if let baseField = try fields["NS.base"], baseField != .uid(0) {
            base = try decoder.withPath(.key("NS.base")) { try URL.decodeArchiveField(baseField, with: decoder) }
        }
        guard let relativeField = try fields["NS.relative"] else { throw decoder.error(.archiveMissingKey, "NSURL has no NS.relative") }
        let relative = try decoder.withPath(.key("NS.relative")) { try String.decodeArchiveField(relativeField, with: decoder) }
        guard let url = URL(string: relative, relativeTo: base) else {
            throw decoder.error(.typeMismatch, "NS.relative \"\(relative.prefix(60))\" is not a URL")
        }
        return url
    }
}

extension PlistValue: ArchiveRepresentable {
    /// Archived as the Foundation objects `NSKeyedArchiver` makes of a property list: strings,
    /// numbers and data in place, dates as `NSDate`, arrays as `NSArray`, dictionaries as
    /// `NSDictionary` and null as `NSNull`. A UID cannot be archived.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        switch self {
        case .string, .integer, .real, .bool, .data:
            return .uid(UInt64(encoder.encodeScalar(self)))
        case .date(let date):
            return try date.date.encodeArchiveField(with: encoder)
        case .array(let elements):
            return try elements.encodeArchiveField(with: encoder)
        case .dictionary(let entries):
            let uid = try encoder.encodeFoundationObject(FoundationClass.dictionary) {
                encoder.setField(try encoder.encodeReferences(entries.keys), forKey: "NS.keys")
                encoder.setField(try encoder.encodeReferences(entries.values), forKey: "NS.objects")
            }
            return .uid(UInt64(uid))
        case .null:
            return .uid(UInt64(try encoder.encodeFoundationObject(FoundationClass.null, shared: false) {}))
        case .uid(let uid):
            throw PlistError(.unsupportedValue, "a UID (\(uid)) cannot be archived as an object")
        }
    }

    /// Decodes any archived value as a plain property list (see ``KeyedUnarchiver/plainValue(of:options:)``).
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> PlistValue {
        var converter = ArchivePlainConverter(decoder: decoder)
        return try converter.convert(field) ?? .null
    }
}
