import Foundation

extension PlistValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// A compact one-line rendering for logs and test failures: JSON-like, with dates in ISO 8601,
    /// data as hex in angle brackets, UIDs as `UID(n)` and null as `null`.
    public var description: String {
        var out = ""
        PlistValue.describe(self, into: &out)
        return out
    }

    public var debugDescription: String { "PlistValue(\(description))" }

    private static func describe(_ value: PlistValue, into out: inout String) {
        switch value {
        case .string(let s): out += quoted(s)
        case .integer(let i): out += i.description
        case .real(let r): out += r.width == .single ? "\(r.value)f" : "\(r.value)"
        case .bool(let b): out += b ? "true" : "false"
        case .date(let d): out += d.iso8601String
        case .data(let d):
            out += "<"
            for byte in d {
                let hex = String(byte, radix: 16)
                if hex.count == 1 { out += "0" }
                out += hex
            }
            out += ">"
        case .uid(let u): out += "UID(\(u))"
        case .null: out += "null"
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() {
                if i > 0 { out += ", " }
                describe(e, into: &out)
            }
            out += "]"
        case .dictionary(let d):
            out += "{"
            for (i, e) in d.enumerated() {
                if i > 0 { out += ", " }
                out += quoted(e.key)
                out += ": "
                describe(e.value, into: &out)
            }
            out += "}"
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
