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
    ) throws -> (termination: ChildProcess.Termination, output: String) {
        let child = try start(name, in: directory, environment: environment)
        let output = child.readRemaining()
        return (child.wait(), output)
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
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = directory.url
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let binDirectory = URL(fileURLWithPath: trove).deletingLastPathComponent().path
        merged["PATH"] = binDirectory + ":" + (merged["PATH"] ?? "/usr/bin:/bin")
        process.environment = merged
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return ShellResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
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
