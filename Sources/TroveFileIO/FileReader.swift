import Foundation
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files, or standard input, into memory.
///
/// Every failure is a ``PlistError`` whose message starts with the path (`<stdin>` for standard
/// input) and ends with the system's reason, e.g.
/// `missing.plist: cannot open for reading: No such file or directory`.
public enum FileReader {
    /// The path that stands for standard input, as in `plutil` and most Unix tools.
    public static let standardInputPath = "-"

    /// How many bytes a read accepts unless told otherwise: far more than any real property list,
    /// and small enough that reading `/dev/zero` by mistake fails instead of exhausting memory.
    public static let defaultMaxBytes = 1 << 30

    /// The name used for `path` in messages: the path itself, or `<stdin>` for `-`.
    public static func displayName(for path: String) -> String {
        path == standardInputPath ? "<stdin>" : path
    }

    /// Reads the whole file at `path`, or all of standard input when `path` is `-`.
    ///
    /// - Throws: ``PlistError/Code/io`` when the file is missing, unreadable or a directory, and
    ///   ``PlistError/Code/sizeLimit`` when it holds more than `maxBytes` bytes.
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes) throws(PlistError) -> Data {
        if path == standardInputPath {
            return try readAll(from: STDIN_FILENO, name: displayName(for: path), sizeHint: 0, maxBytes: maxBytes)
        }
        return try readFile(atPath: path, maxBytes: maxBytes)
    }

    /// Reads the whole file at `path`; `-` is an ordinary file name here.
    public static func readFile(atPath path: String, maxBytes: Int = defaultMaxBytes) throws(PlistError) -> Data {
        guard !path.isEmpty else { throw PlistError(.io, "an empty path names no file") }
        let fd = SystemCall.openRetrying(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCall.failure(path, "cannot open for reading", errno: errno) }
        defer { _ = SystemCall.closeReportingError(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemCall.failure(path, "cannot inspect", errno: errno) }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw SystemCall.failure(path, "cannot read", errno: EISDIR)
        }
        let size = info.st_mode & S_IFMT == S_IFREG ? Int(clamping: info.st_size) : 0
        if size > maxBytes { throw tooLarge(path, maxBytes) }
        return try readAll(from: fd, name: path, sizeHint: size, maxBytes: maxBytes)
    }

    /// Reads until end of file. The size hint only sizes the first allocation: files can grow
    /// while being read, and pipes have no size.
    static func readAll(from fd: Int32, name: String, sizeHint: Int, maxBytes: Int) throws(PlistError) -> Data {
        let chunkSize = 1 << 16
        var result = Data()
        result.reserveCapacity(min(sizeHint, maxBytes) + 1)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                readSome(fd, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCall.failure(name, "cannot read", errno: errno)
            }
            if count == 0 { return result }
            let (total, overflow) = result.count.addingReportingOverflow(count)
            if overflow || total > maxBytes { throw tooLarge(name, maxBytes) }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    private static func tooLarge(_ name: String, _ maxBytes: Int) -> PlistError {
        PlistError(.sizeLimit, "\(name): is larger than the \(maxBytes)-byte limit for a property list file")
    }
}

/// `read(2)` under a name that the static `read` methods above do not shadow.
private func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
