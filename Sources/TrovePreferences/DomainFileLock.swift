import Foundation
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock across processes on `<domain file>.lock`, held while a domain is
/// read, merged and written, so that two processes' flushes never interleave.
///
/// The lock file is never removed: removing it while another process waits on it would let a
/// third lock a new file of the same name while the second holds the old one.
final class DomainFileLock {
    private var fd: Int32

    /// Blocks until the lock on `path + ".lock"` is held.
    init(for path: String) throws(PlistError) {
        let lockPath = path + ".lock"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw PlistError.io("\(directory): cannot create the preferences directory", path: directory)
            }
        }
        var descriptor: Int32 = -1
        repeat { descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let code = errno
            throw PlistError.io("\(lockPath): cannot open the lock file: \(String(cString: strerror(code)))", path: lockPath, systemErrorNumber: code)
        }
        var result: Int32
        repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw PlistError.io("\(lockPath): cannot lock: \(String(cString: strerror(code)))", path: lockPath, systemErrorNumber: code)
        }
        fd = descriptor
    }

    /// Releases the lock (also done when the object goes away).
    func unlock() {
        guard fd >= 0 else { return }
        _ = flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
