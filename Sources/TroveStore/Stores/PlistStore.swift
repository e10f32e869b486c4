import Foundation
import TroveCore
import TroveFileIO

/// A value kept in a file (or in memory), in one line: load it, change it, save it, and never
/// lose the file.
///
/// ```swift
/// let store = PlistStore(path: "Settings.plist")
/// var settings = try store.load() ?? ["Window": [:]]
/// try settings.replace(1024, at: "Window.Width")
/// try store.save(settings)
/// ```
///
/// **Which type.** A store opened with a type (``init(path:type:options:registry:)``) saves in
/// that type. Without one, an existing file's type is detected from its content on first use,
/// and saves keep it (and, for the property-list formats, the file's layout: an unchanged value
/// is written back byte for byte, an edit changes only what it must). A path with no file yet
/// takes the type its extension names in the registry, else `binary1`.
///
/// **Safety.** Loads read the whole file into memory, so a file changed by another process while
/// it is read gives an error or the new content, never a crash. Saves replace the file
/// atomically: a reader, or the file after a crash, has the old content or the new, never a mix.
///
/// A store is safe to use from several threads; each load and save is one step.
public final class PlistStore: @unchecked Sendable {
    /// Where the value is kept.
    public let path: String
    /// The options loads and saves use.
    public let options: PlistStoreOptions

    private let registry: PlistStoreRegistry
    private let lock = NSLock()
    /// The type given, or the one detected or chosen on first use.
    private var resolvedType: (any PlistStoreType)?
    /// Whether ``resolvedType`` was given rather than detected.
    private let typeIsFixed: Bool
    /// The snapshot last loaded or saved, whose notes a save follows.
    private var lastSnapshot: StoreSnapshot?

    /// A store for the file at `path`, of `type` or, when nil, of the type the file's content or
    /// the path's extension says.
    public init(
        path: String, type: (any PlistStoreType)? = nil, options: PlistStoreOptions = PlistStoreOptions(),
        registry: PlistStoreRegistry = .shared
    ) {
        self.path = path
        self.options = options
        self.registry = registry
        self.resolvedType = type
        self.typeIsFixed = type != nil
    }

    /// A store of the type registered as `typeName` (`"xml1"`, `"memory"`, ...).
    ///
    /// - Throws: ``PlistError`` with code ``PlistError/Code/unknownStoreType`` when no type has
    ///   that name.
    public convenience init(
        path: String, typeName: String, options: PlistStoreOptions = PlistStoreOptions(),
        registry: PlistStoreRegistry = .shared
    ) throws(PlistError) {
        guard let type = registry.type(named: typeName) else {
            throw PlistError(.unknownStoreType, "no store type is registered as \"\(typeName)\"")
        }
        self.init(path: path, type: type, options: options, registry: registry)
    }

    /// The store type loads and saves use now: the one given, or the one detected on the last
    /// load, or the one a save would choose.
    public var type: any PlistStoreType {
        lock.withLock { resolvedType ?? typeForNewFile() }
    }

    /// The value kept, or nil when nothing is kept at ``path`` yet.
    ///
    /// - Throws: ``PlistError`` naming the path: the content is not of a readable type, or it is
    ///   malformed (with the format and position), or the file cannot be read (with its `errno`).
    public func load() throws(PlistError) -> PlistValue? {
        try locked { () throws(PlistError) -> PlistValue? in try loadSnapshot()?.value }
    }

    /// The value last loaded, saved or reloaded after a change: the last good one, which a
    /// failed reload leaves in place. Nil before the first load or save.
    public var current: PlistValue? { lock.withLock { lastSnapshot?.value } }

    /// Reads the file again for a change another program made; on failure ``current`` keeps the
    /// last good value. Nil when the file is gone.
    func reload() throws(PlistError) -> PlistValue? {
        try locked { () throws(PlistError) -> PlistValue? in
            let (previous, previousType) = (lastSnapshot, resolvedType)
            do throws(PlistError) {
                if !typeIsFixed { resolvedType = nil }
                return try loadSnapshot()?.value
            } catch {
                (lastSnapshot, resolvedType) = (previous, previousType)
                throw error
            }
        }
    }

    /// Keeps `value` at ``path``, replacing what was there atomically.
    ///
    /// An existing file that was not loaded through this store is read first, so that the save
    /// keeps its type and layout.
    public func save(_ value: PlistValue) throws(PlistError) {
        try locked { () throws(PlistError) in
            if lastSnapshot == nil && !typeIsFixed { _ = try loadSnapshot() }
            let type = resolvedType ?? typeForNewFile()
            var snapshot = lastSnapshot ?? StoreSnapshot(value: value, typeName: type.name)
            snapshot.value = value
            try type.write(snapshot, to: path, options: options)
            resolvedType = type
            lastSnapshot = snapshot
        }
    }

    /// The type a save would use now: the given one, else the one detected from an existing
    /// file (read now if it was not yet), else the one a new file gets.
    func typeForSave() throws(PlistError) -> any PlistStoreType {
        try locked { () throws(PlistError) -> any PlistStoreType in
            if lastSnapshot == nil && !typeIsFixed { _ = try loadSnapshot() }
            return resolvedType ?? typeForNewFile()
        }
    }

    /// Reads the kept snapshot and settles the type from it. Called with the lock held.
    private func loadSnapshot() throws(PlistError) -> StoreSnapshot? {
        let reader: any PlistStoreType
        if let resolvedType, typeIsFixed || resolvedType is MemoryStoreType {
            reader = resolvedType
        } else if let bytes = try FileReader.readIfPresent(path, maxBytes: options.maxFileBytes) {
            guard let detected = registry.type(recognizing: bytes) else {
                throw PlistError(.unknownStoreType, "the content is not of any registered store type").inFile(path)
            }
            let snapshot: StoreSnapshot
            do {
                snapshot = try detected.decode(bytes, options: options)
            } catch {
                throw error.inFile(path)
            }
            // A type that reads several formats names the one it found; saves keep that one.
            resolvedType = registry.type(named: snapshot.typeName) ?? detected
            lastSnapshot = snapshot
            return snapshot
        } else {
            lastSnapshot = nil
            return nil
        }
        let snapshot = try reader.read(at: path, options: options)
        lastSnapshot = snapshot
        return snapshot
    }

    /// Runs `body` with the lock held, keeping its typed error.
    private func locked<T>(_ body: () throws(PlistError) -> T) throws(PlistError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The type a save to a path without a file uses.
    private func typeForNewFile() -> any PlistStoreType {
        registry.type(forPath: path) ?? FormatStoreType.binary
    }
}

extension PlistError.Code {
    /// No registered store type has the name asked for, or recognizes a file's content.
    public static let unknownStoreType = PlistError.Code("unknown-store-type")
}
