import Foundation
import TroveCore

/// Writes an encoded tree as an XML plist spelled as Foundation's `PropertyListEncoder` spells
/// it, which differs from CoreFoundation's writer (Trove's ``XMLPlistWriter``) in places:
///
/// * reals are Swift's shortest round-trip spelling (`0.1`, `1e+20`), whole numbers without
///   `.0`, infinities as `+infinity`/`-infinity` and NaN as `nan`; CF prints `%.17g`;
/// * dictionary keys are sorted by Swift's `String` order, which compares canonically
///   equivalent forms (CF compares UTF-16 code units), and keys Swift calls equal are one entry
///   (the first spelling, the last value);
/// * only `<`, `>` and `&` are escaped; `nil` is `<string>$null</string>`;
/// * a NaN date is `-4712-01-01T12:00:00Z`, where Foundation's calendar puts it.
///
/// The layout is otherwise CF's: tab indentation, base64 lines of at most 76 columns counting a
/// tab as 8 (with at most 8 tabs of indentation in front of them).
struct CodableXMLWriter: ~Copyable {
    private var out = OutputBuffer(capacity: 4096)
    /// The indentation of a foreign scalar's place, while it is written.
    private var foreignIndentation = 0
    /// The key lists of the last dictionaries written, with their entries in writing order.
    private var recent: [(keys: [String], entries: [(key: Int, value: Int)])] = []
    private var nextRecent = 0

    private static let header: StaticString = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The document for `top`.
    static func write(_ top: EncodedNode) -> Data {
        var writer = CodableXMLWriter()
        // Reserved address space costs nothing until written, and a buffer grown by doubling
        // copied the document a dozen times onto fresh pages: a node rarely takes 32 bytes.
        writer.out = OutputBuffer(capacity: max(4096, top.treeSize.nodes * 32))
        writer.out.append(header)
        writer.append(top, indentation: 0)
        writer.out.append("</plist>\n")
        return writer.out.data()
    }

    private mutating func indent(_ count: Int) {
        out.append(repeating: 0x09, count: count)
    }

    /// Writes `node` at `indentation` tabs; -1 when the tabs are already written.
    private mutating func append(_ node: EncodedNode, indentation requested: Int) {
        indent(requested)
        let indentation = requested < 0 ? foreignIndentation : requested
        switch node {
        case .string(let string):
            out.append("<string>")
            appendEscaped(string)
            out.append("</string>\n")
        case .null:
            out.append("<string>$null</string>\n")
        case .foreign(let foreign):
            foreignIndentation = indentation
            append(foreign.node, indentation: -1)
        case .signed(let value):
            out.append("<integer>")
            out.appendDecimal(value)
            out.append("</integer>\n")
        case .unsigned(let value):
            out.append("<integer>")
            out.appendDecimal(value, minimumDigits: 1)
            out.append("</integer>\n")
        case .float(let value):
            out.append("<real>")
            out.append(utf8: Self.realSpelling(Double(value)))
            out.append("</real>\n")
        case .double(let value):
            out.append("<real>")
            out.append(utf8: Self.realSpelling(value))
            out.append("</real>\n")
        case .bool(let value):
            out.append(value ? "<true/>\n" : "<false/>\n")
        case .date(let seconds):
            out.append("<date>")
            appendDate(seconds)
            out.append("</date>\n")
        case .data(let data):
            out.append("<data>\n")
            appendBase64(data, indentation: indentation)
            indent(indentation)
            out.append("</data>\n")
        case .array(let array):
            if array.elements.isEmpty {
                out.append("<array/>\n")
                return
            }
            out.append("<array>\n")
            for element in array.elements { append(element, indentation: indentation + 1) }
            indent(indentation)
            out.append("</array>\n")
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                out.append("<dict/>\n")
                return
            }
            out.append("<dict>\n")
            let keys = dictionary.keys
            let entries = sortedEntries(dictionary)
            for entry in entries {
                indent(indentation + 1)
                out.append("<key>")
                appendEscaped(keys[entry.key])
                out.append("</key>\n")
                append(dictionary.values[entry.value], indentation: indentation + 1)
            }
            indent(indentation)
            out.append("</dict>\n")
        }
    }

    /// The entries of `dictionary` to write, by position in its keys and values: merged (see
    /// ``EncodedDictionary/mergedEntries``) and in Swift's `String` order of their keys.
    ///
    /// Records of one type repeat the same keys, and records of a few types alternate, so the
    /// last few key lists and their entries are kept and reused when the keys are the same.
    private mutating func sortedEntries(_ dictionary: EncodedDictionary) -> [(key: Int, value: Int)] {
        let keys = dictionary.keys
        for slot in recent.indices where recent[slot].keys == keys { return recent[slot].entries }
        var entries: [(key: Int, value: Int)]
        if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) {
            // Strictly ascending keys are also distinct.
            entries = keys.indices.map { ($0, $0) }
        } else {
            entries = dictionary.mergedEntries
            entries.sort { keys[$0.key] < keys[$1.key] }
        }
        // A list whose keys merged is not kept: another list of keys Swift calls equal may
        // spell them differently, which changes which value wins. Without merges, equal lists
        // sort alike.
        guard entries.count == keys.count else { return entries }
        let plan = (keys: keys, entries: entries)
        if recent.count < 4 {
            recent.append(plan)
        } else {
            recent[nextRecent] = plan
            nextRecent = (nextRecent + 1) % recent.count
        }
        return entries
    }

    /// The string with `<`, `>` and `&` escaped, copied in runs between them.
    private mutating func appendEscaped(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            guard Self.firstMetacharacter(bytes, from: 0) < bytes.count else {
                // Most strings hold none: one copy.
                out.append(UnsafeRawBufferPointer(bytes))
                return
            }
            var runStart = 0
            var i = Self.firstMetacharacter(bytes, from: 0)
            while i < bytes.count {
                out.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<i])))
                switch bytes[i] {
                case UInt8(ascii: "<"): out.append("&lt;")
                case UInt8(ascii: ">"): out.append("&gt;")
                default: out.append("&amp;")
                }
                runStart = i + 1
                i = Self.firstMetacharacter(bytes, from: runStart)
            }
            out.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart...])))
        }
    }

    /// The position of the first `<`, `>` or `&` at or after `start`, or the count. Eight bytes
    /// are tested at a time: a byte of `word ^ c` is zero where the byte is `c`.
    @inline(__always)
    private static func firstMetacharacter(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let lt = word ^ (ones &* 0x3C), gt = word ^ (ones &* 0x3E), amp = word ^ (ones &* 0x26)
                let zero = ((lt &- ones) & ~lt) | ((gt &- ones) & ~gt) | ((amp &- ones) & ~amp)
                if zero & highs != 0 { break }
                i += 8
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") { return i }
            i += 1
        }
        return bytes.count
    }

    private static let base64Alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Base64 in lines that end once the characters plus 8 columns per tab reach 76.
    private mutating func appendBase64(_ data: Data, indentation: Int) {
        let tabs = min(indentation, 8)
        // Characters per line: the first count at which characters + 8 * tabs reaches 76, where
        // characters grow by 1, 1, 2 for the three bytes of each group.
        var line: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var length = 0
        withUnsafeMutableBytes(of: &line) { line in
        Self.base64Alphabet.withUnsafeBufferPointer { alphabet in
            data.withUnsafeBytes { bytes in
                var previous = 0
                for index in 0..<bytes.count {
                    let current = Int(bytes[index])
                    switch index % 3 {
                    case 0:
                        line[length] = alphabet[(current >> 2) & 0x3F]
                        length += 1
                    case 1:
                        line[length] = alphabet[((previous << 8 | current) >> 4) & 0x3F]
                        length += 1
                    default:
                        line[length] = alphabet[((previous << 8 | current) >> 6) & 0x3F]
                        line[length + 1] = alphabet[current & 0x3F]
                        length += 2
                    }
                    previous = current
                    if length + 8 * tabs >= 76 {
                        flushBase64Line(UnsafeRawBufferPointer(rebasing: line[0..<length]), tabs: tabs)
                        length = 0
                    }
                }
                switch bytes.count % 3 {
                case 1:
                    line[length] = alphabet[(previous << 4) & 0x30]
                    line[length + 1] = UInt8(ascii: "=")
                    line[length + 2] = UInt8(ascii: "=")
                    length += 3
                case 2:
                    line[length] = alphabet[(previous << 2) & 0x3C]
                    line[length + 1] = UInt8(ascii: "=")
                    length += 2
                default:
                    break
                }
            }
        }
        if length > 0 { flushBase64Line(UnsafeRawBufferPointer(rebasing: line[0..<length]), tabs: tabs) }
        }
    }

    private mutating func flushBase64Line(_ line: UnsafeRawBufferPointer, tabs: Int) {
        indent(tabs)
        out.append(line)
        out.append(0x0A)
    }

    /// ISO 8601 in UTC with whole seconds (see ``dateSpelling(_:)``), written in place for the
    /// common years 1583 to 9999.
    private mutating func appendDate(_ seconds: Double) {
        // 1583-01-01 and 10000-01-01, as seconds from 2001.
        guard seconds >= -13_166_064_000, seconds < 252_423_993_600 else {
            out.append(utf8: Self.dateSpelling(seconds))
            return
        }
        let whole = Int64(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let second = whole - days * 86_400
        let z = days + 11_323 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        out.appendDecimal(UInt64(year), minimumDigits: 4)
        out.append(UInt8(ascii: "-"))
        out.appendDecimal(UInt64(month), minimumDigits: 2)
        out.append(UInt8(ascii: "-"))
        out.appendDecimal(UInt64(day), minimumDigits: 2)
        out.append(UInt8(ascii: "T"))
        out.appendDecimal(UInt64(second / 3600), minimumDigits: 2)
        out.append(UInt8(ascii: ":"))
        out.appendDecimal(UInt64(second % 3600 / 60), minimumDigits: 2)
        out.append(UInt8(ascii: ":"))
        out.appendDecimal(UInt64(second % 60), minimumDigits: 2)
        out.append(UInt8(ascii: "Z"))
    }

    /// Swift's description without a trailing `.0`, and signed infinities.
    static func realSpelling(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+infinity" : "-infinity" }
        if value.isNaN { return "nan" }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// ISO 8601 in UTC with whole seconds, rounded down, in the calendar Foundation's encoder
    /// uses: Gregorian from 1582-10-15, Julian before (so 0001-01-01 is two days earlier than in
    /// the proleptic Gregorian calendar), with astronomical years (1 BC is year 0). Dates before
    /// Julian day 0 (-4712-01-01T12:00:00Z), and NaN, are that day; dates after
    /// 506713-02-07T00:00:00Z are that instant, where Foundation's calendar stops.
    static func dateSpelling(_ seconds: Double) -> String {
        let clamped = seconds.isNaN ? earliestDate : min(max(seconds, earliestDate), latestDate)
        if clamped >= gregorianCutover { return PlistDate(secondsSinceReferenceDate: clamped).iso8601String }
        let whole = Int64(clamped.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let second = whole - days * 86_400
        // Julian calendar date of the Julian day number (2001-01-01 is day 2,451,911).
        let c = days + 2_451_911 + 32_082
        let d = (4 * c + 3) / 1461
        let e = c - 1461 * d / 4
        let m = (5 * e + 2) / 153
        let day = e - (153 * m + 2) / 5 + 1
        let month = m + 3 - 12 * (m / 10)
        let year = d - 4800 + m / 10
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return (year < 0 ? "-" : "") + pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(second / 3600, 2) + ":" + pad(second % 3600 / 60, 2) + ":" + pad(second % 60, 2) + "Z"
    }

    /// The instant Foundation's decoder reads from the `<date>` text that Trove's reader read as
    /// `seconds` in the proleptic Gregorian calendar (CoreFoundation's): before 1582-10-15
    /// Foundation reads the same year, month and day in the Julian calendar.
    static func julianReading(ofProlepticGregorian seconds: Double) -> Double {
        let whole = seconds.rounded(.down)
        guard whole > -9e15 else { return seconds }
        let wholeSeconds = Int64(whole)
        let days = wholeSeconds >= 0 ? wholeSeconds / 86_400 : (wholeSeconds - 86_399) / 86_400
        let secondOfDay = wholeSeconds - days * 86_400
        // Gregorian civil date of the day (Hinnant), 2001-01-01 being day 11,323 after 1970.
        let z = days + 11_323 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        // Julian day number of that date in the Julian calendar.
        let a = (14 - month) / 12
        let y = year + 4800 - a
        let m = month + 12 * a - 3
        let julianDay = day + (153 * m + 2) / 5 + 365 * y + y / 4 - 32_083
        return Double((julianDay - 2_451_911) * 86_400 + secondOfDay) + (seconds - whole)
    }

    /// 1582-10-15T00:00:00Z, the first Gregorian day.
    static let gregorianCutover: Double = -13_197_600_000
    /// Julian day 0, -4712-01-01T12:00:00Z.
    static let earliestDate: Double = -211_845_067_200
    /// 506713-02-07T00:00:00Z.
    static let latestDate: Double = {
        // Days from 2001-01-01 to 506713-02-07 in the Gregorian calendar.
        func days(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
            let y = m <= 2 ? y0 - 1 : y0
            let era = (y >= 0 ? y : y - 399) / 400
            let yoe = y - era * 400
            let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1
            return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        }
        return Double(days(506_713, 2, 7) - days(2001, 1, 1)) * 86_400
    }()
}
