/// How text from a file is shown to a person: in logs, test failures, diffs and on a terminal.
///
/// One rule everywhere: line breaks and tabs as `\n`, `\r`, `\t`; every other control character
/// (C0, DEL and C1, which could move a terminal's cursor or change its colors) as `\u{hex}`; all
/// other characters as they are. Quoted text also escapes `"` and `\`.
public enum DisplayEscaping {
    /// `text` in double quotes, escaped.
    ///
    /// ```swift
    /// DisplayEscaping.quoted("a\"b\n")   // "a\"b\n" with the quote and line break escaped
    /// ```
    public static func quoted(_ text: String) -> String {
        var out = "\""
        append(text, quoting: true, to: &out)
        return out + "\""
    }

    /// `text` with its control characters escaped and nothing else changed; `text` itself when
    /// it has none.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        append(text, quoting: false, to: &out)
        return out
    }

    /// True for C0 controls, DEL and C1 controls.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func append(_ text: String, quoting: Bool, to out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where quoting: out += "\\\""
            case "\\" where quoting: out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if isControl(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
    }
}
