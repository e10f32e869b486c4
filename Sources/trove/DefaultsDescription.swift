import Foundation
import Trove

/// Values in the text form macOS `defaults read` prints: Foundation's old-style description of a
/// dictionary or array, keys sorted, strings quoted only when they need it and with non-ASCII
/// characters as `\Unnnn`, data as `{length = N, bytes = 0x...}`, dates as
/// `"2024-03-09 18:45:00 +0000"`, booleans as 1 and 0.
///
/// A nested container starts with its own indentation after `key = `, which is why `defaults`
/// prints `key =     (` and array elements that are dictionaries indented twice over; the text
/// reproduces that, so scripts that parse `defaults` output parse this.
enum DefaultsDescription {
    static func text(_ value: PlistValue) -> String {
        var out = ""
        append(value, level: 0, to: &out)
        return out
    }

    /// A value printed alone (`defaults read DOMAIN KEY`): a string unquoted.
    static func bareText(_ value: PlistValue) -> String {
        if case .string(let string) = value { return string }
        return text(value)
    }

    private static func indent(_ level: Int) -> String { String(repeating: "    ", count: level) }

    private static func append(_ value: PlistValue, level: Int, to out: inout String) {
        switch value {
        case .dictionary(let entries):
            out += (level > 0 ? indent(level) : "") + "{\n"
            for key in entries.keys.sorted(by: { $0.utf16.lexicographicallyPrecedes($1.utf16) }) {
                out += indent(level + 1) + quoted(key) + " = "
                append(entries[key] ?? .null, level: level + 1, to: &out)
                out += ";\n"
            }
            out += indent(level) + "}"
        case .array(let elements):
            out += (level > 0 ? indent(level) : "") + "(\n"
            for (index, element) in elements.enumerated() {
                out += indent(level + 1)
                append(element, level: level + 1, to: &out)
                out += index + 1 < elements.count ? ",\n" : "\n"
            }
            out += indent(level) + ")"
        case .string(let string): out += quoted(string)
        case .integer(let integer): out += integer.description
        case .real(let real): out += realText(real.value)
        case .bool(let flag): out += flag ? "1" : "0"
        case .date(let date): out += quoted(HumanReadableFormatter.describe(date))
        case .data(let bytes): out += HumanReadableFormatter.describe(bytes)
        case .uid(let uid): out += "<CFKeyedArchiverUID>{value = \(uid)}"
        case .null: out += "<null>"
        }
    }

    /// `%g`-like shortest text, as NSNumber's description gives (`0.5`, `3`, `1e+20`).
    private static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The string as old-style text: bare when it is letters, digits and `_$./:-` only (and not
    /// empty), else in double quotes with `\"`, `\\`, `\n`, `\t` and `\Unnnn` escapes.
    static func quoted(_ string: String) -> String {
        let bare = !string.isEmpty && string.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_$./:-".unicodeScalars.contains(scalar))
        }
        if bare { return string }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F {
                    out.unicodeScalars.append(scalar)
                } else {
                    for unit in String(scalar).utf16 { out += String(format: "\\U%04x", unit) }
                }
            }
        }
        return out + "\""
    }
}
