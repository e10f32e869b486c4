/// What tells one version of a file from another without reading it: device, inode (a file
/// replaced by a rename has a new one), size and modification time, from one `stat` call.
///
/// The file watcher's polling compares identities between looks; preferences compare the
/// identity of a domain file with the one they last read to know whether another process
/// saved it.
public struct FileIdentity: Equatable, Sendable {
    /// The device holding the file.
    public var device: UInt64
    /// The file's inode on that device.
    public var inode: UInt64
    /// The size in bytes.
    public var size: Int64
    /// The modification time, in nanoseconds since 1970.
    public var modified: Int64

    /// The identity of the file at `path` now (following symbolic links), or nil when there is
    /// none or it cannot be inspected.
    public static func of(_ path: String) -> FileIdentity? {
        guard case .success(let info) = SystemCall.status(path) else { return nil }
        return FileIdentity(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
            size: Int64(info.st_size), modified: SystemCall.modificationNanoseconds(info))
    }
}
