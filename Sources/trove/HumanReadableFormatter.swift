import Foundation
import Trove

/// Renders a value in the layout of `plutil -p`.
///
/// plutil builds its text recursively: a container opens on the line of its key, its entries are
/// indented two spaces deeper than the container's own key, and the closing bracket lines up with
/// that key. Scalars are printed as Foundation describes them (see ``scalar(_:)``).
enum HumanReadableFormatter {
    /// The whole printout of one document, ending in a newline.
    static func render(_ value: PlistValue) -> String {
        var out = ""
        append(value, depth: 1, to: &out)
        return out
    }

    private static func append(_ value: PlistValue, depth: Int, to out: inout String) {
        let inner = String(repeating: "  ", count: depth)
        let outer = String(repeating: "  ", count: depth - 1)
        switch value {
        case .dictionary(let dictionary):
            out += "{\n"
            for key in sortedKeys(dictionary) {
                guard let entry = dictionary[key] else { continue }
                out += "\(inner)\"\(key)\" => "
                append(entry, depth: depth + 1, to: &out)
            }
            out += "\(outer)}\n"
        case .array(let array):
            out += "[\n"
            for (index, element) in array.enumerated() {
                out += "\(inner)\(index) => "
                append(element, depth: depth + 1, to: &out)
            }
            out += "\(outer)]\n"
        default:
            out += scalar(value)
            out += "\n"
        }
    }

    /// Keys in plutil's order: Foundation's comparison with numeric and case-insensitive options
    /// under the root locale, ties broken so the order is total. This is a collation (so `Å`
    /// sorts with `a`), which is why Foundation does the comparing rather than code points.
    static func sortedKeys(_ dictionary: PlistDictionary) -> [String] {
        let locale = Locale(identifier: "")
        return dictionary.keys.sorted { a, b in
            a.compare(b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: nil, locale: locale)
                == .orderedAscending
        }
    }

    /// One scalar as plutil prints it.
    static func scalar(_ value: PlistValue) -> String {
        switch value {
        case .string(let string): return "\"\(string)\""
        case .integer(let integer): return integer.description
        // NSNumber describes a 32-bit real with Float's shortest form (0.1, not 0.100000001...).
        case .real(let real): return real.width == .single ? Float(real.value).description : real.value.description
        case .bool(let bool): return bool ? "true" : "false"
        case .date(let date): return describe(date)
        case .data(let data): return describe(data)
        case .uid(let uid): return "<CFKeyedArchiverUID>{value = \(uid)}"
        case .null: return "<null>"
        case .array, .dictionary: return ""
        }
    }

    /// `yyyy-MM-dd HH:mm:ss +0000`, as `Date.description` prints, rounded down to the second.
    static func describe(_ date: PlistDate) -> String {
        let seconds = date.secondsSinceReferenceDate
        // Beyond about 2.9e11 years the calendar arithmetic would run out of range.
        guard seconds.isFinite, abs(seconds) < 9e18 else {
            return "<date out of range: \(seconds) seconds since 2001-01-01>"
        }
        // iso8601String is `YYYY-MM-DDTHH:MM:SSZ`; only the separators differ.
        var text = date.iso8601String
        if text.hasSuffix("Z") { text.removeLast() }
        if let t = text.lastIndex(of: "T") { text.replaceSubrange(t...t, with: " ") }
        return text + " +0000"
    }

    /// CoreFoundation's data description: every byte as two hex digits, and for more than 24
    /// bytes only the first 16 and the last 8 around an ellipsis.
    static func describe(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var out = "{length = \(bytes.count), bytes = 0x"
        if bytes.count > 24 {
            appendHex(bytes[0..<16], to: &out)
            out += " ... "
            appendHex(bytes[(bytes.count - 8)...], to: &out)
        } else {
            appendHex(bytes[...], to: &out)
        }
        return out + "}"
    }

    private static func appendHex(_ bytes: ArraySlice<UInt8>, to out: inout String) {
        let digits = Array("0123456789abcdef")
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }
}
