import Foundation
import Testing
import Trove
import TroveTestSupport

/// "Keeping preferences": its listings and its `trove defaults` commands, run on one domain
/// directory, so that the program and the command see each other's writes.
@Suite("Article: keeping preferences", .enabled(if: ListingRunner.isAvailable, "the listings program was not built"))
struct PreferencesArticleTests {
    static let article = "Sources/Trove/Trove.docc/KeepingPreferences.md"
    static let domain = "com.example.editor"

    @Test("string keys, typed keys and a migration, then every trove defaults command of the article")
    func listingsAndCommands() throws {
        let directory = try TemporaryDirectory()
        let environment = ["TROVE_PREFERENCES_DIR": directory.url.path]
        func run(_ listing: String) throws -> String {
            let result = try ListingRunner.run(listing, in: directory, environment: environment)
            #expect(result.termination == .exited(0), "\(listing): \(result.output)")
            return result.output
        }
        // An old spelling, as an earlier version of the program left it.
        try PlistFile.save(PlistDocument(value: ["fontsize": 12, "LegacyToolbar": true], format: .binary),
                           to: directory.path("\(Self.domain).plist"))
        #expect(try run("preferences-migrate") == "migrated from 0, font size 12")
        #expect(try run("preferences-basics") == "font Menlo 14")
        #expect(try run("preferences-typed") == "font size 15, ruler true, width 1024.0")
        let file = try PlistFile.load(directory.path("\(Self.domain).plist")).value
        #expect(file["LegacyToolbar"] == nil)
        #expect(file["ShowRuler"] == nil)
        #expect(file[keyPath: "WindowFrame.width"] == 1024.0)
        #expect(file[PreferencesSchema.versionKey] == 2)

        var expected: [(status: Int32, check: (String) -> Bool)] = []
        expected.append((0, { $0.contains("FontSize = 15;") && $0.contains("FontName = Menlo;") }))
        expected.append((0, { $0.isEmpty }))
        expected.append((0, { $0 == "16\n" }))
        expected.append((0, { $0 == "Type is integer\n" }))
        expected.append((0, { $0.isEmpty }))
        expected.append((0, { $0.isEmpty }))
        expected.append((0, { $0.isEmpty }))
        expected.append((0, { $0.contains(Self.domain) }))
        let commands = try ListingRunner.shellCommands(in: Self.article)
        try #require(commands.count == expected.count, "the article's commands changed: \(commands)")
        for (command, expectation) in zip(commands, expected) {
            let result = try ListingRunner.shell(command, in: directory, environment: environment)
            #expect(result.status == expectation.status, "\(command): \(result.stderr)")
            #expect(expectation.check(result.stdout), "\(command) printed: \(result.stdout)")
        }
        let exported = try PlistFile.load(directory.path("Editor.plist"))
        #expect(exported.format == .xml)
        #expect(exported.value["FontSize"] == 16)
        #expect(exported.value["RecentFiles"] == ["notes.txt"])
        let after = try PlistFile.load(directory.path("\(Self.domain).plist")).value
        #expect(after["FontSize"] == nil)
        #expect(after["FontName"] == "Menlo")
    }

    @Test("a program following the font size sees trove defaults write")
    func observe() throws {
        let directory = try TemporaryDirectory()
        let environment = ["TROVE_PREFERENCES_DIR": directory.url.path]
        let follower = try ListingRunner.start("preferences-observe", in: directory, environment: environment)
        // The observation starts inside the listing, which prints nothing before it: write until
        // the program reports a value, then once more and expect exactly that value.
        var seen: String?
        for size in 20..<30 where seen == nil {
            let write = try ListingRunner.shell("trove defaults write \(Self.domain) FontSize -int \(size)", in: directory, environment: environment)
            #expect(write.status == 0, "\(write.stderr)")
            seen = follower.readLine(timeout: .seconds(2))
        }
        #expect(seen?.hasPrefix("font size is now 2") == true, "\(seen ?? "nothing")")
        var last: String?
        let write = try ListingRunner.shell("trove defaults write \(Self.domain) FontSize -int 42", in: directory, environment: environment)
        #expect(write.status == 0)
        while let line = follower.readLine(timeout: .seconds(5)) {
            last = line
            if line == "font size is now 42" { break }
        }
        #expect(last == "font size is now 42")
    }
}
