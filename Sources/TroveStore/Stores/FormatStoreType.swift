import Foundation
import TroveCore

/// The store types of the four property-list formats: `xml1`, `binary1`, `openstep` and `json`.
///
/// A file is read in whatever property-list format its content is in, and its snapshot names
/// that format; a save writes the type's own format, following the layout notes of a file read in
/// that format, so an unchanged value is written back byte for byte and an edit changes only the
/// bytes that depend on it.
public struct FormatStoreType: PlistStoreType {
    /// The format saves write.
    public let format: PlistFormat

    /// The store type for `format`.
    public init(_ format: PlistFormat) { self.format = format }

    /// `xml1`: Apple's XML property list.
    public static let xml = FormatStoreType(.xml)
    /// `binary1`: the binary property list (`bplist00`), the format preferences use.
    public static let binary = FormatStoreType(.binary)
    /// `openstep`: old-style text, as Xcode projects and `.strings` files use.
    public static let openStep = FormatStoreType(.openStep)
    /// `json`: JSON as `plutil -convert json` writes it (no dates, data or UIDs).
    public static let json = FormatStoreType(.json)

    public var name: String { format.rawValue }

    public var fileExtensions: [String] {
        switch format {
        case .xml, .binary: return ["plist"]
        case .openStep: return ["strings", "pbxproj"]
        case .json: return ["json"]
        }
    }

    public func recognizes(_ bytes: Data) -> Bool {
        let detected = bytes.withUnsafeBytes { PlistFormat.detect($0) }
        // `{` and `"` open OpenStep and JSON documents alike; either type reads both.
        switch (format, detected) {
        case (.openStep, .json?), (.json, .openStep?): return true
        default: return detected == format
        }
    }

    public func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot {
        let document = try Plist.read(bytes, options: options.read)
        let notes = document.layout.map { FormatLayoutNotes(format: document.format, layout: $0) }
        return StoreSnapshot(value: document.value, typeName: document.format.rawValue, notes: notes)
    }

    public func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data {
        var document = PlistDocument(value: snapshot.value, format: format)
        if let notes = snapshot.notes as? FormatLayoutNotes, notes.format == format { document.layout = notes.layout }
        return try Plist.write(document, options: options.write)
    }
}

/// The notes a format store type keeps: the layout of the file it read, and that file's format.
struct FormatLayoutNotes: Sendable {
    var format: PlistFormat
    var layout: PlistLayout
}
