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

@Suite("FileLock", .enabled(if: Helper.isBuilt, "the test helper was not built"))
struct FileLockTests {
    @Test("four processes incrementing one counter under the exclusive lock lose no increment")
    func exclusiveAcrossProcesses() throws {
        let directory = try TemporaryDirectory()
        let counter = try directory.write(Data("0\n".utf8), as: "counter")
        let lockFile = FileLock.lockFilePath(for: counter)
        let workers = try (0..<4).map { _ in try Helper.start(["lock-increment", lockFile, counter, "150"]) }
        for worker in workers {
            worker.closeInput()
            let output = worker.readRemaining()
            #expect(worker.wait() == .exited(0), "\(output)")
        }
        let total = String(decoding: try bytes(of: counter), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(total == "600")
        #expect(try directory.contents() == ["counter", "counter.lock"])
    }

    @Test("shared holders coexist and keep out an exclusive one; a timeout is a typed error; death releases the lock")
    func sharedAndExclusive() throws {
        let directory = try TemporaryDirectory()
        let lockFile = directory.path("prefs.plist.lock")
        let reader = try Helper.start(["hold-lock", lockFile, "shared"])
        #expect(reader.readLine() == "locked")

        let shared = try FileLock.tryAcquire(.shared, lockFile: lockFile)
        #expect(shared != nil, "a second shared holder is allowed")
        #expect(try FileLock.tryAcquire(.exclusive, lockFile: lockFile) == nil)
        let clock = ContinuousClock()
        let began = clock.now
        let timedOut = try #require(throws: PlistError.self) {
            _ = try FileLock.acquire(.exclusive, lockFile: lockFile, timeout: .milliseconds(200))
        }
        let waited = clock.now - began
        #expect(timedOut.code == .io && timedOut.errno == .wouldBlock && timedOut.path == lockFile)
        #expect(waited >= .milliseconds(200) && waited < .seconds(5), "waited \(waited)")
        shared?.unlock()

        // The holder is killed: the system lets go of its lock.
        reader.send(SIGKILL)
        reader.wait()
        let exclusive = try FileLock.acquire(.exclusive, lockFile: lockFile, timeout: .seconds(5))
        #expect(exclusive.mode == .exclusive)

        // While we hold it exclusively, another process cannot take it even shared, and gets it
        // as soon as we let go.
        let waiter = try Helper.start(["hold-lock", lockFile, "shared"])
        #expect(waiter.readLine(timeout: .milliseconds(300)) == nil, "the shared lock was granted during an exclusive hold")
        exclusive.unlock()
        #expect(waiter.readLine(timeout: .seconds(10)) == "locked")
        waiter.closeInput()
        #expect(waiter.wait() == .exited(0))
    }

    @Test("two locks in one process exclude each other, and withLock lets go when its body throws")
    func inProcess() throws {
        let directory = try TemporaryDirectory()
        let lockFile = directory.path("x.lock")
        let first = try #require(try FileLock.tryAcquire(.exclusive, lockFile: lockFile))
        #expect(try FileLock.tryAcquire(.exclusive, lockFile: lockFile) == nil)
        first.unlock()
        #expect(throws: PlistError.self) {
            try FileLock.withLock(.exclusive, lockFile: lockFile) { () throws(PlistError) in
                throw PlistError(.io, "failed inside")
            }
        }
        #expect(try FileLock.tryAcquire(.exclusive, lockFile: lockFile) != nil)
        let missing = try #require(throws: PlistError.self) {
            _ = try FileLock.acquire(.shared, lockFile: directory.path("absent/x.lock"))
        }
        #expect(missing.errno == .noSuchFileOrDirectory)
    }
}
