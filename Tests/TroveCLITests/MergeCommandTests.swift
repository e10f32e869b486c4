import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting

@Suite("trove merge", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct MergeCommandTests {
    static let base: PlistValue = ["Name": "Editor", "Width": 800, "Recent": ["a.txt"]]

    /// Writes the three sides into a fresh directory; OURS in XML, the others in other formats.
    static func sides(ours: PlistValue, theirs: PlistValue) throws -> (TemporaryDirectory, [String]) {
        let directory = try TemporaryDirectory()
        let paths = [
            try directory.write(try Plist.write(base, as: .binary), as: "base.plist"),
            try directory.write(try Plist.write(ours, as: .xml), as: "ours.plist"),
            try directory.write(try Plist.write(theirs, as: .json), as: "theirs.json"),
        ]
        return (directory, paths)
    }

    @Test("different keys merge into OURS, in its format, editing only what changed")
    func cleanMerge() async throws {
        var ours = Self.base, theirs = Self.base
        try ours.replace(1024, at: "Width")
        try theirs.insert("dark", at: "Theme")
        let (directory, paths) = try Self.sides(ours: ours, theirs: theirs)
        let before = try bytes(of: paths[1])
        let result = try await trove(arguments: ["merge"] + paths)
        #expect(result.status == 0, "\(result.stderrText)")
        let after = try bytes(of: paths[1])
        let document = try Plist.read(after)
        #expect(document.format == .xml)
        expectPlistEqual(document.value, ["Name": "Editor", "Width": 1024, "Recent": ["a.txt"], "Theme": "dark"])
        // Lossless: the merged file is OURS with one entry added before the closing tags.
        let oldText = String(decoding: before, as: UTF8.self), newText = String(decoding: after, as: UTF8.self)
        #expect(newText.hasPrefix(String(oldText.prefix(oldText.count - "</dict>\n</plist>\n".count))))
        _ = directory
    }

    @Test("-o writes elsewhere and leaves OURS alone; -o - writes standard output")
    func outputOption() async throws {
        var theirs = Self.base
        try theirs.replace(900, at: "Width")
        let (directory, paths) = try Self.sides(ours: Self.base, theirs: theirs)
        let before = try bytes(of: paths[1])
        let out = directory.path("out.plist")
        #expect(try await trove(arguments: ["merge", "-o", out] + paths).status == 0)
        #expect(try bytes(of: paths[1]) == before)
        #expect(try Plist.read(try bytes(of: out)).value[keyPath: "Width"] == 900)
        let piped = try await trove(arguments: ["merge", "-o", "-"] + paths)
        #expect(try Plist.read(piped.stdout).value[keyPath: "Width"] == 900)
    }

    @Test("a key changed two ways is a conflict: one line per key path, exit 1, OURS unchanged")
    func conflict() async throws {
        var ours = Self.base, theirs = Self.base
        try ours.replace(1024, at: "Width")
        try theirs.replace(1280, at: "Width")
        try ours.replace("Mine", at: "Name")
        try theirs.replace("Theirs", at: "Name")
        let (directory, paths) = try Self.sides(ours: ours, theirs: theirs)
        let before = try bytes(of: paths[1])
        let result = try await trove(arguments: ["merge"] + paths)
        #expect(result.status == 1)
        #expect(result.stderrText == """
            \(paths[1]): conflict at Name: base "Editor", ours "Mine", theirs "Theirs"
            \(paths[1]): conflict at Width: base 800, ours 1024, theirs 1280

            """)
        #expect(try bytes(of: paths[1]) == before)
        #expect(try directory.contents() == ["base.plist", "ours.plist", "theirs.json"])
    }

    @Test("an unreadable input is exit 2")
    func unreadable() async throws {
        let (directory, paths) = try Self.sides(ours: Self.base, theirs: Self.base)
        let result = try await trove("merge", paths[0], paths[1], directory.path("missing.plist"))
        #expect(result.status == 2)
        #expect(result.stderrText.contains("missing.plist"))
    }
}

/// `trove merge` and `trove print --normalized` as git's merge and diff drivers, in a real
/// repository.
@Suite(
    "trove as a git driver", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"),
    .enabled(if: TestEnvironment.executableOnPath("git") != nil, "git not found on PATH; install git to run this test"))
struct GitDriverTests {
    /// Runs git in `directory` with a fixed identity and no user or system configuration.
    static func git(_ arguments: String..., in directory: TemporaryDirectory) async throws -> ProcessResult {
        let git = try #require(TestEnvironment.executableOnPath("git"))
        return try await runProcess(git, ["-C", directory.url.path] + arguments, environment: [
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": directory.url.path,
            "GIT_AUTHOR_NAME": "Trove", "GIT_AUTHOR_EMAIL": "trove@example.com",
            "GIT_COMMITTER_NAME": "Trove", "GIT_COMMITTER_EMAIL": "trove@example.com",
        ])
    }

    func checked(_ result: ProcessResult, _ what: String) {
        #expect(result.status == 0, "git \(what): \(result.stderrText)")
    }

    @Test("two branches that add keys merge; the same key changed on both conflicts; diff shows text")
    func gitMergeAndDiff() async throws {
        let repository = try TemporaryDirectory()
        let troveBinary = try #require(TroveExecutable.path)
        checked(try await Self.git("init", "-q", "-b", "main", in: repository), "init")
        checked(try await Self.git("config", "merge.plist.driver", "'\(troveBinary)' merge %O %A %B", in: repository), "config")
        checked(try await Self.git("config", "merge.plist.name", "property lists, by key path", in: repository), "config")
        checked(try await Self.git("config", "diff.plist.textconv", "'\(troveBinary)' print --normalized", in: repository), "config")
        _ = try repository.write(Data("*.plist merge=plist diff=plist\n".utf8), as: ".gitattributes")
        let settings = repository.path("Settings.plist")
        func save(_ value: PlistValue, as format: PlistFormat = .xml) throws {
            try Plist.write(value, as: format).write(to: URL(fileURLWithPath: settings))
        }
        func commit(_ message: String) async throws {
            checked(try await Self.git("add", "-A", in: repository), "add")
            checked(try await Self.git("commit", "-q", "-m", message, in: repository), "commit")
        }
        try save(["Name": "Editor", "Width": 800])
        try await commit("base")

        checked(try await Self.git("checkout", "-q", "-b", "theme", in: repository), "checkout")
        try save(["Name": "Editor", "Width": 800, "Theme": "dark"])
        try await commit("theme")
        checked(try await Self.git("checkout", "-q", "main", in: repository), "checkout")
        try save(["Name": "Editor", "Width": 800, "FontSize": 13])
        try await commit("font size")

        // A plain line merge would conflict: both branches added a line at the same place.
        let merge = try await Self.git("merge", "-q", "--no-edit", "theme", in: repository)
        #expect(merge.status == 0, "\(merge.stdoutText) \(merge.stderrText)")
        let merged = try Plist.read(try bytes(of: settings))
        #expect(merged.format == .xml)
        expectPlistEqual(merged.value, ["Name": "Editor", "Width": 800, "FontSize": 13, "Theme": "dark"])

        // The same key changed on two branches.
        checked(try await Self.git("checkout", "-q", "-b", "wide", in: repository), "checkout")
        try save(["Name": "Editor", "Width": 1280, "FontSize": 13, "Theme": "dark"])
        try await commit("wide")
        checked(try await Self.git("checkout", "-q", "main", in: repository), "checkout")
        try save(["Name": "Editor", "Width": 1024, "FontSize": 13, "Theme": "dark"])
        try await commit("narrower")
        let conflict = try await Self.git("merge", "-q", "--no-edit", "wide", in: repository)
        #expect(conflict.status != 0)
        #expect((conflict.stdoutText + conflict.stderrText).contains("conflict at Width: base 800, ours 1024, theirs 1280"))
        #expect(try Plist.read(try bytes(of: settings)).value[keyPath: "Width"] == 1024)
        checked(try await Self.git("merge", "--abort", in: repository), "merge --abort")

        // Binary plists diff as text through the textconv driver.
        try save(["Name": "Editor", "Width": 1024, "FontSize": 14, "Theme": "dark"], as: .binary)
        let diff = try await Self.git("diff", "--", "Settings.plist", in: repository)
        #expect(diff.stdoutText.contains("-  \"FontSize\" => 13\n+  \"FontSize\" => 14"), "\(diff.stdoutText)")
        #expect(!diff.stdoutText.contains("Binary files"))
    }
}
