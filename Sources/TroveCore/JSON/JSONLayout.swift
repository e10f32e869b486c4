/// What a JSON document looked like beyond its value, so that
/// ``JSONPlistWriter/write(_:layout:)`` writes an unchanged document back byte for byte and an
/// edited one with only the edited values' text changed.
///
/// The notes keep the document's text and where each value's text lies in it, and its encoding
/// (UTF-8, UTF-16 or UTF-32, with or without a byte-order mark). So everything the value does not
/// hold is kept: whitespace and indentation, key order and repeated keys, number spellings
/// (`1.0`, `1e3`, `-0`), string escapes (`\u00e9`, `\/`), and a trailing comma.
///
/// After an edit, a new value or entry is written in the document's style: its indentation unit
/// and line break, the spacing around `:` and after `,` of a one-line document, and `/` escaped
/// only when the document escapes it somewhere; numbers as ``JSONPlistWriter`` spells them.
public struct JSONLayout: Sendable {
    let notes: TextLayoutNotes
    let encoding: UnicodeTextEncoding
}

/// New JSON text for the splice writer: ``JSONOutput``'s compact text, laid out again in the
/// document's style.
struct JSONSpliceDialect: TextSpliceDialect {
    let limits: PlistLimits

    var format: PlistFormat { .json }
    var keyMark: UInt8 { UInt8(ascii: ":") }
    var hasComments: Bool { false }

    func separator(inDictionary: Bool) -> UInt8 { UInt8(ascii: ",") }
    func separatorIsRequired(inDictionary: Bool) -> Bool { false }
    func trailingSeparatorByDefault(inDictionary: Bool) -> Bool { false }
    func defaultMid(_ style: TextDocumentStyle) -> [UInt8] {
        style.mid ?? (style.isMultiline ? [UInt8(ascii: ":"), 0x20] : [UInt8(ascii: ":")])
    }
    func oneLineSpace(_ style: TextDocumentStyle) -> [UInt8] { style.listSpace }
    var defaultIndentUnit: [UInt8] { [0x20, 0x20] }

    mutating func appendKey(_ key: String, sibling: UInt8?, style: TextDocumentStyle, to out: inout ByteBuffer)
        throws(PlistError)
    {
        let context = TextFreshContext(indent: [], style: style, token: sibling, depthLeft: 0)
        try appendValue(.string(key), context, to: &out)
    }

    mutating func appendValue(_ value: PlistValue, _ context: TextFreshContext, to out: inout ByteBuffer)
        throws(PlistError)
    {
        var output = JSONOutput(options: [], maxDepth: context.depthLeft)
        output.meter = LimitMeter(limits: limits)
        try output.write(value)
        let mid = defaultMid(context.style)
        output.bytes.withUnsafeBufferPointer { compact in
            Self.restyle(compact, context, mid: mid, into: &out)
        }
    }

    /// Lays out compact JSON (no whitespace, `\/` escaped) in the document's style.
    private static func restyle(
        _ b: UnsafeBufferPointer<UInt8>, _ context: TextFreshContext, mid: [UInt8], into out: inout ByteBuffer
    ) {
        let style = context.style
        var depth = 0
        var inString = false
        var i = 0
        func newLine(_ depth: Int, _ out: inout ByteBuffer) {
            out.append(contentsOf: style.lineBreak)
            out.append(contentsOf: context.indent)
            for _ in 0..<max(0, depth) { out.append(contentsOf: style.indentUnit) }
        }
        while i < b.count {
            let c = b[i]
            if inString {
                if c == UInt8(ascii: "\\"), i + 1 < b.count {
                    if b[i + 1] != UInt8(ascii: "/") || style.escapesSlash { out.append(c) }
                    out.append(b[i + 1])
                    i += 2
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = false }
                out.append(c)
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                inString = true
                out.append(c)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(c)
                if i + 1 < b.count, b[i + 1] == UInt8(ascii: "}") || b[i + 1] == UInt8(ascii: "]") {
                    out.append(b[i + 1])
                    i += 1
                } else {
                    depth += 1
                    if style.isMultiline { newLine(depth, &out) }
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if style.isMultiline { newLine(depth, &out) }
                out.append(c)
            case UInt8(ascii: ","):
                out.append(c)
                if style.isMultiline { newLine(depth, &out) } else { out.append(contentsOf: style.listSpace) }
            case UInt8(ascii: ":"):
                out.append(contentsOf: mid)
            default:
                out.append(c)
            }
            i += 1
        }
    }
}
