import Foundation

extension PlistValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// A compact one-line rendering for logs and test failures: JSON-like, with dates in ISO 8601,
    /// data as hex in angle brackets, UIDs as `UID(n)` and null as `null`.
    ///
    /// Rendering walks nesting with an explicit stack. It stops after
    /// ``descriptionValueBudget`` values with `…`, because a small binary plist whose shared
    /// objects expand to billions of values would otherwise never finish.
    public var description: String {
        var out = ""
        PlistValue.describe(self, into: &out)
        return out
    }

    public var debugDescription: String { "PlistValue(\(description))" }

    /// The most values ``description`` renders before it ends the text with `…`.
    public static let descriptionValueBudget = 1_000_000

    /// What is left to write: a value, or punctuation that closes or separates containers.
    private enum Pending {
        case value(PlistValue)
        case text(String)
    }

    private static func describe(_ root: PlistValue, into out: inout String) {
        var pending: [Pending] = [.value(root)]
        var described = 0
        while let next = pending.popLast() {
            let value: PlistValue
            switch next {
            case .text(let text):
                out += text
                continue
            case .value(let v):
                value = v
            }
            described += 1
            if described > descriptionValueBudget {
                out += "…"
                return
            }
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
                // Pushed in reverse, so the stack pops them in order.
                pending.append(.text("]"))
                for (i, e) in a.enumerated().reversed() {
                    pending.append(.value(e))
                    if i > 0 { pending.append(.text(", ")) }
                }
            case .dictionary(let d):
                out += "{"
                pending.append(.text("}"))
                for (i, e) in d.enumerated().reversed() {
                    pending.append(.value(e.value))
                    pending.append(.text((i > 0 ? ", " : "") + quoted(e.key) + ": "))
                }
            }
        }
    }

    private static func quoted(_ s: String) -> String { DisplayEscaping.quoted(s) }
}

extension PlistDictionary: CustomStringConvertible {
    /// The dictionary as ``PlistValue/description`` renders it, without reflection (which would
    /// recurse through nested values).
    public var description: String { PlistValue.dictionary(self).description }
}

