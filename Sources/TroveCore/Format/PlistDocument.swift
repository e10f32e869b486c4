import Foundation

/// A property list as read from a file: its value, the format it came in, and what the reader
/// learned about the file's layout.
///
/// The layout notes are what make a rewrite lossless: writing an unchanged document back in its
/// own format reproduces the input byte for byte, and after an edit only the bytes that depend on
/// the edit change. They describe the file's shape (object order and sharing, integer widths,
/// spellings, whitespace), never a copy of its bytes, so they stay valid while ``value`` is edited.
public struct PlistDocument: Sendable {
    /// The decoded value. Edit it freely; the notes follow it by position.
    public var value: PlistValue
    /// The format the document was read from, and is written back in by ``Plist/write(_:)``.
    public var format: PlistFormat
    /// What the reader learned about the layout, or nil for a new document.
    public var layout: PlistLayout?

    /// A document for a value, with no layout notes: written in the format's standard layout.
    public init(value: PlistValue, format: PlistFormat, layout: PlistLayout? = nil) {
        self.value = value
        self.format = format
        self.layout = layout
    }
}

/// Layout notes of one format, kept by ``PlistDocument``.
public enum PlistLayout: Sendable {
    /// Notes on a binary plist's object table.
    case binary(BinaryLayout)
    /// Notes on an XML document's spelling and whitespace.
    case xml(XMLLayout)
}

/// Options for reading.
public struct PlistReadOptions: Sendable {
    /// Resource limits.
    public var limits: PlistLimits
    /// Whether to record layout notes for a lossless rewrite. Off saves a little time and memory
    /// when the document will only be read.
    public var keepsLayout: Bool

    /// Options with the default limits and layout notes on.
    public init(limits: PlistLimits = .default, keepsLayout: Bool = true) {
        self.limits = limits
        self.keepsLayout = keepsLayout
    }
}

/// Reading and writing whole property lists in any format.
public enum Plist {
    /// Reads a property list, detecting its format from the content.
    public static func read(_ data: Data, options: PlistReadOptions = PlistReadOptions()) throws(PlistError) -> PlistDocument {
        let result: Result<PlistDocument, PlistError> = data.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try read(bytes: raw, options: options) }
        }
        return try result.get()
    }

    /// Reads a property list from raw bytes, detecting its format from the content.
    public static func read(bytes: UnsafeRawBufferPointer, options: PlistReadOptions = PlistReadOptions()) throws(PlistError) -> PlistDocument {
        guard let format = PlistFormat.detect(bytes) else {
            throw PlistError(.unknownFormat, "empty input is not a property list")
        }
        switch format {
        case .binary:
            let reader = BinaryPlistReader(limits: options.limits)
            let (value, layout) = try reader.read(bytes, keepingLayout: options.keepsLayout)
            return PlistDocument(value: value, format: .binary, layout: layout.map { .binary($0) })
        case .xml:
            let reader = XMLPlistReader(limits: options.limits)
            let (value, layout) = try reader.read(bytes, keepingLayout: options.keepsLayout)
            return PlistDocument(value: value, format: .xml, layout: layout.map { .xml($0) })
        case .openStep:
            // `{` and `"` open both OpenStep and JSON documents. CoreFoundation's reading comes first
            // (plutil reads `5` as the string "5"); JSON is the fallback, as in plutil.
            do {
                let value = try OpenStepPlistReader(limits: options.limits).read(bytes)
                return PlistDocument(value: value, format: .openStep)
            } catch let openStepError {
                guard let value = try? JSONPlistReader(limits: options.limits).read(bytes) else {
                    throw openStepError
                }
                return PlistDocument(value: value, format: .json)
            }
        case .json:
            let value = try JSONPlistReader(limits: options.limits).read(bytes)
            return PlistDocument(value: value, format: .json)
        }
    }

    /// Writes a document in its own format, following its layout notes: an unchanged document read
    /// from a file comes back byte for byte. `limits` bound the nesting and the expansion of shared
    /// containers written (see ``PlistLimits``).
    public static func write(_ document: PlistDocument, limits: PlistLimits = .default) throws(PlistError) -> Data {
        switch (document.format, document.layout) {
        case (.binary, .binary(let layout)?):
            return try BinaryPlistWriter(limits: limits).writeData(document.value, layout: layout)
        case (.xml, .xml(let layout)?):
            return try XMLPlistWriter(limits: limits).writeData(document.value, layout: layout)
        default:
            return try write(document.value, as: document.format, limits: limits)
        }
    }

    /// Writes a value in the standard layout of `format`, as CoreFoundation would. `limits` bound
    /// the nesting and the expansion of shared containers written (see ``PlistLimits``).
    public static func write(
        _ value: PlistValue, as format: PlistFormat, limits: PlistLimits = .default
    ) throws(PlistError) -> Data {
        switch format {
        case .binary: return try BinaryPlistWriter(limits: limits).writeData(value)
        case .xml: return try XMLPlistWriter(limits: limits).writeData(value)
        case .openStep: return Data(try OpenStepPlistWriter(limits: limits).write(value))
        case .json: return try JSONPlistWriter(limits: limits).writeData(value)
        }
    }
}
