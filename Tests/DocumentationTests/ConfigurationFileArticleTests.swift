import Foundation
import Testing
import Trove
import TroveTestSupport

/// "Keeping a configuration file": its listings and its command, run.
@Suite("Article: keeping a configuration file", .enabled(if: ListingRunner.isAvailable, "the listings program was not built"))
struct ConfigurationFileArticleTests {
    static let article = "Sources/Trove/Trove.docc/KeepingAConfigurationFile.md"
    /// The command the article runs while the program watches.
    static let edit = "trove replace port --integer 9000 Server.plist"
    /// A configuration file as the program's defaults would save it.
    static let defaults: PlistValue = ["host": "localhost", "port": 8080, "workers": 4]

    @Test("the article's shell commands are the ones tested here")
    func commands() throws {
        #expect(try ListingRunner.shellCommands(in: Self.article) == [Self.edit])
    }

    @Test("load, change, save: a new file is a binary plist; an existing XML file stays XML")
    func loadAndSave() throws {
        let fresh = try TemporaryDirectory()
        let run = try ListingRunner.run("config-load-save", in: fresh)
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output == "saved binary1: 8 workers")
        let saved = try PlistFile.load(fresh.path("Server.plist"))
        #expect(saved.format == .binary)
        #expect(saved.value == ["host": "localhost", "port": 8080, "workers": 8])

        let readable = try TemporaryDirectory()
        #expect(try ListingRunner.run("config-xml-store", in: readable).output == "saved xml1")
        let again = try ListingRunner.run("config-load-save", in: readable)
        #expect(again.output == "saved xml1: 8 workers")
        let edited = try PlistFile.load(readable.path("Server.plist"))
        #expect(edited.format == .xml)
        #expect(edited.value["workers"] == 8)
    }

    @Test("the encoder writes Foundation's XML; a value edited by key path decodes")
    func encoderAndDecoder() throws {
        let directory = try TemporaryDirectory()
        let run = try ListingRunner.run("config-encoder", in: directory)
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output == "port 9000, decoded back: true")
        let xml = try String(contentsOfFile: directory.path("Encoded.plist"), encoding: .utf8)
        #expect(xml.contains("<key>port</key>\n\t<integer>8080</integer>"))
        // Foundation's PropertyListEncoder is the reference for the bytes.
        let foundation = try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil) as? [String: Any]
        #expect(foundation?["host"] as? String == "localhost")
    }

    @Test("hot reload: a broken save keeps the last good configuration; trove replace is picked up")
    func hotReload() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Plist.write(Self.defaults, as: .xml), as: "Server.plist")
        let watcher = try ListingRunner.start("config-hot-reload", in: directory)
        #expect(watcher.readLine() == "serving on port 8080")

        // The watch starts before the line above is printed, but a save may still race the
        // directory watch on a loaded machine: repeat each save until the program reacts.
        let broken = try line(from: watcher, startingWith: "kept port 8080") {
            try Data("<plist><dict><key>port</key><integer>90".utf8).write(to: URL(fileURLWithPath: path))
        }
        #expect(broken?.contains("the file cannot be read") == true, "\(broken ?? "no line")")

        let restored = try line(from: watcher, startingWith: "now serving") {
            _ = try directory.write(try Plist.write(Self.defaults, as: .xml), as: "Server.plist")
        }
        #expect(restored == "now serving on port 8080")
        let edited = try line(from: watcher, startingWith: "now serving on port 9000") {
            let result = try ListingRunner.shell(Self.edit, in: directory)
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(edited == "now serving on port 9000")
    }

    /// Performs `action` until `child` prints a line starting with `prefix` (at most ten times).
    private func line(from child: ChildProcess, startingWith prefix: String, _ action: () throws -> Void) throws -> String? {
        for _ in 0..<10 {
            try action()
            while let line = child.readLine(timeout: .seconds(2)) {
                if line.hasPrefix(prefix) { return line }
            }
        }
        return nil
    }
}
