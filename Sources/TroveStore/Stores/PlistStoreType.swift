public import Foundation
public import SystemPackage
public import TroveCore
public import TroveFileIO

/// A kind of store: how a value is kept (as an XML or binary property list, a keyed archive,
/// OpenStep or JSON text, or in memory) and under which names and file extensions.
///
/// A ``PlistStore`` delegates to its store type for turning a value into bytes and back, and for
/// where those bytes live. The built-in types are registered in ``PlistStoreRegistry`` under
/// `xml1`, `binary1`, `keyed-archive`, `openstep`, `json` and `memory`; a third party adds its
/// own by conforming to this protocol and registering an instance:
///
/// ```swift
/// struct Base64PlistStoreType: PlistStoreType {
///     var name: String { "base64-binary" }
///     var fileExtensions: [String] { ["b64plist"] }
///     func recognizes(_ bytes: Data) -> Bool { bytes.starts(with: Data("YnBsaXN0".utf8)) }
///     func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot { ... }
///     func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data { ... }
/// }
/// PlistStoreRegistry.shared.register(Base64PlistStoreType())
/// ```
///
/// Types that keep bytes in files implement ``decode(_:options:)`` and ``encode(_:options:)``
/// only; reading and atomically replacing the file come from the protocol's default
/// ``read(at:options:)`` and ``write(_:to:options:)``. A type that keeps values elsewhere (the
/// in-memory type) implements those two instead.
public protocol PlistStoreType: Sendable {
    /// The name the registry knows the type by (`xml1`); unique among registered types.
    var name: String { get }

    /// File name extensions, without the dot, that a new file of this type gets and that choose
    /// this type for a path whose file does not exist yet.
    var fileExtensions: [String] { get }

    /// Whether a whole file's `bytes` hold this type's content, so that a file opened without a
    /// type is read by the right one. Cheap checks suffice: ``decode(_:options:)`` still refuses
    /// what it cannot read.
    func recognizes(_ bytes: Data) -> Bool

    /// Reads a whole file's bytes.
    ///
    /// - Throws: ``PlistError`` saying what in the bytes is wrong and where.
    func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot

    /// Writes a snapshot's value as a whole file, following the snapshot's notes where they are
    /// this type's, so that an unchanged value loaded from a file is written back unchanged.
    func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data

    /// The snapshot kept at `path`, or nil when nothing is kept there yet.
    func read(at path: String, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot?

    /// Keeps `snapshot` at `path`, replacing what was there as one step.
    func write(_ snapshot: StoreSnapshot, to path: String, options: PlistStoreOptions) throws(PlistError)
}

extension PlistStoreType {
    /// Reads the file at `path` whole and decodes it; nil when there is no file.
    public func read(at path: String, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot? {
        guard let bytes = try FileReader.readIfPresent(path, maxBytes: options.maxFileBytes) else { return nil }
        do {
            return try decode(bytes, options: options)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Encodes `snapshot` and replaces the file at `path` atomically.
    public func write(_ snapshot: StoreSnapshot, to path: String, options: PlistStoreOptions) throws(PlistError) {
        let bytes: Data
        do {
            bytes = try encode(snapshot, options: options)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFile.write(bytes, to: path, permissions: options.newFilePermissions, durability: options.durability)
    }
}

/// A value as a store type read it or will write it, with the notes the type keeps to write an
/// unchanged value back unchanged (a property list's layout, a keyed archive's object order).
public struct StoreSnapshot: Sendable {
    /// The value.
    public var value: PlistValue
    /// The name of the store type whose content this is: for a file, the type it was read as
    /// (the format detected from its content when the type reads several).
    public var typeName: String
    /// What the store type needs to write the value back as it was read, or nil for a new value.
    /// Opaque to everyone but the type that made it; it describes the content's shape, never a
    /// copy of it, so it stays valid while ``value`` changes.
    public var notes: (any Sendable)?

    /// A snapshot of `value` for the type named `typeName`.
    public init(value: PlistValue, typeName: String, notes: (any Sendable)? = nil) {
        self.value = value
        self.typeName = typeName
        self.notes = notes
    }
}

/// How stores read and write.
public struct PlistStoreOptions: Sendable {
    /// Limits and format switches for reading.
    public var read: PlistReadOptions
    /// Limits and format switches for writing.
    public var write: PlistWriteOptions
    /// Whether a save waits for the disk (``AtomicFile/Durability``).
    public var durability: AtomicFile.Durability
    /// The permission bits of a file a save creates, less the umask (an existing file keeps its
    /// own); nil for ``AtomicFile/defaultPermissions`` (0644). Private files use `.ownerReadWrite`.
    public var newFilePermissions: FilePermissions?
    /// The largest file a load reads.
    public var maxFileBytes: Int

    /// The defaults: CoreFoundation's limits, layout notes kept, saves flushed to disk.
    public init(
        read: PlistReadOptions = PlistReadOptions(), write: PlistWriteOptions = PlistWriteOptions(),
        durability: AtomicFile.Durability = .flushed, newFilePermissions: FilePermissions? = nil,
        maxFileBytes: Int = FileReader.defaultMaxBytes
    ) {
        self.read = read
        self.write = write
        self.durability = durability
        self.newFilePermissions = newFilePermissions
        self.maxFileBytes = maxFileBytes
    }
}
