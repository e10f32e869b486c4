import Foundation
import TroveCore
import TroveFileIO

/// What happened to a watched store's file (see ``PlistStore/changes(debounce:)``).
public enum PlistStoreChange: Sendable {
    /// Another process saved the file; this is its new value, now the store's current one.
    case changed(PlistValue)
    /// The file was saved but cannot be read (a half-written file from a program that does not
    /// save atomically, or a syntax error from an editor); ``PlistStore/current`` keeps the last
    /// good value.
    case failed(PlistError)
    /// The file was deleted.
    case removed
}

extension PlistStore {
    /// The store's file as it changes: one element each time another program replaces or
    /// rewrites it (or deletes it), debounced so that an editor's save (write to a temporary,
    /// rename over the file) is one change. For hot reload of configuration files:
    ///
    /// ```swift
    /// for await change in store.changes() {
    ///     if case .changed = change, let config = try? store.load(Config.self) { apply(config) }
    /// }
    /// ```
    ///
    /// The sequence watches the file's directory (inotify on Linux, dispatch sources on Darwin,
    /// polling where neither works) until the consuming task is cancelled. A save through this
    /// store is seen as a change too. A store of the `memory` type has no file: the sequence
    /// ends at once.
    ///
    /// - Throws: ``PlistError`` when the file's directory cannot be watched.
    public func changes(debounce: Duration = FileWatcher.defaultDebounce) throws(PlistError) -> AsyncStream<PlistStoreChange> {
        guard !(type is MemoryStoreType) else { return AsyncStream { $0.finish() } }
        let watcher = try FileWatcher(path: path, debounce: debounce)
        return AsyncStream { continuation in
            let task = Task { [self] in
                for await change in watcher {
                    switch change.kind {
                    case .removed:
                        continuation.yield(.removed)
                    case .written:
                        do throws(PlistError) {
                            if let value = try reload() { continuation.yield(.changed(value)) }
                        } catch {
                            continuation.yield(.failed(error))
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                task.cancel()
                watcher.stop()
            }
        }
    }
}
