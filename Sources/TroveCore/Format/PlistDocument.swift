import Foundation

/// A property list as read from a file: its value, the format it came in, and what the reader
/// learned about the file's layout.
///
/// The layout notes are what make a rewrite lossless: writing an unchanged document back in its
/// own format reproduces the input byte for byte, and after an edit only the bytes that depend on
/// the edit change. Binary and XML notes describe the file's shape (object order and sharing,
/// integer widths, spellings, whitespace, and the one to four bytes of each unreferenced boolean
/// or UID), never a copy of the values' bytes; OpenStep and JSON notes keep
/// the text and the value it was read as. Either way they stay valid while ``value`` is edited.
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
    /// An old-style (OpenStep) document's text, and where each value lies in it.
    case openStep(OpenStepLayout)
    /// A JSON document's text, and where each value lies in it.
    case json(JSONLayout)
}

/// Options for reading, passed through to the format's reader.
public struct PlistReadOptions: Sendable {
    /// Resource limits.
    public var limits: PlistLimits
    /// Whether to record layout notes for a lossless rewrite. Off saves a little time and memory
    /// when the document will only be read.
    public var keepsLayout: Bool
    /// The OpenStep reader's switches (GNUstep's typed `<*I5>` values).
    public var openStep: OpenStepPlistReader.Options
    /// The JSON reader's switches (``JSONPlistReader/Options/strict``).
    public var json: JSONPlistReader.Options
    /// Whether a large binary plist, with or without layout notes, may be decoded on two threads
    /// (see ``BinaryPlistReader/decodesInParallel``). On by default; the value and the notes read
    /// are the same either way.
    public var decodesBinaryInParallel = true

    /// Options with the default limits and layout notes on.
    public init(
        limits: PlistLimits = .default, keepsLayout: Bool = true,
        openStep: OpenStepPlistReader.Options = [], json: JSONPlistReader.Options = []
    ) {
        self.limits = limits
        self.keepsLayout = keepsLayout
        self.openStep = openStep
        self.json = json
    }
}

/// Reading and writing whole property lists in any format.
public enum Plist {
    /// Reads a property list, detecting its format from the content.
    public static func read(_ data: Data, options: PlistReadOptions = PlistReadOptions()) throws(PlistError) -> PlistDocument {
        let result: Result<PlistDocument, PlistError> = data.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try read(bytes: raw, options: options) }
        }
        // Moved out: `get()` would copy the document, a retain and a release per array of its
        // notes.
        switch consume result {
        case .success(let document): return document
        case .failure(let error): throw error
        }
    }

    /// Reads a property list from raw bytes, detecting its format from the content.
    public static func read(bytes: UnsafeRawBufferPointer, options: PlistReadOptions = PlistReadOptions()) throws(PlistError) -> PlistDocument {
        guard let format = PlistFormat.detect(bytes) else {
            throw PlistError(.unknownFormat, "empty input is not a property list")
        }
        guard format == .openStep else {
            return try format.readDocument(bytes, options: options)
        }
        // `{` and `"` open both OpenStep and JSON documents. CoreFoundation's reading comes first
        // (plutil reads `5` as the string "5"); JSON is the fallback, as in plutil.
        let openStepError: PlistError
        do {
            return try PlistFormat.openStep.readDocument(bytes, options: options)
        } catch {
            openStepError = error
        }
        do {
            return try PlistFormat.json.readDocument(bytes, options: options)
        } catch {
            // Neither reads it: report the format the text resembles more, the one whose reader
            // got further (a JSON document over the depth limit is not "expected '=' after key").
            throw Self.furtherError(openStepError, error)
        }
    }

    /// Of two readers' errors for the same text, the one found further into it; OpenStep's when
    /// they tie or either has no position (CoreFoundation's reading comes first).
    static func furtherError(_ openStep: PlistError, _ json: PlistError) -> PlistError {
        guard case let .lineColumn(line: l1, column: c1)? = openStep.location,
              case let .lineColumn(line: l2, column: c2)? = json.location
        else { return openStep }
        if json.code == .depthLimit || (l2, c2) > (l1, c1) { return json }
        return openStep
    }

    /// Writes a document in its own format, following its layout notes: an unchanged document read
    /// from a file comes back byte for byte. `limits` bound the nesting and the expansion of shared
    /// containers written (see ``PlistLimits``).
    public static func write(_ document: PlistDocument, limits: PlistLimits = .default) throws(PlistError) -> Data {
        try write(document, options: PlistWriteOptions(limits: limits))
    }

    /// Writes a document in its own format with the writer options given, following its layout
    /// notes where the format keeps them.
    public static func write(_ document: PlistDocument, options: PlistWriteOptions) throws(PlistError) -> Data {
        try document.format.writeDocument(document, options: options)
    }

    /// Writes a value in the standard layout of `format`, as CoreFoundation would. `limits` bound
    /// the nesting and the expansion of shared containers written (see ``PlistLimits``).
    public static func write(
        _ value: PlistValue, as format: PlistFormat, limits: PlistLimits = .default
    ) throws(PlistError) -> Data {
        // Binary goes straight to its writer: wrapping the value in a document and taking it
        // apart again cost a small file's write a fortieth of its time (copies of the document).
        if case .binary = format { return try BinaryPlistWriter(limits: limits).writeData(value) }
        return try format.writeDocument(PlistDocument(value: value, format: format), options: PlistWriteOptions(limits: limits))
    }
}
