import Foundation
import Testing
import Trove
import TroveTestSupport

/// `trove defaults`: the macOS `defaults` verbs, output and errors, in a preferences directory of
/// the test's own.
@Suite("trove defaults", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not found"))
struct DefaultsCommandTests {
    final class Scratch: @unchecked Sendable {
        let directory: TemporaryDirectory
        init() throws { directory = try TemporaryDirectory() }

        func run(_ arguments: String...) async throws -> ProcessResult {
            let binary = try #require(TroveExecutable.path)
            return try await runProcess(binary, ["defaults"] + arguments, environment: ["TROVE_PREFERENCES_DIR": directory.url.path])
        }

        func domain(_ name: String) throws -> PlistValue {
            let file = PreferencesLocation(directory: directory.url.path).path(forDomain: name)
            return try Plist.read(Data(contentsOf: URL(fileURLWithPath: file))).value
        }
    }

    @Test("write with every type flag, then read prints defaults' text form")
    func writeAndRead() async throws {
        let t = try Scratch()
        #expect(try await t.run("write", "com.ex", "Name", "Trove app").status == 0)
        #expect(try await t.run("write", "com.ex", "Count", "-int", "9223372036854775807").status == 0)
        #expect(try await t.run("write", "com.ex", "Big", "-integer", "18446744073709551615").status == 0)
        #expect(try await t.run("write", "com.ex", "Flag", "-bool", "YES").status == 0)
        #expect(try await t.run("write", "com.ex", "Blob", "-data", "01020304").status == 0)
        #expect(try await t.run("write", "com.ex", "When", "-date", "2024-03-09 18:45:00 +0000").status == 0)
        #expect(try await t.run("write", "com.ex", "List", "-array", "a", "b c", "-int", "3").status == 0)
        #expect(try await t.run("write", "com.ex", "List", "-array-add", "d").status == 0)
        #expect(try await t.run("write", "com.ex", "Map", "-dict", "k", "v", "n", "-int", "2").status == 0)
        #expect(try await t.run("write", "com.ex", "Map", "-dict-add", "z", "-float", "0.5").status == 0)
        #expect(try await t.run("write", "com.ex", "Nested", "{ items = ({a = 1;}, x); }").status == 0)
        let stored = try t.domain("com.ex")
        #expect(stored["Count"] == .integer(PlistInteger(Int64.max)))
        #expect(stored["Big"] == .integer(PlistInteger(UInt64.max)))
        #expect(stored["List"] == ["a", "b c", 3, "d"])
        #expect(stored["Map"] == ["k": "v", "n": 2, "z": 0.5])
        let read = try await t.run("read", "com.ex")
        #expect(read.status == 0)
        #expect(read.stdoutText == """
            {
                Big = 18446744073709551615;
                Blob = {length = 4, bytes = 0x01020304};
                Count = 9223372036854775807;
                Flag = 1;
                List =     (
                    a,
                    "b c",
                    3,
                    d
                );
                Map =     {
                    k = v;
                    n = 2;
                    z = 0.5;
                };
                Name = "Trove app";
                Nested =     {
                    items =         (
                                    {
                            a = 1;
                        },
                        x
                    );
                };
                When = "2024-03-09 18:45:00 +0000";
            }

            """)
        #expect(try await t.run("read", "com.ex", "Name").stdoutText == "Trove app\n")
        #expect(try await t.run("read", "com.ex", "List").stdoutText == "(\n    a,\n    \"b c\",\n    3,\n    d\n)\n")
        #expect(try await t.run("read-type", "com.ex", "Flag").stdoutText == "Type is boolean\n")
        #expect(try await t.run("read-type", "com.ex", "Map").stdoutText == "Type is dictionary\n")
        #expect(try await t.run("read-type", "com.ex", "Big").stdoutText == "Type is integer\n")
    }

    @Test("a value that does not parse is a usage error and changes nothing")
    func badValues() async throws {
        let s = try Scratch()
        #expect(try await s.run("write", "com.ex", "Keep", "-int", "1").status == 0)
        let before = try s.domain("com.ex")
        for arguments in [
            ["write", "com.ex", "Keep", "-int", "abc"], ["write", "com.ex", "Keep", "-bool", "maybe"],
            ["write", "com.ex", "Keep", "-float", "x"], ["write", "com.ex", "Keep", "-data", "0g"],
            ["write", "com.ex", "Keep", "-date", "2024"], ["write", "com.ex", "Keep", "(a, b"],
            ["write", "com.ex", "Keep", "-dict", "k"], ["write", "com.ex", "Keep", "-array", "-int"],
            ["write", "com.ex", "{not a dict"], ["frobnicate"], ["read", "a", "b", "c"],
        ] {
            let result = try await runProcess(
                try #require(TroveExecutable.path), ["defaults"] + arguments,
                environment: ["TROVE_PREFERENCES_DIR": s.directory.url.path])
            #expect(result.status == 64, "\(arguments): \(result.stderrText)")
            #expect(result.stderrText.hasPrefix("trove defaults: "), "\(arguments)")
        }
        #expect(try s.domain("com.ex") == before)
    }

    @Test("missing domains and keys fail as defaults reports them")
    func missing() async throws {
        let s = try Scratch()
        let noDomain = try await s.run("read", "com.none")
        #expect(noDomain.status == 1 && noDomain.stderrText == "Domain com.none does not exist\n")
        #expect(try await s.run("write", "com.ex", "A", "1").status == 0)
        let noKey = try await s.run("read", "com.ex", "B")
        #expect(noKey.status == 1 && noKey.stderrText == "The domain/default pair of (com.ex, B) does not exist\n")
        let deleteNone = try await s.run("delete", "com.none")
        #expect(deleteNone.status == 1 && deleteNone.stderrText == "Domain (com.none) not found.\nDefaults have not been changed.\n")
        let renameNone = try await s.run("rename", "com.ex", "B", "C")
        #expect(renameNone.status == 1)
        #expect(try s.domain("com.ex") == ["A": "1"])
    }

    @Test("delete, rename, domains, find, export, import, -g and a file path as the domain")
    func otherVerbs() async throws {
        let s = try Scratch()
        #expect(try await s.run("write", "com.b", "Title", "Hello world").status == 0)
        #expect(try await s.run("write", "com.a", "X", "-int", "1").status == 0)
        #expect(try await s.run("write", "-g", "AppleLocale", "en_US").status == 0)
        #expect(try s.domain("NSGlobalDomain") == ["AppleLocale": "en_US"])
        #expect(try await s.run("read", "NSGlobalDomain", "AppleLocale").stdoutText == "en_US\n")
        #expect(try await s.run("domains").stdoutText == "com.a, com.b\n")
        #expect(try await s.run("find", "hello").stdoutText == "Found 1 keys in domain 'com.b': {\n    Title = \"Hello world\";\n}\n")
        #expect(try await s.run("find", "zzz").stdoutText == "No domain, key, nor value containing 'zzz'\n")
        #expect(try await s.run("rename", "com.b", "Title", "Heading").status == 0)
        #expect(try s.domain("com.b") == ["Heading": "Hello world"])
        let exported = try await s.run("export", "com.b", "-")
        #expect(try Plist.read(exported.stdout).format == .xml)
        #expect(try Plist.read(exported.stdout).value == ["Heading": "Hello world"])
        let importFile = s.directory.url.appendingPathComponent("in.json").path
        try Data(#"{"Imported": [1, 2]}"#.utf8).write(to: URL(fileURLWithPath: importFile))
        #expect(try await s.run("import", "com.c", importFile).status == 0)
        #expect(try s.domain("com.c") == ["Imported": [1, 2]])
        #expect(try await s.run("delete", "com.c", "Imported").status == 0)
        #expect(try s.domain("com.c") == [:])
        #expect(try await s.run("delete", "com.a").status == 0)
        #expect(try await s.run("domains").stdoutText == "com.b, com.c\n")
        let path = s.directory.url.appendingPathComponent("elsewhere/app").path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(try await s.run("write", path, "K", "v").status == 0)
        #expect(try Plist.read(Data(contentsOf: URL(fileURLWithPath: path + ".plist"))).value == ["K": "v"])
    }
}
