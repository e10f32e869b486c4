import Foundation
import Trove

/// Renders a value as `trove print --normalized` does: text that depends on the value alone, for
/// tools that compare text (`git diff` through a `textconv` driver, golden files, reviews).
///
/// The same value always gives the same text, whatever format, key order or layout the file had
/// and whatever the locale: dictionary keys are sorted by UTF-16 code units (as `trove diff`
/// and CoreFoundation's XML writer sort them), nothing is cut short, and nothing is colored.
/// Different values give different text: strings are quoted with escapes (a line break in a
/// string never breaks the line), reals always show a fraction or exponent (`3.0`) and their
/// exact 64-bit value, dates keep any fraction of a second, data is written out in full as hex
/// (32 bytes per line when longer), UIDs are `UID(n)` and null is `null`.
///
/// Array elements carry no index, so that inserting an element shows in a line diff as one added
/// block rather than as a change of every later line.
enum NormalizedFormatter {
    /// Bytes of data per line when data is longer than one line.
    static let dataBytesPerLine = 32

    /// The whole text of one value, ending in a newline.
    static func render(_ value: PlistValue) -> String {
        var out = ""
        // An explicit stack: values built in memory can nest deeper than recursion allows.
        var pending: [Step] = [.value(value, depth: 0)]
        while let step = pending.popLast() {
            switch step {
            case let .value(.dictionary(entries), depth) where !entries.isEmpty:
                out += "{\n"
                pending.append(.close("}", depth: depth))
                for key in entries.keys.sorted(by: PlistKeyOrder.precedes).reversed() {
                    guard let entry = entries[key] else { continue }
                    pending.append(.value(entry, depth: depth + 1))
                    pending.append(.prefix(indentation(depth + 1) + DisplayEscaping.quoted(key) + " => "))
                }
            case let .value(.array(elements), depth) where !elements.isEmpty:
                out += "[\n"
                pending.append(.close("]", depth: depth))
                for element in elements.reversed() {
                    pending.append(.value(element, depth: depth + 1))
                    pending.append(.prefix(indentation(depth + 1)))
                }
            case .value(.dictionary, _):
                out += "{}\n"
            case .value(.array, _):
                out += "[]\n"
            case let .value(.data(bytes), depth) where bytes.count > dataBytesPerLine:
                out += "<\n"
                var start = bytes.startIndex
                while start < bytes.endIndex {
                    let end = bytes.index(start, offsetBy: dataBytesPerLine, limitedBy: bytes.endIndex) ?? bytes.endIndex
                    out += indentation(depth + 1) + hex(bytes[start..<end]) + "\n"
                    start = end
                }
                out += indentation(depth) + ">\n"
            case let .value(scalar, _):
                out += OneLineFormatter.text(of: scalar) + "\n"
            case let .prefix(text):
                out += text
            case let .close(bracket, depth):
                out += indentation(depth) + bracket + "\n"
            }
        }
        return out
    }

    private enum Step {
        case value(PlistValue, depth: Int)
        case prefix(String)
        case close(String, depth: Int)
    }

    private static func indentation(_ depth: Int) -> String {
        String(repeating: "  ", count: depth)
    }

    private static func hex(_ bytes: Data.SubSequence) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return out
    }
}
