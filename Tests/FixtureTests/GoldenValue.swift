import Foundation
import Trove

/// Reads the corpus's typed-JSON golden form (see the corpus README) into ``PlistValue``.
///
/// The form keeps every type apart: `{"integer": "<decimal>"}`, `{"real": "<repr>"}` (or `nan`,
/// `inf`, `-inf`), `{"date": "YYYY-MM-DDTHH:MM:SS[.ffffff]Z"}`, `{"data": "<base64>"}`,
/// `{"uid": N}`, `{"array": [...]}`, `{"dict": [["key", value], ...]}` and so on. The same form is
/// what the Python peer prints, so both goldens and live peer output go through this parser.
enum GoldenValue {
    /// Parses one golden document.
    static func parse(_ data: Data) throws -> PlistValue {
        try value(from: TinyJSON.parse(data))
    }

    /// Converts one parsed typed-JSON node.
    static func value(from node: TinyJSON.Node) throws -> PlistValue {
        guard case .object(let members) = node, members.count == 1, let (tag, payload) = members.first else {
            throw CorpusError.badGolden("expected a one-member typed object, found \(node.brief)")
        }
        switch (tag, payload) {
        case ("string", .string(let s)):
            return .string(s)
        case ("integer", .string(let text)):
            return .integer(try integer(fromDecimal: text))
        case ("real", .string(let text)):
            return .real(PlistReal(try real(fromRepr: text)))
        case ("bool", .bool(let b)):
            return .bool(b)
        case ("date", .string(let text)):
            return .date(PlistDate(secondsSinceReferenceDate: try secondsSinceReferenceDate(iso: text)))
        case ("data", .string(let base64)):
            guard let bytes = Data(base64Encoded: base64) else { throw CorpusError.badGolden("bad base64 in data") }
            return .data(bytes)
        case ("uid", .number(let text)):
            guard let n = UInt64(text) else { throw CorpusError.badGolden("uid \(text) is not in 0...UInt64.max") }
            return .uid(n)
        case ("null", _):
            return .null
        case ("array", .array(let items)):
            return .array(try items.map(value(from:)))
        case ("dict", .array(let entries)):
            var pairs: [(String, PlistValue)] = []
            pairs.reserveCapacity(entries.count)
            for entry in entries {
                guard case .array(let pair) = entry, pair.count == 2, case .string(let key) = pair[0] else {
                    throw CorpusError.badGolden("dict entry is not a [\"key\", value] pair with a string key: \(entry.brief)")
                }
                pairs.append((key, try value(from: pair[1])))
            }
            // Duplicate keys: the last value wins, in the position of the first (as plistlib and CF do).
            return .dictionary(PlistDictionary(pairs))
        default:
            throw CorpusError.badGolden("unknown typed value \(tag): \(payload.brief)")
        }
    }

    /// A decimal integer of any size, which must lie in `Int64.min ... UInt64.max`.
    static func integer(fromDecimal text: String) throws -> PlistInteger {
        var digits = Substring(text)
        let isNegative = digits.first == "-"
        if isNegative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw CorpusError.badGolden("integer \(text) is not decimal")
        }
        guard let magnitude = UInt64(digits), let value = PlistInteger(isNegative: isNegative, magnitude: magnitude)
        else { throw CorpusError.badGolden("integer \(text) is outside Int64.min...UInt64.max") }
        return value
    }

    /// Python's `repr(float)` text, or the golden's `nan` / `inf` / `-inf`.
    static func real(fromRepr text: String) throws -> Double {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default:
            guard let value = Double(text) else { throw CorpusError.badGolden("real \(text) is not a number") }
            return value
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` (UTC) as seconds since 2001-01-01T00:00:00Z. Whole seconds
    /// are exact; the fraction is added as microseconds, the precision plistlib keeps. The year may
    /// have fewer than four digits, as Python's `strftime` prints years below 1000 on Linux.
    static func secondsSinceReferenceDate(iso text: String) throws -> Double {
        let bad = CorpusError.badGolden("date \(text) is not YYYY-MM-DDTHH:MM:SS[.ffffff]Z")
        guard text.hasSuffix("Z") else { throw bad }
        let parts = text.dropLast().split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw bad }
        let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let timeAndFraction = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard ymd.count == 3, (1...2).contains(timeAndFraction.count) else { throw bad }
        let hms = timeAndFraction[0].split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3 else { throw bad }
        func number(_ digits: Substring, maxCount: Int) throws -> Int64 {
            guard !digits.isEmpty, digits.count <= maxCount, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let n = Int64(digits)
            else { throw bad }
            return n
        }
        let year = try number(ymd[0], maxCount: 4), month = try number(ymd[1], maxCount: 2)
        let day = try number(ymd[2], maxCount: 2)
        let hour = try number(hms[0], maxCount: 2), minute = try number(hms[1], maxCount: 2)
        let second = try number(hms[2], maxCount: 2)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { throw bad }
        var microseconds: Int64 = 0
        if timeAndFraction.count == 2 {
            let fraction = timeAndFraction[1]
            microseconds = try number(fraction, maxCount: 6)
            for _ in fraction.count..<6 { microseconds *= 10 }
        }
        let days = daysSince1970(year: year, month: month, day: day) - 11_323  // 1970 -> 2001
        let whole = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Double(whole) + Double(microseconds) / 1_000_000
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the era-based civil-day count).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Turns the one-entry `{"CF$UID": N}` dictionaries of XML keyed archives into UIDs, as
    /// CoreFoundation's XML reader does; plistlib (and so every golden) leaves them as dictionaries.
    ///
    /// CF reads the number as a 32-bit integer, so only the low 32 bits survive (the toolchain's
    /// Foundation reads `1099511627775` as UID `4294967295` and `-1` as `4294967295`), and an
    /// integral `<real>` counts as a number too.
    static func normalisingXMLUIDs(_ value: PlistValue) -> PlistValue {
        switch value {
        case .array(let items):
            return .array(items.map(normalisingXMLUIDs))
        case .dictionary(let dict):
            if dict.count == 1, let number = dict["CF$UID"] {
                switch number {
                case .integer(let n):
                    return .uid(UInt64(UInt32(truncatingIfNeeded: n.bitPattern)))
                case .real(let r) where r.value == r.value.rounded(.towardZero) && abs(r.value) < 2_147_483_648:
                    return .uid(UInt64(UInt32(bitPattern: Int32(r.value))))
                default:
                    break
                }
            }
            var copy = PlistDictionary(minimumCapacity: dict.count)
            for (key, item) in dict { copy[key] = normalisingXMLUIDs(item) }
            return .dictionary(copy)
        default:
            return value
        }
    }
}

/// A small JSON parser that keeps number text as written and object members in order, so that
/// nothing is lost between the golden file and ``GoldenValue``.
enum TinyJSON {
    indirect enum Node: Sendable {
        case object([(String, Node)])
        case array([Node])
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        /// A short rendering for error messages.
        var brief: String {
            switch self {
            case .object(let m): return "{\(m.prefix(3).map { "\"\($0.0)\": \($0.1.brief)" }.joined(separator: ", "))\(m.count > 3 ? ", ..." : "")}"
            case .array(let a): return "[\(a.count) items]"
            case .string(let s): return "\"\(s.prefix(40))\""
            case .number(let n): return n
            case .bool(let b): return "\(b)"
            case .null: return "null"
            }
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "JSON error at byte \(offset): \(message)" }
    }

    static func parse(_ data: Data) throws -> Node {
        var parser = Parser(bytes: [UInt8](data))
        let node = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw ParseError(offset: parser.index, message: "trailing characters") }
        return node
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ message: String) -> ParseError { ParseError(offset: index, message: message) }

        mutating func expect(_ byte: UInt8) throws {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
            index += 1
        }

        mutating func parseValue(depth: Int) throws -> Node {
            // Goldens nest as deep as their plists (300 levels in the corpus); this bounds hostile input.
            guard depth < 4_096 else { throw fail("nesting too deep") }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, Node)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipWhitespace()
                    let key = try parseString()
                    try expect(UInt8(ascii: ":"))
                    members.append((key, try parseValue(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated object") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [Node] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                }
                while true {
                    items.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated array") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try parseString())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default:
                let start = index
                while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw fail("unexpected character") }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        mutating func literal(_ word: String, _ node: Node) throws -> Node {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else { throw fail("bad literal") }
            index += w.count
            return node
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
            else { throw fail("bad \\u escape") }
            index += 4
            return v
        }

        mutating func parseString() throws -> String {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string") }
            index += 1
            var utf8: [UInt8] = []
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let b = bytes[index]
                index += 1
                if b == UInt8(ascii: "\"") { break }
                if b != UInt8(ascii: "\\") {
                    utf8.append(b)
                    continue
                }
                guard index < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(e)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("lone high surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("bad low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let s = Unicode.Scalar(scalar) else { throw fail("lone surrogate") }
                    utf8.append(contentsOf: Array(String(Character(s)).utf8))
                default:
                    throw fail("bad escape")
                }
            }
            guard let s = String(bytes: utf8, encoding: .utf8) else { throw fail("invalid UTF-8") }
            return s
        }
    }
}
