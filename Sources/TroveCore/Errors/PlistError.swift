/// The one error type every reader and writer throws.
///
/// It says what went wrong in a stable, machine-readable ``Code``, in which format, where (a byte
/// offset for binary input, a line and column for text), under which key path when that is known,
/// and in a message written for a person.
public struct PlistError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable identifiers for each kind of failure. The raw values never change once released, so
    /// scripts and tests may match on them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Input as a whole
        /// The bytes are not in any format this library reads.
        case unknownFormat = "unknown-format"
        /// The input ended where more was required.
        case unexpectedEnd = "unexpected-end"
        /// A text encoding is declared or detected that is not supported, or bytes are not valid in it.
        case badEncoding = "bad-encoding"

        // Binary plists
        /// The file does not start with `bplist0`.
        case badMagic = "bad-magic"
        /// The 32-byte trailer is missing or its fields are inconsistent with the file.
        case badTrailer = "bad-trailer"
        /// An entry of the offset table points outside the object area.
        case badOffset = "bad-offset"
        /// An object reference is not below the object count.
        case badReference = "bad-reference"
        /// An object marker is unknown, or not allowed where it stands (fill byte as a value, ...).
        case badObject = "bad-object"
        /// A length or count is larger than the bytes that could hold it, or overflows.
        case badCount = "bad-count"
        /// A collection contains itself, directly or through others.
        case referenceCycle = "reference-cycle"
        /// A dictionary key is not a string.
        case badKey = "bad-key"

        // Text formats
        /// The document is not well-formed (mismatched tags, stray characters, bad syntax).
        case syntax = "syntax"
        /// An element is not one of the property-list elements, or stands where it may not.
        case unexpectedElement = "unexpected-element"
        /// A `<dict>` has a key without a value, or a value without a key.
        case missingValue = "missing-value"
        /// An `<integer>` is empty, not a number, or outside `Int64.min ... UInt64.max`.
        case badInteger = "bad-integer"
        /// A `<real>` is not a number.
        case badReal = "bad-real"
        /// A `<date>` is not an ISO 8601 date in the form Apple writes.
        case badDate = "bad-date"
        /// `<data>` is not valid base64 (or hex, in text formats).
        case badData = "bad-data"
        /// An escape or character reference is malformed or names an undefined entity.
        case badEscape = "bad-escape"
        /// The document holds something other than exactly one root value.
        case badRoot = "bad-root"

        // Strings
        /// A string's bytes are not valid UTF-16 (unpaired surrogates) or UTF-8.
        case badString = "bad-string"

        // Limits
        /// Nesting is deeper than the configured limit.
        case depthLimit = "depth-limit"
        /// A configured size limit was exceeded: more distinct values than ``PlistLimits/maxValues``,
        /// or a file larger than a caller's size bound.
        case sizeLimit = "size-limit"
        /// Shared objects would expand to more values than ``PlistLimits/maxExpandedValues``.
        case expansionLimit = "expansion-limit"
        /// Strings and data would total more bytes than ``PlistLimits/maxDecodedBytes``.
        case byteLimit = "byte-limit"

        // Writing
        /// The value holds something the target format cannot express (null in XML, a UID in JSON, ...).
        case unsupportedValue = "unsupported-value"
        /// Writing to a file failed; the file on disk was left as it was.
        case io = "io"

        // Key paths (the CLI's extract, type and editing verbs)
        /// A key path names no value, or an edit cannot be made at it (the key exists for an insert,
        /// the parent is not a container, an index is out of range).
        case keyPath = "key-path"
        /// The value at a key path is not of the kind that was asked for.
        case typeMismatch = "type-mismatch"
    }

    /// Where in the input an error was found.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// A byte offset from the start of the input (binary formats).
        case byteOffset(Int)
        /// A 1-based line and column (text formats).
        case lineColumn(line: Int, column: Int)

        public var description: String {
            switch self {
            case .byteOffset(let o): return "byte \(o)"
            case let .lineColumn(line, column): return "\(line):\(column)"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The format being read or written, when known.
    public var format: PlistFormat?
    /// Where, when known.
    public var location: Location?
    /// The key path of the value being read or written, when known.
    public var keyPath: PlistKeyPath?
    /// A sentence for a person: what was found and what was expected.
    public var message: String

    /// Creates an error.
    public init(
        _ code: Code, format: PlistFormat? = nil, at location: Location? = nil,
        keyPath: PlistKeyPath? = nil, _ message: String
    ) {
        self.code = code
        self.format = format
        self.location = location
        self.keyPath = keyPath
        self.message = message
    }

    /// `format: location: message (at key path)`, e.g. `binary: byte 41: reference 12 is out of range`.
    public var description: String {
        var parts: [String] = []
        if let format { parts.append(format.displayName) }
        if let location { parts.append(location.description) }
        var text = parts.isEmpty ? message : parts.joined(separator: ": ") + ": " + message
        if let keyPath, !keyPath.components.isEmpty { text += " (at key path \(keyPath))" }
        return text
    }
}
