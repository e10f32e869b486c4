import Foundation
import TroveCore

extension ArchiveDecoder {
    /// Decodes a `Decodable` value from a field: types the archive knows through their own
    /// conformance, others through `init(from:)` over the object's keys (a keyed object's keys,
    /// or an `NSDictionary`'s), an `NSArray`'s elements, or the value itself. Failures are
    /// `DecodingError`s carrying the coding path.
    func decodeCodableField<T: Decodable>(_ type: T.Type, field: PlistValue, codingPath: [any CodingKey] = []) throws -> T {
        if let representable = T.self as? any ArchiveRepresentable.Type {
            let value: any ArchiveRepresentable
            do {
                value = try representable.decodeArchiveField(field, with: self)
            } catch let failure as PlistError where failure.code == .typeMismatch {
                throw DecodingError.typeMismatch(
                    T.self, DecodingError.Context(codingPath: codingPath, debugDescription: failure.message, underlyingError: failure))
            } catch let failure as PlistError where failure.code == .archiveMissingKey {
                throw DecodingError.valueNotFound(
                    T.self, DecodingError.Context(codingPath: codingPath, debugDescription: failure.message, underlyingError: failure))
            }
            guard let typed = value as? T else {
                throw DecodingError.typeMismatch(
                    T.self, DecodingError.Context(codingPath: codingPath, debugDescription: "decoded \(Swift.type(of: value))"))
            }
            return typed
        }
        if case .uid(let reference) = field, reference != 0, case .object = try resolve(reference: reference) {
            return try decodeEntry(reference, as: T.self) { index, _, _ in
                try T(from: CodableArchiveDecoderBox(decoder: self, field: field, codingPath: codingPath, building: index))
            }
        }
        return try T(from: CodableArchiveDecoderBox(decoder: self, field: field, codingPath: codingPath))
    }

    /// Runs `body`, which decodes entry `entry` again as another type, while the entry is being
    /// decoded: a single-value `Codable` type (a wrapper around a UUID or an array) reads its
    /// value from the entry it is itself decoded from. The entry is handed to `body` (it would
    /// otherwise be found in progress, a cycle) and taken back after, so that the outer value
    /// is what the entry is cached as.
    func handingOver<R>(_ entry: Int, _ body: () throws -> R) throws -> R {
        guard case .inProgress = states[entry] else { return try body() }
        states[entry] = .notStarted
        defer { states[entry] = .inProgress }
        return try body()
    }
}

/// The `Decoder` a `Decodable` value reads itself from.
final class CodableArchiveDecoderBox: Decoder {
    let decoder: ArchiveDecoder
    let field: PlistValue
    let codingPath: [any CodingKey]
    /// The entry of `$objects` whose value this decoder's `init(from:)` is building, when it
    /// was reached by reference.
    let building: Int?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(decoder: ArchiveDecoder, field: PlistValue, codingPath: [any CodingKey], building: Int? = nil) {
        self.decoder = decoder
        self.field = field
        self.codingPath = codingPath
        self.building = building
    }

    private func mismatch(_ type: Any.Type, _ message: String) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: message))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(_, let record, let fields) = try decoder.resolve(field) else {
            throw mismatch([String: Any].self, "expected a keyed object or a dictionary, found \(field.kind)")
        }
        var keys: [String] = []
        var values: [String: PlistValue] = [:]
        if record.chain.contains(where: FoundationClass.dictionaryLike.contains) {
            let keyReferences = try decoder.collectionReferences(fields, key: "NS.keys", legacyPrefix: "NS.key.")
            let valueReferences = try decoder.collectionReferences(fields, key: "NS.objects", legacyPrefix: "NS.object.")
            guard keyReferences.count == valueReferences.count else {
                throw mismatch([String: Any].self, "\(record.name) has \(keyReferences.count) keys but \(valueReferences.count) objects")
            }
            for (index, keyReference) in keyReferences.enumerated() {
                let key = try decoder.withPath(.index(index)) { try String.decodeArchiveField(keyReference, with: decoder) }
                if values.updateValue(valueReferences[index], forKey: key) == nil { keys.append(key) }
            }
        } else {
            for (stored, value) in try fields.dictionary() where stored != "$class" {
                let key: String
                if stored.hasPrefix("$$") { key = String(stored.dropFirst()) } else if stored.hasPrefix("$") { continue } else { key = stored }
                keys.append(key)
                values[key] = value
            }
        }
        return KeyedDecodingContainer(
            CodableArchiveKeyedDecoding<Key>(box: self, className: record.name, orderedKeys: keys, values: values))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .object(_, let record, let fields) = try decoder.resolve(field),
            record.chain.contains(where: FoundationClass.arrayLike.contains)
        else {
            throw mismatch([Any].self, "expected an array, found \(field.kind)")
        }
        return CodableArchiveUnkeyedDecoding(box: self, references: try decoder.collectionReferences(fields))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CodableArchiveSingleDecoding(box: self)
    }
}

struct CodableArchiveKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let box: CodableArchiveDecoderBox
    let className: String
    let orderedKeys: [String]
    let values: [String: PlistValue]
    var codingPath: [any CodingKey] { box.codingPath }
    var allKeys: [Key] { orderedKeys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    private func field(_ key: Key) throws -> PlistValue {
        guard let value = values[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "\(className) has no key \"\(key.stringValue)\""))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try field(key) == .uid(0) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try field(key)
        if value == .uid(0) {
            throw DecodingError.valueNotFound(
                T.self, DecodingError.Context(codingPath: codingPath + [key], debugDescription: "\(className).\(key.stringValue) is $null"))
        }
        return try box.decoder.withPath(.key(key.stringValue)) {
            try box.decoder.decodeCodableField(T.self, field: value, codingPath: codingPath + [key])
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try CodableArchiveDecoderBox(decoder: box.decoder, field: try field(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CodableArchiveDecoderBox(decoder: box.decoder, field: try field(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        CodableArchiveDecoderBox(decoder: box.decoder, field: values["super"] ?? .uid(0), codingPath: codingPath + [ArchiveCodingKey("super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        CodableArchiveDecoderBox(decoder: box.decoder, field: try field(key), codingPath: codingPath + [key])
    }
}

struct CodableArchiveUnkeyedDecoding: UnkeyedDecodingContainer {
    let box: CodableArchiveDecoderBox
    let references: ArchiveReferences
    var codingPath: [any CodingKey] { box.codingPath }
    var count: Int? { references.count }
    var isAtEnd: Bool { currentIndex >= references.count }
    private(set) var currentIndex = 0

    init(box: CodableArchiveDecoderBox, references: ArchiveReferences) {
        self.box = box
        self.references = references
    }

    private func next(_ type: Any.Type) throws -> PlistValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: codingPath + [ArchiveCodingKey(index: currentIndex)], debugDescription: "the array has only \(references.count) elements"))
        }
        return references[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self) == .uid(0) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let reference = try next(T.self)
        let path = codingPath + [ArchiveCodingKey(index: currentIndex)]
        let index = currentIndex
        let value = try box.decoder.withPath(.index(index)) { try box.decoder.decodeCodableField(T.self, field: reference, codingPath: path) }
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let reference = try next(type)
        currentIndex += 1
        return try CodableArchiveDecoderBox(decoder: box.decoder, field: reference, codingPath: codingPath + [ArchiveCodingKey(index: currentIndex - 1)]).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let reference = try next([Any].self)
        currentIndex += 1
        return try CodableArchiveDecoderBox(decoder: box.decoder, field: reference, codingPath: codingPath + [ArchiveCodingKey(index: currentIndex - 1)]).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let reference = try next(Any.self)
        currentIndex += 1
        return CodableArchiveDecoderBox(decoder: box.decoder, field: reference, codingPath: codingPath + [ArchiveCodingKey(index: currentIndex - 1)])
    }
}

struct CodableArchiveSingleDecoding: SingleValueDecodingContainer {
    let box: CodableArchiveDecoderBox
    var codingPath: [any CodingKey] { box.codingPath }

    func decodeNil() -> Bool { box.field == .uid(0) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let entry = box.building else {
            return try box.decoder.decodeCodableField(T.self, field: box.field, codingPath: codingPath)
        }
        return try box.decoder.handingOver(entry) {
            try box.decoder.decodeCodableField(T.self, field: box.field, codingPath: codingPath)
        }
    }
}
