import Foundation
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Small wrappers over the POSIX calls the store makes, so that every failure becomes a
/// ``PlistError`` that names the file first and the system's reason last.
enum SystemCall {
    /// The system's text for an errno value, e.g. "No such file or directory".
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// `path: what: reason`, the shape every store error takes, so that a reader always sees which
    /// file was meant and the CLI can print it as `trove: path: ...`.
    static func failure(_ path: String, _ what: String, errno code: Int32) -> PlistError {
        PlistError(.io, "\(path): \(what): \(describe(code))")
    }

    /// A failure that has no errno behind it.
    static func failure(_ path: String, _ reason: String) -> PlistError {
        PlistError(.io, "\(path): \(reason)")
    }

    /// The process's file-creation mask. Read from `/proc` where possible, because reading it with
    /// `umask(2)` means setting it, which races with other threads creating files.
    static func currentUmask() -> mode_t {
        if let status = try? FileReader.readFile(atPath: "/proc/self/status", maxBytes: 1 << 16) {
            let text = String(decoding: status, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("Umask:") {
                let digits = line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces)
                if let mask = UInt32(digits, radix: 8) { return mode_t(mask & 0o777) }
            }
        }
        let previous = umask(0o022)
        umask(previous)
        return previous
    }

    /// `open(2)`, retried when a signal interrupts it.
    static func openRetrying(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        while true {
            let fd = open(path, flags, mode)
            if fd >= 0 || errno != EINTR { return fd }
        }
    }

    /// `close(2)` that reports the errno of a failed close (NFS reports deferred write errors
    /// there), or 0. A close interrupted by a signal has still released the descriptor on Linux,
    /// so it is not retried.
    static func closeReportingError(_ fd: Int32) -> Int32 {
        close(fd) == 0 ? 0 : errno
    }
}
