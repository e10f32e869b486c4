import Foundation
import TroveCore
import TroveFileIO

/// The file operations the file-backed store types share.
enum StoreFiles {
    /// The whole file at `path`, or nil when there is none.
    static func contents(of path: String, maxBytes: Int) throws(PlistError) -> Data? {
        do {
            return try FileReader.readFile(atPath: path, maxBytes: maxBytes)
        } catch {
            if error.code == .io, !FileManager.default.fileExists(atPath: path) { return nil }
            throw error
        }
    }

    /// Replaces the file at `path` with `bytes` atomically.
    static func replace(_ path: String, with bytes: Data, options: PlistStoreOptions) throws(PlistError) {
        let isNew = !FileManager.default.fileExists(atPath: path)
        try AtomicFile.write(bytes, to: path, durability: options.durability)
        if isNew, let permissions = options.newFilePermissions {
            guard chmod(path, mode_t(permissions)) == 0 else {
                throw PlistError.io("cannot set permissions", path: path, systemErrorNumber: errno)
            }
        }
    }
}
