import Foundation
import TroveCore

/// Reads one object's keys while a ``KeyedUnarchiver`` decodes an archive; handed to
/// ``KeyedArchivable/init(from:)``.
///
/// Every object is decoded at most once: a second reference to a finished object gets the same
/// instance (or, for a value type, an equal copy). A reference to an object whose `init(from:)`
/// is still running (a cycle) cannot be handed out by a plain ``decode(_:forKey:)``, which throws
/// ``PlistError/Code/archiveCycle``; ``decodeDeferred(_:forKey:assign:)`` hands it out as soon as
/// it is finished.
///
/// The decoder is valid only during the call it is handed to.
///
/// Its state is marked `@exclusivity(unchecked)`: a decoder runs on one thread, and no access
/// to its state spans a call that could reach the same state again, so the dynamic checks,
/// paid on every field of every object, would only cost time.
public final class ArchiveDecoder {
    /// What state an entry of `$objects` is in. A finished instance is kept as itself and a
    /// finished value by its index in ``doneValues``, so that a state is two words: reading one
    /// back, which every further reference to an object does, is a pointer load, not the copy of
    /// an existential.
    enum EntryState {
        case notStarted
        case inProgress
        case doneObject(AnyObject)
        case doneValue(Int)
    }

    /// What a reference leads to.
    enum Resolved {
        /// `$null`.
        case null
        /// A string, number, data (or any other plain value) stored in place in `$objects`.
        case inline(PlistValue)
        /// A keyed object: its entry, its class and its fields.
        case object(Int, ArchiveClass, ArchiveFields)
    }

    let table: ArchiveTable
    let registry: ArchiveClassRegistry
    /// The classes secure decoding allows; widened while a Foundation class reads the keys it
    /// decodes itself (see `allowing(_:_:)`).
    @exclusivity(unchecked) var allowedClasses: Set<String>?
    /// Whether any class may be decoded (no allowed set): widening a set never makes one.
    private let decodesAnyClass: Bool
    let limits: KeyedArchiveLimits
    /// Whether numbers, booleans and dates may arrive as strings (a keyed dictionary tree read
    /// back from OpenStep text, where every scalar is a string) and data as base64 (from JSON).
    let acceptsTextScalars: Bool

    @exclusivity(unchecked) var states: [EntryState]
    /// The type ``isInstanceType(_:)`` was last asked about, and its answer.
    @exclusivity(unchecked) private var lastStoredType: (type: ObjectIdentifier, isClass: Bool)?
    /// The finished values (not instances) that ``states`` refer to, with the type each was
    /// decoded as: a value asked for again as that type needs one cast, not a test and a cast.
    @exclusivity(unchecked) private var doneValues: [(type: ObjectIdentifier, value: Any)] = []
    /// Deferred decodes parked on an entry in progress, with the entry of the object that asked
    /// (nil at the top level): if that object's `init(from:)` fails, its requests are dropped,
    /// so no callback outlives the instance it would assign to.
    @exclusivity(unchecked) private var waiting: [Int: [(owner: Int?, retry: () throws -> Void)]] = [:]
    /// The entry a plain decode found in progress, for ``decodeDeferred(_:forKey:assign:)``.
    @exclusivity(unchecked) private var lastBlocker: Int?
    /// The key path from the top-level key to the value being decoded.
    @usableFromInline @exclusivity(unchecked) var path: [PlistKeyPath.Component] = []
    /// The object whose `init(from:)` is running (its class record is the table's: see
    /// ``currentRecord``), saved and restored around every object. Its fields are kept as their
    /// two forms rather than as an ``ArchiveFields``: an object of a binary archive then holds
    /// nothing that needs reference counting, and every field lookup reads the binary form
    /// without copying an enum that may hold a dictionary.
    struct CurrentObject {
        /// The entry, or -1 outside any object.
        var uid: Int
        var binary: BinaryFields?
        var values: PlistDictionary?

        static var none: CurrentObject { CurrentObject(uid: -1, binary: nil, values: nil) }

        var fields: ArchiveFields? {
            if let binary { return ArchiveFields(.binary(binary)) }
            return values.map { ArchiveFields(.values($0)) }
        }
    }
    @exclusivity(unchecked) private var current = CurrentObject.none
    /// The reader of a binary archive read in place, held here so that a lookup reaches it
    /// without retaining it (``BinaryFields`` holds it unowned).
    private let binaryReader: BinaryArchiveReader?
    /// Which type decodes a class record when a given type is asked for.
    struct ConcreteTypeKey: Hashable {
        let slot: Int32
        let asked: ObjectIdentifier
    }
    @exclusivity(unchecked) private var concreteTypes: [ConcreteTypeKey: any KeyedArchivable.Type] = [:]
    /// The type the class record of each slot was last asked for as, and what decoded it.
    @exclusivity(unchecked) private var lastConcreteType: [(asked: ObjectIdentifier, type: any KeyedArchivable.Type)?]
    /// The fields of the object whose `init(from:)` is running.
    var currentFields: ArchiveFields? { current.fields }
    /// The class record of the object whose `init(from:)` is running.
    private var currentRecord: ArchiveClassRecord? {
        guard current.uid >= 0 else { return nil }
        return table.classes[Int(table.classIndex[current.uid])].record
    }
    /// For each class record, which ``FoundationFamily``s it was checked against (even bits) and
    /// belongs to (odd bits).
    @exclusivity(unchecked) private var familyMemo: [UInt32]
    /// Objects decoded without a Swift type (``ArchivedObject``), by entry.
    @exclusivity(unchecked) var genericObjects: [Int: ArchivedObject] = [:]

    init(
        table: ArchiveTable, registry: ArchiveClassRegistry, allowedClasses: Set<String>?,
        limits: KeyedArchiveLimits, acceptsTextScalars: Bool = false
    ) {
        self.table = table
        self.registry = registry
        self.allowedClasses = allowedClasses.map(ArchiveClassRegistry.expandingFoundationSubclasses)
        decodesAnyClass = allowedClasses == nil
        self.limits = limits
        self.acceptsTextScalars = acceptsTextScalars
        self.states = Array(repeating: .notStarted, count: table.objects.count)
        self.lastConcreteType = Array(repeating: nil, count: table.classes.count)
        self.familyMemo = Array(repeating: 0, count: table.classes.count)
        if case .binary(let reader, _) = table.objects { binaryReader = reader } else { binaryReader = nil }
    }

    // MARK: - Public API

    /// `$classname` of the object being decoded.
    public var className: String { currentRecord?.name ?? "" }

    /// The class and its superclasses as the archive lists them (`$classes`).
    public var classChain: [String] { currentRecord?.chain ?? [] }

    /// The keys the archive holds for the object, unescaped, in the archive's order (none when
    /// a key of a binary archive is malformed; decoding any key reports that).
    public var allKeys: [String] {
        guard let keys = try? current.fields?.keys() else { return [] }
        return keys.compactMap { key in
            if key == "$class" { return nil }
            if key.hasPrefix("$$") { return String(key.dropFirst()) }
            return key.hasPrefix("$") ? nil : key
        }
    }

    /// Whether the archive holds a value for `key` (`$null` counts as a value, as in Foundation).
    public func containsValue(forKey key: String) -> Bool {
        rawField(forKey: key) != nil
    }

    /// The value stored for `key` as it is in the archive (references as ``PlistValue/uid(_:)``),
    /// or nil; nil too when the stored value of a binary archive is malformed, which the
    /// `decode` methods report as an error.
    public func rawField(forKey key: String) -> PlistValue? {
        try? field(forKey: key)
    }

    /// The value stored for `key`, or nil; a malformed stored value is an error.
    @usableFromInline
    func field(forKey key: String) throws(PlistError) -> PlistValue? {
        do {
            // Only a key starting with `$` is stored escaped; others are looked up as they are.
            if let binary = current.binary, let binaryReader {
                // Two calls rather than one with a chosen key: the key passed on as it came needs
                // no copy of its own.
                if key.utf8.first == UInt8(ascii: "$") { return try binaryReader.value(forKey: "$" + key, in: binary) }
                return try binaryReader.value(forKey: key, in: binary)
            }
            guard let values = current.values else { return nil }
            return key.utf8.first == UInt8(ascii: "$") ? values["$" + key] : values[key]
        } catch {
            throw located(error, at: path + [.key(key)])
        }
    }

    /// A file-level error met while reading a field, given the key path it was met at.
    func located(_ error: PlistError, at keyPath: [PlistKeyPath.Component]) -> PlistError {
        var located = error
        if located.keyPath == nil { located.keyPath = PlistKeyPath(components: keyPath) }
        return located
    }

    /// Decodes the value for `key`. A missing key, or one that holds `$null`, is
    /// ``PlistError/Code/archiveMissingKey``; a value of another type is
    /// ``PlistError/Code/typeMismatch``; both name the class and the key path.
    // Inlinable, as `Array`'s decoding is, so that asking for `[Node]` runs code specialized for
    // `Node` in the caller's module: unspecialized, each array decoded costs the runtime's
    // metadata lookups for its type, about a tenth of decoding an object graph.
    @inlinable
    public func decode<T: ArchiveRepresentable>(_ type: T.Type, forKey key: String) throws -> T {
        guard let field = try field(forKey: key) else {
            throw missingKey(key, T.self, detail: "is not in the archive")
        }
        if case .uid(0) = field { throw missingKey(key, T.self, detail: "holds $null") }
        return try withPath(.key(key)) { try T.decodeArchiveField(field, with: self) }
    }

    /// Decodes the value for `key`, or nil when the key is missing or holds `$null`. A value of
    /// another type is still an error.
    @inlinable
    public func decodeIfPresent<T: ArchiveRepresentable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let field = try field(forKey: key) else { return nil }
        if case .uid(0) = field { return nil }
        return try withPath(.key(key)) { try T.decodeArchiveField(field, with: self) }
    }

    /// Decodes a `Codable` value written by ``ArchiveEncoder/encodeCodable(_:forKey:className:)``,
    /// or any archived object or Foundation collection whose keys match the type's coding keys.
    /// Errors are `DecodingError`s with the coding path, wrapped in a ``PlistError``.
    public func decodeCodable<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
        guard let field = try field(forKey: key) else {
            throw missingKey(key, T.self, detail: "is not in the archive")
        }
        return try withPath(.key(key)) { try decodeCodableField(T.self, field: field) }
    }

    /// Decodes the value for `key` and hands it to `assign` as soon as every object it needs is
    /// finished: at once when nothing it refers to is still being decoded, otherwise right after
    /// the `init(from:)` of the object that closes the cycle returns, before that object is
    /// handed to anyone. A missing key or `$null` assigns nil.
    ///
    /// This is how cycles resolve: a child decodes its parent pointer with this call, and the
    /// parent, whose `init(from:)` is still decoding its children, is assigned once it is done.
    public func decodeDeferred<T: ArchiveRepresentable>(
        _ type: T.Type, forKey key: String, assign: @escaping (T?) -> Void
    ) throws {
        guard let field = try field(forKey: key), field != .uid(0) else {
            assign(nil)
            return
        }
        let savedPath = path + [.key(key)]
        let savedCurrent = current
        func attempt() throws {
            do {
                lastBlocker = nil
                assign(try T.decodeArchiveField(field, with: self))
            } catch let error as PlistError where error.code == .archiveCycle {
                guard let blocker = lastBlocker, case .inProgress = states[blocker] else { throw error }
                let retry: () throws -> Void = { [unowned self] in
                    let (outerPath, outerCurrent) = (self.path, self.current)
                    (self.path, self.current) = (savedPath, savedCurrent)
                    defer { (self.path, self.current) = (outerPath, outerCurrent) }
                    try attempt()
                }
                waiting[blocker, default: []].append((owner: savedCurrent.uid >= 0 ? savedCurrent.uid : nil, retry: retry))
            }
        }
        let outerPath = path
        path = savedPath
        defer { path = outerPath }
        try attempt()
    }

    // MARK: - Resolution

    /// Follows a field to what it refers to; a field that is not a reference is returned as
    /// `.inline` (numbers and booleans are stored in place).
    func resolve(_ field: PlistValue) throws(PlistError) -> Resolved {
        guard case .uid(let uid) = field else { return .inline(field) }
        return try resolve(reference: uid)
    }

    func resolve(reference uid: UInt64) throws(PlistError) -> Resolved {
        if uid == 0 { return .null }
        let objects = table.objects
        guard uid < UInt64(objects.count) else {
            throw error(.archiveBadReference, "reference \(uid) is past the \(objects.count) entries of $objects")
        }
        let index = Int(uid)
        let classSlot = table.classIndex[index]
        guard classSlot >= 0 else {
            let value: PlistValue?
            do {
                value = try objects.inlineValue(index)
            } catch {
                throw located(error, at: path)
            }
            guard let value else { throw error(.archiveBadClass, "object \(index) is a dictionary without $class") }
            return .inline(value)
        }
        let record = table.classes[Int(classSlot)]
        try checkAllowed(record)
        guard let fields = try objects.fields(index) else {
            throw error(.archiveBadClass, "object \(index) is not a dictionary")
        }
        return .object(index, record, fields)
    }

    /// The string entry `reference` is, when it is a readable string stored in place; nil
    /// otherwise (the general path then decodes it and reports what is wrong).
    func storedString(_ reference: UInt64) -> String? {
        guard reference > 0, reference < UInt64(table.classIndex.count), table.classIndex[Int(reference)] < 0 else { return nil }
        return try? table.objects.string(Int(reference))
    }

    /// Whether the class record in `slot` names one of `family`'s classes in its chain.
    func isMember(_ slot: Int32, of family: FoundationFamily) -> Bool {
        let memo = familyMemo[Int(slot)]
        let shift = UInt32(2 * family.index)
        if memo >> shift & 1 == 1 { return memo >> (shift + 1) & 1 == 1 }
        let member = table.classes[Int(slot)].chain.contains(where: family.classes.contains)
        familyMemo[Int(slot)] = memo | 1 << shift | (member ? 1 << (shift + 1) : 0)
        return member
    }

    func checkAllowed(_ record: ArchiveClass) throws(PlistError) {
        guard !decodesAnyClass, let allowedClasses, !allowedClasses.contains(record.name) else { return }
        throw error(
            .archiveClassNotAllowed,
            "class \(record.name) is not among the allowed classes (\(allowedClasses.sorted().joined(separator: ", ")))")
    }

    /// Decodes a keyed object as `T`, through the type the registry maps its class to when that
    /// type is a `T`, or as `T` itself when its class chain names `T`'s class.
    func decodeObject<T: KeyedArchivable>(_ type: T.Type, field: PlistValue) throws -> T {
        if T.self == ArchivedObject.self { return try genericObject(field: field) as! T }
        guard case .uid(let reference) = field else {
            throw error(.typeMismatch, "expected a reference to a \(T.archiveClassName) object, found \(field.kind)")
        }
        return try decodeEntry(reference, as: T.self) { index, record, fields in
            let concrete = try self.concreteType(for: record, slot: self.table.classIndex[index], as: T.self, entry: index)
            // Most objects decode as the type asked for: then `T`'s own init runs, and no
            // existential is made and cast back.
            if concrete == T.self { return try self.runInit(T.self, entry: index, record: record, fields: fields) }
            let decoded = try self.runInit(concrete, entry: index, record: record, fields: fields)
            // `is` and `as!`, not `as?`: in this unspecialized code an optional of `T` costs a
            // metadata lookup per object.
            guard decoded is T else {
                throw self.error(.typeMismatch, "object \(index) of class \(record.name) decoded as \(concrete), not \(T.self)")
            }
            return decoded as! T
        }
    }

    /// Decodes entry `reference` once, caching the result: `build` runs for a keyed object not
    /// decoded yet, with the entry marked in progress; a value stored in place is an error.
    func decodeEntry<T>(
        _ reference: UInt64, as type: T.Type, _ build: (Int, ArchiveClass, ArchiveFields) throws -> T
    ) throws -> T {
        try decodeEntry(reference, as: T.self, inline: { value in throw self.notAnObject(value, T.self, describing: nil) }, build)
    }

    /// The error for a value stored in place where an object of `type` was expected.
    func notAnObject<T>(_ value: PlistValue, _ type: T.Type, describing: String?) -> PlistError {
        error(.typeMismatch, "expected \(describing ?? Self.typeName(T.self)), found \(Self.describe(value))")
    }

    /// Decodes entry `reference` once, caching the result: `inline` reads a value stored in
    /// place, `build` runs for a keyed object not decoded yet, with the entry marked in progress.
    /// (Both closures are plain parameters, not optional ones: an optional closure escapes, and
    /// its context would be allocated on every call.)
    func decodeEntry<T>(
        _ reference: UInt64, as type: T.Type,
        inline: (PlistValue) throws -> T,
        _ build: (Int, ArchiveClass, ArchiveFields) throws -> T
    ) throws -> T {
        // An object decoded before is handed out again without reading its entry; with an
        // allowed set, the full path checks its class again (the set may have narrowed).
        if decodesAnyClass, reference < UInt64(states.count) {
            switch states[Int(reference)] {
            case .doneObject(let object):
                if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) { return unsafeBitCast(object, to: T.self) }
                if object is T { return object as! T }
            case .doneValue(let slot):
                if doneValues[slot].type == ObjectIdentifier(T.self) || doneValues[slot].value is T {
                    return doneValues[slot].value as! T
                }
            default:
                break
            }
        }
        switch try resolve(reference: reference) {
        case .null:
            throw error(.archiveMissingKey, "expected \(Self.typeName(T.self)), found $null")
        case .inline(let value):
            return try inline(value)
        case .object(let index, let record, let fields):
            switch states[index] {
            case .doneObject(let object):
                if object is T { return object as! T }
                throw error(
                    .typeMismatch,
                    "object \(index) of class \(record.name) was decoded as \(Swift.type(of: object)), not \(Self.typeName(T.self))")
            case .doneValue(let slot):
                if doneValues[slot].type == ObjectIdentifier(T.self) || doneValues[slot].value is T {
                    return doneValues[slot].value as! T
                }
                // A value (not an instance) decoded before as another type is decoded again:
                // Foundation shares equal arrays, so one entry may be `[String]` in one place
                // and `[PlistValue]` in another.
                return try build(index, record, fields)
            case .inProgress:
                lastBlocker = index
                throw error(
                    .archiveCycle,
                    "object \(index) of class \(record.name) refers back to itself through the objects it holds; decode this reference with decodeDeferred")
            case .notStarted:
                guard path.count < limits.maxDepth else {
                    throw error(.depthLimit, "objects nest more than \(limits.maxDepth) deep (KeyedArchiveLimits.maxDepth)")
                }
                states[index] = .inProgress
                let value: T
                do {
                    value = try build(index, record, fields)
                } catch {
                    states[index] = .notStarted
                    dropRequests(of: index)
                    throw error
                }
                // An instance of a class type is kept as itself; anything else (a class-bound
                // existential too, which the size test alone would let through) as a value.
                if MemoryLayout<T>.size == MemoryLayout<AnyObject>.size, isInstanceType(T.self) {
                    states[index] = .doneObject(unsafeBitCast(value, to: AnyObject.self))
                } else {
                    states[index] = .doneValue(doneValues.count)
                    doneValues.append((ObjectIdentifier(T.self), value))
                }
                if !waiting.isEmpty, let callbacks = waiting.removeValue(forKey: index) {
                    for callback in callbacks { try callback.retry() }
                }
                return value
            }
        }
    }

    /// Whether `type` is a class (its values are instances, kept as themselves). Asked of the
    /// static type, which needs no look at the value; the answer is remembered for the last type
    /// asked about, since the runtime's check is a conformance lookup.
    private func isInstanceType<T>(_ type: T.Type) -> Bool {
        if let last = lastStoredType, last.type == ObjectIdentifier(T.self) { return last.isClass }
        let isClass = T.self is AnyClass
        lastStoredType = (ObjectIdentifier(T.self), isClass)
        return isClass
    }

    /// Forgets the deferred decodes an object whose `init(from:)` failed had parked.
    private func dropRequests(of owner: Int) {
        guard !waiting.isEmpty else { return }
        for (blocker, requests) in waiting {
            let kept = requests.filter { $0.owner != owner }
            if kept.count != requests.count { waiting[blocker] = kept.isEmpty ? nil : kept }
        }
    }

    /// The type that decodes class record `slot` as a `T`, remembered per record and asked type,
    /// so that the registry and the class chain are consulted once per class, not per object.
    private func concreteType<T: KeyedArchivable>(
        for record: ArchiveClass, slot: Int32, as type: T.Type, entry: Int
    ) throws -> any KeyedArchivable.Type {
        let asked = ObjectIdentifier(T.self)
        // Most classes are only ever asked for as one type: that answer is kept by slot, without
        // hashing.
        if let last = lastConcreteType[Int(slot)], last.asked == asked { return last.type }
        let key = ConcreteTypeKey(slot: slot, asked: asked)
        let found: any KeyedArchivable.Type
        if let known = concreteTypes[key] {
            found = known
        } else {
            found = try lookUpConcreteType(for: record, as: T.self, entry: entry)
            concreteTypes[key] = found
        }
        lastConcreteType[Int(slot)] = (asked, found)
        return found
    }

    private func lookUpConcreteType<T: KeyedArchivable>(
        for record: ArchiveClass, as type: T.Type, entry: Int
    ) throws -> any KeyedArchivable.Type {
        if let registered = registry.type(for: record.record), registered is T.Type { return registered }
        if record.chain.contains(T.archiveClassName) || registry.names(of: T.self).contains(where: record.chain.contains) {
            return T.self
        }
        if let registered = registry.type(for: record.record) {
            throw error(
                .typeMismatch, "object \(entry) of class \(record.name) decodes as \(registered), not \(T.self)")
        }
        throw error(
            .archiveUnknownClass,
            "object \(entry) of class \(record.name) (\(record.chain.joined(separator: " < "))) is not a \(T.archiveClassName), and no registered type decodes it")
    }

    private func runInit(
        _ type: any KeyedArchivable.Type, entry: Int, record: ArchiveClass, fields: ArchiveFields
    ) throws -> any KeyedArchivable {
        func run<U: KeyedArchivable>(_ type: U.Type) throws -> any KeyedArchivable {
            try runInit(U.self, entry: entry, record: record, fields: fields)
        }
        return try run(type)
    }

    private func runInit<T: KeyedArchivable>(
        _ type: T.Type, entry: Int, record: ArchiveClass, fields: ArchiveFields
    ) throws -> T {
        let outer = current
        current = CurrentObject(uid: entry, fields: fields)
        defer { current = outer }
        do {
            return try type.init(from: self)
        } catch let failure as PlistError {
            throw failure
        } catch {
            var wrapped = self.error(.archiveObjectFailed, "\(record.name) (decoded as \(type)) failed: \(error)")
            wrapped.underlyingError = error
            throw wrapped
        }
    }

    // MARK: - Helpers for conformances

    /// What a field holds in place, following a reference to a value stored in place in
    /// `$objects` (Foundation stores `NS.string` and `NS.data` either way); nil for `$null` or
    /// a keyed object.
    func plainField(_ field: PlistValue?) throws(PlistError) -> PlistValue? {
        guard let field else { return nil }
        guard case .uid(let reference) = field else { return field }
        if case .inline(let value) = try resolve(reference: reference) { return value }
        return nil
    }

    /// Runs `body` with `component` appended to the key path.
    @usableFromInline
    func withPath<R>(_ component: PlistKeyPath.Component, _ body: () throws -> R) throws -> R {
        path.append(component)
        defer { path.removeLast() }
        return try body()
    }

    /// An error at the current key path.
    func error(_ code: PlistError.Code, _ message: String) -> PlistError {
        .archive(code, message, at: path)
    }

    @usableFromInline
    func missingKey(_ key: String, _ type: Any.Type, detail: String) -> PlistError {
        .archive(
            .archiveMissingKey, "key \"\(key)\" of \(currentRecord?.name ?? "the archive") \(detail) (expected \(Self.typeName(type)))",
            at: path + [.key(key)])
    }

    static func typeName(_ type: Any.Type) -> String {
        if let archivable = type as? any KeyedArchivable.Type { return archivable.archiveClassName }
        return String(describing: type)
    }

    static func describe(_ value: PlistValue) -> String {
        switch value {
        case .string(let s): return "the string \"\(s.prefix(40))\""
        case .integer(let i): return "the integer \(i)"
        case .real(let r): return "the real \(r)"
        case .bool(let b): return "the boolean \(b)"
        default: return value.kind.rawValue
        }
    }

    /// Runs top-level decoding of `$top[key]`.
    func decodeTopLevel<T: ArchiveRepresentable>(_ type: T.Type, key: String) throws -> T {
        guard let field = table.topLevelValue(forKey: key) else {
            throw PlistError(.archiveMissingKey, keyPath: [.key(key)], "$top has no key \"\(key)\"")
        }
        path = [.key(key)]
        defer { path = [] }
        if field == .uid(0) {
            throw PlistError(.archiveMissingKey, keyPath: [.key(key)], "$top entry \"\(key)\" is $null")
        }
        return try T.decodeArchiveField(field, with: self)
    }
}

extension ArchiveDecoder.CurrentObject {
    init(uid: Int, fields: ArchiveFields) {
        switch fields.storage {
        case .binary(let binary): self.init(uid: uid, binary: binary, values: nil)
        case .values(let values): self.init(uid: uid, binary: nil, values: values)
        }
    }
}
