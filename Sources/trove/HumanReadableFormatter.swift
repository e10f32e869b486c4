import Foundation
import Trove

/// Renders a value in the layout of `plutil -p`, plain or colored.
///
/// plutil builds its text recursively: a container opens on the line of its key, its entries are
/// indented two spaces deeper than the container's own key, and the closing bracket lines up with
/// that key. Scalars are printed as Foundation describes them (see ``scalar(_:)``).
///
/// The layout is written once, here; a ``TerminalStyle`` paints each piece. Plain output is
/// exactly plutil's. Colored output adds a dim note after each value: its type after a scalar
/// (`(integer)`), its size after an opening bracket (`(3 items)`, `(2 keys)`).
enum HumanReadableFormatter {
    /// The whole printout of one document, ending in a newline.
    static func render(_ value: PlistValue, style: TerminalStyle = .plain) -> String {
        var out = ""
        // An explicit stack rather than recursion: values built in memory can nest deeper than
        // any file reader allows.
        var pending: [PrintStep] = [.value(value, depth: 1)]
        while let step = pending.popLast() {
            switch step {
            case let .value(.dictionary(dictionary), depth):
                out += style.paint("{", .structure)
                out += style.annotation(count(dictionary.count, "key", "keys"))
                out += "\n"
                pending.append(.close("}", depth: depth))
                for key in sortedKeys(dictionary).reversed() {
                    guard let entry = dictionary[key] else { continue }
                    pending.append(.value(entry, depth: depth + 1))
                    pending.append(.key(key, depth: depth))
                }
            case let .value(.array(array), depth):
                out += style.paint("[", .structure)
                out += style.annotation(count(array.count, "item", "items"))
                out += "\n"
                pending.append(.close("]", depth: depth))
                for (index, element) in array.enumerated().reversed() {
                    pending.append(.value(element, depth: depth + 1))
                    pending.append(.index(index, depth: depth))
                }
            case let .value(scalarValue, _):
                out += style.paint(style.visible(scalar(scalarValue)), role(of: scalarValue))
                out += style.annotation(scalarValue.kind.plutilName)
                out += "\n"
            case let .key(key, depth):
                out += indentation(depth)
                out += style.paint("\"\(style.visible(key))\"", .key)
                out += " " + style.paint("=>", .structure) + " "
            case let .index(index, depth):
                out += indentation(depth)
                out += style.paint(String(index), .index)
                out += " " + style.paint("=>", .structure) + " "
            case let .close(bracket, depth):
                out += indentation(depth - 1)
                out += style.paint(bracket, .structure)
                out += "\n"
            }
        }
        return out
    }

    /// One piece of the printout still to be written.
    private enum PrintStep {
        /// A value whose line prefix (key or index) is already written.
        case value(PlistValue, depth: Int)
        /// `"key" => ` at the indentation of `depth`.
        case key(String, depth: Int)
        /// `index => ` at the indentation of `depth`.
        case index(Int, depth: Int)
        /// A container's closing bracket, lined up with its key.
        case close(String, depth: Int)
    }

    private static func indentation(_ depth: Int) -> String {
        String(repeating: "  ", count: depth)
    }

    private static func count(_ n: Int, _ singular: String, _ plural: String) -> String {
        "\(n) \(n == 1 ? singular : plural)"
    }

    /// The color of a scalar.
    static func role(of value: PlistValue) -> TerminalStyle.Role {
        switch value {
        case .string: return .string
        case .integer, .real: return .number
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .uid: return .uid
        case .null: return .null
        case .array, .dictionary: return .structure
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
