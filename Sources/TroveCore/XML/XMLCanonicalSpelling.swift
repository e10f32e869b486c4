import Foundation

/// The exact bytes CoreFoundation's XML writer (and so `plutil -convert xml1`) produces for each
/// piece of a property list. The writer emits them; the layout scanner compares a document's
/// bytes against them to decide what is worth a note.
enum XMLCanonicalSpelling {
    static let header = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    static let footer = Array("</plist>\n".utf8)
    /// Everything before the root value's `<`.
    static let prolog = header
    /// Everything after the root value's final `>`.
    static let epilog = Array("\n</plist>\n".utf8)

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
    static func append(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inline(__always)
    static func appendTabs(_ n: Int, to out: inout [UInt8]) {
        for _ in 0..<n { out.append(0x09) }
    }

    /// `&`, `<` and `>` become entities; everything else, quotes and control characters
    /// included, is written as it is.
    static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { u in
            var start = 0
            for i in 0..<u.count {
                let c = u[i]
                guard c == UInt8(ascii: "&") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i]))
                switch c {
                case UInt8(ascii: "&"): append("&amp;", to: &out)
                case UInt8(ascii: "<"): append("&lt;", to: &out)
                default: append("&gt;", to: &out)
                }
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<u.count]))
        }
    }

    static func appendInteger(_ n: PlistInteger, to out: inout [UInt8]) {
        if n.isNegative { out.append(UInt8(ascii: "-")) }
        var digits: (UInt64, [UInt8]) = (n.magnitude, [])
        if digits.0 == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        while digits.0 > 0 {
            digits.1.append(UInt8(ascii: "0") + UInt8(digits.0 % 10))
            digits.0 /= 10
        }
        out.append(contentsOf: digits.1.reversed())
    }

    /// `nan`, `+infinity`, `-infinity`, `0.0` for either zero, otherwise C's `%.17g`.
    static func appendReal(_ d: Double, to out: inout [UInt8]) {
        if d.isNaN { return append("nan", to: &out) }
        if d.isInfinite { return d > 0 ? append("+infinity", to: &out) : append("-infinity", to: &out) }
        if d == 0 { return append("0.0", to: &out) }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = buffer.withUnsafeMutableBufferPointer { p in
            withVaList([d]) { vsnprintf(p.baseAddress, 40, "%.17g", $0) }
        }
        for k in 0..<max(0, min(Int(n), 39)) {
            let c = UInt8(bitPattern: buffer[k])
            // A locale with a decimal comma must not leak into the file.
            out.append(c == UInt8(ascii: ",") ? UInt8(ascii: ".") : c)
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with the year as C's `%04d` prints it (`-001` for year -1),
    /// seconds rounded toward negative infinity.
    static func appendDate(_ date: PlistDate, to out: inout [UInt8]) {
        let c = CivilTime(secondsSinceReferenceDate: date.secondsSinceReferenceDate)
        func pad(_ v: Int64, _ width: Int) {
            let digits = Array(String(v).utf8)
            for _ in digits.count..<max(width, digits.count) { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: digits)
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

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The content of `<data>` at `depth`: a newline, then base64 lines of `76 - 8 * indent`
    /// characters (indent capped at 8 tabs, as CF counts a tab as 8 columns), each indented and
    /// ended by a newline, then the indentation of the closing tag.
    static func appendDataContent(_ data: Data, depth: Int, to out: inout [UInt8]) {
        out.append(0x0A)
        let indent = min(depth, 8)
        let lineLength = 76 - 8 * indent
        var line: [UInt8] = []
        line.reserveCapacity(lineLength)
        func flush() {
            appendTabs(indent, to: &out)
            out.append(contentsOf: line)
            out.append(0x0A)
            line.removeAll(keepingCapacity: true)
        }
        let alphabet = base64Alphabet  // one load of the global, not one per group
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var i = 0
            let n = bytes.count
            while i < n {
                let b0 = UInt32(bytes[i])
                let b1 = i + 1 < n ? UInt32(bytes[i + 1]) : 0
                let b2 = i + 2 < n ? UInt32(bytes[i + 2]) : 0
                let group = b0 << 16 | b1 << 8 | b2
                line.append(alphabet[Int(group >> 18 & 0x3F)])
                line.append(alphabet[Int(group >> 12 & 0x3F)])
                line.append(i + 1 < n ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
                line.append(i + 2 < n ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
                if line.count >= lineLength { flush() }
                i += 3
            }
        }
        if !line.isEmpty { flush() }
        appendTabs(depth, to: &out)
    }

    /// The content of the `CF$UID` dictionary CF writes for a UID at `depth`.
    static func appendUIDContent(_ uid: UInt64, depth: Int, to out: inout [UInt8]) {
        out.append(0x0A)
        appendTabs(depth + 1, to: &out)
        append("<key>CF$UID</key>\n", to: &out)
        appendTabs(depth + 1, to: &out)
        append("<integer>", to: &out)
        appendInteger(PlistInteger(uid), to: &out)
        append("</integer>\n", to: &out)
        appendTabs(depth, to: &out)
    }

    /// The text between a scalar's tags, or nil for values written as an empty-element tag.
    static func appendScalarContent(_ value: PlistValue, depth: Int, to out: inout [UInt8]) {
        switch value {
        case .string(let s): appendEscaped(s, to: &out)
        case .integer(let n): appendInteger(n, to: &out)
        case .real(let r): appendReal(r.value, to: &out)
        case .date(let d): appendDate(d, to: &out)
        case .data(let d): appendDataContent(d, depth: depth, to: &out)
        case .uid(let u): appendUIDContent(u, depth: depth, to: &out)
        case .bool, .array, .dictionary, .null: break
        }
    }
}
