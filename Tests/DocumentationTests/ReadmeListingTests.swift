import Foundation
import Testing
import Trove
import TroveTestSupport

/// README's library listings, run in scratch directories: they compile (the build would fail
/// otherwise) and they do what README says around them.
@Suite("README listings run", .enabled(if: ListingRunner.isAvailable, "the listings program was not built"))
struct ReadmeListingTests {
    @Test("keep a value in a file: a new file, then an existing XML file keeps its format and layout")
    func keepAValue() throws {
        let fresh = try TemporaryDirectory()
        let first = try ListingRunner.run("readme-keep-a-value", in: fresh)
        #expect(first.termination == .exited(0), "\(first.output)")
        let created = try PlistFile.load(fresh.path("Settings.plist"))
        #expect(created.format == .binary)
        #expect(created.value[keyPath: "Window.Width"] == 1024)

        let existing = try TemporaryDirectory()
        let path = try ListingRunner.copySample("Preferences.plist", to: existing, as: "Settings.plist")
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let second = try ListingRunner.run("readme-keep-a-value", in: existing)
        #expect(second.termination == .exited(0), "\(second.output)")
        let after = try String(contentsOfFile: path, encoding: .utf8)
        let added = after.split(separator: "\n").filter { !before.split(separator: "\n").contains($0) }
        #expect(added.map { $0.trimmingCharacters(in: .whitespaces) } == ["<key>Width</key>", "<integer>1024</integer>"])
    }

    @Test("read, edit, write back in place, convert")
    func documents() throws {
        let directory = try TemporaryDirectory()
        let path = try ListingRunner.copySample("Preferences.plist", to: directory, as: "Settings.plist")
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let run = try ListingRunner.run("readme-documents", in: directory)
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output == "width 1024\n1024px refused")

        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try directory.contents() == ["Converted.plist", "Settings.plist"])
        let reread = try PlistFile.load(path).value
        #expect(reread["ShowToolbar"] == false)
        #expect(reread["RecentDocuments"] == ["~/notes.txt"])
        #expect(reread["AutoSaveInterval"] == 300)
        #expect(try PlistFile.load(directory.path("Converted.plist")).format == .xml)
        // Only the edited values change: the lines around them are the original's.
        let before = original.split(separator: "\n")
        let after = written.split(separator: "\n")
        #expect(after.first == before.first)
        #expect(after.filter { $0.contains("<key>") } == before.filter { $0.contains("<key>") })
        #expect(after.count == before.count - 2)
    }

    @Test("an object graph with back pointers, a Codable archive, and the graph as JSON")
    func archives() throws {
        let directory = try TemporaryDirectory()
        let run = try ListingRunner.run("readme-archives", in: directory)
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output == "notes [\"Buy milk\", \"Call Ana\"]\nback pointers true\nstate 1024x768")
        let archive = try PlistFile.load(directory.path("Folder.archive"))
        #expect(archive.format == .binary)
        #expect(archive.value["$archiver"] == "NSKeyedArchiver")
        let tree = try PlistFile.load(directory.path("Folder.json"))
        #expect(tree.format == .json)
        #expect(tree.value[keyPath: "$class"] == "Folder")
    }

    @Test("preferences: a registered default, a typed key, a flushed domain file")
    func preferences() throws {
        let directory = try TemporaryDirectory()
        let run = try ListingRunner.run("readme-preferences", in: directory, environment: ["TROVE_PREFERENCES_DIR": directory.url.path])
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output.hasSuffix("font size 14"))
        let domain = try PlistFile.load(directory.path("com.example.editor.plist"))
        #expect(domain.format == .binary)
        #expect(domain.value["FontSize"] == 14)
    }
}
