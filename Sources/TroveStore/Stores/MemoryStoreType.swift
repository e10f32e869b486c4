import Foundation
import TroveCore

/// `memory`: values kept in this process, under a path, instead of in files.
///
/// A ``PlistStore`` of this type behaves as a file-backed one (load, save, missing until the
/// first save) while touching no disk, which makes it the way to test code that saves settings:
/// give the code under test a store of this type, run it, and inspect what it saved.
///
/// ```swift
/// let store = PlistStore(path: "/settings.plist", type: MemoryStoreType.shared)
/// try store.save(["volume": 7])
/// try store.load()   // ["volume": 7]
/// MemoryStoreType.shared.removeAll()
/// ```
///
/// Each instance is a separate volume; ``shared`` is the one the registry's `memory` name gives.
/// Tests that run in parallel should each make their own volume (`MemoryStoreType()`) rather than
/// share ``shared``, so that one test's saves are never another's loads. TroveTesting's
/// `PlistCheck.equal(_:_:options:)` then compares what was saved with the expected value by key
/// path.
/// Bytes are only made when asked for: ``encode(_:options:)`` writes a binary property list.
public final class MemoryStoreType: PlistStoreType, @unchecked Sendable {
    private let lock = NSLock()
    private var snapshots: [String: StoreSnapshot] = [:]

    /// A new, empty volume.
    public init() {}

    /// The volume the registry names `memory`.
    public static let shared = MemoryStoreType()

    public var name: String { "memory" }
    public var fileExtensions: [String] { [] }

    /// Memory content is never found in a file.
    public func recognizes(_ bytes: Data) -> Bool { false }

    public func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot {
        let document = try Plist.read(bytes, options: options.read)
        return StoreSnapshot(value: document.value, typeName: name)
    }

    public func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data {
        try Plist.write(PlistDocument(value: snapshot.value, format: .binary), options: options.write)
    }

    public func read(at path: String, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot? {
        lock.withLock { snapshots[path] }
    }

    public func write(_ snapshot: StoreSnapshot, to path: String, options: PlistStoreOptions) throws(PlistError) {
        var kept = snapshot
        kept.typeName = name
        kept.notes = nil
        lock.withLock { snapshots[path] = kept }
    }

    /// The paths that hold a value, sorted.
    public var paths: [String] { lock.withLock { snapshots.keys.sorted() } }

    /// Forgets the value at `path`, as deleting a file would.
    public func remove(_ path: String) { _ = lock.withLock { snapshots.removeValue(forKey: path) } }

    /// Forgets every value.
    public func removeAll() { lock.withLock { snapshots.removeAll() } }
}
