import Foundation
import Testing
import Trove
import TroveTestSupport

/// "Working from the shell": every command of the article, in order, on copies of the samples,
/// each checked for its status and for what it printed or changed.
@Suite("Article: working from the shell", .enabled(if: ListingRunner.isAvailable, "the trove command was not built"))
struct ShellArticleTests {
    static let article = "Sources/Trove/Trove.docc/WorkingFromTheShell.md"

    /// What one command must do: its exit status, and a check of its output and of the files.
    struct Step: Sendable {
        var status: Int32 = 0
        var check: @Sendable (ShellResult, TemporaryDirectory) throws -> Bool = { _, _ in true }
    }

    static func value(_ directory: TemporaryDirectory, _ name: String) throws -> PlistValue {
        try PlistFile.load(directory.path(name)).value
    }

    /// One step per command of the article, in its order.
    static let steps: [Step] = [
        // Check and print.
        Step { result, _ in result.stdout == "Settings.plist: OK\nCatalog.plist: OK\n" },
        Step { result, _ in result.stdout.contains("\"AutoSaveInterval\" => 300") },
        Step { result, _ in result.stdout == "string\n" },
        Step { result, _ in try Plist.read(Data(result.stdout.utf8)).value == ["Frame": "{{120, 80}, {1024, 768}}", "Zoomed": false] },
        Step { result, _ in result.stdout == "300\n" },
        // Convert.
        Step { _, directory in
            try PlistFile.load(directory.path("Settings.binary.plist")).format == .binary
                && value(directory, "Settings.binary.plist") == value(directory, "Settings.plist")
        },
        Step { result, directory in
            try Plist.read(Data(result.stdout.utf8)).value == value(directory, "Catalog.plist")
        },
        Step { result, _ in result.stdout.hasPrefix("Settings.plist: OK") && result.stdout.contains("Catalog.plist: OK") },
        // Edit.
        Step(),
        Step { _, directory in try value(directory, "Settings.plist")[keyPath: "Window.Width"] == 1280 },
        Step { _, directory in try value(directory, "Settings.plist")["ShowToolbar"] == false },
        Step { _, directory in try value(directory, "Settings.plist")[keyPath: "RecentDocuments.3"] == "notes.txt" },
        Step { _, directory in try value(directory, "Settings.plist")["item9"] == nil },
        // Compare and merge.
        Step(status: 1) { result, _ in
            result.stdout.contains("+ Window.Width: 1280") && result.stdout.contains("~ ShowToolbar: true -> false")
                && result.stdout.contains("- item9:")
        },
        Step(),
        Step { _, directory in try value(directory, "Theirs.plist")["AutoSaveInterval"] == 60 },
        Step { _, directory in
            let merged = try value(directory, "Settings.plist")
            return merged["AutoSaveInterval"] == 60 && merged[keyPath: "Window.Width"] == 1280
        },
        Step { result, _ in result.stdout.contains("\"AutoSaveInterval\" => 60") },
        // git drivers, in a repository the test makes (see below).
        Step { _, directory in try String(contentsOfFile: directory.path(".gitattributes"), encoding: .utf8) == "*.plist diff=plist merge=plist\n" },
        Step(), Step(), Step(), Step(),
    ]

    @Test("every command of the article runs as described")
    func commands() throws {
        let commands = try ListingRunner.shellCommands(in: Self.article)
        try #require(commands.count == Self.steps.count, "the article's commands changed: \(commands)")
        let directory = try TemporaryDirectory()
        try ListingRunner.copySample("Preferences.plist", to: directory, as: "Settings.plist")
        try ListingRunner.copySample("Catalog.plist", to: directory, as: "Catalog.plist")
        for (command, step) in zip(commands, Self.steps) {
            if command.hasPrefix("echo '*.plist") {
                // The git section works in a repository.
                let setup = try ListingRunner.shell("git init -q . && git config user.email docs@example.com && git config user.name docs", in: directory)
                try #require(setup.status == 0, "git init: \(setup.stderr)")
            }
            let result = try ListingRunner.shell(command, in: directory)
            #expect(result.status == step.status, "\(command): \(result.stderr)")
            #expect(try step.check(result, directory), "\(command) printed: \(result.stdout)\(result.stderr)")
        }
        // With the drivers set, git shows a binary plist's change as sorted text.
        let commit = try ListingRunner.shell(
            "git add Catalog.plist .gitattributes && git commit -q -m catalog && trove replace Title --string Changed Catalog.plist && git diff",
            in: directory)
        #expect(commit.status == 0, "\(commit.stderr)")
        #expect(commit.stdout.contains("+  \"Title\" => \"Changed\""), "\(commit.stdout)")
    }
}
