import Foundation
import Testing

@Suite("trove remove", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct RemoveCommandTests {
    static let preferences = TestEnvironment.sample("Preferences.plist")
    static let catalog = TestEnvironment.sample("Catalog.plist")

    @Test("removing from an XML file gives plutil's value, status and message", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: ["Window.Frame", "Window", "RecentDocuments.0", "RecentDocuments.2", "RecentDocuments.3",
                      "RecentDocuments.x", "Nope", "Window.Frame.x", "Nope.deeper", "AutoSaveInterval", ""])
    func preferencesMatchPlutil(path: String) async throws {
        try await expectEditMatchesPlutil(["-remove", path], on: Self.preferences)
    }

    @Test("removing from a binary file gives plutil's value, status and message", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: ["Books.0", "Books.1.Tags.0", "Counters.Largest", "Empty", "Books.5"])
    func catalogMatchesPlutil(path: String) async throws {
        try await expectEditMatchesPlutil(["-remove", path], on: Self.catalog)
    }

    @Test("removing an entry from an XML file takes out only its lines")
    func xmlRemoveKeepsTheRestOfTheFile() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.preferences, as: "p.plist")
        let result = try await trove("remove", "Window.Zoomed", copy)
        #expect(result.status == 0, "\(result.stderrText)")
        let original = String(decoding: try bytes(of: Self.preferences), as: UTF8.self)
        let zoomed = "\t\t<key>Zoomed</key>\n\t\t<false/>\n"
        try #require(original.contains(zoomed))
        #expect(String(decoding: try bytes(of: copy), as: UTF8.self) == original.replacingOccurrences(of: zoomed, with: ""))
    }

    @Test("a failed removal names the file, exits 1 and leaves the input alone")
    func failureLeavesInputAlone() async throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.copy(Self.catalog, as: "c.plist")
        let result = try await trove("remove", "Books.9", copy)
        #expect(result.status == 1)
        #expect(result.stderrText == "\(copy): No value to remove at key path Books.9\n")
        #expect(try bytes(of: copy) == bytes(of: Self.catalog))
    }

    @Test("no file is a usage error")
    func usage() async throws {
        #expect(try await trove("remove", "Window").status == 64)
    }
}
