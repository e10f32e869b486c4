/// The one error type every reader and writer throws.
///
/// It says what went wrong in a stable, machine-readable ``Code``, in which format, where (a byte
/// offset for binary input, a line and column for text), under which key path when that is known,
/// and in a message written for a person.
public struct PlistError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable identifiers for each kind of failure. The raw values never change once released, so
    /// scripts and tests may match on them.
    ///
    /// A code is a string-backed struct rather than an enum so that the layers above the formats
    /// (stores, archives, preferences) add their own codes without breaking a client's `switch`:
    /// switch over the codes you handle, with a `default` for the rest.
    ///
    /// ```swift
    /// extension PlistError.Code {
    ///     static let quotaExceeded = PlistError.Code("quota-exceeded")
    /// }
    /// ```
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable, kebab-case identifier (`"bad-trailer"`).
        public let rawValue: String

        /// A code with the identifier `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A code with the identifier `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        // Input as a whole
        /// The bytes are not in any format this library reads.
        public static let unknownFormat = Code("unknown-format")
        /// The input ended where more was required.
        public static let unexpectedEnd = Code("unexpected-end")
        /// A text encoding is declared or detected that is not supported, or bytes are not valid in it.
        public static let badEncoding = Code("bad-encoding")

        // Binary plists
        /// The file does not start with `bplist0`.
        public static let badMagic = Code("bad-magic")
        /// The 32-byte trailer is missing or its fields are inconsistent with the file.
        public static let badTrailer = Code("bad-trailer")
        /// An entry of the offset table points outside the object area.
        public static let badOffset = Code("bad-offset")
        /// An object reference is not below the object count.
        public static let badReference = Code("bad-reference")
        /// An object marker is unknown, or not allowed where it stands (fill byte as a value, ...).
        public static let badObject = Code("bad-object")
        /// A length or count is larger than the bytes that could hold it, or overflows.
        public static let badCount = Code("bad-count")
        /// A collection contains itself, directly or through others.
        public static let referenceCycle = Code("reference-cycle")
        /// A dictionary key is not a string.
        public static let badKey = Code("bad-key")

        // Text formats
        /// The document is not well-formed (mismatched tags, stray characters, bad syntax).
        public static let syntax = Code("syntax")
        /// An element is not one of the property-list elements, or stands where it may not.
        public static let unexpectedElement = Code("unexpected-element")
        /// A `<dict>` has a key without a value, or a value without a key.
        public static let missingValue = Code("missing-value")
        /// An `<integer>` is empty, not a number, or outside `Int64.min ... UInt64.max`.
        public static let badInteger = Code("bad-integer")
        /// A `<real>` is not a number.
        public static let badReal = Code("bad-real")
        /// A `<date>` is not an ISO 8601 date in the form Apple writes.
        public static let badDate = Code("bad-date")
        /// `<data>` is not valid base64 (or hex, in text formats).
        public static let badData = Code("bad-data")
        /// An escape or character reference is malformed or names an undefined entity.
        public static let badEscape = Code("bad-escape")
        /// The document holds something other than exactly one root value.
        public static let badRoot = Code("bad-root")

        // Strings
        /// A string's bytes are not valid UTF-16 (unpaired surrogates) or UTF-8.
        public static let badString = Code("bad-string")

        // Limits
        /// Nesting is deeper than the configured limit.
        public static let depthLimit = Code("depth-limit")
        /// A configured size limit was exceeded: more distinct values than ``PlistLimits/maxValues``,
        /// or a file larger than a caller's size bound.
        public static let sizeLimit = Code("size-limit")
        /// Shared objects would expand to more values than ``PlistLimits/maxExpandedValues``.
        public static let expansionLimit = Code("expansion-limit")
        /// Strings and data would total more bytes than ``PlistLimits/maxDecodedBytes``.
        public static let byteLimit = Code("byte-limit")

        // Writing
        /// The value holds something the target format cannot express (null in XML, a UID in JSON, ...).
        public static let unsupportedValue = Code("unsupported-value")
        /// Reading or writing a file failed; ``PlistError/path`` and
        /// ``PlistError/systemErrorNumber`` say which file and why. A failed write left the file
        /// on disk as it was.
        public static let io = Code("io")

        // Key paths (the CLI's extract, type and editing verbs)
        /// A key path names no value, or an edit cannot be made at it (the key exists for an insert,
        /// the parent is not a container, an index is out of range).
        public static let keyPath = Code("key-path")
        /// The value at a key path is not of the kind that was asked for.
        public static let typeMismatch = Code("type-mismatch")
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
    /// The key path of the value being read or written, when known. (A ``Code/keyPath`` error's
    /// message already names it, so ``description`` does not repeat it.)
    public var keyPath: PlistKeyPath?
    /// A sentence for a person: what was found and what was expected.
    public var message: String
    /// The file the error concerns, when it concerns one.
    public var path: String?
    /// The `errno` of the failed system call behind an ``Code/io`` error, so that a missing file
    /// (`ENOENT`) is told apart from a refused one (`EACCES`) without reading the message.
    /// `TroveFileIO` offers it as swift-system's `Errno`.
    public var systemErrorNumber: Int32?
    /// The error this one wraps, when it reports another layer's failure (a `DecodingError`
    /// raised by a value's own `init(from:)`, an archive object's error, ...). Not part of
    /// equality or hashing.
    public var underlyingError: (any Error & Sendable)?

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

    /// An ``Code/io`` error for the file at `path`, from the `errno` of the call that failed.
    public static func io(
        _ message: String, path: String, systemErrorNumber: Int32? = nil, underlying: (any Error & Sendable)? = nil
    ) -> PlistError {
        var error = PlistError(.io, message)
        error.path = path
        error.systemErrorNumber = systemErrorNumber
        error.underlyingError = underlying
        return error
    }

    /// The same error with `path` set, unless it already names a file.
    public func inFile(_ path: String) -> PlistError {
        var error = self
        if error.path == nil { error.path = path }
        return error
    }

    /// `format: location: message (at key path)`, e.g. `binary: byte 41: reference 12 is out of range`.
    /// The path is not part of it: tools print it first, as compilers do (`FILE: byte 41: ...`).
    public var description: String {
        var parts: [String] = []
        if let format { parts.append(format.displayName) }
        if let location { parts.append(location.description) }
        var text = parts.isEmpty ? message : parts.joined(separator: ": ") + ": " + message
        if let keyPath, !keyPath.isEmpty, code != .keyPath { text += " (at key path \(keyPath))" }
        return text
    }
}

extension PlistError {
    /// Errors are equal when everything but ``underlyingError`` is.
    public static func == (lhs: PlistError, rhs: PlistError) -> Bool {
        lhs.code == rhs.code && lhs.format == rhs.format && lhs.location == rhs.location
            && lhs.keyPath == rhs.keyPath && lhs.message == rhs.message && lhs.path == rhs.path
            && lhs.systemErrorNumber == rhs.systemErrorNumber
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(format)
        hasher.combine(location)
        hasher.combine(keyPath)
        hasher.combine(message)
        hasher.combine(path)
        hasher.combine(systemErrorNumber)
    }
}
