internal import AsyncAlgorithms
internal import Dispatch
internal import Foundation
public import TroveCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reports changes to one file, as an `AsyncSequence` of ``Change`` values: for reloading a
/// configuration file when another program saves it.
///
/// ```swift
/// for await change in try FileWatcher(path: "app.plist") {
///     do { config = try PlistFile.load(change.path) } catch { /* keep the last good value */ }
/// }
/// ```
///
/// Editors save by writing a temporary file and renaming it over the original, so a watch on the
/// file itself would go stale after the first save. The watcher therefore watches the file's
/// *directory* and picks out the events for the file's name: on Linux with inotify (a file
/// closed after writing, renamed into or out of place, created or deleted); on Darwin with a
/// dispatch source on the directory plus one on the file, re-armed after every replacement; and
/// elsewhere, or when the system refuses a watch, by polling the file's identity, size and
/// modification time. Bursts are debounced: a change is reported once the file has been quiet for
/// the debounce interval, so an editor's save (write, rename, maybe a backup) is one change, and
/// a file being rewritten continuously is reported when the writing stops.
///
/// A symbolic link is resolved once, when the watcher is created: the file at the end of the
/// chain is watched. One consumer iterates a watcher. Iteration ends, and the watch is removed
/// (its descriptor closed), when the consuming task is cancelled, after ``stop()``, or when the
/// watcher and its iterator go away.
public final class FileWatcher: AsyncSequence, @unchecked Sendable {
    // Unchecked: the mutable state (`backend`, `stopped`) is guarded by `lock`.

    /// One debounced change.
    public struct Change: Sendable, Hashable {
        /// What the file is like after the change.
        public enum Kind: Sendable, Hashable {
            /// The file exists: it was created, rewritten in place or replaced.
            case written
            /// The file is gone: deleted or renamed away.
            case removed
        }

        /// The path the watcher was created with.
        public let path: String
        /// Whether the file exists now.
        public let kind: Kind
    }

    /// How changes are noticed.
    public enum Method: Sendable, Hashable {
        /// The system's file events (inotify, dispatch sources), or polling every half second
        /// where they are not available.
        case automatic
        /// Compare the file's identity, size and modification time every `interval`. Works on
        /// every file system, network ones included, at the cost of the interval's delay.
        case polling(interval: Duration)
    }

    /// The debounce interval used unless told otherwise: long enough to cover the steps of one
    /// save, short enough to feel immediate.
    public static let defaultDebounce: Duration = .milliseconds(100)

    /// The path as given.
    public let path: String
    /// The file actually watched: `path`, or where its symbolic links lead.
    let target: String
    private let events: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let debounce: Duration
    private let lock = NSLock()
    private var backend: Backend?
    private var stopped = false

    /// Starts watching `path`; changes from this moment on are reported.
    ///
    /// - Parameters:
    ///   - debounce: how long the file must stay quiet before a change is reported.
    ///   - method: system events (the default) or polling.
    /// - Throws: ``PlistError/Code/io`` (with path and errno) when the file's directory does not
    ///   exist or cannot be watched.
    public init(path: String, debounce: Duration = defaultDebounce, method: Method = .automatic) throws(PlistError) {
        try SystemCall.requireNonEmpty(path)
        self.path = path
        self.debounce = debounce
        target = (try? AtomicFile.resolvedTarget(path)) ?? path
        (events, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let directory = SystemCall.directoryPart(of: target)
        switch SystemCall.status(directory) {
        case .failure(let error): throw SystemCall.failure(path, "cannot watch the directory '\(directory)'", errno: error.rawValue)
        case .success(let info) where !SystemCall.isDirectory(info):
            throw SystemCall.failure(path, "cannot watch the directory '\(directory)'", errno: ENOTDIR)
        case .success: break
        }
        let signal: @Sendable () -> Void = { [continuation] in continuation.yield(()) }
        switch method {
        case .polling(let interval):
            backend = .polling(Self.startPolling(target, interval: interval, signal: signal))
        case .automatic:
            backend = Self.startSystemWatch(target, signal: signal)
                ?? .polling(Self.startPolling(target, interval: .milliseconds(500), signal: signal))
        }
        continuation.onTermination = { [weak self] _ in self?.stop() }
    }

    deinit { stop() }

    /// Stops watching: the sequence ends and the system's watch is removed. Calling it again
    /// does nothing.
    public func stop() {
        lock.lock()
        let current = stopped ? nil : backend
        stopped = true
        backend = nil
        lock.unlock()
        current?.cancel()
        continuation.finish()
    }

    // MARK: AsyncSequence

    /// Each element is one debounced change.
    public typealias Element = Change

    /// Iterates the debounced changes; see ``FileWatcher``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let watcher: FileWatcher
        private var debounced: AsyncDebounceSequence<AsyncStream<Void>, ContinuousClock>.Iterator

        init(_ watcher: FileWatcher) {
            self.watcher = watcher
            debounced = watcher.events.debounce(for: watcher.debounce).makeAsyncIterator()
        }

        /// The next change, or nil once the watcher has stopped or the task is cancelled.
        public mutating func next() async -> Change? {
            guard await debounced.next() != nil, !Task.isCancelled else {
                watcher.stop()
                return nil
            }
            let exists: Bool
            if case .success = SystemCall.status(watcher.target) { exists = true } else { exists = false }
            return Change(path: watcher.path, kind: exists ? .written : .removed)
        }
    }

    /// The iterator; a watcher has one consumer.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(self) }

    // MARK: Backends

    private enum Backend {
        case dispatch([DispatchSourceProtocol])
        case polling(Task<Void, Never>)

        func cancel() {
            switch self {
            case .dispatch(let sources): for source in sources { source.cancel() }
            case .polling(let task): task.cancel()
            }
        }
    }

    private static func startPolling(
        _ target: String, interval: Duration, signal: @escaping @Sendable () -> Void
    ) -> Task<Void, Never> {
        let initial = FileIdentity.of(target)
        return Task.detached {
            var last = initial
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let now = FileIdentity.of(target)
                if now != last {
                    last = now
                    signal()
                }
            }
        }
    }

    private static let queue = DispatchQueue(label: "trove.file-watcher")

    #if os(Linux) || os(Android)
    /// inotify on the directory, filtered by name; nil when the system refuses (no inotify
    /// descriptors or watches left), so that the caller polls instead.
    private static func startSystemWatch(_ target: String, signal: @escaping @Sendable () -> Void) -> Backend? {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let directory = SystemCall.directoryPart(of: target)
        let name = Array(SystemCall.namePart(of: target).utf8)
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
            | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                relevant = relevant || Self.mentions(name, in: buffer[0..<count])
            }
            if relevant { signal() }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
        return .dispatch([source])
    }

    /// Whether a batch of inotify events concerns the file `name`, or the watched directory
    /// itself (removed, moved, or the watch dropped).
    private static func mentions(_ name: [UInt8], in events: ArraySlice<UInt8>) -> Bool {
        var offset = events.startIndex
        let headerSize = 16  // wd, mask, cookie, len: four 32-bit fields
        while offset + headerSize <= events.endIndex {
            func field(_ index: Int) -> UInt32 {
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(events[offset + index * 4 + $1]) << (8 * $1) }
            }
            let mask = field(1)
            let length = Int(field(3))
            let nameStart = offset + headerSize
            let nameEnd = Swift.min(nameStart + length, events.endIndex)
            let eventName = events[nameStart..<nameEnd].prefix { $0 != 0 }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_Q_OVERFLOW) != 0 { return true }
            if eventName.elementsEqual(name) { return true }
            offset = nameEnd
        }
        return false
    }
    #elseif canImport(Darwin)
    /// A dispatch source on the directory (entries added, removed or renamed) and one on the file
    /// (written, extended, deleted, renamed), the latter re-opened after each directory change,
    /// since a save by rename leaves it watching the old file.
    private static func startSystemWatch(_ target: String, signal: @escaping @Sendable () -> Void) -> Backend? {
        let directory = SystemCall.directoryPart(of: target)
        let directoryFD = open(directory, O_EVTONLY | O_CLOEXEC)
        guard directoryFD >= 0 else { return nil }
        let fileWatch = DarwinFileWatch(target: target, signal: signal)
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: directoryFD, eventMask: [.write, .delete, .rename], queue: queue)
        source.setEventHandler {
            fileWatch.rearm()
            signal()
        }
        source.setCancelHandler {
            close(directoryFD)
            fileWatch.cancel()
        }
        queue.sync { fileWatch.rearm() }
        source.resume()
        return .dispatch([source])
    }

    /// The source on the file itself; only touched on `queue`.
    private final class DarwinFileWatch: @unchecked Sendable {
        let target: String
        let signal: @Sendable () -> Void
        var source: DispatchSourceFileSystemObject?

        init(target: String, signal: @escaping @Sendable () -> Void) {
            self.target = target
            self.signal = signal
        }

        func rearm() {
            source?.cancel()
            source = nil
            let fd = open(target, O_EVTONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            let fileSource = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: fd, eventMask: [.write, .extend, .delete, .rename], queue: FileWatcher.queue)
            fileSource.setEventHandler { [signal] in signal() }
            fileSource.setCancelHandler { close(fd) }
            fileSource.resume()
            source = fileSource
        }

        func cancel() {
            source?.cancel()
            source = nil
        }
    }
    #else
    private static func startSystemWatch(_ target: String, signal: @escaping @Sendable () -> Void) -> Backend? {
        nil
    }
    #endif
}
