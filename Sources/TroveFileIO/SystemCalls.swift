internal import Foundation
internal import SystemPackage
internal import TroveCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The file layer's bridge to the system: every failure becomes a ``PlistError`` that names the
/// file first and the system's reason last (`path: what: reason`), and carries the path and the
/// `errno` so that callers can tell a missing file from a refused one without reading the text.
enum SystemCall {
    /// The system's text for an errno value, e.g. "No such file or directory".
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// `path: what: reason`, the shape every file error takes, so that a reader always sees which
    /// file was meant and the CLI can print it as it is.
    static func failure(_ path: String, _ what: String, errno code: Int32) -> PlistError {
        PlistError.io("\(path): \(what): \(describe(code))", path: path, systemErrorNumber: code)
    }

    /// The same, for an error thrown by swift-system (an `Errno`), or any other error.
    static func failure(_ path: String, _ what: String, _ error: any Error) -> PlistError {
        if let code = error as? Errno { return failure(path, what, errno: code.rawValue) }
        return PlistError.io("\(path): \(what): \(error)", path: path, underlying: error)
    }

    /// A failure whose reason is ours, not the system's; `code` is the errno that comes closest,
    /// so that callers switching on it still see something meaningful.
    static func failure(_ path: String, _ reason: String, closestErrno code: Int32) -> PlistError {
        PlistError.io("\(path): \(reason)", path: path, systemErrorNumber: code)
    }

    /// A size-limit error for a file larger than `maxBytes`.
    static func tooLarge(_ path: String, _ maxBytes: Int) -> PlistError {
        var error = PlistError(.sizeLimit, "\(path): is larger than the \(maxBytes)-byte limit for a property list file")
        error.path = path
        return error
    }

    /// Refuses an empty path the way `open("")` would.
    static func requireNonEmpty(_ path: String) throws(PlistError) {
        if path.isEmpty { throw PlistError.io("an empty path names no file", path: "", systemErrorNumber: ENOENT) }
    }

    /// The process's file-creation mask. Read from `/proc` where possible, because reading it with
    /// `umask(2)` means setting it, which races with other threads creating files. Read for
    /// each new file, since a process may change its umask.
    static func currentUmask() -> mode_t {
        if let status = processStatus(), let mask = umaskField(ofProcessStatus: status) { return mask }
        let previous = umask(0o022)
        umask(previous)
        return previous
    }

    /// The bytes of `/proc/self/status`, or nil where it cannot be read. Read with plain system
    /// calls: Foundation's file and string APIs cost more than the whole of a small conversion.
    /// (`WholeFile.readAll` directly, not `FileReader`, whose test pause must not stop the
    /// creation of a file.)
    private static func processStatus() -> [UInt8]? {
        let path = "/proc/self/status"
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec) else { return nil }
        defer { try? fd.close() }
        guard let status = try? WholeFile.readAll(from: fd, name: path, sizeHint: 0, maxBytes: 1 << 16) else { return nil }
        defer { free(status.base) }
        return Array(UnsafeRawBufferPointer(start: status.base, count: status.count))
    }

    /// The mask on the `Umask:` line of a `/proc/PID/status` text (Linux 4.7 and later): the
    /// octal number after the name, between blanks; nil when no such line holds one.
    static func umaskField(ofProcessStatus status: [UInt8]) -> mode_t? {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let name = "Umask:".utf8
        var lineStart = status.startIndex
        while lineStart < status.endIndex {
            let lineEnd = status[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? status.endIndex
            var field = status[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            guard field.starts(with: name) else { continue }
            field = field.dropFirst(name.count)
            while let first = field.first, isBlank(first) { field = field.dropFirst() }
            while let last = field.last, isBlank(last) { field = field.dropLast() }
            if let mask = octalValue(field) { return mode_t(mask & 0o777) }
        }
        return nil
    }

    /// The value of a non-empty run of octal digits, or nil for anything else or an overflow.
    private static func octalValue(_ digits: ArraySlice<UInt8>) -> UInt32? {
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 8)
            if overflow { return nil }
            value = shifted | UInt32(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// Opens `path` with swift-system, as a ``PlistError`` naming `path` on failure.
    static func open(
        _ path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions? = nil, shownAs name: String? = nil, what: String
    ) throws(PlistError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(
                FilePath(path), mode, options: options.union(.closeOnExec), permissions: permissions, retryOnInterrupt: true)
        } catch {
            throw failure(name ?? path, what, error)
        }
    }

    /// `fstat(2)`.
    static func status(of fd: FileDescriptor, shownAs path: String) throws(PlistError) -> stat {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { throw failure(path, "cannot inspect", errno: errno) }
        return info
    }

    /// `lstat(2)`, or the errno when it fails.
    static func linkStatus(_ path: String) -> Result<stat, Errno> {
        var info = stat()
        return lstat(path, &info) == 0 ? .success(info) : .failure(Errno(rawValue: errno))
    }

    /// `stat(2)` (following links), or the errno when it fails.
    static func status(_ path: String) -> Result<stat, Errno> {
        var info = stat()
        return stat(path, &info) == 0 ? .success(info) : .failure(Errno(rawValue: errno))
    }

    /// Closes `fd` and returns the errno of a failed close (NFS reports deferred write errors
    /// there), or nil. An interrupted close has still released the descriptor on Linux, so it is
    /// not retried.
    @discardableResult
    static func close(_ fd: FileDescriptor) -> Errno? {
        do {
            try fd.close()
            return nil
        } catch {
            return error as? Errno ?? Errno(rawValue: EIO)
        }
    }

    /// Flushes a file's data to stable storage. On Darwin `fsync` only hands the data to the
    /// drive, whose cache may lose it in a power cut; `F_FULLFSYNC` asks the drive to write it
    /// out. File systems that do not support it get a plain `fsync`.
    static func flushToDisk(_ fd: FileDescriptor) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd.rawValue, F_FULLFSYNC) == 0 { return 0 }
        #endif
        while true {
            if fsync(fd.rawValue) == 0 { return 0 }
            if errno != EINTR { return errno }
        }
    }

    /// Flushes a directory, so that a rename inside it survives a power cut. Best effort.
    static func flushDirectory(_ directory: String) {
        guard let fd = try? open(directory, .readOnly, options: [.directory], what: "") else { return }
        _ = flushToDisk(fd)
        close(fd)
    }

    /// The names in a directory, without `.` and `..`.
    static func directoryEntries(_ directory: String) -> Result<[String], Errno> {
        guard let stream = opendir(directory) else { return .failure(Errno(rawValue: errno)) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// Whether `info` describes a directory.
    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }

    /// Whether `info` describes a regular file.
    static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }

    /// The modification time in nanoseconds since 1970.
    static func modificationNanoseconds(_ info: stat) -> Int64 {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// Everything before the last `/`, `.` for a bare name and `/` for a file in the root.
    static func directoryPart(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The last path component (everything after the last `/`).
    static func namePart(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
