import CTroveFastPaths
import Foundation

/// The exact bytes CoreFoundation's XML writer (and so `plutil -convert xml1`) produces for each
/// piece of a property list. The writer emits them; the layout scanner compares a document's
/// bytes against them to decide what is worth a note.
enum XMLCanonicalSpelling {
    /// Everything before the root value's `<`, as the canonical writer appends it.
    static var prologText: StaticString {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    }
    static let header = Array(UnsafeBufferPointer(start: prologText.utf8Start, count: prologText.utf8CodeUnitCount))
    static let footer = Array("</plist>\n".utf8)
    /// Everything before the root value's `<`.
    static let prolog = header
    /// Everything after the root value's final `>`.
    static let epilog = Array("\n</plist>\n".utf8)

    /// A newline and 64 tabs: the break before an element at depth d is its first d + 1 bytes.
    static var breakText: StaticString { "\n\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t" }

    /// The element name a value is written with.
    static func elementName(_ value: PlistValue) -> StaticString {
        switch value {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool(let b): return b ? "true" : "false"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary, .uid: return "dict"
        case .null: return "null"
        }
    }

    @inline(__always)
    static func append(_ s: StaticString, to out: inout ByteBuffer) {
        out.append(s)
    }

    @inline(__always)
    static func appendTabs(_ n: Int, to out: inout ByteBuffer) {
        out.append(repeating: 0x09, count: n)
    }

    /// The start and end tags of a scalar, whole, so that canonical writing appends each in one
    /// step; a key is spelled `<key>`. Booleans are one empty-element tag and have no end tag.
    static func scalarTags(_ value: PlistValue, isKey: Bool) -> (start: StaticString, end: StaticString) {
        if isKey { return ("<key>", "</key>") }
        switch value {
        case .string: return ("<string>", "</string>")
        case .integer: return ("<integer>", "</integer>")
        case .real: return ("<real>", "</real>")
        case .bool(let b): return (b ? "<true/>" : "<false/>", "")
        case .date: return ("<date>", "</date>")
        case .data: return ("<data>", "</data>")
        case .uid, .dictionary: return ("<dict>", "</dict>")
        case .array: return ("<array>", "</array>")
        case .null: return ("<null>", "</null>")
        }
    }

    /// `&`, `<` and `>` become entities; everything else, quotes and control characters
    /// included, is written as it is.
    static func appendEscaped(_ s: String, to out: inout ByteBuffer) {
        var s = s
        s.withUTF8 { appendEscaped(utf8: $0, to: &out) }
    }

    /// ``appendEscaped(_:to:)`` for text already in UTF-8.
    static func appendEscaped(utf8 u: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer) {
        guard let base = u.baseAddress else { return }
        var start = 0
        while start < u.count {
            // The run up to the next character to escape, found 16 bytes a step.
            let i = start + trove_xml_first_escaped(base + start, u.count - start)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i]))
            guard i < u.count else { return }
            switch u[i] {
            case UInt8(ascii: "&"): append("&amp;", to: &out)
            case UInt8(ascii: "<"): append("&lt;", to: &out)
            default: append("&gt;", to: &out)
            }
            start = i + 1
        }
    }

    /// `nan`, `+infinity`, `-infinity`, `0.0` for either zero, otherwise C's `%.17g`.
    static func appendReal(_ d: Double, to out: inout ByteBuffer) {
        if d.isNaN { return append("nan", to: &out) }
        if d.isInfinite { return d > 0 ? append("+infinity", to: &out) : append("-infinity", to: &out) }
        if d == 0 { return append("0.0", to: &out) }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { buffer in
            let n = trove_format_real_g17(buffer.baseAddress, 40, d)
            for k in 0..<max(0, min(Int(n), 39)) {
                let c = UInt8(bitPattern: buffer[k])
                // A locale with a decimal comma must not leak into the file.
                out.append(c == UInt8(ascii: ",") ? UInt8(ascii: ".") : c)
            }
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with the year as C's `%04d` prints it (`-001` for year -1),
    /// seconds rounded toward negative infinity.
    static func appendDate(_ date: PlistDate, to out: inout ByteBuffer) {
        let c = CivilTime(secondsSinceReferenceDate: date.secondsSinceReferenceDate)
        /// `v` (not negative) in decimal, zero-padded to `width` digits: written straight into
        /// `out`, since a `String` per field made dates the costliest scalar to write.
        func pad(_ v: Int64, _ width: Int) {
            var digits = 1
            var limit: Int64 = 10
            while digits < 19 && v >= limit {
                digits += 1
                limit &*= 10
            }
            out.append(repeating: UInt8(ascii: "0"), count: max(width, digits) - digits)
            let end = out.count + digits
            out.append(repeating: UInt8(ascii: "0"), count: digits)
            var rest = v
            var k = end
            while k > end - digits {
                k -= 1
                out[k] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
        }
        if c.year < 0 {
            out.append(UInt8(ascii: "-"))
            pad(-c.year, 3)
        } else {
            pad(c.year, 4)
        }
        out.append(UInt8(ascii: "-"))
        pad(Int64(c.month), 2)
        out.append(UInt8(ascii: "-"))
        pad(Int64(c.day), 2)
        out.append(UInt8(ascii: "T"))
        pad(Int64(c.hour), 2)
        out.append(UInt8(ascii: ":"))
        pad(Int64(c.minute), 2)
        out.append(UInt8(ascii: ":"))
        pad(Int64(c.second), 2)
        out.append(UInt8(ascii: "Z"))
    }

    /// The content of `<data>` at `depth`: a newline, then base64 lines of `76 - 8 * indent`
    /// characters (indent capped at 8 tabs, as CF counts a tab as 8 columns), each indented and
    /// ended by a newline, then the indentation of the closing tag.
    static func appendDataContent(_ data: Data, depth: Int, to out: inout ByteBuffer) {
        out.append(0x0A)
        let indent = min(depth, 8)
        // 76 - 8k is a multiple of 4, so every full line holds exactly lineLength / 4 groups.
        let lineLength = 76 - 8 * indent
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let n = bytes.count
            guard n > 0, let source = bytes.baseAddress else { return }
            let encodedCount = (n / 3 + (n % 3 == 0 ? 0 : 1)) * 4
            let lineCount = (encodedCount + lineLength - 1) / lineLength
            let total = encodedCount + lineCount * (indent + 1)
            out.appendUninitialized(count: total) { o in
                let written = trove_base64_lines(
                    o.baseAddress, source.assumingMemoryBound(to: UInt8.self), n, lineLength, indent)
                precondition(written == total, "base64 of \(n) bytes took \(written) bytes, not \(total)")
            }
        }
        appendTabs(depth, to: &out)
    }

    /// The content of the `CF$UID` dictionary CF writes for a UID at `depth`.
    static func appendUIDContent(_ uid: UInt64, depth: Int, to out: inout ByteBuffer) {
        out.append(0x0A)
        appendTabs(depth + 1, to: &out)
        append("<key>CF$UID</key>\n", to: &out)
        appendTabs(depth + 1, to: &out)
        append("<integer>", to: &out)
        out.appendDecimal(PlistInteger(uid))
        append("</integer>\n", to: &out)
        appendTabs(depth, to: &out)
    }

    /// The text between a scalar's tags, or nil for values written as an empty-element tag.
    static func appendScalarContent(_ value: PlistValue, depth: Int, to out: inout ByteBuffer) {
        switch value {
        case .string(let s): appendEscaped(s, to: &out)
        case .integer(let n): out.appendDecimal(n)
        case .real(let r): appendReal(r.value, to: &out)
        case .date(let d): appendDate(d, to: &out)
        case .data(let d): appendDataContent(d, depth: depth, to: &out)
        case .uid(let u): appendUIDContent(u, depth: depth, to: &out)
        case .bool, .array, .dictionary, .null: break
        }
    }
}

// MARK: - Deciding canonical content without spelling it

extension XMLCanonicalSpelling {
    /// Whether `content` is exactly what ``ByteBuffer/appendDecimal(_:)`` writes for `n`; nil when the
    /// answer needs the spelling (more than 18 digits). The canonical spelling is an optional
    /// `-` and digits without a leading zero, so any other byte, a leading zero or `-0` already
    /// decides it; otherwise the digits' value decides.
    static func isCanonicalInteger(_ content: UnsafeBufferPointer<UInt8>, _ n: PlistInteger) -> Bool? {
        let negative = content.first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        let digits = content.count - start
        guard digits >= 1, digits <= 18 else { return digits < 1 ? false : nil }
        if content[start] == UInt8(ascii: "0") { return digits == 1 && !negative && n.magnitude == 0 }
        var magnitude: UInt64 = 0
        for i in start..<content.count {
            let d = content[i] &- UInt8(ascii: "0")
            guard d < 10 else { return false }
            magnitude = magnitude * 10 + UInt64(d)
        }
        return n.isNegative == negative && n.magnitude == magnitude
    }

    /// Whether `content` is exactly what ``appendDate(_:to:)`` writes for `date`; nil when the
    /// answer needs the spelling (a year outside 1...9999, content other than 20 bytes, or a
    /// date that is not a finite number). The canonical spelling has in-range fields and names
    /// the whole second the date falls in, so a 20-byte `YYYY-MM-DDTHH:MM:SSZ` decides it by its
    /// fields' value.
    static func isCanonicalDate(_ content: UnsafeBufferPointer<UInt8>, _ date: PlistDate) -> Bool? {
        let seconds = date.secondsSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 4e11 else { return nil }
        // A negative year is spelled `-` and three digits (C's `%04d`), also 20 bytes.
        guard content.count == 20, content[0] != UInt8(ascii: "-") else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? {
            var v = 0
            for i in from..<(from + length) {
                let d = content[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        guard content[4] == UInt8(ascii: "-"), content[7] == UInt8(ascii: "-"), content[10] == UInt8(ascii: "T"),
            content[13] == UInt8(ascii: ":"), content[16] == UInt8(ascii: ":"), content[19] == UInt8(ascii: "Z"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return false }
        guard year >= 1 else { return nil }
        guard (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = month == 2 ? (isLeap ? 29 : 28) : (month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31)
        guard day >= 1, day <= monthDays else { return false }
        let civil = CivilTime(year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: second)
        return seconds.rounded(.down) == civil.secondsSinceReferenceDate
    }
}
