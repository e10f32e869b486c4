import Foundation
import Testing
import Trove
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file conventions that belong to the command line, not the library (`-`, devices and
/// pipes as outputs), and commands run on a file that another process changes under them.
@Suite("Command-line files: devices, pipes and files changed under a command", .enabled(if: TestEnvironment.hasTrove))
struct FileChangesUnderCommandTests {
    @Test("-o /dev/null is written to, not replaced")
    func deviceOutput() async throws {
        let result = try await trove("convert", "-f", "xml1", "-o", "/dev/null", TestEnvironment.sample("Preferences.plist"))
        #expect(result.status == 0, "\(result.stderrText)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/null is still the device")
    }

    @Test("-o FIFO writes through the pipe and leaves it a pipe")
    func pipeOutput() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Holding the read end open first lets the write proceed; the output fits in the pipe.
        let readEnd = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(readEnd >= 0)
        defer { close(readEnd) }
        let source = try directory.write(try Plist.write(["k": "through the pipe"], as: .binary), as: "in.plist")
        let result = try await trove("convert", "-f", "json", "-o", fifo, source)
        #expect(result.status == 0, "\(result.stderrText)")
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(readEnd, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == #"{"k":"through the pipe"}"#)
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the pipe was not replaced by a file")
        #expect(try directory.contents() == ["fifo", "in.plist"])
    }

    @Test("'-' reads standard input for type and extract, as for every verb")
    func standardInput() async throws {
        let data = try Plist.write(["a": ["b": 5]], as: .binary)
        let type = try await trove("type", "a.b", "-", stdin: data)
        #expect(type.status == 0 && type.stdoutText == "integer\n")
        let extract = try await trove("extract", "a.b", "raw", "-", stdin: data)
        #expect(extract.status == 0 && extract.stdoutText == "5\n")
    }

    /// Runs `trove ARGS... FILE` on a large binary plist, truncating FILE after the command has
    /// opened it and before it reads it (the TROVE_TEST_PAUSE_AFTER_OPEN hook makes the moment
    /// exact). When the command mapped the file, this killed it with SIGBUS.
    static func runTruncatingInput(_ arguments: [String]) throws -> (output: String, termination: ProcessTermination, file: String) {
        let directory = try TemporaryDirectory()
        var records: [PlistValue] = []
        for index in 0..<20_000 { records.append(["name": .string("record \(index)"), "n": .integer(PlistInteger(index))]) }
        let file = try directory.write(try Plist.write(["records": .array(records)], as: .binary), as: "big.plist")
        let fifo = directory.path("pause")
        try #require(mkfifo(fifo, 0o600) == 0)
        let binary = try #require(TroveExecutable.path)
        let child = try ProcessRun(
            binary, arguments + [file], environment: ["TROVE_TEST_PAUSE_AFTER_OPEN": fifo], mergeStandardError: true,
            timeLimit: .seconds(120))
        let writer = open(fifo, O_WRONLY)
        try #require(writer >= 0)
        #expect(truncate(file, 4096) == 0)
        close(writer)
        let run = try child.blockingOutput()
        return (run.printedLines, run.termination, file)
    }

    @Test("type and extract on a file truncated under them fail with an error line, never a crash",
          arguments: [["type", "records.19999.name"], ["extract", "records.19999.name", "raw"], ["extract", "records", "xml1", "-o", "-"]])
    func truncatedInput(arguments: [String]) throws {
        let (output, termination, file) = try Self.runTruncatingInput(arguments)
        #expect(termination == .exited(1), "\(output)")
        #expect(output.hasPrefix("\(file): "), "\(output)")
        #expect(output.contains("binary"), "\(output)")
    }
}
