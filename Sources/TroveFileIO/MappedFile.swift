import Foundation
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's bytes, memory-mapped read-only where the system allows it and read into memory
/// otherwise (standard input, pipes, devices, and files such as `/proc` ones that report no size).
///
/// Mapping costs no reading up front: the system reads a page the first time it is touched, so a
/// ``LazyBinaryPlist`` opened on a mapped file reads only the pages its lookups visit. The mapping
/// is private and read-only, and is removed when the object goes away.
///
/// A mapped file that another process truncates while it is mapped makes the next access to the
/// lost pages fail with `SIGBUS`, as with every memory-mapped reader; files that are replaced
/// atomically (as ``AtomicFile`` replaces them) are unaffected, because the mapping keeps the old
/// file's contents.
public final class MappedFile: PlistByteSource, @unchecked Sendable {
    // Unchecked: the memory is either a private read-only mapping or a buffer filled once in init;
    // neither is written after init, and both are released only in deinit.
    public let bytes: UnsafeRawBufferPointer

    /// True when the bytes are a memory mapping, false when they were read.
    public let isMapped: Bool

    private let release: Release

    private enum Release {
        case unmap(UnsafeMutableRawPointer, Int)
        case deallocate(UnsafeMutableRawBufferPointer)
    }

    /// Opens `path`, or standard input when `path` is `-`.
    ///
    /// - Parameter maxBytes: the largest input accepted, mapped or read; the default is
    ///   ``FileReader/defaultMaxBytes``, as for ``FileReader/read(_:maxBytes:)``.
    /// - Throws: ``PlistError/Code/io`` when the file is missing, unreadable or a directory, and
    ///   ``PlistError/Code/sizeLimit`` when it holds more than `maxBytes` bytes, with the same
    ///   messages as ``FileReader``.
    public init(_ path: String, maxBytes: Int = FileReader.defaultMaxBytes) throws(PlistError) {
        if path == FileReader.standardInputPath {
            let buffer = try Self.readAll(from: STDIN_FILENO, name: FileReader.displayName(for: path), sizeHint: 0, maxBytes: maxBytes)
            (bytes, isMapped, release) = (UnsafeRawBufferPointer(buffer.used), false, .deallocate(buffer.allocation))
            return
        }
        guard !path.isEmpty else { throw PlistError(.io, "an empty path names no file") }
        let fd = SystemCall.openRetrying(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCall.failure(path, "cannot open for reading", errno: errno) }
        defer { _ = SystemCall.closeReportingError(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemCall.failure(path, "cannot inspect", errno: errno) }
        if info.st_mode & S_IFMT == S_IFDIR {
            throw SystemCall.failure(path, "cannot read", errno: EISDIR)
        }
        let isRegular = info.st_mode & S_IFMT == S_IFREG
        let size = isRegular ? Int(clamping: info.st_size) : 0
        if size > maxBytes { throw Self.tooLarge(path, maxBytes) }
        // A zero size is either an empty file or one whose size the system does not know; reading
        // answers both. The mapping outlives the descriptor, which is closed on return.
        if size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED {
            (bytes, isMapped, release) = (UnsafeRawBufferPointer(start: base, count: size), true, .unmap(base, size))
            return
        }
        let buffer = try Self.readAll(from: fd, name: path, sizeHint: size, maxBytes: maxBytes)
        (bytes, isMapped, release) = (UnsafeRawBufferPointer(buffer.used), false, .deallocate(buffer.allocation))
    }

    deinit {
        switch release {
        case .unmap(let base, let length): munmap(base, length)
        case .deallocate(let allocation): allocation.deallocate()
        }
    }

    /// Reads until end of file into one growing allocation, so the bytes are never copied a
    /// second time into a buffer of their own.
    private static func readAll(
        from fd: Int32, name: String, sizeHint: Int, maxBytes: Int
    ) throws(PlistError) -> (allocation: UnsafeMutableRawBufferPointer, used: UnsafeMutableRawBufferPointer) {
        var capacity = max(min(sizeHint, maxBytes) + 1, 1 << 16)
        var allocation = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        var used = 0
        while true {
            if used == capacity {
                // Doubling stops at maxBytes + 1, the first size that fails.
                let limit = maxBytes == Int.max ? Int.max : maxBytes + 1
                let grown = capacity > limit / 2 ? limit : capacity * 2
                guard grown > capacity else {
                    allocation.deallocate()
                    throw tooLarge(name, maxBytes)
                }
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: grown, alignment: 16)
                larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: allocation[0..<used]))
                allocation.deallocate()
                allocation = larger
                capacity = grown
            }
            let count = readChunk(fd, UnsafeMutableRawBufferPointer(rebasing: allocation[used..<capacity]))
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                allocation.deallocate()
                throw SystemCall.failure(name, "cannot read", errno: code)
            }
            if count == 0 { break }
            used += count
            if used > maxBytes {
                allocation.deallocate()
                throw tooLarge(name, maxBytes)
            }
        }
        return (allocation, UnsafeMutableRawBufferPointer(rebasing: allocation[0..<used]))
    }

    private static func tooLarge(_ name: String, _ maxBytes: Int) -> PlistError {
        PlistError(.sizeLimit, "\(name): is larger than the \(maxBytes)-byte limit for a property list file")
    }
}

extension LazyBinaryPlist {
    /// Opens the binary plist at `path` (standard input for `-`) memory-mapped, reading only its
    /// header and trailer; see ``MappedFile``.
    ///
    /// - Throws: ``PlistError/Code/io`` or ``PlistError/Code/sizeLimit`` as ``MappedFile`` does,
    ///   or the binary format's errors for a malformed header or trailer.
    public init(contentsOfFile path: String, limits: PlistLimits = .default, maxBytes: Int = FileReader.defaultMaxBytes) throws(PlistError) {
        try self.init(source: MappedFile(path, maxBytes: maxBytes), limits: limits)
    }
}

/// `read(2)` into `buffer`, under a name the initializer's scope does not shadow.
private func readChunk(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}
