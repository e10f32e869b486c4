public import Foundation
public import SystemPackage
public import TroveCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads whole files into memory.
///
/// A read is safe against other processes: a file truncated or rewritten meanwhile gives a short
/// or mixed read, never a crash, and the descriptor is closed before the call returns, whatever
/// happens. Every failure is a ``PlistError`` with ``PlistError/path`` and ``PlistError/errno``
/// set, whose message starts with the path and ends with the system's reason, e.g.
/// `missing.plist: cannot open for reading: No such file or directory`.
public enum FileReader {
    /// How many bytes a read accepts unless told otherwise: far more than any real property list,
    /// and small enough that reading `/dev/zero` by mistake fails instead of exhausting memory.
    public static let defaultMaxBytes = 1 << 30

    /// Reads the whole file at `path`. Every path is a file name here, `-` too: standard input is
    /// ``read(from:name:maxBytes:)`` with `FileDescriptor.standardInput`.
    ///
    /// - Throws: ``PlistError/Code/io`` when the file is missing, unreadable or a directory, and
    ///   ``PlistError/Code/sizeLimit`` when it holds more than `maxBytes` bytes.
    public static func read(_ path: String, maxBytes: Int = defaultMaxBytes) throws(PlistError) -> Data {
        let file = try WholeFile.openForReading(path, maxBytes: maxBytes)
        defer { SystemCall.close(file.descriptor) }
        TestHook.pauseAfterOpen()
        let buffer = try WholeFile.readAll(from: file.descriptor, name: path, sizeHint: file.size, maxBytes: maxBytes)
        return Data(bytesNoCopy: buffer.base, count: buffer.count, deallocator: .free)
    }

    /// Reads the whole file at `path`, or returns nil when there is no file there (`ENOENT`): for
    /// callers to whom a missing file is an empty store or domain rather than a failure.
    ///
    /// - Throws: as ``read(_:maxBytes:)`` for every other failure.
    public static func readIfPresent(_ path: String, maxBytes: Int = defaultMaxBytes) throws(PlistError) -> Data? {
        do {
            return try read(path, maxBytes: maxBytes)
        } catch where error.errno == .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Reads everything that is left in `descriptor` (standard input, a pipe, an open file);
    /// `name` stands for it in errors. The descriptor stays open.
    public static func read(from descriptor: FileDescriptor, name: String, maxBytes: Int = defaultMaxBytes) throws(PlistError) -> Data {
        let buffer = try WholeFile.readAll(from: descriptor, name: name, sizeHint: 0, maxBytes: maxBytes)
        return Data(bytesNoCopy: buffer.base, count: buffer.count, deallocator: .free)
    }
}
