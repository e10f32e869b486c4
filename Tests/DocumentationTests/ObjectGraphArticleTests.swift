import Foundation
import Testing
import Trove
import TroveTestSupport

/// "Keeping an object graph": its listings and its commands, run.
@Suite("Article: keeping an object graph", .enabled(if: ListingRunner.isAvailable, "the listings program was not built"))
struct ObjectGraphArticleTests {
    static let article = "Sources/Trove/Trove.docc/KeepingAnObjectGraph.md"
    static let commands = ["trove archive print Team.archive", "trove archive decode --format xml1 Team.archive"]
    static let graph = "Platform: [\"Ada\", \"Grace\", \"Linus\"], mentor shared: true, back pointers: true"

    @Test("the article's shell commands are the ones tested here")
    func articleCommands() throws {
        #expect(try ListingRunner.shellCommands(in: Self.article) == Self.commands)
    }

    @Test("archive, unarchive securely, and look inside with trove archive")
    func archive() throws {
        let directory = try TemporaryDirectory()
        let archived = try ListingRunner.run("graph-archive", in: directory)
        #expect(archived.termination == .exited(0), "\(archived.output)")
        #expect(archived.output == Self.graph)

        let secure = try ListingRunner.run("graph-secure", in: directory)
        let lines = secure.output.split(separator: "\n")
        #expect(lines.first.map(String.init) == Self.graph)
        #expect(lines.last?.hasPrefix("refused: class Member is not among the allowed classes") == true, "\(secure.output)")

        let printed = try ListingRunner.shell(Self.commands[0], in: directory)
        #expect(printed.status == 0, "\(printed.stderr)")
        for name in ["Team", "Member", "\"Ada\"", "\"Grace\"", "\"Linus\""] {
            #expect(printed.stdout.contains(name), "\(printed.stdout)")
        }
        let decoded = try ListingRunner.shell(Self.commands[1], in: directory)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let plain = try Plist.read(Data(decoded.stdout.utf8))
        #expect(plain.format == .xml)
        #expect(plain.value[keyPath: "name"] == "Platform")
    }

    @Test("saved as an archive and as XML, both load back as the same graph")
    func stores() throws {
        let directory = try TemporaryDirectory()
        let run = try ListingRunner.run("graph-stores", in: directory)
        #expect(run.termination == .exited(0), "\(run.output)")
        #expect(run.output == Self.graph + "\n" + Self.graph)
        #expect(try PlistFile.load(directory.path("Team.archive")).value["$archiver"] == "NSKeyedArchiver")
        let xml = try String(contentsOfFile: directory.path("Team.plist"), encoding: .utf8)
        for key in ["<key>$class</key>", "<key>$id</key>", "<key>$ref</key>"] {
            #expect(xml.contains(key), "\(key) is not in the XML store's file")
        }
    }

    @Test("a Codable value in an archive")
    func codable() throws {
        let run = try ListingRunner.run("graph-codable", in: try TemporaryDirectory())
        #expect(run.output == "frame width 1024.0")
    }
}
