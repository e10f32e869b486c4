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

/// Replaces whole files so that a reader sees either the old content or the new, never a mix,
/// even when the writer is killed or the disk fills up halfway.
///
/// The bytes go to a temporary file in the target's directory, named `.<name>.trove-XXXXXX` so
/// that a leftover from a killed process is easy to recognise (``removeStaleTemporaries(of:olderThan:)``
/// removes them). The temporary file is created readable by its owner only, written completely,
/// given its final permission bits, flushed to disk, and only then renamed over the target;
/// finally the directory itself is flushed so that the rename survives a power loss
/// (``Durability/unflushed`` skips both flushes). If any step fails the temporary file is removed
/// and the target is left exactly as it was.
///
/// While it is written, the temporary file is held under an exclusive `flock`, which the system
/// releases when the writer exits or is killed: that is how a sweep tells a live writer's
/// temporary file from a dead one's.
///
/// Symbolic links are followed: the file a link (or a chain of links) points to is replaced and
/// the link stays a link. A dangling link gets the file it names created, as a shell's `>` would,
/// provided that file's directory exists. A chain of more than 40 links, or a loop, fails with
/// `ELOOP`. Only a regular file (or nothing) can be replaced: a directory fails with `EISDIR`,
/// and a device, pipe or socket with `EINVAL`, since renaming over it would replace the special
/// file itself. (Writing into a device or pipe is a plain `write`, outside this type.)
public enum AtomicFile {
    /// How far a write waits for the disk before it returns.
    public enum Durability: Sendable {
        /// The file and then its directory are flushed (`fsync`; on Darwin `F_FULLFSYNC`, since
        /// its `fsync` leaves the data in the drive's cache): once the write returns, the new
        /// content survives a power cut or a kernel crash. The default.
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

    /// The permission bits a new file gets when the caller names none: `0644`, less the
    /// process's umask.
    public static let defaultPermissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]

    /// How long a temporary file must have gone unmodified before
    /// ``removeStaleTemporaries(of:olderThan:)`` may take it for a dead writer's: ten minutes,
    /// far longer than any write between two of its system calls.
    public static let staleTemporaryAge: Duration = .seconds(600)

    /// The most symbolic links followed from the path to the file, as the system's own limit.
    static let maxLinkHops = 40

    /// True when `fileName` (a last path component) has the shape of one of our temporary files.
    public static func isTemporaryFileName(_ fileName: String) -> Bool {
        guard fileName.hasPrefix("."), let range = fileName.range(of: temporaryNameMarker, options: .backwards) else {
            return false
        }
        return fileName[range.upperBound...].count == 6
    }

    /// Writes `data` to `path`, replacing any existing file atomically.
    ///
    /// - Parameters:
    ///   - permissions: the permission bits of a *new* file, less the process's umask, as with
    ///     `open(2)`; preferences use `[.ownerReadWrite]` (0600). An existing file keeps its own
    ///     bits (and, where the process may set them, its owner and group). Nil means
    ///     ``defaultPermissions``.
    ///   - durability: whether the write waits for the disk; see ``Durability``.
    /// - Throws: ``PlistError/Code/io`` with the path and the `errno` (``PlistError/errno``): the
    ///   target is then unchanged and no temporary file is left behind.
    public static func write(
        _ data: Data, to path: String, permissions: FilePermissions? = nil, durability: Durability = .flushed
    ) throws(PlistError) {
        let result: Result<Void, PlistError> = data.withUnsafeBytes { bytes in
            Result { () throws(PlistError) in
                try write(bytes: bytes, to: path, permissions: permissions, durability: durability)
            }
        }
        try result.get()
    }

    /// Writes raw bytes to `path`, replacing any existing file atomically. See
    /// ``write(_:to:permissions:durability:)``.
    public static func write(
        bytes: UnsafeRawBufferPointer, to path: String, permissions: FilePermissions? = nil,
        durability: Durability = .flushed
    ) throws(PlistError) {
        try SystemCall.requireNonEmpty(path)
        let target = try resolvedTarget(path)
        let directory = SystemCall.directoryPart(of: target)
        let existing = try existingFileStatus(target, shownAs: path)
        let mode = existing.map { $0.st_mode & 0o7777 }
            ?? (mode_t((permissions ?? defaultPermissions).rawValue) & ~SystemCall.currentUmask())

        let (fd, temporaryPath) = try createTemporary(besides: target, shownAs: path)
        var descriptorOpen = true
        var renamed = false
        defer {
            if descriptorOpen { SystemCall.close(fd) }
            if !renamed { unlink(temporaryPath) }
        }
        // Marks the temporary file as a live writer's until it is closed (see the sweep).
        _ = flock(fd.rawValue, LOCK_EX | LOCK_NB)

        try writeFully(fd, bytes, shownAs: path)
        if let existing, existing.st_uid != geteuid() || existing.st_gid != getegid() {
            // Best effort: only root or the owner may do this, and a copy owned by us is still a
            // correct result when it is not allowed.
            _ = fchown(fd.rawValue, existing.st_uid, existing.st_gid)
        }
        guard fchmod(fd.rawValue, mode) == 0 else { throw SystemCall.failure(path, "cannot set permissions", errno: errno) }
        if durability == .flushed {
            let code = SystemCall.flushToDisk(fd)
            guard code == 0 else { throw SystemCall.failure(path, "cannot flush to disk", errno: code) }
        }
        descriptorOpen = false
        if let closeError = SystemCall.close(fd) {
            throw SystemCall.failure(path, "cannot finish writing", errno: closeError.rawValue)
        }
        guard rename(temporaryPath, target) == 0 else {
            throw SystemCall.failure(path, "cannot replace the file", errno: errno)
        }
        renamed = true
        // The new content is in place from here on, so a failure to flush the directory is not
        // reported as a failed write; it only leaves the rename's survival of a power cut open.
        if durability == .flushed { SystemCall.flushDirectory(directory) }
    }

    /// Removes the temporary files that killed writers left beside `path`, and returns their
    /// paths.
    ///
    /// A temporary file is stale when all of these hold: its name is one this type gives
    /// temporaries of `path` (`.<name>.trove-XXXXXX`, beside the file a symbolic link leads to);
    /// it is a regular file; it has not been modified for `age`; and no process holds its lock
    /// (a live writer holds it from creating the file to renaming it). The lock alone would do on a
    /// local disk; the age also covers writers that predate the lock, and file systems where
    /// `flock` is not shared between machines. Stores call this when they open a file; a
    /// failure to remove one leftover is not an error, only a directory that cannot be listed is.
    ///
    /// - Parameter age: how long a temporary must have gone unmodified; ``staleTemporaryAge`` by
    ///   default. Zero takes every unlocked one, which is right when no other process writes the
    ///   file (tests, a single-writer tool after a crash).
    @discardableResult
    public static func removeStaleTemporaries(
        of path: String, olderThan age: Duration = staleTemporaryAge
    ) throws(PlistError) -> [String] {
        try SystemCall.requireNonEmpty(path)
        let target = (try? resolvedTarget(path)) ?? path
        let directory = SystemCall.directoryPart(of: target)
        let prefix = temporaryNamePrefix(for: SystemCall.namePart(of: target))
        let names: [String]
        switch SystemCall.directoryEntries(directory) {
        case .success(let entries): names = entries
        case .failure(let error):
            if error == .noSuchFileOrDirectory { return [] }
            throw SystemCall.failure(directory, "cannot list the directory", errno: error.rawValue)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let ageNanoseconds = age.components.seconds * 1_000_000_000 + age.components.attoseconds / 1_000_000_000
        var removed: [String] = []
        for name in names where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
            let candidate = directory == "/" ? "/" + name : directory + "/" + name
            guard case .success(let info) = SystemCall.linkStatus(candidate), SystemCall.isRegularFile(info),
                  now - SystemCall.modificationNanoseconds(info) >= ageNanoseconds,
                  let fd = try? FileDescriptor.open(FilePath(candidate), .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
            else { continue }
            defer { SystemCall.close(fd) }
            // A live writer holds the lock; the name must still be the file that was locked.
            guard flock(fd.rawValue, LOCK_EX | LOCK_NB) == 0,
                  let locked = try? SystemCall.status(of: fd, shownAs: candidate),
                  case .success(let current) = SystemCall.linkStatus(candidate),
                  locked.st_dev == current.st_dev, locked.st_ino == current.st_ino
            else { continue }
            if unlink(candidate) == 0 { removed.append(candidate) }
        }
        return removed
    }

    /// The file to replace: `path` itself, or the file at the end of its chain of symbolic links
    /// (which need not exist yet). Relative link text is resolved against the link's directory.
    static func resolvedTarget(_ path: String) throws(PlistError) -> String {
        var current = path
        for _ in 0...maxLinkHops {
            guard case .success(let info) = SystemCall.linkStatus(current), info.st_mode & S_IFMT == S_IFLNK else {
                // Not a link, or nothing there (a new file, or a dangling link's target); any other
                // failure shows up when the file is inspected or created.
                return current
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { throw SystemCall.failure(path, "cannot follow the symbolic link", errno: errno) }
            let text = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("/") {
                current = text
            } else {
                let directory = SystemCall.directoryPart(of: current)
                current = directory == "/" ? "/" + text : directory + "/" + text
            }
        }
        throw SystemCall.failure(path, "cannot follow the symbolic link", errno: ELOOP)
    }

    /// The status of an existing target, nil when there is none yet. Refuses anything that is not
    /// a regular file, since renaming over it would replace a directory entry of another kind.
    private static func existingFileStatus(_ target: String, shownAs path: String) throws(PlistError) -> stat? {
        let info: stat
        switch SystemCall.status(target) {
        case .success(let status): info = status
        case .failure(let error):
            if error == .noSuchFileOrDirectory { return nil }
            throw SystemCall.failure(path, "cannot inspect", errno: error.rawValue)
        }
        if SystemCall.isDirectory(info) {
            throw SystemCall.failure(path, "cannot replace", errno: EISDIR)
        }
        if !SystemCall.isRegularFile(info) {
            throw SystemCall.failure(path, "cannot replace: not a regular file", closestErrno: EINVAL)
        }
        return info
    }

    /// Creates `.<name>.trove-XXXXXX` beside `target`, exclusively, readable and writable by its
    /// owner only until its final bits are set.
    private static func createTemporary(
        besides target: String, shownAs path: String
    ) throws(PlistError) -> (FileDescriptor, String) {
        let directory = SystemCall.directoryPart(of: target)
        let directoryPrefix = target.lastIndex(of: "/").map { String(target[...$0]) } ?? ""
        let stem = directoryPrefix + temporaryNamePrefix(for: SystemCall.namePart(of: target))
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        var lastError = Errno.fileExists
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
            let candidate = stem + suffix
            do {
                let fd = try FileDescriptor.open(
                    FilePath(candidate), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                    permissions: .ownerReadWrite, retryOnInterrupt: true)
                return (fd, candidate)
            } catch let error as Errno where error == .fileExists {
                lastError = error
            } catch {
                throw SystemCall.failure(path, "cannot create a temporary file in '\(directory)'", error)
            }
        }
        throw SystemCall.failure(path, "cannot create a temporary file in '\(directory)'", errno: lastError.rawValue)
    }

    /// `.<name>.trove-`, with the name shortened when needed so that the whole component, with
    /// its six random characters, stays within the 255-byte limit of common file systems.
    static func temporaryNamePrefix(for name: String) -> String {
        let budget = 255 - 1 - temporaryNameMarker.utf8.count - 6
        var shortened = ""
        for character in name {
            if shortened.utf8.count + String(character).utf8.count > budget { break }
            shortened.append(character)
        }
        return "." + shortened + temporaryNameMarker
    }

    /// Writes every byte, continuing after partial writes and interrupted calls.
    private static func writeFully(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, shownAs path: String) throws(PlistError) {
        var offset = 0
        while offset < bytes.count {
            // Linux writes at most about 2 GiB per call; asking for less keeps every call complete.
            let end = offset + min(bytes.count - offset, 1 << 30)
            let written: Int
            do {
                written = try fd.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), retryOnInterrupt: true)
            } catch {
                throw SystemCall.failure(path, "cannot write", error)
            }
            if written == 0 { throw SystemCall.failure(path, "cannot write", errno: ENOSPC) }
            offset += written
        }
    }
}
