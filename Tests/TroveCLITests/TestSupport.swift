import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process left behind.
struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: Data
    /// How long the child ran, from launch to exit as its termination handler saw it: what a
    /// speed check should use, since the test's own wall clock also counts the time its task
    /// waited for a thread of the shared pool.
    var seconds: Double

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Paths and tools the CLI tests need, found once.
enum TestEnvironment {
    /// The package root, derived from this file's location (`Tests/TroveCLITests/...`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let samples = packageRoot.appendingPathComponent("Samples")

    static func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    /// The fixture corpus, found by the locator every test target shares.
    static let fixtures: URL? = FixtureLocation.root

    /// The toolchain's plutil: `$TROVE_PLUTIL`, the one next to `swift`, or the first on PATH.
    static let plutil: String? = {
        if let explicit = ProcessInfo.processInfo.environment["TROVE_PLUTIL"] { return explicit }
        return executableOnPath("plutil")
    }()

    static let python3: String? = executableOnPath("python3")

    static func executableOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static var hasTrove: Bool { TroveExecutable.path != nil }
    static var hasPlutil: Bool { TroveExecutable.path != nil && plutil != nil }
}

/// Runs an executable to completion, feeding `stdin` and collecting both outputs. The outputs
/// go through files rather than pipes so that a large output can never deadlock the test, and
/// the wait suspends rather than blocks, so that a long differential test does not hold one of
/// the few threads every test's tasks run on.
func runProcess(
    _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil
) async throws -> ProcessResult {
    let scratch = try TemporaryDirectory()
    let outURL = scratch.url.appendingPathComponent("stdout")
    let errURL = scratch.url.appendingPathComponent("stderr")
    let inURL = scratch.url.appendingPathComponent("stdin")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: inURL.path, contents: stdin ?? Data())

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let outHandle = try FileHandle(forWritingTo: outURL)
    let errHandle = try FileHandle(forWritingTo: errURL)
    let inHandle = try FileHandle(forReadingFrom: inURL)
    process.standardOutput = outHandle
    process.standardError = errHandle
    process.standardInput = inHandle
    let exit = ExitTime()
    process.terminationHandler = { _ in exit.mark() }
    let launched = ContinuousClock.now
    try process.run()
    await process.exited()
    try outHandle.close()
    try errHandle.close()
    try inHandle.close()
    let ran = (exit.instant ?? .now) - launched
    return ProcessResult(
        status: process.terminationStatus,
        stdout: try Data(contentsOf: outURL),
        stderr: try Data(contentsOf: errURL),
        seconds: Double(ran.components.seconds) + Double(ran.components.attoseconds) / 1e18)
}

/// When a child exited, set from its termination handler (which runs on Foundation's thread).
private final class ExitTime: @unchecked Sendable {
    // Unchecked: the one field is only touched under the lock.
    private let lock = NSLock()
    private var time: ContinuousClock.Instant?

    func mark() { lock.withLock { time = .now } }

    var instant: ContinuousClock.Instant? { lock.withLock { time } }
}

/// Runs the built `trove` with `arguments`.
func trove(_ arguments: String..., stdin: Data? = nil) async throws -> ProcessResult {
    try await trove(arguments: arguments, stdin: stdin)
}

func trove(arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
    let binary = try #require(TroveExecutable.path, "the trove executable was not found next to the tests")
    return try await runProcess(binary, arguments, stdin: stdin)
}

/// Runs the toolchain's plutil with `arguments`.
func plutil(_ arguments: String...) async throws -> ProcessResult {
    let binary = try #require(TestEnvironment.plutil, "plutil was not found")
    return try await runProcess(binary, arguments)
}

/// The shared scratch directory type (see `TroveTestSupport`), under its familiar name.
typealias TemporaryDirectory = TroveTestSupport.TemporaryDirectory

/// Reads a file's bytes, failing the test when it is missing.
func bytes(of path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// The permission bits of a file.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Parses a property list with the toolchain's Foundation, the independent peer the CLI is
/// checked against.
func foundationValue(_ data: Data) throws -> NSObject {
    var format = PropertyListSerialization.PropertyListFormat.xml
    let value = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
    return try #require(value as? NSObject)
}

/// The format Foundation detects for `data`.
func foundationFormat(_ data: Data) throws -> PropertyListSerialization.PropertyListFormat {
    var format = PropertyListSerialization.PropertyListFormat.xml
    _ = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
    return format
}
