import Foundation
import TroveCore

/// Writes object graphs as `NSKeyedArchiver` archives that Apple's `NSKeyedUnarchiver` reads.
///
/// ```swift
/// let data = try KeyedArchiver().archive(library)              // binary, root key "root"
/// let xml = try KeyedArchiver(outputFormat: .xml).archive(library)
/// ```
public struct KeyedArchiver: Sendable {
    /// `.binary` (Foundation's default) or `.xml`.
    public var outputFormat: PlistFormat
    /// Limits: ``KeyedArchiveLimits/maxDepth`` bounds how deep objects nest while they are
    /// written, and the property-list limits apply to the archive written.
    public var limits: KeyedArchiveLimits = .default
    private var classNames: [ObjectIdentifier: String] = [:]
    private var codableClassNames: [ObjectIdentifier: String] = [:]

    /// An archiver writing `outputFormat`.
    public init(outputFormat: PlistFormat = .binary) {
        self.outputFormat = outputFormat
    }

    /// Writes instances of `type` under `className`, without `$classes` (what Foundation's
    /// `setClassName(_:for:)` does).
    public mutating func setClassName<T: KeyedArchivable>(_ className: String, for type: T.Type) {
        classNames[ObjectIdentifier(type)] = className
    }

    /// Writes `Codable` values of `type` under `className` (by default the type's name).
    public mutating func setClassName<T: Encodable>(_ className: String, forCodable type: T.Type) {
        codableClassNames[ObjectIdentifier(type)] = className
    }

    /// The archive of `root` under the top-level key `root`, as
    /// `NSKeyedArchiver.archivedData(withRootObject:)` writes it.
    public func archive<T: ArchiveRepresentable>(_ root: T) throws -> Data {
        try write(try archivedValue(topLevel: [("root", root)]))
    }

    /// The archive of a `Codable` value under `root`, as a keyed object named `className` (by
    /// default the type's name) whose keys are the coding keys.
    ///
    /// A class instance the value refers to several times is written once, and a cycle of class
    /// instances is written as references back (which ``KeyedUnarchiver/decodeCodable(_:from:forKey:)``
    /// refuses with `archive-cycle`, `Decodable` having no way to receive an unfinished instance):
    ///
    /// ```swift
    /// let ann = Author("Ann")
    /// let data = try KeyedArchiver().archive(codable: [Book("Dune", by: ann), Book("Emma", by: ann)])
    /// let books = try KeyedUnarchiver().decodeCodable([Book].self, from: data)
    /// books[0].author === books[1].author   // true
    /// ```
    public func archive<T: Encodable>(codable root: T, className: String? = nil) throws -> Data {
        let encoder = makeEncoder()
        let field = try encoder.encodeCodableField(root, className: className)
        encoder.setField(field, forKey: "root")
        return try write(encoder.finish())
    }

    /// The archive of several top-level objects, in order (`$top` holds each key).
    public func archive(topLevel: [(String, any ArchiveRepresentable)]) throws -> Data {
        try write(try archivedValue(topLevel: topLevel))
    }

    /// A generic graph archived again: the same classes, keys and sharing.
    public func archive(_ graph: ArchiveGraph) throws -> Data {
        try archive(topLevel: graph.topLevel.map { ($0.key, $0.value as any ArchiveRepresentable) })
    }

    /// The archive as a property-list value, before it is written out.
    public func archivedValue(topLevel: [(String, any ArchiveRepresentable)]) throws -> PlistValue {
        let encoder = makeEncoder()
        for (key, value) in topLevel {
            let field = try value.encodeArchiveField(with: encoder)
            // A generic field goes back as it was read (a nib stores a top-level number in place).
            encoder.setField(value is ArchiveField ? field : field.asReference(in: encoder), forKey: key)
        }
        return encoder.finish()
    }

    func makeEncoder() -> ArchiveEncoder {
        ArchiveEncoder(classNameOverrides: classNames, codableClassNames: codableClassNames, maxDepth: limits.maxDepth)
    }

    func write(_ value: PlistValue) throws(PlistError) -> Data {
        guard outputFormat == .binary || outputFormat == .xml else {
            throw PlistError(.unsupportedValue, format: outputFormat, "keyed archives are binary or XML property lists")
        }
        return try Plist.write(value, as: outputFormat, limits: limits.plist)
    }
}

extension PlistValue {
    /// A top-level entry is always a reference: a number stored in place becomes an entry.
    func asReference(in encoder: ArchiveEncoder) -> PlistValue {
        if case .uid = self { return self }
        return .uid(UInt64(encoder.encodeScalar(self)))
    }
}

/// Reads `NSKeyedArchiver` archives into Swift types, into generic ``ArchivedObject`` graphs, or
/// into plain property lists.
///
/// ```swift
/// var unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([Note.self, Folder.self]))
/// unarchiver.allowedClasses = ["Note", "Folder", "NSArray", "NSDate"]   // secure decoding
/// let folder = try unarchiver.decode(Folder.self, from: data)
/// ```
///
/// Decoding is linear in the number of objects. Every failure is a ``PlistError`` naming the
/// class and the key path; nothing in an archive can crash or hang the process.
public struct KeyedUnarchiver: Sendable {
    /// The types classes decode to.
    public var registry: ArchiveClassRegistry
    /// When set, the only classes that may be decoded (secure decoding); any other keyed object
    /// is ``PlistError/Code/archiveClassNotAllowed``. Allowing one of Foundation's immutable
    /// classes allows its mutable subclass. Strings, numbers and data stored in place are always
    /// allowed.
    public var allowedClasses: Set<String>?
    /// Resource limits.
    public var limits: KeyedArchiveLimits

    /// An unarchiver; with no registry only generic and Foundation values decode.
    public init(
        registry: ArchiveClassRegistry = ArchiveClassRegistry(), allowedClasses: Set<String>? = nil,
        limits: KeyedArchiveLimits = .default
    ) {
        self.registry = registry
        self.allowedClasses = allowedClasses
        self.limits = limits
    }

    /// Restricts decoding to `types` (by their class names) and `classes`.
    public mutating func allow(_ types: [any KeyedArchivable.Type], classes: [String] = []) {
        allowedClasses = Set(types.map { $0.archiveClassName }).union(classes)
    }

    /// Decodes `$top[key]` of the archive in `data` as `T`. A binary archive is read in place:
    /// each object's fields are read from the bytes when the object is decoded, and no value
    /// tree of the whole archive is built.
    public func decode<T: ArchiveRepresentable>(_ type: T.Type, from data: Data, forKey key: String = "root") throws -> T {
        try withTable(data) { table in try makeDecoder(table).decodeTopLevel(T.self, key: key) }
    }

    /// Decodes `$top[key]` of `archive` as `T`.
    public func decode<T: ArchiveRepresentable>(_ type: T.Type, from archive: KeyedArchive, forKey key: String = "root") throws -> T {
        try makeDecoder(archive.table).decodeTopLevel(T.self, key: key)
    }

    /// Decodes `$top[key]` as a `Codable` type whose coding keys are the object's keys (or an
    /// `NSDictionary`'s keys). Failures are `DecodingError`s, with their coding path, wrapped in
    /// a ``PlistError`` whose key path is the same path. An object referred to several times is
    /// decoded once: a class gets one shared instance. A reference back to an object still being
    /// decoded (a cycle) is ``PlistError/Code/archiveCycle``.
    public func decodeCodable<T: Decodable>(_ type: T.Type, from data: Data, forKey key: String = "root") throws -> T {
        try withTable(data) { table in try decodeCodable(T.self, from: table, forKey: key) }
    }

    private func decodeCodable<T: Decodable>(_ type: T.Type, from table: ArchiveTable, forKey key: String) throws -> T {
        guard let field = table.topLevelValue(forKey: key) else {
            throw PlistError(.archiveMissingKey, keyPath: [.key(key)], "$top has no key \"\(key)\"")
        }
        let decoder = makeDecoder(table)
        do {
            return try decoder.withPath(.key(key)) { try decoder.decodeCodableField(T.self, field: field) }
        } catch let failure as DecodingError {
            throw PlistError(decodingError: failure, topLevelKey: key)
        }
    }

    /// Every top-level object of the archive as a generic graph (no Swift types needed).
    public func decodeGraph(from archive: KeyedArchive) throws -> ArchiveGraph {
        let decoder = makeDecoder(archive.table)
        do {
            let topLevel = try archive.topLevel.map { entry in
                (key: entry.key, value: try decoder.withPath(.key(entry.key)) { try decoder.genericField(entry.value) })
            }
            return ArchiveGraph(topLevel: topLevel, objects: decoder.genericObjects.sorted { $0.key < $1.key }.map(\.value))
        } catch {
            // Break the cycles of what was built before the failure.
            _ = ArchiveGraph(topLevel: [], objects: Array(decoder.genericObjects.values))
            throw error
        }
    }

    /// The archive as a plain property list: a dictionary of its top-level keys when it has
    /// several, or the value of its only key (normally `root`).
    public func plainValue(of archive: KeyedArchive, options: ArchivePlainOptions = ArchivePlainOptions()) throws -> PlistValue {
        let decoder = makeDecoder(archive.table)
        var converter = ArchivePlainConverter(decoder: decoder, options: options)
        var top = PlistDictionary()
        for entry in archive.topLevel {
            let value = try decoder.withPath(.key(entry.key)) { try converter.convert(entry.value) }
            top.updateValue(value ?? .string("$null"), forKey: entry.key)
        }
        if top.count == 1 { return top.values[0] }
        return .dictionary(top)
    }

    /// Runs `body` with the table of the archive in `data`: read in place when it is a binary
    /// plist, as a property list otherwise.
    ///
    /// A binary archive is read from `data`'s own bytes, not a copy: everything a decoder reads
    /// it reads while `body` runs, and a decoder kept past its call (which its documentation
    /// forbids) has no current object, so every field it is asked for is missing.
    func withTable<R>(_ data: Data, _ body: (ArchiveTable) throws -> R) throws -> R {
        guard data.withUnsafeBytes({ PlistFormat.detect($0) }) == .binary else {
            return try body(KeyedArchive(data: data, limits: limits, keepsLayout: false).table)
        }
        return try data.withUnsafeBytes { bytes in try body(try binaryTable(bytes)) }
    }

    /// The table of the binary archive in `bytes`, which it reads as objects are decoded.
    private func binaryTable(_ bytes: UnsafeRawBufferPointer) throws(PlistError) -> ArchiveTable {
        let view = try BinaryObjectView(borrowing: bytes, limits: limits.plist)
        let root = try view.object(view.topObject)
        guard root.kind == .dictionary else { throw ArchiveTable.notADictionary(root.kind) }
        // The table keeps the reader alive once made; until then, this scope does.
        let reader = BinaryArchiveReader(view: view, limits: limits)
        return try withExtendedLifetime(reader) { () throws(PlistError) in try ArchiveTable(root: reader.fields(root), limits: limits) }
    }

    func makeDecoder(_ table: ArchiveTable, acceptsTextScalars: Bool = false) -> ArchiveDecoder {
        ArchiveDecoder(
            table: table, registry: registry, allowedClasses: allowedClasses, limits: limits,
            acceptsTextScalars: acceptsTextScalars)
    }
}

extension PlistError {
    /// A ``PlistError`` reporting a `DecodingError` of a `Codable` type: its coding path becomes
    /// the key path (under the top-level key), and the error is kept as the underlying error.
    init(decodingError: DecodingError, topLevelKey: String) {
        let code: PlistError.Code
        let context: DecodingError.Context
        switch decodingError {
        case .keyNotFound(let key, let c):
            code = .archiveMissingKey
            context = DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: c.debugDescription)
        case .valueNotFound(_, let c):
            code = .archiveMissingKey
            context = c
        case .typeMismatch(_, let c):
            code = .typeMismatch
            context = c
        case .dataCorrupted(let c):
            code = .typeMismatch
            context = c
        @unknown default:
            code = .typeMismatch
            context = DecodingError.Context(codingPath: [], debugDescription: "\(decodingError)")
        }
        let components: [PlistKeyPath.Component] = [.key(topLevelKey)] + context.codingPath.map { key in
            key.intValue.map { .index($0) } ?? .key(key.stringValue)
        }
        self.init(code, keyPath: PlistKeyPath(components: components), context.debugDescription)
        underlyingError = decodingError
    }
}
