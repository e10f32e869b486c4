import Foundation

/// Writes old-style (OpenStep) text property lists in one stable layout.
///
/// Apple's frameworks read this format but no longer write it, so the layout follows Xcode's
/// `project.pbxproj` files, the old-style text most often seen today:
///
/// ```
/// {
/// 	name = Example;
/// 	list = (
/// 		one,
/// 		"two words",
/// 	);
/// 	empty = {
/// 	};
/// 	bytes = <0fbd771c 2b>;
/// }
/// ```
///
/// - One tab per nesting level. Every entry is `key = value;` on its own line; every array
///   element is followed by a comma (CF accepts the trailing comma). Empty containers are written
///   open and closed on two lines, as Xcode does. The document ends with a newline.
/// - Strings and keys are unquoted when non-empty, made only of `[A-Za-z0-9_$/:.-]` and free of
///   `//` (which would start a comment); otherwise they are double-quoted with `\"`, `\\`,
///   `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v` and `\UXXXX` for the remaining control characters.
///   Other characters are written as UTF-8 unless ``Options/escapesNonASCII`` asks for `\UXXXX`
///   escapes (with surrogate pairs above U+FFFF), which keeps the output ASCII.
/// - Data is lowercase hex in groups of four bytes: `<0fbd771c 2b>`, the grouping of
///   `NSData`'s description.
/// - The format has only strings, so other scalars are written as the strings Apple's
///   descriptions give them: integers in decimal, reals in the shortest form that reads back to
///   the same number (`0.1`, `3`, `1e+300`), booleans as `YES`/`NO`, and dates as
///   `2024-01-01 12:00:00 +0000` (UTC, whole seconds). They read back as strings. With
///   ``Options/gnustepTyped`` they are written in GNUstep's typed form instead (`<*I5>`,
///   `<*R0.1>`, `<*BY>`, `<*D2024-01-01 12:00:00 +0000>`), which ``OpenStepPlistReader`` reads
///   back as the same types (dates to the whole second) when its GNUstep option is on.
/// - UIDs and null have no old-style form and throw ``PlistError/Code/unsupportedValue``.
public struct OpenStepPlistWriter: Sendable {
    /// Output switches.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Write integers, reals, booleans and dates in GNUstep's typed `<*...>` form.
        public static let gnustepTyped = Options(rawValue: 1 << 0)
        /// Sort dictionary keys by UTF-16 code unit (as CF's XML writer does) instead of keeping
        /// their order.
        public static let sortedKeys = Options(rawValue: 1 << 1)
        /// Write every non-ASCII character as a `\UXXXX` escape, so the output is pure ASCII.
        public static let escapesNonASCII = Options(rawValue: 1 << 2)
    }

    /// Output switches.
    public var options: Options
    /// Bounds on what is written: ``PlistLimits/maxDepth`` (deeper values throw
    /// ``PlistError/Code/depthLimit``), and ``PlistLimits/maxExpandedValues`` and
    /// ``PlistLimits/maxDecodedBytes``, which stop a value whose shared containers would expand
    /// without end (``PlistError/Code/expansionLimit``, ``PlistError/Code/byteLimit``).
    public var limits: PlistLimits
    /// The deepest nesting written: `limits.maxDepth`, at most ``PlistLimits/depthCeiling``.
    public var maxDepth: Int {
        get { limits.maxDepth }
        set { limits.maxDepth = newValue }
    }

    /// A writer with the given options.
    public init(_ options: Options = [], maxDepth: Int = PlistLimits.default.maxDepth) {
        self.options = options
        self.limits = PlistLimits(maxDepth: maxDepth)
    }

    /// A writer with the given options and limits.
    public init(_ options: Options = [], limits: PlistLimits) {
        self.options = options
        self.limits = limits
    }

    /// The old-style text of `value`, UTF-8 encoded.
    public func write(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        var output = OpenStepOutput(options: options, maxDepth: maxDepth)
        output.meter = LimitMeter(limits: limits)
        try output.write(value)
        output.bytes.append(0x0A)
        return output.bytes
    }

    /// The document for `value` over the text `layout` was read from, in that text's encoding:
    /// an unchanged value gives back the input byte for byte, and an edited one differs only in
    /// the text of what changed (see ``OpenStepLayout``). New text follows the document's style
    /// and this writer's options; ``Options/sortedKeys`` cannot keep a document's order, so with
    /// it the layout is not followed. Without a layout, the same as ``write(_:)``.
    public func write(_ value: PlistValue, layout: OpenStepLayout?) throws(PlistError) -> [UInt8] {
        guard let layout, !options.contains(.sortedKeys) else { return try write(value) }
        let text = try splice(value, layout)
        // A `.strings` body whose every entry was removed can leave nothing, which does not read;
        // behind a byte-order mark it reads, as an empty dictionary, and is the input when it was.
        if text.count == 0, !layout.encoding.hasByteOrderMark { return try write(value) }
        return layout.encoding == .utf8(skip: 0) ? text.array : layout.encoding.encode(text.array)
    }

    /// The same document as `Data` that owns the writer's buffer when the text is UTF-8, so that
    /// `Plist.write` does not copy it again.
    func writeData(_ value: PlistValue, layout: OpenStepLayout?) throws(PlistError) -> Data {
        guard let layout, !options.contains(.sortedKeys) else { return Data(try write(value)) }
        let text = try splice(value, layout)
        if text.count == 0, !layout.encoding.hasByteOrderMark { return Data(try write(value)) }
        if layout.encoding == .utf8(skip: 0) { return text.data() }
        return Data(layout.encoding.encode(text.array))
    }

    /// `value` written over the text of `layout`, in UTF-8.
    private func splice(_ value: PlistValue, _ layout: OpenStepLayout) throws(PlistError) -> ByteBuffer {
        var splice = TextSplice(
            notes: layout.notes, dialect: OpenStepSpliceDialect(options: options, limits: limits), maxDepth: maxDepth)
        try splice.write(value)
        return splice.out
    }
}

/// The text being written.
///
/// Nesting is walked with an explicit stack of open containers, never by recursion, so a value
/// at the depth ceiling fits a small thread stack. The stack is a local of `write(_:)`'s loop,
/// which lends each child to `writeNode(_:in:)` straight from it; it also gives the key path
/// of an error.
struct OpenStepOutput {
    let options: OpenStepPlistWriter.Options
    let maxDepth: Int
    var bytes: [UInt8] = []
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)
    /// Quote a scalar written as the whole output even when it could stand bare: it replaces a
    /// quoted one in a document being edited.
    var quotesRootScalar = false

    init(options: OpenStepPlistWriter.Options, maxDepth: Int) {
        self.options = options
        self.maxDepth = maxDepth
    }

    mutating func write(_ root: PlistValue) throws(PlistError) {
        // The containers whose opening bracket is written and whose closing one is not,
        // outermost first; the indentation of each is its position.
        var open: [PlistContainerCursor] = []
        if let opened = try writeNode(root, in: open) { open.append(opened) }
        while let top = open.indices.last {
            guard let position = open[top].advance() else {
                let container = open.removeLast()
                writeIndent(top)
                bytes.append(UInt8(ascii: container.isDictionary ? "}" : ")"))
                endElement(in: open)
                continue
            }
            writeIndent(top + 1)
            if open[top].isDictionary {
                writeString(open[top].keys[position])
                writeRaw(" = ")
            }
            if let opened = try writeNode(open[top].values[position], in: open) {
                open.append(opened)
            } else {
                endElement(in: open)
            }
        }
    }

    /// Writes a node below the containers in `open`: a scalar whole, or a container's opening
    /// bracket, returning the container to be opened.
    private mutating func writeNode(_ value: PlistValue, in open: [PlistContainerCursor]) throws(PlistError)
        -> PlistContainerCursor?
    {
        if let exceeded = meter.count(value) {
            throw meter.limits.error(
                exceeding: exceeded, format: .openStep, keyPath: PlistContainerCursor.keyPath(open))
        }
        let quoted = open.isEmpty && quotesRootScalar
        switch value {
        case .string(let s):
            // Format detection looks at the first bytes: a bare root string starting with
            // `bplist` would be taken for a binary plist, so the root is quoted then.
            writeString(s, forcingQuotes: quoted || (open.isEmpty && s.utf8.starts(with: "bplist".utf8)))
        case .integer(let i):
            if options.contains(.gnustepTyped) { writeRaw("<*I\(i)>") } else { writeString(i.description, forcingQuotes: quoted) }
        case .real(let r):
            let text = OpenStepNumberText.real(r)
            if options.contains(.gnustepTyped) { writeRaw("<*R\(text)>") } else { writeString(text, forcingQuotes: quoted) }
        case .bool(let b):
            if options.contains(.gnustepTyped) {
                writeRaw(b ? "<*BY>" : "<*BN>")
            } else {
                writeString(b ? "YES" : "NO", forcingQuotes: quoted)
            }
        case .date(let d):
            let text = OpenStepDates.gnustepString(d)
            if options.contains(.gnustepTyped) { writeRaw("<*D\(text)>") } else { writeString(text, forcingQuotes: quoted) }
        case .data(let data):
            writeData(data)
        case .array(let items):
            try checkDepth(open)
            bytes.append(UInt8(ascii: "("))
            bytes.append(0x0A)
            return PlistContainerCursor(array: items)
        case .dictionary(let dict):
            try checkDepth(open)
            bytes.append(UInt8(ascii: "{"))
            bytes.append(0x0A)
            return options.contains(.sortedKeys)
                ? PlistContainerCursor(dictionary: dict, sortedBy: PlistKeyOrder.self)
                : PlistContainerCursor(dictionary: dict)
        case .uid(let uid):
            throw PlistError(
                .unsupportedValue, format: .openStep, keyPath: PlistContainerCursor.keyPath(open),
                "UID \(uid) has no old-style (OpenStep) form")
        case .null:
            throw PlistError(
                .unsupportedValue, format: .openStep, keyPath: PlistContainerCursor.keyPath(open),
                "null has no old-style (OpenStep) form")
        }
        return nil
    }

    /// Ends a finished element of the innermost container in `open`: `,` after an array element,
    /// `;` after a dictionary entry, then a newline. The root needs neither.
    private mutating func endElement(in open: [PlistContainerCursor]) {
        guard let parent = open.indices.last else { return }
        bytes.append(UInt8(ascii: open[parent].isDictionary ? ";" : ","))
        bytes.append(0x0A)
    }

    /// Refuses a container nested deeper than `maxDepth`, before it is opened.
    private func checkDepth(_ open: [PlistContainerCursor]) throws(PlistError) {
        if open.count >= maxDepth {
            throw PlistError(
                .depthLimit, format: .openStep, keyPath: PlistContainerCursor.keyPath(open),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
    }

    private mutating func writeIndent(_ level: Int) {
        bytes.append(contentsOf: repeatElement(0x09, count: level))
    }

    private mutating func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func writeData(_ data: Data) {
        let digits = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "<"))
        for (index, byte) in data.enumerated() {
            if index > 0, index % 4 == 0 { bytes.append(0x20) }
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: ">"))
    }

    /// Writes a string bare when the reader would read it back unchanged, quoted otherwise.
    mutating func writeString(_ s: String, forcingQuotes: Bool = false) {
        if !forcingQuotes, Self.canStayUnquoted(s) {
            bytes.append(contentsOf: s.utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": writeRaw("\\\"")
            case "\\": writeRaw("\\\\")
            case "\n": writeRaw("\\n")
            case "\t": writeRaw("\\t")
            case "\r": writeRaw("\\r")
            case "\u{07}": writeRaw("\\a")
            case "\u{08}": writeRaw("\\b")
            case "\u{0C}": writeRaw("\\f")
            case "\u{0B}": writeRaw("\\v")
            case "\u{00}"..."\u{1F}", "\u{7F}":
                writeUnicodeEscape(UInt16(scalar.value))
            default:
                if scalar.isASCII || !options.contains(.escapesNonASCII) {
                    UnicodeTranscoder.appendUTF8(scalar, to: &bytes)
                } else {
                    for unit in String(scalar).utf16 { writeUnicodeEscape(unit) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeUnicodeEscape(_ unit: UInt16) {
        let hex = String(unit, radix: 16, uppercase: true)
        writeRaw("\\U" + String(repeating: "0", count: 4 - hex.count) + hex)
    }

    private static func canStayUnquoted(_ s: String) -> Bool {
        guard !s.isEmpty else { return false }
        var previousWasSlash = false
        for byte in s.utf8 {
            guard OpenStepParser.isUnquotedCharacter(byte) else { return false }
            let isSlash = byte == UInt8(ascii: "/")
            if isSlash && previousWasSlash { return false }
            previousWasSlash = isSlash
        }
        return true
    }
}

/// Number spellings for the old-style writer.
enum OpenStepNumberText {
    /// The shortest decimal that reads back as the same number, without a trailing `.0`
    /// (`3`, `0.1`, `1e+300`), in the real's own width.
    static func real(_ real: PlistReal) -> String {
        var text = real.width == .single ? Float(real.value).description : real.value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
