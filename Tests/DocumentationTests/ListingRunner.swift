import Foundation
import Testing
import TroveTestSupport

/// Runs the documents' listings and commands the way a reader would: a Swift listing through
/// `trove-doc-listings` in a scratch directory, a shell command through `/bin/sh` there with the
/// built `trove` first on `PATH`.
enum ListingRunner {
    /// The program that holds the Swift listings (`Tests/DocumentationListings`).
    static let program = TroveExecutable.product(named: "trove-doc-listings")

    /// Whether the built programs are there; suites disable themselves with a reason otherwise.
    static var isAvailable: Bool { program != nil && TroveExecutable.path != nil }

    /// Runs the listing `name` in `directory` to its end and returns what it printed.
    static func run(
        _ name: String, in directory: TemporaryDirectory, environment: [String: String] = [:]
    ) throws -> (termination: ProcessTermination, output: String) {
        let program = try #require(program, "trove-doc-listings was not found next to the tests")
        let run = try ProcessRun.runBlocking(
            program, [name, directory.url.path], environment: environment, mergeStandardError: true, timeLimit: .seconds(120))
        return (run.termination, run.printedLines)
    }

    /// Starts the listing `name` in `directory`, for listings that watch and never end; the
    /// process is killed when the value goes away.
    static func start(_ name: String, in directory: TemporaryDirectory, environment: [String: String] = [:]) throws -> ChildProcess {
        let program = try #require(program, "trove-doc-listings was not found next to the tests")
        return try ChildProcess(program, [name, directory.url.path], environment: environment)
    }

    /// Runs a shell command line in `directory` and returns its status and outputs.
    static func shell(
        _ command: String, in directory: TemporaryDirectory, environment: [String: String] = [:]
    ) throws -> ShellResult {
        let trove = try #require(TroveExecutable.path, "the trove executable was not found next to the tests")
        var merged = environment
        let binDirectory = URL(fileURLWithPath: trove).deletingLastPathComponent().path
        merged["PATH"] = binDirectory + ":" + (environment["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try ProcessRun.runBlocking(
            "/bin/sh", ["-c", command], environment: merged, directory: directory.url.path, timeLimit: .seconds(120))
        return ShellResult(status: run.status, stdout: run.stdoutText, stderr: run.stderrText)
    }

    /// The commands of a document's ```sh blocks, in order.
    static func shellCommands(in document: String) throws -> [String] {
        CodeBlock.all(in: try DocumentListings.text(document)).filter { $0.language == "sh" }.flatMap(\.commands)
    }

    /// Copies a file of `Samples/` into `directory` under `name`.
    @discardableResult
    static func copySample(_ sample: String, to directory: TemporaryDirectory, as name: String) throws -> String {
        try directory.copy(DocumentListings.packageRoot.appendingPathComponent("Samples/" + sample).path, as: name)
    }
}

/// What a shell command did.
struct ShellResult {
    var status: Int32
    var stdout: String
    var stderr: String
}
