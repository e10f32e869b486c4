import Foundation
import SystemPackage
import TroveCore
import TroveFileIO

/// The file operations the file-backed store types share.
enum StoreFiles {
    /// The whole file at `path`, or nil when there is none.
    static func contents(of path: String, maxBytes: Int) throws(PlistError) -> Data? {
        do {
            return try FileReader.read(path, maxBytes: maxBytes)
        } catch where error.errno == .noSuchFileOrDirectory {
            return nil
        }
    }

    /// Replaces the file at `path` with `bytes` atomically.
    static func replace(_ path: String, with bytes: Data, options: PlistStoreOptions) throws(PlistError) {
        try AtomicFile.write(bytes, to: path, permissions: options.newFilePermissions, durability: options.durability)
    }
}
