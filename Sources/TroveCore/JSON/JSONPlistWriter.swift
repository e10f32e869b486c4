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
        if !value.isContainer && !options.contains(.allowsFragments) {
            throw PlistError(
                .unsupportedValue, format: .json,
                "Invalid object in plist for JSON format: a top-level \(value.kind) is not a JSON document (allowsFragments permits it)")
        }
        var output = JSONOutput(options: options, maxDepth: maxDepth)
        output.meter = LimitMeter(limits: limits)
        try output.write(value, depth: 0, path: [])
        return output.bytes
    }
}

/// The text being written.
private struct JSONOutput {
    let pretty: Bool
    let sorted: Bool
    let maxDepth: Int
    var bytes: [UInt8] = []
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)

    init(options: JSONPlistWriter.Options, maxDepth: Int) {
        pretty = options.contains(.prettyPrinted)
        sorted = options.contains(.sortedKeys)
        self.maxDepth = maxDepth
    }

    mutating func write(_ value: PlistValue, depth: Int, path: [String]) throws(PlistError) {
        if let exceeded = meter.count(value) {
            throw meter.limits.error(exceeding: exceeded, format: .json, keyPath: PlistKeyPath(components: path))
        }
        switch value {
        case .string(let s):
            writeString(s)
        case .integer(let i):
            bytes.append(contentsOf: i.description.utf8)
        case .real(let r):
            guard r.value.isFinite else { throw invalid("the real \(r.value)", path) }
            var text = r.width == .single ? Float(r.value).description : r.value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        case .bool(let b):
            bytes.append(contentsOf: (b ? "true" : "false").utf8)
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .date:
            throw invalid("a date", path)
        case .data:
            throw invalid("data", path)
        case .uid:
            throw invalid("a UID", path)
        case .array(let items):
            try checkDepth(depth, path)
            bytes.append(UInt8(ascii: "["))
            try writeBody(count: items.count, depth: depth) { output, index throws(PlistError) in
                try output.write(items[index], depth: depth + 1, path: path + [String(index)])
            }
            bytes.append(UInt8(ascii: "]"))
        case .dictionary(let dict):
            try checkDepth(depth, path)
            let keys = sorted ? JSONKeyOrder.sorted(Array(dict.keys)) : Array(dict.keys)
            bytes.append(UInt8(ascii: "{"))
            try writeBody(count: keys.count, depth: depth) { output, index throws(PlistError) in
                let key = keys[index]
                output.writeString(key)
                output.bytes.append(contentsOf: (output.pretty ? " : " : ":").utf8)
                try output.write(dict[key] ?? .null, depth: depth + 1, path: path + [key])
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes the elements of a container between its brackets, with separators and, when
    /// pretty, newlines and indentation.
    private mutating func writeBody(
        count: Int, depth: Int, _ element: (inout JSONOutput, Int) throws(PlistError) -> Void
    ) throws(PlistError) {
        if count == 0 {
            if pretty {
                bytes.append(contentsOf: "\n\n".utf8)
                writeIndent(depth)
            }
            return
        }
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if pretty {
                bytes.append(0x0A)
                writeIndent(depth + 1)
            }
            try element(&self, index)
        }
        if pretty {
            bytes.append(0x0A)
            writeIndent(depth)
        }
    }

    private mutating func writeIndent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    private func checkDepth(_ depth: Int, _ path: [String]) throws(PlistError) {
        if depth >= maxDepth {
            throw PlistError(
                .depthLimit, format: .json, keyPath: PlistKeyPath(components: path),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
    }

    private func invalid(_ what: String, _ path: [String]) -> PlistError {
        PlistError(
            .unsupportedValue, format: .json, keyPath: PlistKeyPath(components: path),
            "Invalid object in plist for JSON format: \(what) has no JSON form")
    }

    private mutating func writeString(_ s: String) {
        let hexDigits = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "/"): bytes.append(contentsOf: "\\/".utf8)
            case 0x08: bytes.append(contentsOf: "\\b".utf8)
            case 0x0C: bytes.append(contentsOf: "\\f".utf8)
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
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
