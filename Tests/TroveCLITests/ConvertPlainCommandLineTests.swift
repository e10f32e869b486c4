import ArgumentParser
import Foundation
import Testing
import TroveTestSupport

@testable import trove

/// `trove convert` reads a plain command line itself rather than through ArgumentParser
/// (``ConvertRequest/init(plainCommandLine:)``): whatever it accepts must mean to it exactly what
/// ArgumentParser's parse means, and what it declines goes to ArgumentParser.
@Suite("trove convert: plain command lines")
struct ConvertPlainCommandLineTests {
    /// The request ArgumentParser's parse gives, or nil when it parses no `convert` command
    /// (an error, help, another verb).
    private func parsed(_ words: [String]) -> ConvertRequest? {
        (try? TroveCommand.parseAsRoot(words)).flatMap { $0 as? ConvertCommand }?.request
    }

    @Test(
        "the command lines of the README, the help text and the benchmark are read without ArgumentParser, as it reads them",
        arguments: [
            ["convert", "-f", "binary1", "-o", "out.plist", "in.plist"],
            ["convert", "--no-sync", "-f", "xml1", "-o", "out.plist", "in.plist"],
            ["convert", "xml1", "-o", "-", "Settings.plist"],
            ["convert", "--format", "binary1", "Settings.plist"],
            ["convert", "-f", "binary1", "Settings.plist"],
            ["convert", "-f", "xml1", "-e", "xml", "a.plist", "b.plist"],
            ["convert", "xml1", "-"],
            ["convert", "json", "-r", "-o", "-", "Settings.plist"],
            ["convert", "swift", "Settings.plist"],
            ["convert", "objc", "--header", "Settings.plist"],
            ["convert", "-f", "binary1", "--recursive", "Resources"],
            ["convert", "Settings.plist", "--output", "out.json", "--format", "JSON", "--readable", "-s"],
            ["convert", "-v", "-R", "-f", "openstep", "--extension", "txt", "dir"],
        ])
    func commonLinesTakeThePlainPath(_ words: [String]) throws {
        let plain = try #require(ConvertRequest(plainCommandLine: words))
        #expect(plain == parsed(words))
    }

    @Test(
        "anything outside the plain shape is left to ArgumentParser",
        arguments: [
            ["print", "a.plist"],
            ["-convert", "xml1", "a.plist"],
            ["convert", "--format=xml1", "a.plist"],
            ["convert", "-fxml1", "a.plist"],
            ["convert", "-f", "xml1", "--", "-a.plist"],
            ["convert", "-rR", "-f", "xml1", "dir"],
            ["convert", "-f", "xml1", "-f", "json", "a.plist"],
            ["convert", "-r", "--readable", "-f", "json", "a.plist"],
            ["convert", "-f", "xml1", "a.plist", "-o"],
            ["convert", "-f", "xml1", "-o", "-x", "a.plist"],
            ["convert", "-f", "xml1", "-o", "", "a.plist"],
            ["convert", "-f", "xml1", ""],
            ["convert", "-f", "yaml", "a.plist"],
            ["convert", "--match", "plist", "-f", "xml1", "dir"],
            ["convert", "objc", "-header", "a.plist"],
            ["convert", "xml1", "help"],
            ["convert", "-h"],
            ["convert", "--help"],
            ["convert", "--version"],
            ["convert", "-x", "a.plist"],
        ])
    func otherLinesAreLeftToArgumentParser(_ words: [String]) {
        #expect(ConvertRequest(plainCommandLine: words) == nil)
    }

    @Test("random command lines: every one read without ArgumentParser is read as ArgumentParser reads it")
    func randomLinesAgreeWithArgumentParser() {
        let vocabulary = [
            "xml1", "binary1", "json", "openstep", "swift", "objc", "xml", "BINARY", "bplist", "yaml",
            "a.plist", "b.plist", "dir", "-", "--", "", "help", "convert",
            "-f", "--format", "-o", "--output", "-e", "--extension", "-r", "--readable", "--header", "-header",
            "-R", "--recursive", "--no-sync", "-v", "--verbose", "-s", "--silent", "--match", "plist,json",
            "--format=json", "-oout", "-rs", "-h", "--version", "-z",
        ]
        var generator = SplitMix(seed: 0xc0417e)
        var plainCount = 0
        for _ in 0..<600 {
            var words = ["convert"]
            for _ in 0..<(1 + generator.below(6)) { words.append(vocabulary[generator.below(vocabulary.count)]) }
            guard let plain = ConvertRequest(plainCommandLine: words) else { continue }
            plainCount += 1
            let validates = (try? plain.validate()) != nil
            let reference = parsed(words)
            if validates {
                #expect(plain == reference, "\(words)")
            } else {
                // ArgumentParser validates while parsing, so it must refuse the line too.
                #expect(reference == nil, "\(words)")
            }
        }
        #expect(plainCount > 100, "the vocabulary yields enough plain lines to compare")
    }

    @Test("plutil's verb flags name trove's verbs")
    func plutilVerbFlags() {
        let flags = ["-lint", "-convert", "-p", "-help", "-type", "-extract", "-insert", "-replace", "-remove", "-create"]
        #expect(flags.map { TroveCommand.verb(forPlutilFlag: $0) } == [
            "lint", "convert", "print", "--help", "type", "extract", "insert", "replace", "remove", "create",
        ])
        #expect(TroveCommand.verb(forPlutilFlag: "-convert1") == nil)
        #expect(TroveCommand.verb(forPlutilFlag: "convert") == nil)
        #expect(TroveCommand.verb(forPlutilFlag: "-s") == nil)
    }
}

@Suite("trove convert: plain and parsed runs", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct ConvertPlainRunTests {
    /// Runs `convert` twice, once with a plain command line and once with `-f FORMAT` spelled
    /// `--format=FORMAT`, which only ArgumentParser reads, and expects the same status, the same
    /// standard output and error, and the same file at OUTPUT (when the line names one).
    private func expectSameRun(format: String, _ rest: [String], output: String? = nil, in directory: TemporaryDirectory) async throws {
        let plain = try await trove(arguments: ["convert", "-f", format] + rest)
        let plainOutput = output.flatMap { FileManager.default.contents(atPath: directory.path($0)) }
        if let output { try? FileManager.default.removeItem(atPath: directory.path(output)) }
        let reference = try await trove(arguments: ["convert", "--format=\(format)"] + rest)
        let referenceOutput = output.flatMap { FileManager.default.contents(atPath: directory.path($0)) }
        #expect(plain.status == reference.status, "\(rest)")
        #expect(plain.stdout == reference.stdout, "\(rest)")
        #expect(plain.stderrText == reference.stderrText, "\(rest)")
        #expect(plainOutput == referenceOutput, "\(rest)")
    }

    @Test("a conversion, a failed read, a refused directory and a failed write end the same either way")
    func sameOutcomes() async throws {
        let directory = try TemporaryDirectory()
        let preferences = TestEnvironment.sample("Preferences.plist")
        let subdirectory = directory.path("inputs")
        try FileManager.default.createDirectory(atPath: subdirectory, withIntermediateDirectories: true)
        let broken = try directory.write(Data("<plist><dict><key>a</key></plist>".utf8), as: "broken.plist")

        try await expectSameRun(format: "binary1", ["-o", directory.path("out.bin"), preferences], output: "out.bin", in: directory)
        try await expectSameRun(format: "json", ["-r", "-o", "-", preferences], in: directory)
        try await expectSameRun(format: "xml1", ["-o", "-", directory.path("missing.plist")], in: directory)
        try await expectSameRun(format: "xml1", ["-o", "-", broken, preferences], in: directory)
        try await expectSameRun(format: "xml1", ["-o", "-", subdirectory], in: directory)
        try await expectSameRun(format: "xml1", ["-o", directory.path("no/such/dir/out.xml"), preferences], in: directory)
        try await expectSameRun(format: "xml1", ["-o", directory.path("one"), preferences, broken], in: directory)
    }

    @Test("a new output file gets 0644 minus the umask the command runs under")
    func newFileFollowsTheUmask() async throws {
        let directory = try TemporaryDirectory()
        let binary = try #require(TroveExecutable.path)
        for (mask, expected) in [("077", 0o600), ("027", 0o640), ("000", 0o644)] {
            let output = directory.path("out-\(mask).plist")
            let script = "umask \(mask) && exec \"$0\" convert -f binary1 -o \"$1\" \"$2\""
            let result = try await runProcess("/bin/sh", ["-c", script, binary, output, TestEnvironment.sample("Preferences.plist")])
            #expect(result.status == 0, "\(result.stderrText)")
            let attributes = try FileManager.default.attributesOfItem(atPath: output)
            #expect((attributes[.posixPermissions] as? Int) == expected, "umask \(mask)")
        }
    }
}
