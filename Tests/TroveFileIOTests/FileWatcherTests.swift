import Foundation
import Testing
import TroveCore
import TroveFileIO
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects a watcher's changes on a task of its own, for bounded waits.
final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [FileWatcher.Change] = []

    func append(_ change: FileWatcher.Change) {
        lock.lock()
        changes.append(change)
        lock.unlock()
    }

    var all: [FileWatcher.Change] {
        lock.lock()
        defer { lock.unlock() }
        return changes
    }

    /// Waits until `count` changes have arrived (or ``arrivalPatience`` passes), then a further
    /// three debounce intervals, so that a storm of extra changes would show; returns everything
    /// seen.
    func settle(count: Int, debounce: Duration) async -> [FileWatcher.Change] {
        _ = await eventually(within: arrivalPatience) { all.count >= count }
        try? await Task.sleep(for: debounce * 3)
        return all
    }
}

/// How long a test waits for what should arrive at once. A watcher's events reach the test
/// through several task hops, and in a full parallel run each hop waits behind every test case
/// queued before it, whatever its priority (on Linux the pool serves jobs in order): on a
/// loaded machine a change took over a minute to arrive, merged with the next save, and failed
/// the test. A wait that ends as soon as its condition holds costs nothing for being long.
let arrivalPatience = Duration.seconds(300)

@Suite("FileWatcher", .serialized)
struct FileWatcherTests {
    static let debounce = Duration.milliseconds(80)

    /// Starts consuming a watcher of `path`; returns the log and the consuming task.
    static func watch(_ path: String, method: FileWatcher.Method = .automatic) throws -> (ChangeLog, Task<Void, Never>) {
        let watcher = try FileWatcher(path: path, debounce: debounce, method: method)
        let log = ChangeLog()
        let task = Task {
            for await change in watcher { log.append(change) }
        }
        return (log, task)
    }

    static func inotifyDescriptors() -> Int {
        openDescriptorTargets().filter { $0.contains("inotify") }.count
    }

    @Test("rewrite in place, replace by rename, delete, recreate: one change each", arguments: [false, true])
    func oneChangePerSave(polling: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("v1".utf8), as: "config.plist")
        let method: FileWatcher.Method = polling ? .polling(interval: .milliseconds(20)) : .automatic
        let (log, task) = try Self.watch(path, method: method)
        defer { task.cancel() }
        // Let a poller take its first look.
        try await Task.sleep(for: .milliseconds(50))

        // In place: truncate and write, in several pieces, as a simple program would.
        let fd = open(path, O_WRONLY | O_TRUNC)
        for piece in ["<plist>", "v2", "</plist>"] { _ = write(fd, piece, piece.utf8.count) }
        close(fd)
        var seen = await log.settle(count: 1, debounce: Self.debounce)
        #expect(seen.map(\.kind) == [.written], "in-place rewrite: \(seen)")

        // An editor's save: a temporary file beside it, renamed over it (and the writer's
        // temporary file's own events must not count).
        try AtomicFile.write(Data("v3".utf8), to: path)
        seen = await log.settle(count: 2, debounce: Self.debounce)
        #expect(seen.map(\.kind) == [.written, .written], "replace by rename: \(seen)")

        try FileManager.default.removeItem(atPath: path)
        seen = await log.settle(count: 3, debounce: Self.debounce)
        #expect(seen.map(\.kind) == [.written, .written, .removed], "delete: \(seen)")

        try Data("v4".utf8).write(to: URL(fileURLWithPath: path))
        seen = await log.settle(count: 4, debounce: Self.debounce)
        #expect(seen.map(\.kind) == [.written, .written, .removed, .written], "recreate: \(seen)")
        #expect(seen.allSatisfy { $0.path == path })

        // Delete and recreate at once, as some editors save: one change.
        try FileManager.default.removeItem(atPath: path)
        try Data("v5".utf8).write(to: URL(fileURLWithPath: path))
        seen = await log.settle(count: 5, debounce: Self.debounce)
        #expect(seen.count == 5 && seen.last?.kind == .written, "delete and recreate: \(seen)")

        // Other files in the directory are not this file.
        _ = try directory.write(Data("x".utf8), as: "other.plist")
        try AtomicFile.write(Data("y".utf8), to: directory.path("other.plist"))
        try await Task.sleep(for: polling ? .milliseconds(300) : Self.debounce * 4)
        #expect(log.all.count == 5, "a change to another file was reported: \(log.all)")
    }

    @Test("cancelling the consumer stops the watcher and closes its inotify descriptor")
    func cancellationClosesTheWatch() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("v1".utf8), as: "config.plist")
        let before = Self.inotifyDescriptors()
        let (log, task) = try Self.watch(path)
        #if os(Linux)
        #expect(Self.inotifyDescriptors() == before + 1)
        #endif
        try AtomicFile.write(Data("v2".utf8), to: path)
        _ = await log.settle(count: 1, debounce: Self.debounce)
        task.cancel()
        await task.value
        #expect(await eventually(within: arrivalPatience) { Self.inotifyDescriptors() == before })
        try AtomicFile.write(Data("v3".utf8), to: path)
        try await Task.sleep(for: Self.debounce * 3)
        #expect(log.all.count == 1, "a change arrived after cancellation")
    }

    @Test("a store's reload loop: a corrupt save is an error and the last good value stays")
    func reloadKeepsLastGoodValue() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.plist")
        try PlistFile.save(["level": 1], as: .xml, to: path)
        let watcher = try FileWatcher(path: path, debounce: Self.debounce)
        let states = StateLog()
        let task = Task {
            var current = try? PlistFile.load(path).value
            for await change in watcher {
                do {
                    current = try PlistFile.load(change.path).value
                    states.append("value \(current?["level"]?.description ?? "?")")
                } catch let error as PlistError {
                    states.append("error \(error.code) at \(error.path ?? "?"); keeping \(current?["level"]?.description ?? "?")")
                } catch {
                    states.append("unexpected \(error)")
                }
            }
        }
        defer { task.cancel() }
        try PlistFile.save(["level": 2], as: .binary, to: path)
        _ = await eventually(within: arrivalPatience) { states.all.count >= 1 }
        try AtomicFile.write(Data("<plist><dict><key>level</key>".utf8), to: path)
        _ = await eventually(within: arrivalPatience) { states.all.count >= 2 }
        try PlistFile.save(["level": 3], as: .json, to: path)
        _ = await eventually(within: arrivalPatience) { states.all.count >= 3 }
        #expect(states.all == ["value 2", "error unexpected-end at \(path); keeping 2", "value 3"])
    }

    @Test("a missing directory is a typed error")
    func missingDirectory() throws {
        let error = try #require(throws: PlistError.self) { _ = try FileWatcher(path: "/nonexistent-trove-dir/x.plist") }
        #expect(error.errno == .noSuchFileOrDirectory && error.path == "/nonexistent-trove-dir/x.plist")
    }
}

final class StateLog: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [String] = []
    func append(_ state: String) {
        lock.lock()
        states.append(state)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return states
    }
}
