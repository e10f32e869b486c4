import Foundation

extension OpenStepParser {
    /// Reads a value that starts with `<`: hex data, or (when enabled) a GNUstep typed value
    /// `<*T...>` or base64 data `<[...]>`. `pos` is at the `<`.
    mutating func parseAngleBracketValue() throws(PlistError) -> PlistValue {
        let openedAt = pos
        pos += 1
        if allowsGNUstep, pos < text.count {
            if text[pos] == UInt8(ascii: "*") { return try parseGNUstepTypedValue(openedAt: openedAt) }
            if text[pos] == UInt8(ascii: "[") { return try parseGNUstepBase64(openedAt: openedAt) }
        }
        var bytes: [UInt8] = []
        while pos < text.count {
            let c = text[pos]
            if c == UInt8(ascii: ">") {
                pos += 1
                return .data(Data(bytes))
            }
            if let high = Self.hexValue(c) {
                // A byte's two digits must be adjacent; whitespace may only separate bytes.
                guard pos + 1 < text.count, let low = Self.hexValue(text[pos + 1]) else {
                    throw fail(.badData, at: pos, "data has an odd hex digit: '\(Character(Unicode.Scalar(c)))' is not followed by a second digit")
                }
                bytes.append(high << 4 | low)
                pos += 2
            } else if c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D {
                pos += 1
            } else if c == 0xE2 && isLineOrParagraphSeparator(at: pos) {
                pos += 3
            } else {
                var message = "\(describe(at: pos)) is not a hex digit in data"
                if c == UInt8(ascii: "*") || c == UInt8(ascii: "[") {
                    message += " (GNUstep typed values are not OpenStep; read them with the gnustepExtensions option)"
                }
                throw fail(.badData, at: pos, message)
            }
        }
        throw fail(.unexpectedEnd, at: pos, "the document ended inside the data opened at \(location(openedAt)); expected '>'")
    }

    /// `<*I12>`, `<*R1.5>`, `<*BY>`, `<*BN>`, `<*D2024-01-01 12:00:00 +0000>`; `pos` is at `*`.
    private mutating func parseGNUstepTypedValue(openedAt: Int) throws(PlistError) -> PlistValue {
        pos += 1
        guard pos < text.count else {
            throw fail(.unexpectedEnd, at: pos, "the document ended inside the GNUstep value opened at \(location(openedAt))")
        }
        let type = text[pos]
        pos += 1
        let bodyStart = pos
        while pos < text.count, text[pos] != UInt8(ascii: ">") { pos += 1 }
        guard pos < text.count else {
            throw fail(.unexpectedEnd, at: pos, "the document ended inside the GNUstep value opened at \(location(openedAt)); expected '>'")
        }
        let body = UnsafeBufferPointer(rebasing: text[bodyStart..<pos])
        let bodyText = String(decoding: body, as: UTF8.self)
        pos += 1
        switch type {
        case UInt8(ascii: "I"):
            guard let integer = Self.parseDecimalInteger(body) else {
                throw fail(.badInteger, at: bodyStart, "GNUstep integer <*I\(bodyText)> is not a decimal integer in Int64.min ... UInt64.max")
            }
            return .integer(integer)
        case UInt8(ascii: "R"):
            guard !bodyText.isEmpty, let real = Double(bodyText) else {
                throw fail(.badReal, at: bodyStart, "GNUstep real <*R\(bodyText)> is not a number")
            }
            return .real(PlistReal(real))
        case UInt8(ascii: "B"):
            switch bodyText {
            case "Y": return .bool(true)
            case "N": return .bool(false)
            default: throw fail(.syntax, at: bodyStart, "GNUstep boolean must be <*BY> or <*BN>, not <*B\(bodyText)>")
            }
        case UInt8(ascii: "D"):
            guard let date = OpenStepDates.parseGNUstep(bodyText) else {
                throw fail(.badDate, at: bodyStart, "GNUstep date <*D\(bodyText)> is not in the form YYYY-MM-DD HH:MM:SS +ZZZZ")
            }
            return .date(date)
        default:
            throw fail(.syntax, at: bodyStart - 1, "unknown GNUstep value type \(describe(at: bodyStart - 1)); expected I, R, B or D")
        }
    }

    /// `<[base64]>`; `pos` is at `[`.
    private mutating func parseGNUstepBase64(openedAt: Int) throws(PlistError) -> PlistValue {
        pos += 1
        let bodyStart = pos
        while pos < text.count, text[pos] != UInt8(ascii: "]") { pos += 1 }
        guard pos + 1 < text.count, text[pos + 1] == UInt8(ascii: ">") else {
            throw fail(.unexpectedEnd, at: pos, "the GNUstep base64 data opened at \(location(openedAt)) is not closed by ']>'")
        }
        let compact = text[bodyStart..<pos].filter { !(0x09...0x0D).contains($0) && $0 != 0x20 }
        pos += 2
        guard let data = Data(base64Encoded: Data(compact)) else {
            throw fail(.badData, at: bodyStart, "GNUstep data <[...]> is not valid base64")
        }
        return .data(data)
    }

    /// An optionally signed decimal integer in `Int64.min ... UInt64.max`, or nil.
    static func parseDecimalInteger(_ digits: UnsafeBufferPointer<UInt8>) -> PlistInteger? {
        var i = 0
        var negative = false
        if i < digits.count, digits[i] == UInt8(ascii: "-") || digits[i] == UInt8(ascii: "+") {
            negative = digits[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < digits.count else { return nil }
        var magnitude: UInt64 = 0
        while i < digits.count {
            let d = digits[i]
            guard d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { return nil }
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(d - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
            i += 1
        }
        return PlistInteger(isNegative: negative, magnitude: magnitude)
    }
}

/// The `YYYY-MM-DD HH:MM:SS ±HHMM` date form that GNUstep typed dates and `NSDate`'s description use.
enum OpenStepDates {
    /// Parses `2024-01-01 12:00:00 +0000`; nil when malformed or out of range.
    static func parseGNUstep(_ text: String) -> PlistDate? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { return nil }
        let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let hms = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard ymd.count == 3, hms.count == 3, ymd.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
            hms.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
            ymd[0].count >= 4, ymd[0].count <= 9, ymd[1].count == 2, ymd[2].count == 2,
            let year = Int64(ymd[0]), let month = Int(ymd[1]), let day = Int(ymd[2]),
            let hour = Int(hms[0]), let minute = Int(hms[1]), let second = Int(hms[2]),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let zone = Array(parts[2].utf8)
        guard zone.count == 5, zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-"),
            zone[1...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let zoneHours = Int(zone[1] - 48) * 10 + Int(zone[2] - 48)
        let zoneMinutes = Int(zone[3] - 48) * 10 + Int(zone[4] - 48)
        guard zoneMinutes < 60 else { return nil }
        let offset = (zoneHours * 3600 + zoneMinutes * 60) * (zone[0] == UInt8(ascii: "-") ? -1 : 1)
        // Reject days a month does not have (2023-02-30) by checking the calendar round trip.
        let days = CivilTime.days(fromCivil: year, month, day)
        let (y, m, d) = CivilTime.civil(fromDays: days)
        guard y == year, m == month, d == day else { return nil }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return PlistDate(secondsSinceReferenceDate: civil.secondsSinceReferenceDate - Double(offset))
    }

    /// `2024-01-01 12:00:00 +0000`, in UTC, whole seconds (the fraction is dropped toward the past).
    static func gnustepString(_ date: PlistDate) -> String {
        let civil = CivilTime(secondsSinceReferenceDate: date.secondsSinceReferenceDate)
        // From `YYYY-MM-DDTHH:MM:SSZ`: the one `T` becomes a space and the `Z` an offset. (Through
        // Foundation's `replacingOccurrences`, this was two fifths of writing a date-heavy file.)
        var text = Array(civil.iso8601.utf8.dropLast())
        if let t = text.lastIndex(of: UInt8(ascii: "T")) { text[t] = UInt8(ascii: " ") }
        text.append(contentsOf: " +0000".utf8)
        return String(decoding: text, as: UTF8.self)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
