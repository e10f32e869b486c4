/// Reads JSON (RFC 8259) into property-list values, as `plutil` and Foundation's
/// `JSONSerialization` read it.
///
/// - Objects become dictionaries (a repeated key keeps its first position and its last value),
///   arrays become arrays, strings strings, `true`/`false` booleans and `null` ``PlistValue/null``.
/// - A number without a fraction or exponent is an integer when it fits `Int64.min ...
///   UInt64.max`, kept exactly; beyond that range it becomes a real, as in `JSONSerialization`
///   (which, unlike this reader, also turns `-9223372036854775808` into a real). A number with
///   `.` or `e` is a real. A number too large for a `Double` (`1e400`) is an error, as it is for
///   Foundation; one too small becomes zero.
/// - Text is UTF-8, UTF-16 or UTF-32, with or without a byte-order mark. `\uXXXX` escapes
///   combine surrogate pairs; an unpaired surrogate is ``PlistError/Code/badString``.
/// - Like `JSONSerialization`, one trailing comma is accepted in arrays and objects unless
///   ``Options/strict`` is set. Top-level scalars are accepted, as RFC 8259 allows.
///
/// Parsing is iterative and bounded by ``PlistLimits/maxDepth``.
public struct JSONPlistReader: Sendable {
    /// Dialect switches.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Reject what RFC 8259 rejects but Foundation accepts (trailing commas).
        public static let strict = Options(rawValue: 1 << 0)
    }

    /// Resource limits applied while reading.
    public var limits: PlistLimits
    /// Dialect switches.
    public var options: Options

    /// A reader with the given limits and options.
    public init(limits: PlistLimits = .default, options: Options = []) {
        self.limits = limits
        self.options = options
    }

    /// Reads one JSON document.
    ///
    /// - Throws: ``PlistError`` with format ``PlistFormat/json`` and a line:column location.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PlistError) -> PlistValue {
        try read(bytes, keepingLayout: false).value
    }

    /// Reads one JSON document and, with `keepingLayout`, the notes that let
    /// ``JSONPlistWriter/write(_:layout:)`` write it back unchanged (nil for a document too long
    /// to note, over 2 GB of text).
    ///
    /// - Throws: ``PlistError`` with format ``PlistFormat/json`` and a line:column location.
    public func read(
        _ bytes: UnsafeRawBufferPointer, keepingLayout: Bool
    ) throws(PlistError) -> (value: PlistValue, layout: JSONLayout?) {
        let encoding = UnicodeTextEncoding.sniffed(bytes)
        let text = try UnicodeTranscoder.utf8Text(bytes, encoding: encoding, format: .json)
        let result: Result<(PlistValue, TextLayoutRecorder?), PlistError> = text.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(
                text: buffer, limits: limits, allowsTrailingCommas: !options.contains(.strict),
                keepingLayout: keepingLayout)
            return Result { () throws(PlistError) in (try parser.parseDocument(), parser.layout) }
        }
        let (value, recorder) = try result.get()
        return (value, recorder.map { JSONLayout(notes: $0.notes(text: text, value: value), encoding: encoding) })
    }

    /// Reads one JSON document from a byte array.
    public func read(_ bytes: [UInt8]) throws(PlistError) -> PlistValue {
        let result: Result<PlistValue, PlistError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try read(raw) }
        }
        return try result.get()
    }
}
