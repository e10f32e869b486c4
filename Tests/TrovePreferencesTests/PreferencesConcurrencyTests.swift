import Foundation
import Testing
import Trove
import TroveTestSupport

/// Several processes writing one domain at once: nothing is lost, and the file is never torn.
@Suite("Preferences across processes", .serialized)
struct PreferencesConcurrencyTests {
    static let writer = TroveExecutable.product(named: "trove-preferences-writer")

    static func domainFile(_ directory: String, _ domain: String) throws -> PlistDictionary {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: PreferencesLocation(directory: directory).path(forDomain: domain)))
        return try #require(try Plist.read(bytes).value.dictionaryValue)
    }

    @Test("8 processes writing 500 keys each through the library lose nothing")
    func libraryWriters() async throws {
        let writer = try #require(Self.writer, "trove-preferences-writer is not built")
        let directory = try PreferencesTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let children = try (0..<8).map { n in
            try ProcessRun(writer, [directory, "many", "w\(n)", "500", "coalesce"])
        }
        for child in children {
            let ended = try await child.output()
            #expect(ended.status == 0, "\(ended.stderrText)")
        }
        let entries = try Self.domainFile(directory, "many")
        #expect(entries.count == 4000)
        var wrong = 0
        for n in 0..<8 {
            for i in 0..<500 where entries["w\(n)-\(i)"] != .string("w\(n)-value-\(i)") { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("8 processes writing 500 keys each through trove defaults lose nothing")
    func cliWriters() async throws {
        let trove = try #require(TroveExecutable.path, "trove is not built")
        let directory = try PreferencesTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = "for i in $(seq 0 499); do \"$0\" defaults write cli \"c$1-$i\" -int \"$i\" || exit 1; done"
        // 4000 starts of a debug-built trove took 8 minutes on two cores under a load of 10; the
        // limit is well above that.
        let children = try (0..<8).map { n in
            try ProcessRun(
                "/bin/sh", ["-c", script, trove, String(n)], environment: ["TROVE_PREFERENCES_DIR": directory],
                timeLimit: .seconds(1800))
        }
        for child in children {
            let ended = try await child.output()
            #expect(ended.status == 0, "\(ended.stderrText)")
        }
        let entries = try Self.domainFile(directory, "cli")
        #expect(entries.count == 4000)
        var wrong = 0
        for n in 0..<8 {
            for i in 0..<500 where entries["c\(n)-\(i)"] != .integer(PlistInteger(i)) { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("a writer killed at random moments never leaves a torn file, and others' keys survive")
    func killedWriter() async throws {
        let writer = try #require(Self.writer, "trove-preferences-writer is not built")
        let directory = try PreferencesTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let steady = Preferences(suiteName: "killed", directory: directory, arguments: [])
        steady.set("kept", forKey: "steady")
        try steady.synchronize()
        var random = SplitMix(seed: 0x6B11)
        var torn = 0
        for round in 0..<40 {
            let child = try ProcessRun(writer, [directory, "killed", "k", "200", "forever"])
            try await Task.sleep(for: .microseconds(2_000 + random.below(30_000)))
            child.send(SIGKILL)
            _ = try await child.output()
            guard let entries = try? Self.domainFile(directory, "killed") else {
                torn += 1
                continue
            }
            #expect(entries["steady"] == "kept", "round \(round)")
            // A flush writes all 200 keys of a round or none of them.
            let written = (0..<200).filter { entries["k-\($0)"] != nil }.count
            #expect(written == 0 || written == 200, "round \(round): \(written) keys")
        }
        #expect(torn == 0)
    }
}
