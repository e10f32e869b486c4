import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process left behind: status, both outputs, and `seconds`, how long it
/// ran from spawn to exit (what a speed check should use; see `ProcessRun.Output`).
typealias ProcessResult = ProcessRun.Output

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

/// Runs an executable to completion, feeding `stdin` and collecting both outputs, under
/// `ProcessRun`'s time limit.
func runProcess(
    _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
) async throws -> ProcessResult {
    try await ProcessRun.run(executable, arguments, stdin: stdin ?? Data(), environment: environment)
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
