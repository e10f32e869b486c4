import CTroveFastPaths

/// Parsing of the text inside `<integer>`, `<real>`, `<date>` and `<data>`, following the rules of
/// CoreFoundation's XML property-list scanner (`CFPropertyList.c`) rather than any stricter
/// grammar, so that every document Apple reads is read the same way here.
enum XMLScalarSyntax {
    /// Why a scalar's text was refused: a code for ``PlistError`` and a sentence for a person.
    struct Failure: Error {
        var code: PlistError.Code
        var message: String
    }

    // MARK: Integers

    /// CF's "very inclusive" whitespace for `<integer>`: ASCII controls and space, DEL through
    /// NBSP's lead byte range, and the UTF-8 spellings of the Unicode spaces CFString knows.
    /// Returns the width of the whitespace sequence at `i`, or 0.
    static func integerWhitespaceWidth(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let c = b[i]
        if c < 0x21 || (c > 0x7E && c < 0xA1) { return 1 }
        if (c == 0xE2 || c == 0xE3) && b.count - i >= 3 {
            let c2 = b[i + 1], c3 = b[i + 2]
            if c == 0xE2 && c2 == 0x80 && ((c3 >= 0x80 && c3 <= 0x8B) || c3 == 0xAF) { return 3 }
            if c == 0xE2 && c2 == 0x81 && c3 == 0x9F { return 3 }
            if c == 0xE3 && c2 == 0x80 && c3 == 0x80 { return 3 }
        }
        return 0
    }

    /// `S*(-|+)?S*[0-9]+` or `S*(-|+)?S*0[xX][0-9a-fA-F]+`; leading zeros are decimal. The range is
    /// `Int64.min ... UInt64.max`.
    static func parseInteger(_ b: UnsafeBufferPointer<UInt8>) throws(Failure) -> PlistInteger {
        var i = 0
        func skipSpace() {
            while i < b.count {
                let w = integerWhitespaceWidth(b, at: i)
                if w == 0 { return }
                i += w
            }
        }
        skipSpace()
        guard i < b.count else { throw Failure(code: .badInteger, message: "empty <integer>") }
        var negative = false
        if b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
            skipSpace()
        }
        var hex = false
        var sawZero = false
        if i < b.count, b[i] == UInt8(ascii: "0") {
            if i + 1 < b.count, b[i + 1] == UInt8(ascii: "x") || b[i + 1] == UInt8(ascii: "X") {
                hex = true
                i += 2
            } else {
                sawZero = true
                i += 1
            }
        }
        while i < b.count, b[i] == UInt8(ascii: "0") {
            sawZero = true
            i += 1
        }
        if i == b.count {
            if sawZero { return PlistInteger(0) }
            throw Failure(code: .badInteger, message: "incomplete <integer>")
        }
        let radix: UInt64 = hex ? 16 : 10
        var value: UInt64 = 0
        while i < b.count {
            let c = b[i]
            let digit: UInt64
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(c - UInt8(ascii: "A") + 10)
            default:
                throw Failure(code: .badInteger, message: "unexpected character \(describe(c)) in <integer>")
            }
            if !hex && digit > 9 {
                throw Failure(code: .badInteger, message: "hex digit in a decimal <integer>")
            }
            let (shifted, o1) = value.multipliedReportingOverflow(by: radix)
            let (next, o2) = shifted.addingReportingOverflow(digit)
            if o1 || o2 {
                throw Failure(code: .badInteger, message: "<integer> is above 18446744073709551615")
            }
            value = next
            if negative && value > UInt64(Int64.max) + 1 {
                throw Failure(code: .badInteger, message: "<integer> is below -9223372036854775808")
            }
            i += 1
        }
        guard let result = PlistInteger(isNegative: negative, magnitude: value) else {
            throw Failure(code: .badInteger, message: "<integer> is below -9223372036854775808")
        }
        return result
    }

    // MARK: Reals

    /// The spellings CF accepts for non-finite reals, compared case-insensitively.
    private static let specialReals: [(String, Double)] = [
        ("nan", .nan), ("+infinity", .infinity), ("-infinity", -.infinity), ("infinity", .infinity),
        ("-inf", -.infinity), ("inf", .infinity), ("+inf", .infinity),
    ]

    /// A decimal floating-point number with optional leading whitespace, or one of the
    /// non-finite spellings.
    static func parseReal(_ b: UnsafeBufferPointer<UInt8>) throws(Failure) -> Double {
        if b.count <= 9 {
            let lowered = String(decoding: b, as: UTF8.self).lowercased()
            for (name, value) in specialReals where name == lowered { return value }
        }
        var i = 0
        while i < b.count, isASCIISpace(b[i]) { i += 1 }
        let start = i
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        var mantissaDigits = 0
        while i < b.count, isDigit(b[i]) {
            i += 1
            mantissaDigits += 1
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isDigit(b[i]) {
                i += 1
                mantissaDigits += 1
            }
        }
        if mantissaDigits > 0, i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < b.count, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            var exponentDigits = 0
            while j < b.count, isDigit(b[j]) {
                j += 1
                exponentDigits += 1
            }
            if exponentDigits > 0 { i = j }
        }
        guard mantissaDigits > 0, i == b.count, let value = DecimalReal.value(of: UnsafeBufferPointer(rebasing: b[start...]))
        else {
            throw Failure(code: .badReal, message: "<real> is not a number")
        }
        return value
    }

    /// ``parseReal(_:)`` for a lossless read, also telling in `isCanonical` whether `b` is the
    /// canonical `%.17g` spelling of the value: true or false when the decimal parser decides it
    /// on the way, nil when the caller must find out.
    ///
    /// Text the decimal parser takes whole is text ``parseReal(_:)`` takes, for the same value:
    /// it holds no whitespace and no name of a non-finite real, and its grammar is the same.
    static func parseReal(_ b: UnsafeBufferPointer<UInt8>, isCanonical: inout Bool?) throws(Failure) -> Double {
        var value = 0.0
        var answer: Int32 = -1
        if let base = b.baseAddress, trove_parse_decimal_g17(base, b.count, &value, &answer) != 0 {
            isCanonical = answer < 0 ? nil : answer == 1
            return value
        }
        isCanonical = nil
        return try parseReal(b)
    }

    // MARK: Dates

    /// Days before the first of each month in a common year; index 13 is the whole year, which
    /// CF's table also holds, so month 13 rolls into January of the next year.
    private static let daysBeforeMonth: [Int64] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]

    /// `-?Y*-MM-DDTHH:MM:SSZ`, nothing before or after. Out-of-range fields roll over the way
    /// `CFGregorianDateGetAbsoluteTime` rolls them (February 30 is March 1 or 2).
    static func parseDate(_ b: UnsafeBufferPointer<UInt8>) throws(Failure) -> PlistDate {
        var unused: Bool?
        return try parseDate(b, isCanonical: &unused, deciding: false)
    }

    /// ``parseDate(_:)`` for a lossless read, also telling in `isCanonical` whether `b` is the
    /// canonical spelling of the date, from the fields the parse read: 20 bytes of in-range
    /// fields name the whole second the date falls in, which is what the writer spells. Nil
    /// for other shapes (a year before 1 or of other than four digits), which the caller
    /// spells to know.
    static func parseDate(_ b: UnsafeBufferPointer<UInt8>, isCanonical: inout Bool?) throws(Failure) -> PlistDate {
        try parseDate(b, isCanonical: &isCanonical, deciding: true)
    }

    @inline(__always)
    private static func parseDate(
        _ b: UnsafeBufferPointer<UInt8>, isCanonical: inout Bool?, deciding: Bool
    ) throws(Failure) -> PlistDate {
        let bad = Failure(code: .badDate, message: "<date> is not in the form YYYY-MM-DDTHH:MM:SSZ")
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        // CF accumulates the year in a 32-bit integer; more digits than that cannot be a date it
        // would agree on, so they are refused rather than wrapped.
        var year: Int64 = 0
        var yearDigits = 0
        while i < b.count, isDigit(b[i]) {
            year = year * 10 + Int64(b[i] - UInt8(ascii: "0"))
            yearDigits += 1
            if yearDigits > 9 { throw bad }
            i += 1
        }
        func expect(_ ch: UInt8) throws(Failure) {
            guard i < b.count, b[i] == ch else { throw bad }
            i += 1
        }
        func twoDigits() throws(Failure) -> Int64 {
            guard i + 1 < b.count, isDigit(b[i]), isDigit(b[i + 1]) else { throw bad }
            defer { i += 2 }
            return Int64(b[i] - 48) * 10 + Int64(b[i + 1] - 48)
        }
        try expect(UInt8(ascii: "-"))
        let month = try twoDigits()
        try expect(UInt8(ascii: "-"))
        let day = try twoDigits()
        try expect(UInt8(ascii: "T"))
        let hour = try twoDigits()
        try expect(UInt8(ascii: ":"))
        let minute = try twoDigits()
        try expect(UInt8(ascii: ":"))
        let second = try twoDigits()
        try expect(UInt8(ascii: "Z"))
        guard i == b.count, month <= 13 else { throw bad }
        if negative { year = -year }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        if deciding {
            if b.count == 20, !negative, yearDigits == 4, year >= 1 {
                let monthDays: Int64 = month == 2 ? (isLeap ? 29 : 28) : (month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31)
                isCanonical = month >= 1 && month <= 12 && day >= 1 && day <= monthDays && hour < 24 && minute < 60 && second < 60
            } else {
                isCanonical = nil
            }
        }
        var days = CivilTime.days(fromCivil: year, 1, 1) - CivilTime.referenceEpochDays
        days += daysBeforeMonth[Int(month)] + (isLeap && month > 2 ? 1 : 0) + day - 1
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return PlistDate(secondsSinceReferenceDate: seconds)
    }

    // MARK: Data

    /// Base64 values of ASCII bytes; -1 for bytes CF skips. `=` decodes as zero and is counted to
    /// decide how many bytes the last quantum yields.
    private static let base64Values: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (v, c) in alphabet.enumerated() { table[Int(c)] = Int8(v) }
        table[Int(UInt8(ascii: "="))] = 0
        return table
    }()

    /// The 64 letters of the alphabet with their values, and -1 for every other byte (`=`,
    /// whitespace and bytes above 0x7F included), for the four-at-a-time fast path and the
    /// lossless read's check of canonical base64.
    static let base64Letters: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for c in 0..<128 where c != Int(UInt8(ascii: "=")) { table[c] = base64Values[c] }
        return table
    }()

    /// Decodes `<data>` text the way CF does: whitespace and other ASCII punctuation are skipped,
    /// an incomplete final quantum is dropped, and any byte above 0x7F is an error.
    ///
    /// Four letters at a quantum boundary, the body of every line, decode in one step; every other
    /// byte goes through the byte-at-a-time rules, which are the definition.
    static func decodeBase64(_ b: UnsafeBufferPointer<UInt8>) throws(Failure) -> [UInt8] {
        var uncounted = UncountedBytes()
        return try decodeBase64(b, counting: &uncounted)
    }

    /// ``decodeBase64(_:)``, also counting in `slowBytes` the bytes that were not read as part of
    /// four letters at a quantum boundary: the lossless read's canonical check learns from it
    /// that every other byte is a letter.
    static func decodeBase64(_ b: UnsafeBufferPointer<UInt8>, slowBytes: inout Int) throws(Failure) -> [UInt8] {
        var counted = CountedBytes()
        defer { slowBytes = counted.count }
        return try decodeBase64(b, counting: &counted)
    }

    /// Counts bytes for the decoder, or not: the plain decoder is a specialization that counts
    /// nothing, so its loop carries no counting work.
    protocol ByteCounter {
        mutating func add()
    }

    struct UncountedBytes: ByteCounter {
        @inline(__always) mutating func add() {}
    }

    struct CountedBytes: ByteCounter {
        var count = 0
        @inline(__always) mutating func add() { count += 1 }
    }

    private static func decodeBase64<Counter: ByteCounter>(
        _ b: UnsafeBufferPointer<UInt8>, counting slow: inout Counter
    ) throws(Failure) -> [UInt8] {
        var failure: Failure?
        // Each counted byte yields at most 3/4 of a byte, so this is enough room.
        let out = [UInt8](unsafeUninitializedCapacity: b.count / 4 * 3 + 3) { out, written in
            var o = 0
            var equalsRun = 0
            var accumulator: UInt32 = 0
            var count = 0
            base64Values.withUnsafeBufferPointer { values in
                base64Letters.withUnsafeBufferPointer { letters in
                    var i = 0
                    let n = b.count
                    while i < n {
                        if count & 3 == 0, i + 4 <= n {
                            let s0 = letters[Int(b[i])], s1 = letters[Int(b[i + 1])]
                            let s2 = letters[Int(b[i + 2])], s3 = letters[Int(b[i + 3])]
                            if s0 | s1 | s2 | s3 >= 0 {
                                let v = UInt32(s0) << 18 | UInt32(s1) << 12 | UInt32(s2) << 6 | UInt32(s3)
                                out[o] = UInt8(truncatingIfNeeded: v >> 16)
                                out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                                out[o + 2] = UInt8(truncatingIfNeeded: v)
                                o += 3
                                i += 4
                                count += 4
                                equalsRun = 0
                                continue
                            }
                        }
                        let c = b[i]
                        i += 1
                        slow.add()
                        if c == UInt8(ascii: "=") {
                            equalsRun += 1
                        } else if !isASCIISpace(c) {
                            equalsRun = 0
                        }
                        guard c < 0x80 else {
                            failure = Failure(
                                code: .badData, message: "<data> holds the non-base64 byte 0x\(String(c, radix: 16, uppercase: true))")
                            return
                        }
                        let v = values[Int(c)]
                        if v < 0 { continue }
                        count += 1
                        accumulator = (accumulator << 6) | UInt32(v)
                        if count & 3 == 0 {
                            out[o] = UInt8(truncatingIfNeeded: accumulator >> 16)
                            o += 1
                            if equalsRun < 2 {
                                out[o] = UInt8(truncatingIfNeeded: accumulator >> 8)
                                o += 1
                            }
                            if equalsRun < 1 {
                                out[o] = UInt8(truncatingIfNeeded: accumulator)
                                o += 1
                            }
                        }
                    }
                }
            }
            written = o
        }
        if let failure { throw failure }
        return out
    }

    // MARK: Helpers

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// XML whitespace: space, tab, line feed, carriage return.
    @inline(__always) static func isASCIISpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    private static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "0x" + String(c, radix: 16, uppercase: true)
    }
}
