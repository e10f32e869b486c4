import Foundation
import Testing

@Suite("trove create", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct CreateCommandTests {
    @Test("standard output gets plutil -create's bytes", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: [["xml1"], ["binary1"], ["json"], ["json", "-r"]])
    func matchesPlutil(arguments: [String]) async throws {
        let ours = try await trove(arguments: ["create"] + arguments + ["-"])
        let binary = try #require(TestEnvironment.plutil)
        let theirs = try await runProcess(binary, ["-create"] + arguments + ["-"])
        try #require(theirs.status == 0, "plutil: \(theirs.stderrText)")
        #expect(ours.status == 0, "\(ours.stderrText)")
        #expect(ours.stdout == theirs.stdout)
    }

    @Test("files are written, replacing what was there, and read back as an empty dictionary")
    func writesFiles() async throws {
        let directory = try TemporaryDirectory()
        let existing = try directory.write(Data("not a plist".utf8), as: "existing.plist")
        let fresh = directory.path("fresh.plist")
        let result = try await trove("-create", "binary1", existing, fresh)
        #expect(result.status == 0, "\(result.stderrText)")
        for path in [existing, fresh] {
            let written = try bytes(of: path)
            #expect(try foundationFormat(written) == .binary)
            #expect(try foundationValue(written) == NSDictionary())
        }
    }

    @Test("openstep is an empty dictionary Foundation reads")
    func openStep() async throws {
        let result = try await trove("create", "openstep", "-")
        #expect(result.status == 0)
        #expect(try foundationFormat(result.stdout) == .openStep)
        #expect(try foundationValue(result.stdout) == NSDictionary())
    }

    @Test("a directory that does not exist fails with the path in the message")
    func unwritablePath() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing/new.plist")
        let result = try await trove("create", "xml1", path)
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("\(path)"))
    }

    @Test("usage errors exit with status 64", arguments: [["create"], ["create", "xml1"], ["create", "yaml", "-"]])
    func usageErrors(arguments: [String]) async throws {
        let result = try await trove(arguments: arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }
}
