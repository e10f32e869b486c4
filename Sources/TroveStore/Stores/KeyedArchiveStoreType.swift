import Foundation
import TroveArchive
import TroveCore

/// `keyed-archive`: a file that is an `NSKeyedArchiver` archive (binary by default, XML on
/// request), which Apple's `NSKeyedUnarchiver` reads.
///
/// The store's value is the archive's property list (`$archiver`, `$top`, `$objects`); keep an
/// object graph in it with ``PlistStore/saveObject(_:archiver:)`` and read it back with
/// ``PlistStore/loadObject(_:unarchiver:)``. A file read is checked as an archive
/// (`$archiver`, `$version`, references, class records) and written back following its layout,
/// so an unchanged archive is saved byte for byte.
public struct KeyedArchiveStoreType: PlistStoreType {
    /// The property-list format saves write.
    public let format: PlistFormat

    /// The store type writing `format` (binary or XML, the two formats archives take).
    public init(format: PlistFormat = .binary) { self.format = format }

    /// Binary archives, as `NSKeyedArchiver` writes them by default.
    public static let binary = KeyedArchiveStoreType(format: .binary)
    /// XML archives.
    public static let xml = KeyedArchiveStoreType(format: .xml)

    public var name: String { "keyed-archive" }

    /// Archives have no extension of their own (apps name them freely); they are recognized by
    /// content.
    public var fileExtensions: [String] { [] }

    /// A binary or XML property list that names `NSKeyedArchiver` under `$archiver` (a cheap look
    /// at the bytes; decoding checks the rest).
    public func recognizes(_ bytes: Data) -> Bool {
        let format = bytes.withUnsafeBytes { PlistFormat.detect($0) }
        guard format == .binary || format == .xml else { return false }
        return bytes.range(of: Data("$archiver".utf8)) != nil && bytes.range(of: Data("NSKeyedArchiver".utf8)) != nil
    }

    public func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot {
        let document = try Plist.read(bytes, options: options.read)
        _ = try KeyedArchive(document: document)
        let notes = document.layout.map { FormatLayoutNotes(format: document.format, layout: $0) }
        return StoreSnapshot(value: document.value, typeName: name, notes: notes)
    }

    public func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data {
        _ = try KeyedArchive(value: snapshot.value)
        var document = PlistDocument(value: snapshot.value, format: format)
        if let notes = snapshot.notes as? FormatLayoutNotes {
            // An archive read from a file keeps the format and layout it had.
            document.format = notes.format
            document.layout = notes.layout
        }
        return try Plist.write(document, options: options.write)
    }
}
