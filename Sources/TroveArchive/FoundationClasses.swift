import Foundation
import TroveCore

/// The class records Foundation writes for its value classes.
enum FoundationClass {
    static let array = ArchiveClassRecord(name: "NSArray", chain: ["NSArray", "NSObject"])
    static let dictionary = ArchiveClassRecord(name: "NSDictionary", chain: ["NSDictionary", "NSObject"])
    static let set = ArchiveClassRecord(name: "NSSet", chain: ["NSSet", "NSObject"])
    static let date = ArchiveClassRecord(name: "NSDate", chain: ["NSDate", "NSObject"])
    static let uuid = ArchiveClassRecord(name: "NSUUID", chain: ["NSUUID", "NSObject"])
    static let url = ArchiveClassRecord(name: "NSURL", chain: ["NSURL", "NSObject"])
    static let null = ArchiveClassRecord(name: "NSNull", chain: ["NSNull", "NSObject"])
    static let value = ArchiveClassRecord(name: "NSValue", chain: ["NSValue", "NSObject"])
    static let mutableArray = ArchiveClassRecord(name: "NSMutableArray", chain: ["NSMutableArray", "NSArray", "NSObject"])
    static let mutableString = ArchiveClassRecord(name: "NSMutableString", chain: ["NSMutableString", "NSString", "NSObject"])
    static let mutableData = ArchiveClassRecord(name: "NSMutableData", chain: ["NSMutableData", "NSData", "NSObject"])
    static let orderedSet = ArchiveClassRecord(name: "NSOrderedSet", chain: ["NSOrderedSet", "NSObject"])
    static let mutableOrderedSet = ArchiveClassRecord(
        name: "NSMutableOrderedSet", chain: ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"])
    static let indexSet = ArchiveClassRecord(name: "NSIndexSet", chain: ["NSIndexSet", "NSObject"])
    static let mutableIndexSet = ArchiveClassRecord(name: "NSMutableIndexSet", chain: ["NSMutableIndexSet", "NSIndexSet", "NSObject"])
    static let attributedString = ArchiveClassRecord(name: "NSAttributedString", chain: ["NSAttributedString", "NSObject"])
    static let mutableAttributedString = ArchiveClassRecord(
        name: "NSMutableAttributedString", chain: ["NSMutableAttributedString", "NSAttributedString", "NSObject"])

    static let arrayLike: Set<String> = ["NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSCountedSet", "NSOrderedSet", "NSMutableOrderedSet"]
    static let dictionaryLike: Set<String> = ["NSDictionary", "NSMutableDictionary"]
    static let stringLike: Set<String> = ["NSString", "NSMutableString"]
    static let dataLike: Set<String> = ["NSData", "NSMutableData"]
}

/// The Foundation classes one Swift type decodes from (its class and their mutable subclasses).
/// Whether a class record belongs is worked out once per record and family
/// (``ArchiveDecoder/isMember(_:of:)``), not by hashing its chain on every object.
@usableFromInline
struct FoundationFamily: Sendable {
    let classes: Set<String>
    /// The family's place in ``ArchiveDecoder``'s per-record memo: two bits each, below 16.
    let index: Int

    @usableFromInline static let array = FoundationFamily(classes: FoundationClass.arrayLike, index: 0)
    static let dictionary = FoundationFamily(classes: FoundationClass.dictionaryLike, index: 1)
    static let string = FoundationFamily(classes: FoundationClass.stringLike, index: 2)
    static let data = FoundationFamily(classes: FoundationClass.dataLike, index: 3)
    static let date = FoundationFamily(classes: ["NSDate"], index: 4)
    static let uuid = FoundationFamily(classes: ["NSUUID"], index: 5)
    static let url = FoundationFamily(classes: ["NSURL"], index: 6)
    static let value = FoundationFamily(classes: ["NSValue"], index: 7)
    static let orderedSet = FoundationFamily(classes: ["NSOrderedSet"], index: 8)
    static let indexSet = FoundationFamily(classes: ["NSIndexSet"], index: 9)
    static let attributedString = FoundationFamily(classes: ["NSAttributedString"], index: 10)
}

extension ArchiveRepresentable {
    /// Writes the value as an entry of `$objects` (what a collection's element is) and returns
    /// the entry: numbers and booleans, stored in place as fields, become `NSNumber` entries.
    func encodeObjectReference(with encoder: ArchiveEncoder) throws -> Int {
        let field = try encodeArchiveField(with: encoder)
        if case .uid(let reference) = field { return Int(reference) }
        return encoder.encodeScalar(field)
    }
}

extension ArchiveDecoder {
    /// Decodes a value of one of Foundation's classes: `inline` reads a value stored in place in
    /// `$objects` (strings, numbers, data), `build` a keyed object whose class chain names one of
    /// `family`'s classes. Each entry is decoded once.
    @usableFromInline
    func decodeFoundation<T>(
        _ field: PlistValue, as type: T.Type, family: FoundationFamily, describing: String,
        inline: ((PlistValue) throws -> T?)? = nil,
        build: (ArchiveClass, ArchiveFields) throws -> T
    ) throws -> T {
        guard let inline else {
            // No closure returning a `T?` on this path, which the generic collections take: in
            // unspecialized code that optional costs a metadata lookup per call.
            return try decodeFoundation(
                field, as: T.self, family: family, describing: describing,
                inPlace: { value, inField in throw self.notStoredInPlace(value, describing, inField: inField) },
                build: build)
        }
        return try decodeFoundation(
            field, as: T.self, family: family, describing: describing,
            inPlace: { value, inField in
                if let decoded = try inline(value) { return decoded }
                throw self.notStoredInPlace(value, describing, inField: inField)
            },
            build: build)
    }

    /// The error for a value stored in place (in the field itself when `inField`, else as an
    /// entry of `$objects`) that is not what was expected.
    private func notStoredInPlace(_ value: PlistValue, _ describing: String, inField: Bool) -> PlistError {
        error(.typeMismatch, "expected \(describing), found \(Self.describe(value))\(inField ? " stored in place" : "")")
    }

    /// ``decodeFoundation(_:as:classes:describing:inline:build:)`` with the value stored in place
    /// read by `inPlace`, which is told whether it was stored in the field itself.
    private func decodeFoundation<T>(
        _ field: PlistValue, as type: T.Type, family: FoundationFamily, describing: String,
        inPlace: (PlistValue, _ inField: Bool) throws -> T,
        build: (ArchiveClass, ArchiveFields) throws -> T
    ) throws -> T {
        guard case .uid(let reference) = field else { return try inPlace(field, true) }
        return try decodeEntry(
            reference, as: T.self, inline: { try inPlace($0, false) },
            { index, record, fields in
                guard self.isMember(self.table.classIndex[index], of: family) else {
                    throw self.error(.typeMismatch, "expected \(describing), found object \(index) of class \(record.name)")
                }
                return try build(record, fields)
            })
    }

    /// The references of a collection: `NS.objects`, or the legacy `NS.object.0`, `NS.object.1` ...
    @usableFromInline
    func collectionReferences(_ fields: ArchiveFields, key: String = "NS.objects", legacyPrefix: String = "NS.object.") throws -> ArchiveReferences {
        switch try fields.references(forKey: key) {
        case .array(let references):
            return references
        case .notAnArray(let kind):
            throw error(.typeMismatch, "\(key) is \(kind), not an array of references")
        case .missing:
            var references: [PlistValue] = []
            while let next = try fields[legacyPrefix + String(references.count)] { references.append(next) }
            return ArchiveReferences(.values(references))
        }
    }

    /// Decodes each of a collection's references as an element, with `NS.objects` and its index
    /// on the key path.
    @inlinable
    func decodeElements<T: ArchiveRepresentable>(_ references: ArchiveReferences, as type: T.Type) throws -> [T] {
        // The path is set once and its last component rewritten per element, rather than pushed
        // and popped around each one.
        path.append(.key("NS.objects"))
        path.append(.index(0))
        // Two single removals: `removeLast(2)` replaces a subrange, many times the work.
        defer {
            path.removeLast()
            path.removeLast()
        }
        // Made at its final size: reserving capacity in an empty array, in code not specialized
        // for `T`, goes through the runtime's general reallocation. Never at a capacity of 0,
        // which writes into the standard library's shared empty array.
        guard !references.isEmpty else { return [] }
        return try [T](unsafeUninitializedCapacity: references.count) { elements, initialized in
            for index in references.indices {
                path[path.count - 1] = .index(index)
                (elements.baseAddress! + index).initialize(to: try T.decodeArchiveField(references[index], with: self))
                initialized += 1
            }
        }
    }

    /// A field of a Foundation object that must be present.
    func requiredField(_ fields: ArchiveFields, _ key: String, of className: String) throws -> PlistValue {
        guard let value = try fields[key] else {
            throw error(.archiveMissingKey, "\(className) has no \(key)")
        }
        return value
    }

    /// Bytes from data, or from base64 text in a keyed dictionary tree read from JSON.
    func bytes(_ value: PlistValue) -> Data? {
        switch value {
        case .data(let data): return data
        case .string(let text) where acceptsTextScalars: return Data(base64Encoded: text)
        default: return nil
        }
    }
}

extension String: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        .uid(UInt64(encoder.encodeScalar(.string(self))))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> String {
        try decoder.decodeFoundation(
            field, as: String.self, family: .string, describing: "a string",
            inline: { $0.stringValue }
        ) { record, fields in
            if case .string(let s)? = try decoder.plainField(try fields["NS.string"]) { return s }
            if let bytes = try decoder.plainField(try fields["NS.bytes"]).flatMap(decoder.bytes), let s = String(data: bytes, encoding: .utf8) {
                return s
            }
            throw decoder.error(.typeMismatch, "\(record.name) has neither an NS.string string nor UTF-8 NS.bytes")
        }
    }
}

extension Data: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        .uid(UInt64(encoder.encodeScalar(.data(self))))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Data {
        try decoder.decodeFoundation(
            field, as: Data.self, family: .data, describing: "data",
            inline: { decoder.bytes($0) }
        ) { record, fields in
            guard let bytes = try decoder.plainField(try fields["NS.data"]).flatMap(decoder.bytes) else {
                throw decoder.error(.typeMismatch, "\(record.name) has no NS.data bytes")
            }
            return bytes
        }
    }
}

extension Date: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.date) {
            encoder.setField(.real(PlistReal(timeIntervalSinceReferenceDate)), forKey: "NS.time")
        }
        return .uid(UInt64(uid))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Date {
        try decoder.decodeFoundation(
            field, as: Date.self, family: .date, describing: "a date",
            inline: { $0.dateValue?.date }
        ) { record, fields in
            let time = try decoder.requiredField(fields, "NS.time", of: record.name)
            let seconds = try decoder.withPath(.key("NS.time")) { try Double.decodeArchiveField(time, with: decoder) }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
    }
}

extension UUID: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let bytes = withUnsafeBytes(of: uuid) { Data($0) }
        let uid = try encoder.encodeFoundationObject(FoundationClass.uuid) {
            encoder.setField(.data(bytes), forKey: "NS.uuidbytes")
        }
        return .uid(UInt64(uid))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> UUID {
        try decoder.decodeFoundation(field, as: UUID.self, family: .uuid, describing: "a UUID") { record, fields in
            let stored = try decoder.requiredField(fields, "NS.uuidbytes", of: record.name)
            let bytes = try decoder.withPath(.key("NS.uuidbytes")) { try Data.decodeArchiveField(stored, with: decoder) }
            guard bytes.count == 16 else {
                throw decoder.error(.typeMismatch, "\(record.name) has no 16-byte NS.uuidbytes")
            }
            var raw = UUID().uuid
            withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
            return UUID(uuid: raw)
        }
    }
}

extension URL: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.url) {
            try encoder.encode(baseURL, forKey: "NS.base")
            try encoder.encode(relativeString, forKey: "NS.relative")
        }
        return .uid(UInt64(uid))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> URL {
        try decoder.decodeFoundation(field, as: URL.self, family: .url, describing: "a URL") { record, fields in
            var base: URL?
            if let baseField = try fields["NS.base"], baseField != .uid(0) {
                base = try decoder.withPath(.key("NS.base")) { try URL.decodeArchiveField(baseField, with: decoder) }
            }
            let relativeField = try decoder.requiredField(fields, "NS.relative", of: record.name)
            let relative = try decoder.withPath(.key("NS.relative")) { try String.decodeArchiveField(relativeField, with: decoder) }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw decoder.error(.typeMismatch, "NS.relative \"\(relative.prefix(60))\" is not a URL")
            }
            return url
        }
    }
}

extension NSRange: ArchiveRepresentable {
    /// Archived as Foundation archives `NSValue(range:)`: `NS.special` 4 and the location and
    /// length as `NSNumber` references.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.value, shared: false) {
            encoder.setField(.integer(4), forKey: "NS.special")
            encoder.setField(.uid(UInt64(encoder.encodeScalar(.integer(PlistInteger(length))))), forKey: "NS.rangeval.length")
            encoder.setField(.uid(UInt64(encoder.encodeScalar(.integer(PlistInteger(location))))), forKey: "NS.rangeval.location")
        }
        return .uid(UInt64(uid))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> NSRange {
        try decoder.decodeFoundation(field, as: NSRange.self, family: .value, describing: "a range") { record, fields in
            guard let special = try fields["NS.special"], (try? Int.decodeArchiveField(special, with: decoder)) == 4 else {
                throw decoder.error(.typeMismatch, "\(record.name) is not a range (NS.special is not 4)")
            }
            let location = try decoder.requiredField(fields, "NS.rangeval.location", of: record.name)
            let length = try decoder.requiredField(fields, "NS.rangeval.length", of: record.name)
            return NSRange(
                location: try decoder.withPath(.key("NS.rangeval.location")) { try Int.decodeArchiveField(location, with: decoder) },
                length: try decoder.withPath(.key("NS.rangeval.length")) { try Int.decodeArchiveField(length, with: decoder) })
        }
    }
}
