public import SystemPackage
public import TroveCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A whole file's bytes, kept at one address for as long as the object lives: the
/// ``PlistByteSource`` that ``LazyBinaryPlist`` reads in place.
///
/// By default the file is read into memory (``Access/read``). Reading is what makes a load safe
/// against other processes: a file truncated or rewritten while it is being read gives a short or
/// mixed read, which the format's reader then rejects with a typed error. A memory mapping
/// (``Access/mapped``) reads nothing up front, but when another process truncates the file while
/// it is mapped, the next access to a lost page kills the process with `SIGBUS`, and Swift has no
/// way to catch that; map only files that are only ever replaced by renaming (as ``AtomicFile``
/// replaces them), since a mapping keeps the replaced file's contents.
///
/// Nothing stays open: the descriptor is closed before the initializer returns, and the memory
/// (or mapping) is released with the object.
public final class FileContents: PlistByteSource, @unchecked Sendable {
    // Unchecked: the memory is either a private read-only mapping or a buffer filled once in init;
    // neither is written after init, and both are released only in deinit.
    /// The file's bytes, valid while the object lives.
    public let bytes: UnsafeRawBufferPointer

    /// True when the bytes are a memory mapping, false when they were read.
    public let isMapped: Bool

    /// How the bytes get into memory.
    public enum Access: Sendable {
        /// Read the whole file now. Safe whatever other processes do to the file meanwhile.
        case read
        /// Map the file where the system allows it (regular files of nonzero size), read it
        /// otherwise. Costs no reading up front, but another process truncating the file while
        /// it is mapped crashes this one with `SIGBUS`.
        case mapped
    }

    private let mapping: (base: UnsafeMutableRawPointer, length: Int)?
    private let allocation: UnsafeMutableRawPointer?

    /// The contents of the file at `path`.
    ///
    /// - Parameter maxBytes: the largest file accepted, mapped or read.
    /// - Throws: ``PlistError/Code/io`` (with ``PlistError/path`` and ``PlistError/errno``) when
    ///   the file is missing, unreadable or a directory, and ``PlistError/Code/sizeLimit`` when it
    ///   holds more than `maxBytes` bytes.
    public init(_ path: String, access: Access = .read, maxBytes: Int = FileReader.defaultMaxBytes) throws(PlistError) {
        let file = try WholeFile.openForReading(path, maxBytes: maxBytes)
        defer { SystemCall.close(file.descriptor) }
        // A zero size is either an empty file or one whose size the system does not know (`/proc`);
        // reading answers both. The mapping outlives the descriptor.
        if access == .mapped, file.isRegular, file.size > 0,
           let base = mmap(nil, file.size, PROT_READ, MAP_PRIVATE, file.descriptor.rawValue, 0), base != MAP_FAILED {
            TestHook.pauseAfterOpen()
            bytes = UnsafeRawBufferPointer(start: base, count: file.size)
            (isMapped, mapping, allocation) = (true, (base, file.size), nil)
            return
        }
        TestHook.pauseAfterOpen()
        let buffer = try WholeFile.readAll(from: file.descriptor, name: path, sizeHint: file.size, maxBytes: maxBytes)
        bytes = UnsafeRawBufferPointer(start: buffer.base, count: buffer.count)
        (isMapped, mapping, allocation) = (false, nil, buffer.base)
    }

    /// Everything that can still be read from `descriptor` (a pipe, standard input, an open
    /// file), read into memory; `name` is the path errors show. The descriptor stays open.
    public init(readingFrom descriptor: FileDescriptor, name: String, maxBytes: Int = FileReader.defaultMaxBytes) throws(PlistError) {
        let buffer = try WholeFile.readAll(from: descriptor, name: name, sizeHint: 0, maxBytes: maxBytes)
        bytes = UnsafeRawBufferPointer(start: buffer.base, count: buffer.count)
        (isMapped, mapping, allocation) = (false, nil, buffer.base)
    }

    deinit {
        if let mapping { munmap(mapping.base, mapping.length) }
        free(allocation)
    }
}

extension LazyBinaryPlist {
    /// Opens the binary plist at `path`, reading its bytes into memory (see ``FileContents``) but
    /// decoding only its header and trailer; lookups decode what they touch.
    ///
    /// - Throws: ``PlistError/Code/io`` or ``PlistError/Code/sizeLimit`` as ``FileContents``
    ///   does, or the binary format's errors for a malformed header or trailer, with
    ///   ``PlistError/path`` set.
    public init(
        contentsOfFile path: String, access: FileContents.Access = .read, limits: PlistLimits = .default,
        maxBytes: Int = FileReader.defaultMaxBytes
    ) throws(PlistError) {
        let contents = try FileContents(path, access: access, maxBytes: maxBytes)
        do {
            try self.init(source: contents, limits: limits)
        } catch {
            throw error.inFile(path)
        }
    }
}

/// Opening and reading whole files, shared by ``FileReader`` and ``FileContents``.
enum WholeFile {
    /// An open file and what its status said about it.
    struct OpenFile {
        var descriptor: FileDescriptor
        /// The size for a regular file; 0 for anything else.
        var size: Int
        var isRegular: Bool
    }

    /// Opens `path` for reading, refusing directories and files over `maxBytes`.
    static func openForReading(_ path: String, maxBytes: Int) throws(PlistError) -> OpenFile {
        try SystemCall.requireNonEmpty(path)
        let fd = try SystemCall.open(path, .readOnly, what: "cannot open for reading")
        do throws(PlistError) {
            let info = try SystemCall.status(of: fd, shownAs: path)
            if SystemCall.isDirectory(info) { throw SystemCall.failure(path, "cannot read", errno: EISDIR) }
            let isRegular = SystemCall.isRegularFile(info)
            let size = isRegular ? Int(clamping: info.st_size) : 0
            if size > maxBytes { throw SystemCall.tooLarge(path, maxBytes) }
            return OpenFile(descriptor: fd, size: size, isRegular: isRegular)
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    /// Reads until end of file into one `malloc` block that grows as needed, so the bytes are
    /// never copied into a buffer of their own afterwards. The size hint only sizes the first
    /// allocation: files can grow or shrink while being read, and pipes have no size. The caller
    /// owns the block (`free`).
    static func readAll(
        from fd: FileDescriptor, name: String, sizeHint: Int, maxBytes: Int
    ) throws(PlistError) -> (base: UnsafeMutableRawPointer, count: Int) {
        // One byte more than the expected size, so that the end of file is seen without growing.
        var capacity = max(min(sizeHint, maxBytes) + 1, sizeHint == 0 ? 1 << 16 : 1)
        guard var base = malloc(capacity) else { throw SystemCall.failure(name, "cannot read", errno: ENOMEM) }
        var used = 0
        while true {
            if used == capacity {
                // Growth stops at maxBytes + 1, the first size that fails.
                let limit = maxBytes == Int.max ? Int.max : maxBytes + 1
                let grown = capacity > limit / 2 ? limit : capacity * 2
                guard grown > capacity else {
                    free(base)
                    throw SystemCall.tooLarge(name, maxBytes)
                }
                guard let larger = realloc(base, grown) else {
                    free(base)
                    throw SystemCall.failure(name, "cannot read", errno: ENOMEM)
                }
                base = larger
                capacity = grown
            }
            let count: Int
            do {
                count = try fd.read(into: UnsafeMutableRawBufferPointer(start: base + used, count: capacity - used))
            } catch {
                free(base)
                throw SystemCall.failure(name, "cannot read", error)
            }
            if count == 0 { break }
            used += count
            if used > maxBytes {
                free(base)
                throw SystemCall.tooLarge(name, maxBytes)
            }
        }
        return (base, used)
    }
}

/// A pause for tests that change a file under a reader: with `TROVE_TEST_PAUSE_AFTER_OPEN` set
/// to the path of a FIFO, a whole-file open waits, after opening (and mapping) and before reading
/// a byte, until another process has opened that FIFO for writing and closed it again. A test
/// truncates the file in between, deterministically. Unset, it costs one environment lookup per
/// process.
enum TestHook {
    private static let pauseFIFO: String? = {
        guard let value = getenv("TROVE_TEST_PAUSE_AFTER_OPEN") else { return nil }
        return String(cString: value)
    }()

    static func pauseAfterOpen() {
        guard let fifo = pauseFIFO,
              let fd = try? FileDescriptor.open(FilePath(fifo), .readOnly, options: [.closeOnExec]) else { return }
        var byte: UInt8 = 0
        while (try? withUnsafeMutableBytes(of: &byte) { try fd.read(into: $0) }) ?? 0 > 0 {}
        try? fd.close()
    }
}
