import Foundation
import Trove

/// Renders a value on one line, for reports that give a value per line (`diff`, `roundtrip`).
///
/// The text is JSON-like and unambiguous about kinds, so that a change of kind is visible:
/// strings are quoted (with `\n`, `\"` and control characters escaped, so a value never breaks
/// the line), integers are plain, reals always show the exact 64-bit value they hold (`3.0`, and
/// a 32-bit `0.1` as `0.10000000149011612`), dates are ISO 8601 in UTC with any fraction of a
/// second, data is hex in angle brackets, UIDs are `UID(n)` and null is `null`. Arrays and
/// dictionaries are written out in their own order. Text beyond `limit` characters is cut off
/// with `…`, so that a large subtree costs one short line.
enum OneLineFormatter {
    /// The default number of characters shown before cutting off.
    static let defaultLimit = 160

    /// The value on one line, painted by `style`.
    static func render(_ value: PlistValue, style: TerminalStyle = .plain, limit: Int = defaultLimit) -> String {
        var out = LimitedText(limit: limit, style: style)
        // An explicit stack: a subtree from a file can be 512 levels deep, one built in memory deeper.
        var pending: [Step] = [.value(value)]
        while !out.isFull, let step = pending.popLast() {
            switch step {
            case .text(let text, let role):
                out.append(text, role)
            case .value(.array(let elements)):
                out.append("[", .structure)
                pending.append(.text("]", .structure))
                for (index, element) in elements.enumerated().reversed() {
                    pending.append(.value(element))
                    if index > 0 { pending.append(.text(", ", .structure)) }
                }
            case .value(.dictionary(let entries)):
                out.append("{", .structure)
                pending.append(.text("}", .structure))
                for (index, entry) in entries.enumerated().reversed() {
                    pending.append(.value(entry.value))
                    pending.append(.text(": ", .structure))
                    pending.append(.text(quoted(entry.key), .key))
                    if index > 0 { pending.append(.text(", ", .structure)) }
                }
            case .value(.data(let bytes)) where bytes.count > limit:
                // Only what can be shown is converted; the cut-off adds the `…`.
                out.append("<" + bytes.prefix(limit).map(hexByte).joined(), .data)
            case .value(let scalar):
                out.append(text(of: scalar), HumanReadableFormatter.role(of: scalar))
            }
        }
        return out.finished(complete: pending.isEmpty)
    }

    private enum Step {
        case value(PlistValue)
        case text(String, TerminalStyle.Role)
    }

    /// A scalar's text; empty for containers, which ``render(_:style:limit:)`` writes itself.
    static func text(of value: PlistValue) -> String {
        switch value {
        case .string(let string): return quoted(string)
        case .integer(let integer): return integer.description
        case .real(let real): return real.value.description
        case .bool(let bool): return bool ? "true" : "false"
        case .date(let date): return describe(date)
        case .data(let data): return "<" + data.map(hexByte).joined() + ">"
        case .uid(let uid): return "UID(\(uid))"
        case .null: return "null"
        case .array, .dictionary: return ""
        }
    }

    /// ISO 8601 with the fraction of a second when there is one, so that two dates that differ
    /// by less than a second do not print alike.
    private static func describe(_ date: PlistDate) -> String {
        let seconds = date.secondsSinceReferenceDate
        guard seconds.isFinite else { return "date(\(seconds))" }
        let iso = date.iso8601String
        let fraction = seconds - seconds.rounded(.down)
        guard fraction > 0 else { return iso }
        let digits = fraction.description
        guard digits.hasPrefix("0."), !digits.contains("e"), iso.hasSuffix("Z") else {
            return "\(iso) (\(seconds) s since 2001)"
        }
        return String(iso.dropLast()) + digits.dropFirst() + "Z"
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// Double-quoted with the library's display escapes (``DisplayEscaping``).
    static func quoted(_ text: String) -> String { DisplayEscaping.quoted(text) }
}

/// Painted text that stops growing after a number of visible characters.
private struct LimitedText {
    let limit: Int
    let style: TerminalStyle
    private var text = ""
    private var shown = 0
    private var truncated = false

    init(limit: Int, style: TerminalStyle) {
        self.limit = Swift.max(1, limit)
        self.style = style
    }

    var isFull: Bool { truncated }

    mutating func append(_ piece: String, _ role: TerminalStyle.Role) {
        guard !truncated else { return }
        let room = limit - shown
        // Counting stops one past the room, so a megabyte string costs only the room.
        let length = piece.prefix(room + 1).count
        if length > room {
            text += style.paint(String(piece.prefix(room)), role)
            shown = limit
            truncated = true
        } else {
            text += style.paint(piece, role)
            shown += length
        }
    }

    /// The text, with `…` when something was left out.
    func finished(complete: Bool) -> String {
        truncated || !complete ? text + "…" : text
    }
}
