/// What an old-style (OpenStep) document looked like beyond its value, so that
/// ``OpenStepPlistWriter/write(_:layout:)`` writes an unchanged document back byte for byte and
/// an edited one with only the edited values' text changed.
///
/// The notes keep the document's text and where each value's text lies in it, and its encoding
/// (UTF-8 with or without a byte-order mark, UTF-16 or UTF-32). So everything the value does not
/// hold is kept: comments, blank lines and indentation, key order and repeated keys, quoting
/// (bare, `"` or `'`) and escapes, how data is spaced, trailing commas, a `.strings` body without
/// braces with its `"key";` entries, and whatever follows the body that CoreFoundation ignores.
///
/// After an edit, a value whose text is replaced is quoted where the text it replaces was quoted
/// (or when it must be), and a new entry copies its siblings' indentation, spacing and quoting;
/// new containers are laid out as ``OpenStepPlistWriter`` lays them out, indented to fit. See
/// `TextSplice+Entries.swift` for what happens to comments around removed and added entries.
public struct OpenStepLayout: Sendable {
    let notes: TextLayoutNotes
    let encoding: UnicodeTextEncoding
}

/// New old-style text for the splice writer, from ``OpenStepOutput``.
struct OpenStepSpliceDialect: TextSpliceDialect {
    let options: OpenStepPlistWriter.Options
    let limits: PlistLimits

    var format: PlistFormat { .openStep }
    var keyMark: UInt8 { UInt8(ascii: "=") }
    var hasComments: Bool { true }

    func separator(inDictionary: Bool) -> UInt8 { UInt8(ascii: inDictionary ? ";" : ",") }
    func separatorIsRequired(inDictionary: Bool) -> Bool { inDictionary }
    func trailingSeparatorByDefault(inDictionary: Bool) -> Bool { true }
    func defaultMid(_ style: TextDocumentStyle) -> [UInt8] { style.mid ?? Array(" = ".utf8) }
    func oneLineSpace(_ style: TextDocumentStyle) -> [UInt8] { style.listSpace.isEmpty ? [0x20] : style.listSpace }
    var defaultIndentUnit: [UInt8] { [0x09] }

    mutating func appendKey(_ key: String, sibling: UInt8?, style: TextDocumentStyle, to out: inout ByteBuffer) {
        var output = OpenStepOutput(options: options, maxDepth: 0)
        output.writeString(key, forcingQuotes: sibling.map(Self.isQuote) ?? false)
        out.append(contentsOf: output.bytes)
    }

    mutating func appendValue(_ value: PlistValue, _ context: TextFreshContext, to out: inout ByteBuffer)
        throws(PlistError)
    {
        var output = OpenStepOutput(options: options.subtracting(.sortedKeys), maxDepth: context.depthLeft)
        output.meter = LimitMeter(limits: limits)
        // Bare text could run into what followed a quoted string, data or a container (`//` is
        // a comment after `>` but part of a bare string); bare text follows bare text safely.
        output.quotesRootScalar = context.token.map { !OpenStepParser.isUnquotedCharacter($0) } ?? false
        try output.write(value)
        guard value.isContainer else {
            out.append(contentsOf: output.bytes)
            return
        }
        // The writer's lines are a newline and a tab per level; here they are the document's
        // line break, the value's indentation and the document's unit per level.
        let bytes = output.bytes
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0x0A else {
                let end = bytes[i...].firstIndex(of: 0x0A) ?? bytes.count
                out.append(contentsOf: bytes[i..<end])
                i = end
                continue
            }
            out.append(contentsOf: context.style.lineBreak)
            out.append(contentsOf: context.indent)
            i += 1
            while i < bytes.count, bytes[i] == 0x09 {
                out.append(contentsOf: context.style.indentUnit)
                i += 1
            }
        }
    }

    private static func isQuote(_ c: UInt8) -> Bool { c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") }
}
