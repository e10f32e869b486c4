/// Reads old-style (OpenStep / NeXTSTEP) text property lists, `.strings` files and Xcode
/// `project.pbxproj` files, with CoreFoundation's `CFOldStylePList.c` semantics.
///
/// What is accepted, and why it looks the way it does:
/// - Every scalar is a string: `87`, `YES` and `2024-01-01` all read as strings, because the
///   format has no other scalar types. Data is `<hex>`, possibly empty, with space, tab, CR, LF,
///   U+2028 and U+2029 allowed between (not inside) byte pairs.
/// - Strings are quoted with `"` or `'`, or unquoted when every character is in
///   `[A-Za-z0-9_$/:.-]`. Escapes: `\a \b \f \n \r \t \v`, 1 to 3 octal digits read in the
///   NeXTSTEP character set (the value wraps to a byte, as in CF), `\U` with 1 to 4 hex digits
///   (consecutive `\U` surrogate halves combine), and any other escaped character stands for
///   itself (`\d` is `d`; `\x` and `\u` are not escapes).
/// - `{ key = value; }` dictionaries (a later duplicate key replaces the value), `( a, b, )`
///   arrays with an optional trailing comma, `//` and `/* */` comments.
/// - A top-level string followed by more text is re-read as the body of a dictionary without
///   braces: the `.strings` form, where `"key";` maps a key to itself. As in CF, reading that
///   body stops quietly at the first thing that cannot start a key.
/// - A document of only whitespace and comments, even an unterminated `/*`, is an empty
///   dictionary. A zero-byte document is an error.
/// - Input is UTF-8, or UTF-16/UTF-32 with a byte-order mark.
///
/// Where this reader is stricter than the CoreFoundation in the Linux toolchain, it follows
/// current Apple sources instead: `\U` without a hex digit is ``PlistError/Code/badEscape``
/// (older CF read it as U+0000), an unpaired `\U` surrogate is ``PlistError/Code/badString``
/// (CF keeps it in an `NSString`, which a Swift `String` cannot hold), and nesting deeper than
/// ``PlistLimits/maxDepth`` (512, macOS's limit) is ``PlistError/Code/depthLimit``.
///
/// GNUstep's typed values (`<*I5>`, `<*R1.5>`, `<*BY>`, `<*D2024-01-01 12:00:00 +0000>`,
/// `<[base64]>`) are rejected by default, as Apple rejects them; with
/// ``Options/gnustepExtensions`` they read as integers, reals, booleans, dates and data.
///
/// Parsing is iterative, so nesting costs heap, not stack, and is bounded by
/// ``PlistLimits/maxDepth``.
public struct OpenStepPlistReader: Sendable {
    /// Dialect switches.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Read GNUstep's typed `<*...>` values and `<[base64]>` data instead of rejecting them.
        public static let gnustepExtensions = Options(rawValue: 1 << 0)
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

    /// Reads one old-style document.
    ///
    /// - Throws: ``PlistError`` with format ``PlistFormat/openStep`` and a line:column location.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(PlistError) -> PlistValue {
        try read(bytes, keepingLayout: false).value
    }

    /// Reads one old-style document and, with `keepingLayout`, the notes that let
    /// ``OpenStepPlistWriter/write(_:layout:)`` write it back unchanged (nil for a document too
    /// long to note, over 2 GB of text).
    ///
    /// - Throws: ``PlistError`` with format ``PlistFormat/openStep`` and a line:column location.
    public func read(
        _ bytes: UnsafeRawBufferPointer, keepingLayout: Bool
    ) throws(PlistError) -> (value: PlistValue, layout: OpenStepLayout?) {
        if bytes.isEmpty {
            throw PlistError(.unexpectedEnd, format: .openStep, "the document is empty (zero bytes)")
        }
        let encoding = UnicodeTextEncoding.fromByteOrderMark(bytes)
        let text = try UnicodeTranscoder.utf8Text(bytes, encoding: encoding, format: .openStep)
        let result: Result<(PlistValue, TextLayoutRecorder?), PlistError> = text.withUnsafeBufferPointer { buffer in
            var parser = OpenStepParser(
                text: buffer, limits: limits, allowsGNUstep: options.contains(.gnustepExtensions),
                keepingLayout: keepingLayout)
            return Result { () throws(PlistError) in (try parser.parseDocument(), parser.layout) }
        }
        let (value, recorder) = try result.get()
        return (value, recorder.map { OpenStepLayout(notes: $0.notes(text: text, value: value), encoding: encoding) })
    }

    /// Reads one old-style document from a byte array.
    public func read(_ bytes: [UInt8]) throws(PlistError) -> PlistValue {
        let result: Result<PlistValue, PlistError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try read(raw) }
        }
        return try result.get()
    }
}
