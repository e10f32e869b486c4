import Foundation
import Testing
import TroveTesting
import Trove

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `trove convert` over directories: which files are taken, where results go, that a bad file
/// fails alone and stays untouched, and the summary line.
@Suite("convert: directories", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not found"))
struct BatchConvertCommandTests {
    /// A tree with good files in three formats, a bad one, nested ones, hidden and non-matching
    /// ones:
    ///
    ///     a.plist  b.plist (binary)  bad.plist  notes.txt (a valid plist)  .hidden.plist
    ///     sub/c.plist  sub/e.strings (OpenStep)  sub/deeper/d.plist
    final class Tree {
        let directory: TemporaryDirectory
        let root: String
        /// The value of each good file, by path relative to the root.
        let values: [String: PlistValue]
        let badBytes = Data("<plist><dict><key>k</key><integer>1x</integer></dict></plist>".utf8)

        init() throws {
            directory = try TemporaryDirectory()
            root = directory.path("tree")
            try FileManager.default.createDirectory(atPath: root + "/sub/deeper", withIntermediateDirectories: true)
            values = [
                "a.plist": ["name": "a", "list": [1, 2, 3]],
                "b.plist": ["when": .date(PlistDate(secondsSinceReferenceDate: 86_400)), "ok": true],
                "notes.txt": ["not": "matched"],
                ".hidden.plist": ["hidden": true],
                "sub/c.plist": ["c": 3.5],
                "sub/e.strings": ["greeting": "hello"],
                "sub/deeper/d.plist": [["deep": .data(Data([1, 2, 3]))]],
            ]
            let formats: [String: PlistFormat] = ["b.plist": .binary, "sub/e.strings": .openStep]
            for (name, value) in values {
                try Plist.write(value, as: formats[name] ?? .xml).write(to: URL(fileURLWithPath: path(name)))
            }
            try badBytes.write(to: URL(fileURLWithPath: path("bad.plist")))
        }

        func path(_ relative: String) -> String { root + "/" + relative }

        /// Every file under the root, relative, sorted.
        func files(under base: String? = nil) throws -> [String] {
            let start = base ?? root
            guard let enumerator = FileManager.default.enumerator(atPath: start) else { return [] }
            var found: [String] = []
            while let name = enumerator.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: start + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                    found.append(name)
                }
            }
            return found.sorted()
        }

        /// The value in a file, read back.
        func value(at path: String) throws -> PlistValue {
            try Plist.read(try Data(contentsOf: URL(fileURLWithPath: path))).value
        }

        func format(at path: String) throws -> PlistFormat {
            try Plist.read(try Data(contentsOf: URL(fileURLWithPath: path))).format
        }
    }

    /// The counts in the summary line `N files converted, M failed; ...`.
    static func summaryCounts(_ stderr: String) throws -> (converted: Int, failed: Int) {
        let line = try #require(stderr.split(separator: "\n").last.map(String.init), "no summary in \(stderr)")
        let pattern = /^(\d+) files? converted, (\d+) failed; .+ read, .+ written in \d+\.\d\d s$/
        let match = try #require(line.wholeMatch(of: pattern), "not a summary line: \(line)")
        return (try #require(Int(match.1)), try #require(Int(match.2)))
    }

    @Test("a directory converts its .plist files in place; the bad one fails alone and stays as it was")
    func inPlace() async throws {
        let tree = try Tree()
        let result = try await trove("convert", "-f", "binary1", tree.root)
        #expect(result.status == 1)
        let counts = try Self.summaryCounts(result.stderrText)
        #expect(counts.converted == 2 && counts.failed == 1, "\(result.stderrText)")
        #expect(result.stdout.isEmpty)

        for name in ["a.plist", "b.plist"] {
            #expect(try tree.format(at: tree.path(name)) == .binary, "\(name)")
            expectPlistEqual(try tree.value(at: tree.path(name)), try #require(tree.values[name]), context: name)
        }
        #expect(try bytes(of: tree.path("bad.plist")) == tree.badBytes)
        // Not .plist, hidden, or in a subdirectory without --recursive: left as XML/OpenStep.
        for name in ["notes.txt", ".hidden.plist", "sub/c.plist", "sub/deeper/d.plist"] {
            #expect(try tree.format(at: tree.path(name)) == .xml, "\(name)")
        }
        let failure = try #require(result.stderrText.split(separator: "\n").first.map(String.init))
        #expect(failure.hasPrefix(tree.path("bad.plist") + ":1:"), "the failure is an error line: \(failure)")
        #expect(failure.contains(": XML: "))
        #expect(try tree.files() == [".hidden.plist", "a.plist", "b.plist", "bad.plist", "notes.txt",
                                     "sub/c.plist", "sub/deeper/d.plist", "sub/e.strings"], "no stray files")
    }

    @Test("--recursive with -o DIR writes a mirrored tree and leaves the inputs alone")
    func mirroredTree() async throws {
        let tree = try Tree()
        let before = try tree.files().map { try bytes(of: tree.path($0)) }
        let output = tree.directory.path("out")
        let result = try await trove("convert", "-f", "json", "--recursive", "-o", output, tree.root)
        #expect(result.status == 1, "bad.plist fails")
        let counts = try Self.summaryCounts(result.stderrText)
        #expect(counts.converted == 2 && counts.failed == 3, "b and d hold a date and data, which JSON lacks: \(result.stderrText)")
        #expect(try tree.files(under: output) == ["a.plist", "sub/c.plist"])
        for name in ["a.plist", "sub/c.plist"] {
            #expect(try tree.format(at: output + "/" + name) == .json)
            expectPlistEqual(try tree.value(at: output + "/" + name), try #require(tree.values[name]), context: name)
        }
        #expect(try tree.files().map { try bytes(of: tree.path($0)) } == before, "inputs untouched")
    }

    @Test("--match widens the names taken, -e writes beside the inputs, and outputs are never re-read as inputs")
    func matchAndExtension() async throws {
        let tree = try Tree()
        let result = try await trove("convert", "-f", "xml1", "-R", "--match", "plist,STRINGS", "--match", "xml", "-e", "xml", tree.root)
        #expect(result.status == 1)
        let counts = try Self.summaryCounts(result.stderrText)
        #expect(counts.converted == 5 && counts.failed == 1, "\(result.stderrText)")
        for name in ["a", "b", "sub/c", "sub/deeper/d", "sub/e"] {
            let original = name == "sub/e" ? "sub/e.strings" : name + ".plist"
            #expect(try tree.format(at: tree.path(name + ".xml")) == .xml, "\(name)")
            expectPlistEqual(try tree.value(at: tree.path(name + ".xml")), try #require(tree.values[original]), context: name)
        }
        #expect(!FileManager.default.fileExists(atPath: tree.path("bad.xml")))
        #expect(!FileManager.default.fileExists(atPath: tree.path("notes.xml")))

        let everything = try await trove("convert", "-f", "binary1", "--match", "*", "-o", tree.directory.path("all"), tree.root)
        #expect(try tree.files(under: tree.directory.path("all")) == ["a.plist", "a.xml", "b.plist", "b.xml", "notes.txt"])
        #expect(try Self.summaryCounts(everything.stderrText).failed == 1)
    }

    @Test("files and directories mix; a named file is taken whatever its name; all good is exit 0")
    func filesAndDirectories() async throws {
        let tree = try Tree()
        try FileManager.default.removeItem(atPath: tree.path("bad.plist"))
        let result = try await trove("convert", "openstep", "-e", "txt", tree.path("sub"), tree.path("notes.txt"))
        #expect(result.status == 0, "\(result.stderrText)")
        let counts = try Self.summaryCounts(result.stderrText)
        #expect(counts.converted == 2 && counts.failed == 0)
        #expect(try tree.format(at: tree.path("sub/c.txt")) == .openStep)
        #expect(try tree.format(at: tree.path("notes.txt")) == .openStep, "rewritten with its own extension")
        #expect(try tree.value(at: tree.path("notes.txt")) == tree.values["notes.txt"])
    }

    @Test("-v prints a line per file; without a terminal there is no progress bar; -s prints only failures")
    func reporting() async throws {
        let tree = try Tree()
        let verbose = try await trove("convert", "swift", "-v", tree.root)
        let lines = verbose.stderrText.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(tree.path("a.plist")) -> \(tree.path("a.swift"))"), "\(lines)")
        #expect(lines.contains("\(tree.path("b.plist")) -> \(tree.path("b.swift"))"), "\(lines)")
        #expect(lines.count == 4, "two files, one failure, the summary: \(lines)")
        #expect(!verbose.stderrText.contains("\r") && !verbose.stderrText.contains("\u{1B}"), "no terminal control")
        let swift = try String(contentsOfFile: tree.path("a.swift"), encoding: .utf8)
        #expect(swift.hasPrefix("/// Generated from a.plist\nlet a : [String : Any] = [\n"))

        let silent = try await trove("convert", "-f", "xml1", "-s", tree.root)
        #expect(silent.status == 1)
        #expect(silent.stderrText.split(separator: "\n").count == 1)
        #expect(silent.stderrText.hasPrefix(tree.path("bad.plist") + ":"))
    }

    @Test("an unreadable directory is a failure of its own; the rest still converts",
          .enabled(if: getuid() != 0, "root can read every directory"))
    func unreadableDirectory() async throws {
        let tree = try Tree()
        chmod(tree.path("sub/deeper"), 0)
        defer { chmod(tree.path("sub/deeper"), 0o755) }
        let result = try await trove("convert", "-f", "xml1", "--recursive", tree.path("sub"))
        #expect(result.status == 1)
        #expect(result.stderrText.contains("\(tree.path("sub/deeper")): cannot list directory"))
        #expect(try Self.summaryCounts(result.stderrText).converted == 1)
    }

    @Test("usage errors for directory inputs", arguments: [
        ["convert", "-f", "xml1", "-o", "-", "."],
        ["convert", "-f", "xml1", "-o", "out", ".", "Samples"],
        ["convert", "-f", "xml1", "--match", "a/b", "."],
    ])
    func usageErrors(arguments: [String]) async throws {
        let tree = try Tree()
        let adjusted = arguments.map { $0 == "." ? tree.root : $0 }
        let result = try await trove(arguments: adjusted)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(try bytes(of: tree.path("a.plist")) == Plist.write(try #require(tree.values["a.plist"]), as: .xml))
    }
}
