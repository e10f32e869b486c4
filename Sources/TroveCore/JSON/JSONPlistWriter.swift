import Foundation

/// Writes property lists as JSON, byte for byte as `plutil -convert json` does.
///
/// The output matches the toolchain's `plutil` (which writes through Foundation's
/// `JSONSerialization`):
/// - Compact by default: no spaces and no final newline, `{"a":[1,2]}`. With
///   ``Options/prettyPrinted`` (`plutil -r`): two-space indentation, `"key" : value`, one element
///   per line, empty containers as `[`, an empty line, and `]` at the container's indentation,
///   and again no final newline.
/// - Keys stay in the dictionary's order, or with ``Options/sortedKeys`` are sorted the way
///   `plutil -r` sorts them: Foundation's numeric, case-insensitive comparison in the root
///   locale, ties broken by a forced ordering (`"a" < "A" < "á" < "a1" < "a2" < "a10"`).
///   `plutil` without `-r` writes keys in hash order, which differs from run to run.
/// - Strings escape `"`, `\`, `/` (as `\/`), `\b \f \n \r \t`, and other control characters as
///   lowercase `\u00XX`; DEL and all non-ASCII characters are written as UTF-8.
/// - Integers are decimal over the whole `Int64.min ... UInt64.max` range; reals are the
///   shortest decimal that reads back to the same value (`0.1`, `3`, `1e+300`, `1.5e-07`), in the
///   real's own width (a 32-bit `0.1` is `0.1`); booleans are `true`/`false` and null `null`.
/// - Dates, data, UIDs, NaN and infinities have no JSON form and throw
///   ``PlistError/Code/unsupportedValue`` ("Invalid object in plist for JSON format", as
///   `plutil` says). So does a top-level scalar unless ``Options/allowsFragments`` is set,
///   because `plutil` refuses those too.
public struct JSONPlistWriter: Sendable {
    /// Output switches.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Indented output, as `plutil -r`.
        public static let prettyPrinted = Options(rawValue: 1 << 0)
        /// Keys in `plutil -r`'s order instead of the dictionary's own.
        public static let sortedKeys = Options(rawValue: 1 << 1)
        /// Allow a string, number, boolean or null as the whole document.
        public static let allowsFragments = Options(rawValue: 1 << 2)

        /// Exactly what `plutil -convert json -r` writes.
        public static let plutilPretty: Options = [.prettyPrinted, .sortedKeys]
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

    /// The JSON text of `value`, UTF-8 encoded.
    public func write(_ value: PlistValue) throws(PlistError) -> [UInt8] {
        try encode(value).array
    }

    /// The same text as `Data` that owns the writer's buffer, so that `Plist.write` does not copy
    /// the whole document again.
    func writeData(_ value: PlistValue) throws(PlistError) -> Data {
        try encode(value).data()
    }

    /// The document for `value` over the text `layout` was read from, in that text's encoding:
    /// an unchanged value gives back the input byte for byte, and an edited one differs only in
    /// the text of what changed (see ``JSONLayout``). ``Options/prettyPrinted`` and
    /// ``Options/sortedKeys`` ask for a layout of their own, so with either the layout is not
    /// followed. A top-level scalar is allowed where the document had one. Without a layout, the
    /// same as ``write(_:)``.
    public func write(_ value: PlistValue, layout: JSONLayout?) throws(PlistError) -> [UInt8] {
        guard let layout, followsLayout(layout, for: value) else { return try write(value) }
        let text = try splice(value, layout).array
        return layout.encoding == .utf8(skip: 0) ? text : layout.encoding.encode(text)
    }

    /// The same document as `Data` that owns the writer's buffer when the text is UTF-8, so that
    /// `Plist.write` does not copy it again.
    func writeData(_ value: PlistValue, layout: JSONLayout?) throws(PlistError) -> Data {
        guard let layout, followsLayout(layout, for: value) else { return try writeData(value) }
        let text = try splice(value, layout)
        if layout.encoding == .utf8(skip: 0) { return text.data() }
        return Data(layout.encoding.encode(text.array))
    }

    /// Whether `layout` is followed for `value`: not when the options ask for a layout of their
    /// own, nor for a top-level scalar where the document had a container (the standard writer
    /// then refuses it, or writes it with ``Options/allowsFragments``).
    private func followsLayout(_ layout: JSONLayout, for value: PlistValue) -> Bool {
        options.isSubset(of: .allowsFragments) && (value.isContainer || !layout.notes.value.isContainer)
    }

    /// `value` written over the text of `layout`, in UTF-8.
    private func splice(_ value: PlistValue, _ layout: JSONLayout) throws(PlistError) -> ByteBuffer {
        var splice = TextSplice(notes: layout.notes, dialect: JSONSpliceDialect(limits: limits), maxDepth: maxDepth)
        try splice.write(value)
        return splice.out
    }

    private func encode(_ value: PlistValue) throws(PlistError) -> ByteBuffer {
        if !value.isContainer && !options.contains(.allowsFragments) {
            throw PlistError(
                .unsupportedValue, format: .json,
                "Invalid object in plist for JSON format: a top-level \(value.kind) is not a JSON document (allowsFragments permits it)")
        }
        var output = JSONOutput(options: options, maxDepth: maxDepth)
        output.meter = LimitMeter(limits: limits)
        try output.write(value)
        return output.bytes
    }
}

/// The text being written.
///
/// Nesting is walked with an explicit stack of open containers, never by recursion, so a value
/// at the depth ceiling fits a small thread stack. The stack is a local of `write(_:)`'s loop,
/// which lends each child to `writeNode(_:in:)` straight from it; it also gives the key path
/// of an error.
struct JSONOutput: ~Copyable {
    let pretty: Bool
    let sorted: Bool
    let maxDepth: Int
    var bytes = ByteBuffer(capacity: 4096)
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)

    init(options: JSONPlistWriter.Options, maxDepth: Int) {
        pretty = options.contains(.prettyPrinted)
        sorted = options.contains(.sortedKeys)
        self.maxDepth = maxDepth
    }

    mutating func write(_ root: PlistValue) throws(PlistError) {
        // The containers whose opening bracket is written and whose closing one is not,
        // outermost first; the depth of each is its position.
        var open: [PlistContainerCursor] = []
        if let opened = try writeNode(root, in: open) { open.append(opened) }
        while let top = open.indices.last {
            let index = open[top].next
            guard let position = open[top].advance() else {
                let container = open.removeLast()
                if pretty {
                    bytes.append(container.count == 0 ? "\n\n" : "\n")
                    writeIndent(top)
                }
                bytes.append(UInt8(ascii: container.isDictionary ? "}" : "]"))
                continue
            }
            // Elements are separated by commas and, when pretty, each put on its own line.
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if pretty {
                bytes.append(0x0A)
                writeIndent(top + 1)
            }
            if open[top].isDictionary {
                writeString(open[top].keys[position])
                bytes.append(pretty ? " : " : ":")
            }
            if let opened = try writeNode(open[top].values[position], in: open) { open.append(opened) }
        }
    }

    /// Writes a node below the containers in `open`: a scalar whole, or a container's opening
    /// bracket, returning the container to be opened.
    private mutating func writeNode(_ value: PlistValue, in open: [PlistContainerCursor]) throws(PlistError)
        -> PlistContainerCursor?
    {
        if let exceeded = meter.count(value) {
            throw meter.limits.error(exceeding: exceeded, format: .json, keyPath: PlistContainerCursor.keyPath(open))
        }
        switch value {
        case .string(let s):
            writeString(s)
        case .integer(let i):
            bytes.appendDecimal(i)
        case .real(let r):
            guard r.value.isFinite else { throw invalid("the real \(r.value)", in: open) }
            var text = r.width == .single ? Float(r.value).description : r.value.description
            text.withUTF8 { utf8 in
                // Swift's shortest spelling, without the ".0" JSONSerialization leaves off.
                let whole = utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<(whole ? utf8.count - 2 : utf8.count)]))
            }
        case .bool(let b):
            bytes.append(b ? "true" : "false")
        case .null:
            bytes.append("null")
        case .date:
            throw invalid("a date", in: open)
        case .data:
            throw invalid("data", in: open)
        case .uid:
            throw invalid("a UID", in: open)
        case .array(let items):
            try checkDepth(open)
            bytes.append(UInt8(ascii: "["))
            return PlistContainerCursor(array: items)
        case .dictionary(let dict):
            try checkDepth(open)
            bytes.append(UInt8(ascii: "{"))
            return sorted
                ? PlistContainerCursor(dictionary: dict, sortedBy: JSONKeyOrder.self)
                : PlistContainerCursor(dictionary: dict)
        }
        return nil
    }

    private mutating func writeIndent(_ depth: Int) {
        bytes.append(repeating: 0x20, count: depth * 2)
    }

    /// Refuses a container nested deeper than `maxDepth`, before it is opened.
    private func checkDepth(_ open: [PlistContainerCursor]) throws(PlistError) {
        if open.count >= maxDepth {
            throw PlistError(
                .depthLimit, format: .json, keyPath: PlistContainerCursor.keyPath(open),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
    }

    private func invalid(_ what: String, in open: [PlistContainerCursor]) -> PlistError {
        PlistError(
            .unsupportedValue, format: .json, keyPath: PlistContainerCursor.keyPath(open),
            "Invalid object in plist for JSON format: \(what) has no JSON form")
    }

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Runs that need no escape are copied whole; most strings are one run.
            var start = 0
            for i in utf8.indices {
                let byte = utf8[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append("\\\"")
                case UInt8(ascii: "\\"): bytes.append("\\\\")
                case UInt8(ascii: "/"): bytes.append("\\/")
                case 0x08: bytes.append("\\b")
                case 0x0C: bytes.append("\\f")
                case 0x0A: bytes.append("\\n")
                case 0x0D: bytes.append("\\r")
                case 0x09: bytes.append("\\t")
                default:
                    bytes.append("\\u00")
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// The key order of `plutil -r` (`JSONSerialization`'s `.sortedKeys`).
public enum JSONKeyOrder {
    /// Foundation compares keys with these options in the root locale.
    private static let compareOptions: String.CompareOptions = [.numeric, .caseInsensitive, .forcedOrdering]
    private static let rootLocale = Locale(identifier: "")

    /// True when `a` sorts before `b`.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: compareOptions, range: a.startIndex..<a.endIndex, locale: rootLocale) == .orderedAscending
    }

    /// `keys` in `plutil -r` order.
    public static func sorted(_ keys: [String]) -> [String] {
        keys.sorted(by: precedes)
    }
}
