internal import Foundation
public import SystemPackage
public import TroveCore

/// Property-list files as wholes: load one into a document, save a document or value back, in
/// one call each. The layer that stores build on.
///
/// Loading reads the file into memory (never a mapping), so another process truncating or
/// rewriting it meanwhile gives a typed error, not a crash, and nothing stays open afterwards.
/// Saving goes through ``AtomicFile``: the file on disk is always the old content or the new.
/// Every error names the file in ``PlistError/path``; a format error also carries the format
/// and the position (``PlistError/location``), an I/O error the errno (``PlistError/errno``), so
/// that a missing file (`.noSuchFileOrDirectory`, for preferences an empty domain) is told apart
/// from an unreadable one.
public enum PlistFile {
    /// Reads the property list at `path`, detecting its format from the content; the document
    /// keeps layout notes (unless `options` says not to), so that ``save(_:to:permissions:durability:limits:)``
    /// writes an unchanged document back byte for byte.
    ///
    /// - Parameter maxBytes: the largest file accepted.
    /// - Throws: ``PlistError/Code/io`` or ``PlistError/Code/sizeLimit`` for the file, or the
    ///   format's error for its content, always with ``PlistError/path`` set.
    public static func load(
        _ path: String, options: PlistReadOptions = PlistReadOptions(), maxBytes: Int = FileReader.defaultMaxBytes
    ) throws(PlistError) -> PlistDocument {
        let contents = try FileContents(path, access: .read, maxBytes: maxBytes)
        do {
            return try Plist.read(bytes: contents.bytes, options: options)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Writes `document` to `path` in its own format, following its layout notes, replacing the
    /// file atomically.
    ///
    /// - Parameters:
    ///   - permissions: the bits of a new file (less the umask); an existing file keeps its own.
    ///     Nil means ``AtomicFile/defaultPermissions`` (0644); preferences use `[.ownerReadWrite]`.
    ///   - durability: whether the call waits for the disk (see ``AtomicFile/Durability``).
    /// - Throws: the writer's error for a value the format cannot hold, or ``PlistError/Code/io``;
    ///   either way with ``PlistError/path`` set and the file on disk unchanged.
    public static func save(
        _ document: PlistDocument, to path: String, permissions: FilePermissions? = nil,
        durability: AtomicFile.Durability = .flushed, limits: PlistLimits = .default
    ) throws(PlistError) {
        let data: Data
        do {
            data = try Plist.write(document, limits: limits)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFile.write(data, to: path, permissions: permissions, durability: durability)
    }

    /// Writes `value` to `path` in `format`'s standard layout, replacing the file atomically; see
    /// ``save(_:to:permissions:durability:limits:)``.
    public static func save(
        _ value: PlistValue, as format: PlistFormat, to path: String, permissions: FilePermissions? = nil,
        durability: AtomicFile.Durability = .flushed, limits: PlistLimits = .default
    ) throws(PlistError) {
        try save(PlistDocument(value: value, format: format), to: path, permissions: permissions,
                 durability: durability, limits: limits)
    }
}
