import Foundation
import TroveCore

extension Array: ArchiveRepresentable where Element: ArchiveRepresentable {
    /// Archived as an `NSArray`: `NS.objects`, the elements' references.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.array) {
            encoder.setField(try encoder.encodeReferences(self), forKey: "NS.objects")
        }
        return .uid(UInt64(uid))
    }

    /// Decodes an `NSArray` (or mutable array, set or ordered set) element by element.
    // Inlinable with `decodeElements`: see `ArchiveDecoder.decode(_:forKey:)`.
    @inlinable
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> [Element] {
        try decoder.decodeFoundation(field, as: [Element].self, family: .array, describing: "an array") { _, fields in
            try decoder.decodeElements(try decoder.collectionReferences(fields), as: Element.self)
        }
    }
}

extension Set: ArchiveRepresentable where Element: ArchiveRepresentable {
    /// Archived as an `NSSet`: `NS.objects`, the elements' references.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.set) {
            encoder.setField(try encoder.encodeReferences(self), forKey: "NS.objects")
        }
        return .uid(UInt64(uid))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Set<Element> {
        try decoder.decodeFoundation(field, as: Set<Element>.self, family: .array, describing: "a set") { _, fields in
            Set(try decoder.decodeElements(try decoder.collectionReferences(fields), as: Element.self))
        }
    }
}

extension Dictionary: ArchiveRepresentable where Key: ArchiveRepresentable, Value: ArchiveRepresentable {
    /// Archived as an `NSDictionary`: `NS.keys` then `NS.objects`, each an array of references,
    /// the keys all written before the values, as Foundation writes them.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let uid = try encoder.encodeFoundationObject(FoundationClass.dictionary) {
            encoder.setField(try encoder.encodeReferences(keys), forKey: "NS.keys")
            encoder.setField(try encoder.encodeReferences(values), forKey: "NS.objects")
        }
        return .uid(UInt64(uid))
    }

    /// Decodes an `NSDictionary` from `NS.keys`/`NS.objects` or the legacy `NS.key.N`/`NS.object.N`.
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> [Key: Value] {
        try decoder.decodeFoundation(
            field, as: [Key: Value].self, family: .dictionary, describing: "a dictionary"
        ) { record, fields in
            let keyReferences = try decoder.collectionReferences(fields, key: "NS.keys", legacyPrefix: "NS.key.")
            let valueReferences = try decoder.collectionReferences(fields, key: "NS.objects", legacyPrefix: "NS.object.")
            guard keyReferences.count == valueReferences.count else {
                throw decoder.error(
                    .typeMismatch, "\(record.name) has \(keyReferences.count) keys but \(valueReferences.count) objects")
            }
            var result: [Key: Value] = [:]
            result.reserveCapacity(keyReferences.count)
            for (index, keyReference) in keyReferences.enumerated() {
                let key = try decoder.withPath(.key("NS.keys")) {
                    try decoder.withPath(.index(index)) { try Key.decodeArchiveField(keyReference, with: decoder) }
                }
                let component: PlistKeyPath.Component = (key as? String).map { .key($0) } ?? .index(index)
                result[key] = try decoder.withPath(component) { try Value.decodeArchiveField(valueReferences[index], with: decoder) }
            }
            return result
        }
    }
}
