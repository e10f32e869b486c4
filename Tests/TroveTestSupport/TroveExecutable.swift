import Foundation

/// The built `trove` command, for tests that run it in a child process (the CLI tests, and the
/// fixture tests that measure a decode's peak memory in a process of its own).
public enum TroveExecutable {
    /// `$TROVE_BINARY`, or `trove` in the build products directory that holds the test bundle
    /// (`swift build --build-tests` builds it there); nil when neither is found, so that suites
    /// can disable themselves with a reason instead of failing.
    public static let path: String? = {
        if let explicit = ProcessInfo.processInfo.environment["TROVE_BINARY"] { return explicit }
        return product(named: "trove")
    }()

    /// An executable of this package built beside the tests (`swift build --build-tests` builds
    /// every executable target there), or nil.
    public static func product(named name: String) -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
            .deletingLastPathComponent()
        if let executable = Bundle.main.executableURL { directory = executable.deletingLastPathComponent() }
        // The test bundle may sit a few folders below the products directory (an .xctest bundle
        // on macOS), so look upwards a little.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
