import Foundation
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces whole files so that a reader sees either the old content or the new, never a mix,
/// even when the writer is killed or the disk fills up halfway.
///
/// The bytes go to a temporary file in the target's directory, named
/// `.<name>.trove-XXXXXX` so that a leftover from a killed process is easy to recognise. The
/// temporary file is written completely, given the target's permission bits, flushed with
/// `fsync`, and only then renamed over the target; finally the directory itself is flushed so the
/// rename survives a power loss (``Durability/unflushed`` skips both flushes). If any step fails
/// the temporary file is removed and the target is left exactly as it was.
///
/// A symbolic link as the target is followed: the file it points to is replaced and the link
/// stays a link. A device or pipe (`/dev/null`, `/dev/stdout`) cannot be replaced and is simply
/// written to.
public enum AtomicFile {
    /// How far a write waits for the disk before it returns.
    public enum Durability: Sendable {
        /// The file and then its directory are flushed with `fsync`: once the write returns, the
        /// new content survives a power cut or a kernel crash. The default.
        case flushed
        /// Nothing is flushed: the file is still replaced by a rename, so readers and killed
        /// writers see the old content or the new, never a mix, but a power cut or kernel crash
        /// soon after the write may leave the old content (or, on some file systems, an empty
        /// file). What `plutil` and `plistutil` do; for batch conversions and scratch output,
        /// where flushing each file costs more than writing it.
        case unflushed
    }

    /// The text between the target's name and the random suffix in a temporary file's name.
    public static let temporaryNameMarker = ".trove-"

    /// True when `fileName` (a last path component) has the shape of one of our temporary files,
    /// e.g. to clean up after a writer that was killed.
    public static func isTemporaryFileName(_ fileName: String) -> Bool {
        guard fileName.hasPrefix("."), let range = fileName.range(of: temporaryNameMarker, options: .backwards) else {
            return false
        }
        return fileName[range.upperBound...].count == 6
    }

    /// Writes `data` to `path`, replacing any existing file atomically.
    ///
    /// An existing file keeps its permission bits (and, where the process may set them, its owner
    /// and group); a new file gets `0644` minus the process's umask.
    ///
    /// - Throws: ``PlistError/Code/io`` naming the path and the system's reason. The target is then
    ///   unchanged and no temporary file is left behind.
    public static func write(_ data: Data, to path: String, durability: Durability = .flushed) throws(PlistError) {
        let result: Result<Void, PlistError> = data.withUnsafeBytes { bytes in
            Result { () throws(PlistError) in try write(bytes: bytes, to: path, durability: durability) }
        }
        try result.get()
    }

    /// Writes raw bytes to `path`, replacing any existing file atomically. See ``write(_:to:)``.
    public static func write(
        bytes: UnsafeRawBufferPointer, to path: String, durability: Durability = .flushed
    ) throws(PlistError) {
        guard !path.isEmpty else { throw PlistError(.io, "an empty path names no file") }
        if isStream(path) {
            try writeToStream(bytes, at: path)
            return
        }
        let target = try resolvedTarget(path)
        let directory = directoryPart(of: target)
        let existing = try existingFileStatus(target, shownAs: path)
        let mode = existing.map { $0.st_mode & 0o7777 } ?? (0o644 & ~SystemCall.currentUmask())

        var template = Array(temporaryTemplate(for: target).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else {
            throw SystemCall.failure(path, "cannot create a temporary file in '\(directory)'", errno: errno)
        }
        let temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkostemp, which could set this atomically, is not exported by Glibc's module map; a
        // child spawned in between would only hold a descriptor to a file that is about to vanish.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var descriptorOpen = true
        var renamed = false
        defer {
            if descriptorOpen { _ = SystemCall.closeReportingError(fd) }
            if !renamed { unlink(temporaryPath) }
        }

        try writeFully(fd, bytes, shownAs: path)
        if let existing, existing.st_uid != geteuid() || existing.st_gid != getegid() {
            // Best effort: only root or the owner may do this, and a copy owned by us is still a
            // correct result when it is not allowed.
            _ = fchown(fd, existing.st_uid, existing.st_gid)
        }
        guard fchmod(fd, mode) == 0 else { throw SystemCall.failure(path, "cannot set permissions", errno: errno) }
        if durability == .flushed {
            guard fsyncRetrying(fd) == 0 else { throw SystemCall.failure(path, "cannot flush to disk", errno: errno) }
        }
        descriptorOpen = false
        let closeError = SystemCall.closeReportingError(fd)
        guard closeError == 0 else { throw SystemCall.failure(path, "cannot finish writing", errno: closeError) }
        guard rename(temporaryPath, target) == 0 else {
            throw SystemCall.failure(path, "cannot replace the file", errno: errno)
        }
        renamed = true
        // The new content is in place from here on, so a failure to flush the directory is not
        // reported as a failed write; it only leaves the rename's survival of a power cut open.
        if durability == .flushed { flushDirectory(directory) }
    }

    /// True for a device, pipe or socket (`/dev/null`, `/dev/stdout`, a FIFO): places that take a
    /// stream of bytes and cannot be replaced by renaming.
    private static func isStream(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFCHR || kind == S_IFIFO || kind == S_IFSOCK
    }

    /// Writes straight into a device or pipe; atomicity means nothing there.
    private static func writeToStream(_ bytes: UnsafeRawBufferPointer, at path: String) throws(PlistError) {
        let fd = SystemCall.openRetrying(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCall.failure(path, "cannot open for writing", errno: errno) }
        var descriptorOpen = true
        defer { if descriptorOpen { _ = SystemCall.closeReportingError(fd) } }
        try writeFully(fd, bytes, shownAs: path)
        descriptorOpen = false
        let closeError = SystemCall.closeReportingError(fd)
        guard closeError == 0 else { throw SystemCall.failure(path, "cannot finish writing", errno: closeError) }
    }

    /// The file to replace: `path` itself, or for a symbolic link the file it points to.
    private static func resolvedTarget(_ path: String) throws(PlistError) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            throw SystemCall.failure(path, "cannot follow the symbolic link", errno: errno)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The status of an existing target, nil when there is none yet. Refuses anything that is not
    /// a regular file, since renaming over it would replace a directory entry of another kind.
    private static func existingFileStatus(_ target: String, shownAs path: String) throws(PlistError) -> stat? {
        var info = stat()
        if stat(target, &info) != 0 {
            if errno == ENOENT { return nil }
            throw SystemCall.failure(path, "cannot inspect", errno: errno)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw SystemCall.failure(path, "cannot replace", errno: EISDIR)
        }
        if info.st_mode & S_IFMT != S_IFREG {
            throw SystemCall.failure(path, "cannot replace: not a regular file")
        }
        return info
    }

    /// Everything before the last `/`, `.` for a bare name and `/` for a file in the root.
    static func directoryPart(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// `<dir>/.<name>.trove-XXXXXX`, with the name shortened when needed so that the whole
    /// component stays within the 255-byte limit of common file systems.
    static func temporaryTemplate(for target: String) -> String {
        let name: Substring
        let prefix: Substring
        if let slash = target.lastIndex(of: "/") {
            prefix = target[...slash]
            name = target[target.index(after: slash)...]
        } else {
            prefix = ""
            name = target[...]
        }
        let budget = 255 - 1 - temporaryNameMarker.utf8.count - 6
        var shortened = ""
        for character in name {
            if shortened.utf8.count + String(character).utf8.count > budget { break }
            shortened.append(character)
        }
        return "\(prefix).\(shortened)\(temporaryNameMarker)XXXXXX"
    }

    /// Writes every byte, continuing after partial writes and interrupted calls.
    private static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, shownAs path: String) throws(PlistError) {
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            // Linux writes at most about 2 GiB per call; asking for less keeps every call complete.
            let written = writeSome(fd, next, min(remaining, 1 << 30))
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemCall.failure(path, "cannot write", errno: errno)
            }
            if written == 0 { throw SystemCall.failure(path, "cannot write", errno: ENOSPC) }
            next += written
            remaining -= written
        }
    }

    private static func fsyncRetrying(_ fd: Int32) -> Int32 {
        while true {
            let result = fsync(fd)
            if result == 0 || errno != EINTR { return result }
        }
    }

    private static func flushDirectory(_ directory: String) {
        let fd = SystemCall.openRetrying(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsyncRetrying(fd)
        _ = SystemCall.closeReportingError(fd)
    }
}

/// `write(2)` under a name that the static `write` methods above do not shadow.
private func writeSome(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
