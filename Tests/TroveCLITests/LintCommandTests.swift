import Foundation
import Testing

@Suite("trove lint", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct LintCommandTests {
    @Test("valid files print FILE: OK and exit 0")
    func validFiles() async throws {
        let xml = TestEnvironment.sample("Preferences.plist")
        let binary = TestEnvironment.sample("Catalog.plist")
        let result = try await trove("lint", xml, binary)
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stdoutText == "\(xml): OK\n\(binary): OK\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("lint is the default command, as in plutil")
    func lintIsDefault() async throws {
        let xml = TestEnvironment.sample("Preferences.plist")
        let result = try await trove(xml)
        #expect(result.status == 0)
        #expect(result.stdoutText == "\(xml): OK\n")
    }

    @Test("-s prints nothing for valid files")
    func silent() async throws {
        let result = try await trove("lint", "-s", TestEnvironment.sample("Preferences.plist"))
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test("an invalid XML file is reported with line:column on stderr and exit 1")
    func invalidXML() async throws {
        let good = TestEnvironment.sample("Preferences.plist")
        let broken = TestEnvironment.sample("Broken.plist")
        let result = try await trove("lint", good, broken)
        #expect(result.status == 1)
        #expect(result.stdoutText == "\(good): OK\n", "the valid file is still reported")
        let line = result.stderrText
        #expect(line.hasPrefix("\(broken):8:10: XML: "), "got: \(line)")
        #expect(line.hasSuffix("\n"))
        #expect(line.split(separator: "\n").count == 1)
    }

    @Test("-s still reports failures")
    func silentStillReportsFailures() async throws {
        let broken = TestEnvironment.sample("Broken.plist")
        let result = try await trove("lint", "-s", broken)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrText.hasPrefix("\(broken):8:10: XML: "))
    }

    @Test("a truncated binary file is reported as a binary error with a byte offset")
    func truncatedBinary() async throws {
        let directory = try TemporaryDirectory()
        let whole = try bytes(of: TestEnvironment.sample("Catalog.plist"))
        let truncated = try directory.write(whole.prefix(whole.count - 40), as: "truncated.plist")
        let result = try await trove("lint", truncated)
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("\(truncated): byte "), "got: \(result.stderrText)")
        #expect(result.stderrText.contains(": binary: "), "got: \(result.stderrText)")
    }

    @Test("a missing file and a directory are errors that name the path")
    func unreadableInputs() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.plist")
        let result = try await trove("lint", missing, directory.url.path)
        #expect(result.status == 1)
        let lines = result.stderrText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "\(missing): cannot open for reading: No such file or directory")
        #expect(lines.last?.hasPrefix("\(directory.url.path): ") == true)
        #expect(lines.last?.contains("Is a directory") == true)
    }

    @Test("an empty file is not a property list")
    func emptyFile() async throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write(Data(), as: "empty.plist")
        let result = try await trove("lint", empty)
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("\(empty): "))
    }

    @Test("'-' reads standard input and is called <stdin>")
    func standardInput() async throws {
        let data = try bytes(of: TestEnvironment.sample("Catalog.plist"))
        let ok = try await trove("lint", "-", stdin: data)
        #expect(ok.status == 0)
        #expect(ok.stdoutText == "<stdin>: OK\n")

        let bad = try await trove("lint", "-", stdin: Data("<plist><dict><key>a</key></dict></plist>".utf8))
        #expect(bad.status == 1)
        #expect(bad.stderrText.hasPrefix("<stdin>:1:"), "got: \(bad.stderrText)")
        #expect(bad.stderrText.contains(": XML: "), "got: \(bad.stderrText)")
    }

    @Test("no file at all is a usage error")
    func usageError() async throws {
        let result = try await trove("lint")
        #expect(result.status == 64)
        #expect(!result.stderr.isEmpty)
    }
}
