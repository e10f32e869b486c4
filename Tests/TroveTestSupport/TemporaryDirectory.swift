import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory under the system's temporary directory, removed when the value goes away.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Undo any permission a test removed, so that the cleanup itself cannot fail.
        chmod(url.path, 0o755)
        try? FileManager.default.removeItem(at: url)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies a file in and returns the copy's path.
    public func copy(_ source: String, as name: String) throws -> String {
        let destination = path(name)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// Writes bytes to a new file and returns its path.
    public func write(_ data: Data, as name: String) throws -> String {
        let destination = path(name)
        try data.write(to: URL(fileURLWithPath: destination))
        return destination
    }

    /// The names in the directory, sorted.
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}
