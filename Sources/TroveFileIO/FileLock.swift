public import SystemPackage
public import TroveCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An advisory lock on a lock file beside a property list, shared between processes: how
/// several programs that write one preferences file take turns (lock, re-read, apply their own
/// changes, save, unlock), as KDE's configuration files do.
///
/// The lock is `flock(2)` on the lock file, which the system releases when the holder closes it,
/// exits or is killed, so a crashed holder never leaves the file locked. Each `FileLock` opens
/// the lock file itself, so two locks in one process exclude each other as two processes' do. It
/// is advisory: it keeps out only writers that take it too. The lock file is created when
/// missing and never removed, since removing it would let two processes lock two different files
/// of the same name.
///
/// The lock is held from a successful acquire until ``unlock()`` or until the object goes away.
public final class FileLock: Sendable {
    /// Who else may hold the lock meanwhile.
    public enum Mode: Sendable {
        /// Any number of shared holders at once, and no exclusive one: for reading.
        case shared
        /// One holder only: for a read-modify-write.
        case exclusive
    }

    /// The lock file's path.
    public let path: String
    /// The mode held.
    public let mode: Mode
    private let descriptor: FileDescriptor

    private init(path: String, mode: Mode, descriptor: FileDescriptor) {
        self.path = path
        self.mode = mode
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    /// The lock file that guards the file at `target`: `NAME.lock` in the same directory, the
    /// name git and Qt use for the same purpose.
    public static func lockFilePath(for target: String) -> String {
        target + ".lock"
    }

    /// Takes the lock on `lockFile`, waiting for other holders to let go.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait; nil waits as long as it takes (blocking the calling
    ///     thread). When it runs out the call throws ``PlistError/Code/io`` with `EWOULDBLOCK`
    ///     (swift-system's `.wouldBlock`).
    ///   - permissions: the lock file's bits when it has to be created (less the umask).
    /// - Throws: ``PlistError/Code/io`` naming the lock file when it cannot be opened or created,
    ///   or the wait timed out.
    public static func acquire(
        _ mode: Mode, lockFile: String, timeout: Duration? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws(PlistError) -> FileLock {
        let fd = try openLockFile(lockFile, permissions: permissions)
        let operation = mode == .shared ? LOCK_SH : LOCK_EX
        guard let timeout else {
            while flock(fd.rawValue, operation) != 0 {
                if errno == EINTR { continue }
                let code = errno
                SystemCall.close(fd)
                throw SystemCall.failure(lockFile, "cannot lock", errno: code)
            }
            return FileLock(path: lockFile, mode: mode, descriptor: fd)
        }
        // flock has no timeout: poll without blocking, backing off from 1 ms to 50 ms.
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if flock(fd.rawValue, operation | LOCK_NB) == 0 { return FileLock(path: lockFile, mode: mode, descriptor: fd) }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                SystemCall.close(fd)
                throw SystemCall.failure(lockFile, "cannot lock", errno: code)
            }
            let now = clock.now
            if now >= deadline {
                SystemCall.close(fd)
                throw SystemCall.failure(lockFile, "cannot lock: still held by another process after \(timeout)", closestErrno: EWOULDBLOCK)
            }
            let wait = min(pause, deadline - now)
            let (seconds, attoseconds) = wait.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Takes the lock on `lockFile` if nobody holds it in a conflicting mode, without waiting;
    /// nil when someone does.
    public static func tryAcquire(
        _ mode: Mode, lockFile: String, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws(PlistError) -> FileLock? {
        let fd = try openLockFile(lockFile, permissions: permissions)
        while flock(fd.rawValue, (mode == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            SystemCall.close(fd)
            if code == EWOULDBLOCK { return nil }
            throw SystemCall.failure(lockFile, "cannot lock", errno: code)
        }
        return FileLock(path: lockFile, mode: mode, descriptor: fd)
    }

    /// Runs `body` holding the lock on `lockFile`, and lets go afterwards, also when it throws.
    public static func withLock<Result>(
        _ mode: Mode, lockFile: String, timeout: Duration? = nil, _ body: () throws(PlistError) -> Result
    ) throws(PlistError) -> Result {
        let lock = try acquire(mode, lockFile: lockFile, timeout: timeout)
        defer { lock.unlock() }
        return try body()
    }

    /// Lets go of the lock now rather than when the object goes away. Calling it again does
    /// nothing.
    public func unlock() {
        _ = flock(descriptor.rawValue, LOCK_UN)
    }

    private static func openLockFile(_ path: String, permissions: FilePermissions) throws(PlistError) -> FileDescriptor {
        try SystemCall.requireNonEmpty(path)
        return try SystemCall.open(
            path, .readOnly, options: [.create], permissions: permissions, what: "cannot open the lock file")
    }
}
