import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test helper executable (`Tests/TroveFileIOTestHelper`), built beside the tests.
enum Helper {
    static let path: String? = TroveExecutable.product(named: "TroveFileIOTestHelper")
    static var isBuilt: Bool { path != nil }

    /// Starts the helper with a command and its arguments.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        let executable = try #require(path, "TroveFileIOTestHelper was not built next to the tests")
        return try ChildProcess(executable, arguments, environment: environment)
    }

    /// Runs the helper to completion and returns what it printed and how it ended.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (output: String, termination: ProcessTermination) {
        let executable = try #require(path, "TroveFileIOTestHelper was not built next to the tests")
        let run = try ProcessRun.runBlocking(
            executable, arguments, stdin: Data(), environment: environment, mergeStandardError: true, timeLimit: .seconds(120))
        return (run.printedLines, run.termination)
    }
}

/// Reads a file's bytes, failing the test when it is missing.
func bytes(of path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// The permission bits of a file.
func permissions(of path: String) throws -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
    return Int(info.st_mode & 0o7777)
}

/// The process's umask, read without changing it for long.
func currentUmask() -> mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(within timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The targets of this process's open descriptors (`/proc/self/fd`), e.g. to check that nothing
/// under a test's directory is still open.
func openDescriptorTargets() -> [String] {
    let directory = "/proc/self/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
    return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0) }
}
