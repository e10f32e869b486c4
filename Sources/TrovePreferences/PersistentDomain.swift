import Foundation
import SystemPackage
import TroveCore
import TroveFileIO

/// One preferences domain kept in a file, shared by every ``Preferences`` of the process that
/// names it.
///
/// Reads come from a cache that is refreshed when the file's identity changes (another process
/// saved it). Writes change the cache at once and are remembered as pending changes, which a
/// flush applies onto the latest file under a `FileLock`: read, merge, write atomically. So
/// two processes that write different keys lose nothing, and a key both write ends with the value
/// of the later flush.
final class PersistentDomain: @unchecked Sendable {
    let name: String
    let path: String
    let durability: AtomicFile.Durability

    private let lock = NSLock()
    /// The file's content as last read, with the pending changes applied.
    private var cache = PlistDictionary()
    /// Changes not yet written: a value to set, or `.null` for a removal.
    private var pending = PlistDictionary()
    /// The file as last read or written; nil when it did not exist.
    private var identity: FileIdentity?
    private var hasRead = false
    /// When the file's identity was last checked.
    private var lastCheck: ContinuousClock.Instant?
    private var flushScheduled = false
    private var observers: [UUID: @Sendable (DomainChange) -> Void] = [:]
    /// The watch of the file while anyone observes the domain.
    private var watchTask: Task<Void, Never>?
    /// Where problems nobody asked about (a corrupt file moved aside, a background flush that
    /// failed) are reported.
    private var errorHandler: (@Sendable (PlistError) -> Void)?
    private var lastProblem: PlistError?

    /// How long a check of the file's identity stands for: another process's flush is seen by a
    /// read at most this long after the last check.
    static let freshness: Duration = .milliseconds(1)

    /// How long after a write the background flush runs, so that a burst of writes is one flush.
    static let coalescingDelay: DispatchTimeInterval = .milliseconds(50)

    init(name: String, path: String, durability: AtomicFile.Durability) {
        self.name = name
        self.path = path
        self.durability = durability
    }

    // MARK: Reading

    /// The value of `key`, after taking in any change another process saved.
    func value(forKey key: String) -> PlistValue? {
        let (value, changes) = lock.withLock { () -> (PlistValue?, [DomainChange]) in
            let changes = refreshIfChanged()
            return (cache[key], changes)
        }
        notify(changes)
        return value
    }

    /// Every entry, after taking in any change another process saved.
    func snapshot() -> PlistDictionary {
        let (entries, changes) = lock.withLock { () -> (PlistDictionary, [DomainChange]) in
            let changes = refreshIfChanged()
            return (cache, changes)
        }
        notify(changes)
        return entries
    }

    /// Checks the file now, whatever the last check, and notifies the observers of what changed.
    func takeInChanges() {
        let changes = lock.withLock { refreshIfChanged(force: true) }
        notify(changes)
    }

    /// Re-reads the file when its identity changed. Called with the lock held; returns the keys
    /// whose values changed, for the observers.
    private func refreshIfChanged(force: Bool = false) -> [DomainChange] {
        // A `stat` per read would cost more than the read itself; within ``freshness`` of the
        // last check the cache is taken as current.
        let clock = ContinuousClock.now
        if !force, hasRead, let lastCheck, clock - lastCheck < Self.freshness { return [] }
        lastCheck = clock
        let now = FileIdentity.of(path)
        if hasRead && now == identity { return [] }
        let base = readBase(identity: now, holdingFileLock: false)
        return replaceCache(with: base)
    }

    /// The file's entries, or an empty domain when there is no file. A file that cannot be read
    /// as a property-list dictionary is moved aside (never overwritten) and reported.
    private func readBase(identity observed: FileIdentity?, holdingFileLock: Bool) -> PlistDictionary {
        hasRead = true
        identity = observed
        guard observed != nil else { return PlistDictionary() }
        do {
            guard let bytes = try FileReader.readIfPresent(path) else {
                identity = nil
                return PlistDictionary()
            }
            return try Self.dictionary(from: bytes, path: path)
        } catch {
            report(error)
            // Another process may be replacing the file right now; decide under the file lock.
            if let moved = try? moveAsideIfStillCorrupt(holdingFileLock: holdingFileLock) { report(moved) }
            identity = FileIdentity.of(path)
            return PlistDictionary()
        }
    }

    /// Puts `base` with the pending changes applied in the cache; returns what changed.
    private func replaceCache(with base: PlistDictionary) -> [DomainChange] {
        var merged = base
        Self.apply(pending, to: &merged)
        let changes = Self.differences(from: cache, to: merged)
        cache = merged
        return changes
    }

    // MARK: Writing

    /// Sets `key` (or removes it, for nil), scheduling a flush.
    func set(_ value: PlistValue?, forKey key: String) {
        let changes = lock.withLock { () -> [DomainChange] in
            _ = refreshIfChanged()
            let old = cache[key]
            if let value, value != .null {
                cache[key] = value
                pending[key] = value
            } else {
                cache[key] = nil
                pending[key] = .null
            }
            scheduleFlush()
            return old == cache[key] ? [] : [DomainChange(key: key, value: cache[key])]
        }
        notify(changes)
    }

    /// Replaces the whole domain (every key not in `entries` is removed).
    func replaceAll(with entries: PlistDictionary) {
        let changes = lock.withLock { () -> [DomainChange] in
            _ = refreshIfChanged()
            for key in cache.keys where entries[key] == nil { pending[key] = .null }
            for (key, value) in entries { pending[key] = value }
            let old = cache
            cache = entries
            scheduleFlush()
            return Self.differences(from: old, to: entries)
        }
        notify(changes)
    }

    /// Writes the pending changes now: under the file lock, onto the latest file, atomically.
    ///
    /// - Throws: ``PlistError`` when the file cannot be locked or written. The changes stay
    ///   pending and the file is as it was.
    func flush() throws(PlistError) {
        let changes = try lock.withLockTyped { () throws(PlistError) -> [DomainChange] in
            guard !pending.isEmpty else { return [] }
            let fileLock = try Self.lockFile(of: path)
            let observed = FileIdentity.of(path)
            var base: PlistDictionary
            if hasRead && observed == identity {
                // Nobody wrote since we read: the cache less our changes is the file.
                base = cache
            } else {
                base = readBase(identity: observed, holdingFileLock: true)
                Self.apply(pending, to: &base)
            }
            try writeFile(base)
            hasRead = true
            pending = PlistDictionary()
            fileLock.unlock()
            return replaceCache(with: base)
        }
        notify(changes)
    }

    /// Runs `body` on the file's latest content under the file lock, after flushing pending
    /// changes, and writes what it returns (for migrations, which must run once across
    /// processes). Returns nil and writes nothing when `body` returns nil.
    func transform(_ body: (PlistDictionary) throws(PlistError) -> PlistDictionary?) throws(PlistError) {
        try flush()
        let changes = try lock.withLockTyped { () throws(PlistError) -> [DomainChange] in
            let fileLock = try Self.lockFile(of: path)
            let base = readBase(identity: FileIdentity.of(path), holdingFileLock: true)
            defer { fileLock.unlock() }
            guard let result = try body(base) else { return replaceCache(with: base) }
            try writeFile(result)
            return replaceCache(with: result)
        }
        notify(changes)
    }

    /// Removes the domain's file under the file lock, dropping pending changes: the domain no
    /// longer exists (`defaults delete DOMAIN`). Returns whether there was a file.
    @discardableResult
    func delete() throws(PlistError) -> Bool {
        var existed = false
        let changes = try lock.withLockTyped { () throws(PlistError) -> [DomainChange] in
            let fileLock = try Self.lockFile(of: path)
            defer { fileLock.unlock() }
            pending = PlistDictionary()
            existed = FileManager.default.fileExists(atPath: path)
            if existed, unlink(path) != 0 {
                throw PlistError.io("\(path): cannot remove", path: path, systemErrorNumber: errno)
            }
            identity = nil
            hasRead = true
            return replaceCache(with: PlistDictionary())
        }
        notify(changes)
        return existed
    }

    /// Whether the domain has a file.
    var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// Replaces the domain file with `entries` (a new file is created 0600) and notes its new
    /// identity. Called with both locks held.
    private func writeFile(_ entries: PlistDictionary) throws(PlistError) {
        let bytes = try Plist.write(.dictionary(entries), as: .binary)
        try AtomicFile.write(bytes, to: path, permissions: .ownerReadWrite, durability: durability)
        identity = FileIdentity.of(path)
    }

    /// Whether changes are waiting to be written.
    var hasPendingChanges: Bool { lock.withLock { !pending.isEmpty } }

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.coalescingDelay) { [self] in
            lock.withLock { flushScheduled = false }
            do throws(PlistError) { try flush() } catch { report(error) }
        }
    }

    // MARK: Problems

    /// Moves a file that still cannot be read aside, as `<file>.corrupt-<UTC time>`, under the
    /// file lock; returns the error that says where it went, or nil when the file is fine now.
    private func moveAsideIfStillCorrupt(holdingFileLock: Bool) throws(PlistError) -> PlistError? {
        // flock is per open file: taking it again here while the caller holds it would wait forever.
        let fileLock = holdingFileLock ? nil : try Self.lockFile(of: path)
        defer { fileLock?.unlock() }
        guard let bytes = try FileReader.readIfPresent(path) else { return nil }
        if (try? Self.dictionary(from: bytes, path: path)) != nil { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let aside = "\(path).corrupt-\(formatter.string(from: Date()))"
        guard rename(path, aside) == 0 else {
            return PlistError.io("\(path): cannot move the damaged file aside", path: path, systemErrorNumber: errno)
        }
        var error = PlistError(.corruptDomain, "the damaged preferences file was moved to \(aside); the domain starts empty")
        error.path = path
        return error
    }

    func report(_ error: PlistError) {
        lastProblem = error
        errorHandler?(error)
    }

    /// The last problem reported, if any.
    var lastError: PlistError? { lock.withLock { lastProblem } }

    func setErrorHandler(_ handler: (@Sendable (PlistError) -> Void)?) { lock.withLock { errorHandler = handler } }

    // MARK: Observers

    /// Adds an observer. The first one starts watching the file, so that another process's
    /// flush reaches observers without a read in this process.
    func addObserver(_ observer: @escaping @Sendable (DomainChange) -> Void) -> UUID {
        let id = UUID()
        let startsWatching = lock.withLock { () -> Bool in
            observers[id] = observer
            return watchTask == nil
        }
        if startsWatching { startWatching() }
        return id
    }

    /// Removes an observer; the last one stops the watch.
    func removeObserver(_ id: UUID) {
        let task = lock.withLock { () -> Task<Void, Never>? in
            observers.removeValue(forKey: id)
            guard observers.isEmpty else { return nil }
            defer { watchTask = nil }
            return watchTask
        }
        task?.cancel()
    }

    /// Watches the domain file and takes in every change (which notifies the observers). Without
    /// a watchable directory, observers still hear of changes on the next read or flush.
    private func startWatching() {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let watcher = try? FileWatcher(path: path, debounce: .milliseconds(20)) else { return }
        let task = Task.detached { [weak self] in
            for await _ in watcher {
                guard let self else { break }
                self.takeInChanges()
            }
            watcher.stop()
        }
        let keep = lock.withLock { () -> Bool in
            guard watchTask == nil, !observers.isEmpty else { return false }
            watchTask = task
            return true
        }
        if !keep {
            task.cancel()
            watcher.stop()
        }
    }

    private func notify(_ changes: [DomainChange]) {
        guard !changes.isEmpty else { return }
        let current = lock.withLock { Array(observers.values) }
        for change in changes { for observer in current { observer(change) } }
    }

    // MARK: Helpers

    /// Takes the domain's lock file (`<file>.lock`), creating the preferences directory first
    /// when it is missing.
    static func lockFile(of path: String) throws(PlistError) -> FileLock {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw PlistError.io("\(directory): cannot create the preferences directory", path: directory)
            }
        }
        return try FileLock.acquire(.exclusive, lockFile: FileLock.lockFilePath(for: path), permissions: .ownerReadWrite)
    }

    static func dictionary(from bytes: Data, path: String) throws(PlistError) -> PlistDictionary {
        let value: PlistValue
        do {
            value = try Plist.read(bytes, options: PlistReadOptions(keepsLayout: false)).value
        } catch {
            throw error.inFile(path)
        }
        guard case .dictionary(let entries) = value else {
            var error = PlistError(.corruptDomain, "a preferences file holds a dictionary, not \(value.kind)")
            error.path = path
            throw error
        }
        return entries
    }

    static func apply(_ changes: PlistDictionary, to entries: inout PlistDictionary) {
        for (key, value) in changes {
            if value == .null { entries[key] = nil } else { entries[key] = value }
        }
    }

    static func differences(from old: PlistDictionary, to new: PlistDictionary) -> [DomainChange] {
        var changes: [DomainChange] = []
        for (key, value) in new where old[key] != value { changes.append(DomainChange(key: key, value: value)) }
        for key in old.keys where new[key] == nil { changes.append(DomainChange(key: key, value: nil)) }
        return changes
    }
}

/// A key of a domain that changed, with its new value (nil when removed).
struct DomainChange: Sendable {
    var key: String
    var value: PlistValue?
}

extension PlistError.Code {
    /// A preferences file could not be read as a dictionary; it was moved aside.
    public static let corruptDomain = PlistError.Code("corrupt-domain")
}

extension NSLock {
    /// `withLock` keeping the body's typed error.
    func withLockTyped<T>(_ body: () throws(PlistError) -> T) throws(PlistError) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
