/// The Unicode encodings a text property list can arrive in, and how many bytes of byte-order
/// mark precede the text.
enum UnicodeTextEncoding: Equatable, Sendable {
    case utf8(skip: Int)
    case utf16(bigEndian: Bool, skip: Int)
    case utf32(bigEndian: Bool, skip: Int)

    /// True when the text starts with a byte-order mark, which ``encode(_:)`` writes back.
    var hasByteOrderMark: Bool {
        switch self {
        case .utf8(let skip), .utf16(_, let skip), .utf32(_, let skip): return skip > 0
        }
    }

    /// The encoding named by a byte-order mark, or UTF-8 when there is none. CoreFoundation decides
    /// old-style text this way: text without a mark is never sniffed.
    static func fromByteOrderMark(_ b: UnsafeRawBufferPointer) -> UnicodeTextEncoding {
        func at(_ i: Int) -> UInt8? { i < b.count ? b[i] : nil }
        if at(0) == 0x00, at(1) == 0x00, at(2) == 0xFE, at(3) == 0xFF { return .utf32(bigEndian: true, skip: 4) }
        if at(0) == 0xFF, at(1) == 0xFE, at(2) == 0x00, at(3) == 0x00 { return .utf32(bigEndian: false, skip: 4) }
        if at(0) == 0xFE, at(1) == 0xFF { return .utf16(bigEndian: true, skip: 2) }
        if at(0) == 0xFF, at(1) == 0xFE { return .utf16(bigEndian: false, skip: 2) }
        if at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { return .utf8(skip: 3) }
        return .utf8(skip: 0)
    }

    /// The encoding named by a byte-order mark or, without one, by the pattern of zero bytes among
    /// the first four: text that starts with an ASCII character shows which units are wide. JSON is
    /// detected this way (RFC 4627 §3, and Foundation's `JSONSerialization`).
    static func sniffed(_ b: UnsafeRawBufferPointer) -> UnicodeTextEncoding {
        let marked = fromByteOrderMark(b)
        if marked != .utf8(skip: 0) { return marked }
        if b.count >= 4 {
            if b[0] == 0, b[1] == 0, b[2] == 0, b[3] != 0 { return .utf32(bigEndian: true, skip: 0) }
            if b[0] != 0, b[1] == 0, b[2] == 0, b[3] == 0 { return .utf32(bigEndian: false, skip: 0) }
        }
        if b.count >= 2 {
            if b[0] == 0, b[1] != 0 { return .utf16(bigEndian: true, skip: 0) }
            if b[0] != 0, b[1] == 0 { return .utf16(bigEndian: false, skip: 0) }
        }
        return .utf8(skip: 0)
    }
}

extension UnicodeTextEncoding {
    /// Valid UTF-8 `text` in this encoding, after the byte-order mark the text was read with: the
    /// way back from ``UnicodeTranscoder/utf8Text(_:encoding:format:)``.
    func encode(_ text: [UInt8]) -> [UInt8] {
        switch self {
        case .utf8(let skip):
            return skip == 0 ? text : [0xEF, 0xBB, 0xBF] + text
        case .utf16(let bigEndian, let skip):
            var output: [UInt8] = []
            output.reserveCapacity(text.count * 2 + skip)
            func append(_ unit: UInt16) {
                let high = UInt8(truncatingIfNeeded: unit >> 8), low = UInt8(truncatingIfNeeded: unit)
                output.append(bigEndian ? high : low)
                output.append(bigEndian ? low : high)
            }
            if skip > 0 { append(0xFEFF) }
            for unit in String(decoding: text, as: UTF8.self).utf16 { append(unit) }
            return output
        case .utf32(let bigEndian, let skip):
            var output: [UInt8] = []
            output.reserveCapacity(text.count * 4 + skip)
            func append(_ value: UInt32) {
                let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
                output.append(contentsOf: bigEndian ? bytes : bytes.reversed())
            }
            if skip > 0 { append(0xFEFF) }
            for scalar in String(decoding: text, as: UTF8.self).unicodeScalars { append(scalar.value) }
            return output
        }
    }
}

/// Turns text in any ``UnicodeTextEncoding`` into validated UTF-8 for the text parsers.
///
/// Invalid sequences are errors rather than being replaced: CoreFoundation and Foundation refuse
/// the whole document instead of reading altered text.
enum UnicodeTranscoder {
    /// Validated UTF-8 text without its byte-order mark; errors name `format` and the line and
    /// column just after the text decoded so far.
    static func utf8Text(
        _ bytes: UnsafeRawBufferPointer, encoding: UnicodeTextEncoding, format: PlistFormat
    ) throws(PlistError) -> [UInt8] {
        switch encoding {
        case .utf8(let skip):
            let body = UnsafeRawBufferPointer(rebasing: bytes[min(skip, bytes.count)...])
            try validateUTF8(body, format: format)
            return Array(body)
        case .utf16(let bigEndian, let skip):
            return try fromUTF16(bytes, bigEndian: bigEndian, skip: skip, format: format)
        case .utf32(let bigEndian, let skip):
            return try fromUTF32(bytes, bigEndian: bigEndian, skip: skip, format: format)
        }
    }

    private static func validateUTF8(_ body: UnsafeRawBufferPointer, format: PlistFormat) throws(PlistError) {
        // Almost every document is valid, most of it ASCII: proven here eight bytes a step. Only
        // a document this check refuses goes through the standard library's parser, which finds
        // and describes the first bad sequence. (The parser alone, a scalar at a time, was a fifth
        // of reading a large JSON document.)
        if isValidUTF8(body) { return }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = body.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                offset += encoded.count
            case .emptyInput:
                return
            case .error(let length):
                throw error(
                    after: Array(body[..<offset]), format: format,
                    "bytes at offset \(offset) are not valid UTF-8 (\(length) bad byte\(length == 1 ? "" : "s"))")
            }
        }
    }

    /// True when `bytes` are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF), the set the standard library's parser accepts.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            // Runs of ASCII a word at a time.
            while i + 8 <= n, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            guard i < n else { return true }
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            // The second byte's range depends on the lead (the overlong, surrogate and
            // above-U+10FFFF exclusions); every later byte is a plain continuation.
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard i + length <= n, (low...high).contains(bytes[i + 1]) else { return false }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }

    private static func fromUTF16(
        _ bytes: UnsafeRawBufferPointer, bigEndian: Bool, skip: Int, format: PlistFormat
    ) throws(PlistError) -> [UInt8] {
        var units: [UInt16] = []
        units.reserveCapacity(max(0, bytes.count - skip) / 2)
        var i = skip
        while i + 1 < bytes.count {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? (a << 8 | b) : (b << 8 | a))
            i += 2
        }
        var output: [UInt8] = []
        output.reserveCapacity(units.count)
        var parser = Unicode.UTF16.ForwardParser()
        var iterator = units.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                appendUTF8(UTF16.decode(encoded), to: &output)
            case .emptyInput:
                if (bytes.count - skip) % 2 != 0 {
                    throw error(
                        after: output, format: format,
                        "UTF-16 text has an odd number of bytes (\(bytes.count)); the last byte is half a code unit")
                }
                return output
            case .error:
                throw error(after: output, format: format, "UTF-16 text holds an unpaired surrogate")
            }
        }
    }

    private static func fromUTF32(
        _ bytes: UnsafeRawBufferPointer, bigEndian: Bool, skip: Int, format: PlistFormat
    ) throws(PlistError) -> [UInt8] {
        var output: [UInt8] = []
        var i = skip
        while i + 3 < bytes.count {
            let b0 = UInt32(bytes[i]), b1 = UInt32(bytes[i + 1]), b2 = UInt32(bytes[i + 2]), b3 = UInt32(bytes[i + 3])
            let value = bigEndian ? (b0 << 24 | b1 << 16 | b2 << 8 | b3) : (b3 << 24 | b2 << 16 | b1 << 8 | b0)
            guard let scalar = Unicode.Scalar(value) else {
                throw error(
                    after: output, format: format,
                    "UTF-32 text holds 0x\(String(value, radix: 16)), which is not a Unicode scalar")
            }
            appendUTF8(scalar, to: &output)
            i += 4
        }
        if (bytes.count - skip) % 4 != 0 {
            throw error(
                after: output, format: format,
                "UTF-32 text has a length (\(bytes.count)) that is not a multiple of 4")
        }
        return output
    }

    /// Appends the UTF-8 form of `scalar`.
    static func appendUTF8(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        appendUTF8(codePoint: scalar.value, to: &output)
    }

    /// Appends the UTF-8 bit pattern of a code point below 0x110000. Callers decoding numeric
    /// character references use it for values that are not scalars (surrogates), which then
    /// decode as replacement characters rather than being dropped.
    @inline(__always)
    static func appendUTF8(codePoint v: UInt32, to output: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            output.append(UInt8(v))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | v >> 6))
            output.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | v >> 12))
            output.append(UInt8(0x80 | v >> 6 & 0x3F))
            output.append(UInt8(0x80 | v & 0x3F))
        default:
            output.append(UInt8(0xF0 | v >> 18))
            output.append(UInt8(0x80 | v >> 12 & 0x3F))
            output.append(UInt8(0x80 | v >> 6 & 0x3F))
            output.append(UInt8(0x80 | v & 0x3F))
        }
    }

    private static func error(after text: [UInt8], format: PlistFormat, _ message: String) -> PlistError {
        let location = text.withUnsafeBufferPointer { TextLocation.lineColumn(in: $0, at: $0.count) }
        return PlistError(.badEncoding, format: format, at: location, message)
    }
}

/// Line and column arithmetic over UTF-8 text, shared by the text formats' error reporting.
enum TextLocation {
    /// The 1-based line and column of byte `offset` in UTF-8 `text`. Lines end at LF, CR or CRLF;
    /// columns count characters (Unicode scalars), not bytes.
    static func lineColumn(in text: UnsafeBufferPointer<UInt8>, at offset: Int) -> PlistError.Location {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, text.count)
        while i < end {
            let c = text[i]
            if c == 0x0A || (c == 0x0D && !(i + 1 < end && text[i + 1] == 0x0A)) {
                line += 1
                column = 1
            } else if c != 0x0D && c & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return .lineColumn(line: line, column: column)
    }
}
