import Foundation
import TroveCore
import TroveFileIO

/// A `UserDefaults`-style view of preference domains: typed reads through a search list, writes
/// to the application's domain, kept in binary property lists that several processes can write at
/// once without losing each other's changes.
///
/// ```swift
/// let preferences = Preferences(suiteName: "com.example.editor")
/// preferences.register(defaults: ["FontSize": 13])
/// preferences.set(15, forKey: "FontSize")
/// preferences.integer(forKey: "FontSize")     // 15
/// try preferences.synchronize()               // or let the coalesced flush write it
/// ```
///
/// **Search list**, highest first: the argument domain (`-key value` pairs of the command line),
/// volatile domains set by ``setVolatileDomain(_:forName:)``, the application domain (the suite,
/// or the process's name), the global domain (`NSGlobalDomain`, `.GlobalPreferences.plist`),
/// and the registration domain (``register(defaults:)``).
///
/// **Writes** change the value at once for every reader in the process and are written soon after
/// (within ``PersistentDomain/coalescingDelay``, a burst of writes as one), on ``synchronize()``,
/// and at process exit. A write is a read-merge-write of the latest file under an advisory lock:
/// only the keys this process changed are applied, so processes writing different keys lose
/// nothing, and the file is replaced atomically. Other processes' changes are seen on the next
/// read (the file's identity is checked with one `stat`, at most once a millisecond), and by
/// observers as they happen (the file is watched while a domain has observers).
///
/// A damaged preferences file is never overwritten: it is moved aside as
/// `<domain>.plist.corrupt-<time>`, the error is reported through ``onError(_:)``, and the domain
/// starts empty.
public final class Preferences: @unchecked Sendable {
    /// Where the domain files are.
    public let location: PreferencesLocation
    /// The domain writes go to: the suite, or the application's.
    public let domainName: String

    private let application: PersistentDomain
    private let global: PersistentDomain
    private let lock = NSLock()
    private var arguments: PlistDictionary
    private var registration = PlistDictionary()
    private var volatileDomains: [(name: String, entries: PlistDictionary)] = []

    /// The preferences of this process's application domain (its process name), in the default
    /// location, with this process's command-line arguments.
    public static let standard = Preferences()

    /// Preferences for the domain `suiteName` (the process's name when nil), kept in `directory`
    /// (see ``PreferencesLocation``), with the argument domain read from `arguments`.
    public init(
        suiteName: String? = nil, directory: String? = nil, arguments: [String] = CommandLine.arguments,
        durability: AtomicFile.Durability = .unflushed
    ) {
        location = PreferencesLocation(directory: directory)
        let name = suiteName.flatMap { $0.isEmpty ? nil : $0 } ?? ProcessInfo.processInfo.processName
        domainName = name
        application = DomainCache.shared.domain(named: name, at: location, durability: durability)
        global = DomainCache.shared.domain(named: PreferencesLocation.globalDomainName, at: location, durability: durability)
        self.arguments = ArgumentDomain.parse(Array(arguments.dropFirst()))
    }

    // MARK: - Reading through the search list

    /// The value of `key` in the first domain of the search list that has it.
    public func value(forKey key: String) -> PlistValue? {
        let (argumentValue, volatile, registered) = lock.withLock {
            (arguments[key], volatileDomains.lazy.compactMap { $0.entries[key] }.first, registration[key])
        }
        if let argumentValue { return argumentValue }
        if let volatile { return volatile }
        if let value = application.value(forKey: key) { return value }
        if domainName != PreferencesLocation.globalDomainName, let value = global.value(forKey: key) { return value }
        return registered
    }

    /// `value(forKey:)` by subscript; setting writes the application domain (nil removes).
    public subscript(key: String) -> PlistValue? {
        get { value(forKey: key) }
        set { set(newValue, forKey: key) }
    }

    /// The string, or a number in decimal; nil for other kinds.
    public func string(forKey key: String) -> String? { PreferenceConversions.string(value(forKey: key)) }
    /// The integer, a real truncated, a boolean as 0 or 1, or a string's leading number; else 0.
    public func integer(forKey key: String) -> Int { PreferenceConversions.integer(value(forKey: key)) }
    /// The number, a boolean as 0 or 1, or a string's leading number; else 0.
    public func double(forKey key: String) -> Double { PreferenceConversions.double(value(forKey: key)) }
    /// ``double(forKey:)`` as a `Float`.
    public func float(forKey key: String) -> Float { Float(PreferenceConversions.double(value(forKey: key))) }
    /// The boolean, a non-zero number, or a string that says `YES`, `true` or a non-zero number.
    public func bool(forKey key: String) -> Bool { PreferenceConversions.bool(value(forKey: key)) }
    /// A URL from a string: with a scheme as it is, else a file path (`~` expanded).
    public func url(forKey key: String) -> URL? { PreferenceConversions.url(value(forKey: key)) }
    /// The array, or nil.
    public func array(forKey key: String) -> [PlistValue]? { value(forKey: key)?.arrayValue }
    /// The dictionary, or nil.
    public func dictionary(forKey key: String) -> PlistDictionary? { value(forKey: key)?.dictionaryValue }
    /// The array when every element is a string, or nil.
    public func stringArray(forKey key: String) -> [String]? { PreferenceConversions.stringArray(value(forKey: key)) }
    /// The data, or nil.
    public func data(forKey key: String) -> Data? {
        guard case .data(let bytes)? = value(forKey: key) else { return nil }
        return bytes
    }
    /// The date, or nil.
    public func date(forKey key: String) -> Date? {
        guard case .date(let date)? = value(forKey: key) else { return nil }
        return date.date
    }

    /// Every key the search list resolves, with the value it resolves to.
    public func dictionaryRepresentation() -> PlistDictionary {
        var merged = lock.withLock { registration }
        func overlay(_ entries: PlistDictionary) { for (key, value) in entries { merged[key] = value } }
        if domainName != PreferencesLocation.globalDomainName { overlay(global.snapshot()) }
        overlay(application.snapshot())
        let (volatile, argumentEntries) = lock.withLock { (volatileDomains, arguments) }
        for domain in volatile.reversed() { overlay(domain.entries) }
        overlay(argumentEntries)
        return merged
    }

    // MARK: - Writing the application domain

    /// Sets `key` in the application domain; nil (or `.null`) removes it.
    public func set(_ value: PlistValue?, forKey key: String) { application.set(value, forKey: key) }
    /// Sets an integer.
    public func set(_ value: Int, forKey key: String) { set(.integer(PlistInteger(value)), forKey: key) }
    /// Sets a real.
    public func set(_ value: Double, forKey key: String) { set(.real(PlistReal(value)), forKey: key) }
    /// Sets a real kept as 32 bits.
    public func set(_ value: Float, forKey key: String) { set(.real(PlistReal(value)), forKey: key) }
    /// Sets a boolean.
    public func set(_ value: Bool, forKey key: String) { set(.bool(value), forKey: key) }
    /// Sets a string.
    public func set(_ value: String, forKey key: String) { set(.string(value), forKey: key) }
    /// Sets a date.
    public func set(_ value: Date, forKey key: String) { set(.date(PlistDate(value)), forKey: key) }
    /// Sets data.
    public func set(_ value: Data, forKey key: String) { set(.data(value), forKey: key) }
    /// Sets a URL: a file URL as its path (`~` for the home directory), others as their text.
    public func set(_ value: URL, forKey key: String) { set(PreferenceConversions.storedValue(for: value), forKey: key) }

    /// Removes `key` from the application domain.
    public func removeObject(forKey key: String) { set(nil, forKey: key) }

    /// Writes the pending changes of the application and global domains now.
    ///
    /// - Throws: ``PlistError`` naming the file when it cannot be locked or written; the changes
    ///   stay pending and the file is as it was.
    public func synchronize() throws(PlistError) {
        try application.flush()
        try global.flush()
    }

    // MARK: - Other domains

    /// Adds defaults below every other domain; later registrations of a key win.
    public func register(defaults: PlistDictionary) {
        lock.withLock { for (key, value) in defaults { registration[key] = value } }
    }

    /// The domain the registration calls built.
    public var registrationDomain: PlistDictionary { lock.withLock { registration } }

    /// The argument domain.
    public var argumentDomain: PlistDictionary { lock.withLock { arguments } }

    /// Sets (or replaces) a volatile domain: searched after the argument domain, in the order set.
    public func setVolatileDomain(_ entries: PlistDictionary, forName name: String) {
        lock.withLock {
            if let index = volatileDomains.firstIndex(where: { $0.name == name }) {
                volatileDomains[index].entries = entries
            } else {
                volatileDomains.append((name, entries))
            }
        }
    }

    /// The volatile domain `name`, or nil.
    public func volatileDomain(forName name: String) -> PlistDictionary? {
        lock.withLock { volatileDomains.first { $0.name == name }?.entries }
    }

    /// Removes the volatile domain `name`.
    public func removeVolatileDomain(forName name: String) {
        lock.withLock { volatileDomains.removeAll { $0.name == name } }
    }

    /// The names of the volatile domains, the argument domain's (`NSArgumentDomain`) and the
    /// registration domain's (`NSRegistrationDomain`) among them.
    public var volatileDomainNames: [String] {
        ["NSArgumentDomain"] + lock.withLock { volatileDomains.map(\.name) } + ["NSRegistrationDomain"]
    }

    /// The entries of the persistent domain `name` (the global domain as `NSGlobalDomain`).
    public func persistentDomain(forName name: String) -> PlistDictionary {
        persistent(name).snapshot()
    }

    /// Replaces the persistent domain `name` as a whole (written soon after, as every write).
    public func setPersistentDomain(_ entries: PlistDictionary, forName name: String) {
        persistent(name).replaceAll(with: entries)
    }

    /// Empties the persistent domain `name`.
    public func removePersistentDomain(forName name: String) {
        persistent(name).replaceAll(with: PlistDictionary())
    }

    /// Deletes the persistent domain `name`: its file is removed under the file lock.
    public func deletePersistentDomain(forName name: String) throws(PlistError) {
        try persistent(name).delete()
    }

    /// Whether the persistent domain `name` has a file (or changes waiting to be written).
    public func persistentDomainExists(_ name: String) -> Bool {
        let domain = persistent(name)
        return domain.exists || domain.hasPendingChanges
    }

    /// Writes the pending changes of the persistent domain `name` now.
    public func synchronize(domain name: String) throws(PlistError) {
        try persistent(name).flush()
    }

    private func persistent(_ name: String) -> PersistentDomain {
        if name == domainName { return application }
        if name == PreferencesLocation.globalDomainName { return global }
        return DomainCache.shared.domain(named: name, at: location, durability: application.durability)
    }

    // MARK: - Problems and observation

    /// Reports problems found outside a call that could throw them: a damaged file moved aside,
    /// a background write that failed.
    public func onError(_ handler: (@Sendable (PlistError) -> Void)?) {
        application.setErrorHandler(handler)
        global.setErrorHandler(handler)
    }

    /// The last such problem, if any.
    public var lastError: PlistError? { application.lastError ?? global.lastError }

    /// Calls `handler` with the resolved value of `key` (nil when no domain has it) each time it
    /// changes, whether this process changed it or another one did (seen on the next read or
    /// flush, or at once while watching). Keep the token; the observation ends with it.
    public func observe(_ key: String, _ handler: @escaping @Sendable (PlistValue?) -> Void) -> PreferencesObservation {
        let ids = [application, global].map { domain in
            domain.addObserver { [weak self] change in
                guard change.key == key, let self else { return }
                handler(self.value(forKey: key))
            }
        }
        return PreferencesObservation { [application, global] in
            application.removeObserver(ids[0])
            global.removeObserver(ids[1])
        }
    }

    /// Calls `handler` with every key of the application domain that changes, and its new value
    /// there (nil when removed).
    public func observeDomain(_ handler: @escaping @Sendable (String, PlistValue?) -> Void) -> PreferencesObservation {
        let id = application.addObserver { change in handler(change.key, change.value) }
        return PreferencesObservation { [application] in application.removeObserver(id) }
    }

    /// The resolved values of `key`, one element per change, as long as the stream is iterated.
    public func changes(of key: String) -> AsyncStream<PlistValue?> {
        AsyncStream { continuation in
            let observation = observe(key) { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// Re-reads the domains' files if other processes changed them, notifying observers; what a
    /// read does anyway, for an observer that wants changes without reading.
    public func refresh() {
        application.takeInChanges()
        global.takeInChanges()
    }

    /// The domain writes go to, for the layers in this module.
    var applicationDomain: PersistentDomain { application }
}

/// An observation; it ends when cancelled or released.
public final class PreferencesObservation: @unchecked Sendable {
    private let lock = NSLock()
    private var end: (() -> Void)?

    init(end: @escaping () -> Void) { self.end = end }

    /// Ends the observation.
    public func cancel() {
        let action = lock.withLock { () -> (() -> Void)? in
            defer { end = nil }
            return end
        }
        action?()
    }

    deinit { cancel() }
}

/// The persistent domains of the process, one object per file, so that every ``Preferences`` for
/// a domain shares its cache and pending changes; flushed at exit.
final class DomainCache: @unchecked Sendable {
    static let shared = DomainCache()
    private let lock = NSLock()
    private var domains: [String: PersistentDomain] = [:]

    private init() {
        atexit { DomainCache.shared.flushAll() }
    }

    func domain(named name: String, at location: PreferencesLocation, durability: AtomicFile.Durability) -> PersistentDomain {
        let path = location.path(forDomain: name)
        return lock.withLock {
            if let domain = domains[path] { return domain }
            let domain = PersistentDomain(name: name, path: path, durability: durability)
            domains[path] = domain
            return domain
        }
    }

    /// Writes every domain's pending changes; errors are reported to the domains' handlers.
    func flushAll() {
        let all = lock.withLock { Array(domains.values) }
        for domain in all where domain.hasPendingChanges {
            do throws(PlistError) { try domain.flush() } catch { domain.report(error) }
        }
    }
}
