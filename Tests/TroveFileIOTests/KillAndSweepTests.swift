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

@Suite("Stale temporaries and kill -9")
struct KillAndSweepTests {
    /// Makes a temporary-shaped file beside `target` whose modification time is `age` ago.
    static func leftover(_ directory: TemporaryDirectory, _ name: String, age: TimeInterval) throws -> String {
        let path = try directory.write(Data("partial".utf8), as: name)
        let when = Date().addingTimeInterval(-age)
        try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: path)
        return path
    }

    @Test("the sweep removes only this file's unlocked temporaries older than the age")
    func sweepRules() throws {
        let directory = try TemporaryDirectory()
        let target = try directory.write(Data("content".utf8), as: "prefs.plist")
        let old = try Self.leftover(directory, ".prefs.plist.trove-AbC123", age: 3600)
        _ = try Self.leftover(directory, ".prefs.plist.trove-young1", age: 5)
        _ = try Self.leftover(directory, ".other.plist.trove-AbC123", age: 3600)  // another file's
        _ = try Self.leftover(directory, ".prefs.plist.trove-toolong", age: 3600)  // not our shape
        _ = try Self.leftover(directory, "prefs.plist.trove-AbC123", age: 3600)  // not hidden

        #expect(try AtomicFile.removeStaleTemporaries(of: target) == [old])
        #expect(try directory.contents() == [
            ".other.plist.trove-AbC123", ".prefs.plist.trove-toolong", ".prefs.plist.trove-young1",
            "prefs.plist", "prefs.plist.trove-AbC123",
        ])
        // Age zero takes the young one too, and still nothing else.
        #expect(try AtomicFile.removeStaleTemporaries(of: target, olderThan: .zero).count == 1)
        #expect(try directory.contents().count == 4)
        // A link's temporaries live beside the file it leads to.
        try FileManager.default.createSymbolicLink(atPath: directory.path("link"), withDestinationPath: "prefs.plist")
        let beside = try Self.leftover(directory, ".prefs.plist.trove-zzzzzz", age: 3600)
        #expect(try AtomicFile.removeStaleTemporaries(of: directory.path("link")) == [beside])
        // A missing directory has nothing to sweep.
        #expect(try AtomicFile.removeStaleTemporaries(of: directory.path("absent/x.plist")).isEmpty)
    }

    @Test("a temporary locked by a live writer is kept, however old; once the writer dies it goes",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func lockedTemporaryKept() throws {
        let directory = try TemporaryDirectory()
        let target = try directory.write(Data("content".utf8), as: "prefs.plist")
        let temporary = try Self.leftover(directory, ".prefs.plist.trove-Live01", age: 3600)
        // The helper locks the file exclusively, as a writer locks its temporary.
        let holder = try Helper.start(["hold-lock", temporary, "exclusive"])
        #expect(holder.readLine() == "locked")
        #expect(try AtomicFile.removeStaleTemporaries(of: target, olderThan: .zero).isEmpty)
        #expect(FileManager.default.fileExists(atPath: temporary))
        holder.send(SIGKILL)
        holder.wait()
        #expect(try AtomicFile.removeStaleTemporaries(of: target, olderThan: .zero) == [temporary])
        #expect(try directory.contents() == ["prefs.plist"])
    }

    /// Versions of a large binary plist: mostly data (fast to decode even in a debug build, slow
    /// to write), plus enough small objects that the object table is real.
    static func versions() throws -> [Data] {
        try (0..<4).map { variant in
            var dictionary = PlistDictionary()
            for index in 0..<3 {
                dictionary["blob \(index)"] = .data(Data(repeating: UInt8(variant * 16 + index), count: 400_000))
            }
            for index in 0..<300 {
                dictionary["entry \(index)"] = ["variant": .integer(PlistInteger(variant)), "n": .integer(PlistInteger(index))]
            }
            return try Plist.write(.dictionary(dictionary), as: .binary)
        }
    }

    @Test("a writer killed at random moments 200 times leaves one of the versions every time, and the sweep clears its temporaries",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func killedWriterNeverTearsTheFile() throws {
        let directory = try TemporaryDirectory()
        let versions = try Self.versions()
        let versionPaths = try versions.enumerated().map { try directory.write($0.element, as: "version-\($0.offset).bplist") }
        let work = directory.path("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false)
        let target = work + "/saved.plist"
        try versions[0].write(to: URL(fileURLWithPath: target))
        let decoded = try versions.map { try Plist.read($0).value }

        var generator = SplitMix(seed: 0x6b696c6c)
        var kills = 0
        var sweptRounds = 0
        var sweptFiles = 0
        for round in 0..<200 {
            let durability = round % 2 == 0 ? "unflushed" : "flushed"
            let child = try Helper.start(["save-loop", target, durability] + versionPaths)
            // "ready" comes after the first save, so the kill lands in the loop of saves.
            let ready = child.readLine(timeout: .seconds(20))
            try #require(ready == "ready", "round \(round): the saver did not start: \(ready ?? "nothing")")
            usleep(UInt32(generator.below(15_000)))
            child.send(SIGKILL)
            let termination = child.wait()
            #expect(termination == .signaled(SIGKILL), "round \(round): \(termination)")
            kills += 1

            let now = try bytes(of: target)
            let match = versions.firstIndex(of: now)
            #expect(match != nil, "round \(round): the file is torn (\(now.count) bytes)")
            if round % 10 == 0, let match {
                #expect(try PlistFile.load(target).value == decoded[match])
            }
            let removed = try AtomicFile.removeStaleTemporaries(of: target, olderThan: .zero)
            if !removed.isEmpty {
                sweptRounds += 1
                sweptFiles += removed.count
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: work) == ["saved.plist"], "round \(round)")
        }
        #expect(kills == 200)
        // Most kills land mid-write (the write is most of each save); if none did, nothing was tested.
        #expect(sweptRounds >= 20, "only \(sweptRounds) of 200 kills left a temporary file")
        print("kill test: \(kills) kills, \(sweptRounds) left a temporary file (\(sweptFiles) removed by the sweep)")
    }
}
