import CLibXML2

/// The character encoding an XML property list was stored in, remembered so that a rewrite
/// produces the same encoding and byte-order mark.
public enum XMLTextEncoding: Sendable, Hashable {
    /// UTF-8, with or without the `EF BB BF` mark.
    case utf8(byteOrderMark: Bool)
    /// UTF-16 in the given byte order, with or without a byte-order mark.
    case utf16(bigEndian: Bool, byteOrderMark: Bool)
    /// UTF-32 in the given byte order, with or without a byte-order mark.
    case utf32(bigEndian: Bool, byteOrderMark: Bool)
    /// An 8-bit encoding named in the XML declaration (`ISO-8859-1`, `windows-1252`, ...),
    /// converted through libxml2's encoding handlers.
    case declared(name: String)

    /// UTF-8 without a byte-order mark: what Apple's writers produce.
    public static let standard = XMLTextEncoding.utf8(byteOrderMark: false)
}

/// Turns a document's bytes into UTF-8, the only encoding the parser and the layout scanner
/// work in, and turns UTF-8 output back into a document's own encoding.
enum XMLTranscoder {
    /// The encoding of `bytes` as CoreFoundation decides it: byte-order marks first (UTF-32
    /// before UTF-16), then zero bytes of unmarked UTF-16/32, then an `encoding="..."` in an XML
    /// declaration that starts the document.
    static func detect(_ b: UnsafeRawBufferPointer) throws(PlistError) -> XMLTextEncoding {
        func at(_ i: Int) -> UInt8? { i < b.count ? b[i] : nil }
        if at(0) == 0x00, at(1) == 0x00, at(2) == 0xFE, at(3) == 0xFF { return .utf32(bigEndian: true, byteOrderMark: true) }
        if at(0) == 0xFF, at(1) == 0xFE, at(2) == 0x00, at(3) == 0x00 { return .utf32(bigEndian: false, byteOrderMark: true) }
        if at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { return .utf8(byteOrderMark: true) }
        if at(0) == 0xFF, at(1) == 0xFE { return .utf16(bigEndian: false, byteOrderMark: true) }
        if at(0) == 0xFE, at(1) == 0xFF { return .utf16(bigEndian: true, byteOrderMark: true) }
        if b.count >= 4, at(0) == 0, at(1) == 0, at(2) == 0, at(3) != 0 { return .utf32(bigEndian: true, byteOrderMark: false) }
        if b.count >= 4, at(0) != 0, at(1) == 0, at(2) == 0, at(3) == 0 { return .utf32(bigEndian: false, byteOrderMark: false) }
        if b.count >= 2, at(0) == 0 { return .utf16(bigEndian: true, byteOrderMark: false) }
        if b.count >= 2, at(1) == 0 { return .utf16(bigEndian: false, byteOrderMark: false) }
        guard let name = declaredEncodingName(b) else { return .standard }
        switch normalized(name) {
        case "utf8": return .standard
        case "utf16", "utf16be", "utf16le", "utf32", "utf32be", "utf32le", "ucs2", "ucs4":
            // A wide encoding declared over bytes that are plainly 8-bit (the `<?xml` prefix
            // was read as ASCII) cannot be decoded; CF's conversion fails the same way.
            throw PlistError(
                .badEncoding, format: .xml, at: .lineColumn(line: 1, column: 1),
                "the document declares \(name) but its bytes are 8-bit text")
        default:
            guard let handler = xmlFindCharEncodingHandler(name) else {
                throw PlistError(
                    .badEncoding, format: .xml, at: .lineColumn(line: 1, column: 1),
                    "unknown text encoding \"\(name)\" in the XML declaration")
            }
            xmlCharEncCloseFunc(handler)
            // The markup must mean the same bytes in the declared encoding as in ASCII: the
            // declaration itself was read as ASCII, and the lossless writer re-encodes the whole
            // document. UTF-7 (where `<` may become `+ADw-`) and EBCDIC fail this.
            guard isASCIICompatible(name) else {
                throw PlistError(
                    .badEncoding, format: .xml, at: .lineColumn(line: 1, column: 1),
                    "the declared text encoding \"\(name)\" does not write XML markup as ASCII")
            }
            return .declared(name: name)
        }
    }

    /// True when printable ASCII, tab and line ends come out of `encodingName` unchanged.
    private static func isASCIICompatible(_ encodingName: String) -> Bool {
        let ascii: [UInt8] = [0x09, 0x0A, 0x0D] + Array(0x20...0x7E)
        let encoded: [UInt8]? = ascii.withUnsafeBytes { raw in
            try? convertWithLibXML(raw, encodingName: encodingName, toUTF8: false)
        }
        return encoded == ascii
    }

    /// The value of `encoding="..."` when the document starts with `<?xml` (CF looks no further).
    static func declaredEncodingName(_ b: UnsafeRawBufferPointer) -> String? {
        guard b.count >= 5, b.starts(with: "<?xml".utf8) else { return nil }
        var i = 5
        let pattern = Array("encoding".utf8)
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "?") || c == UInt8(ascii: ">") { return nil }
            if c == pattern[0], i + pattern.count < b.count,
                (0..<pattern.count).allSatisfy({ b[i + $0] == pattern[$0] })
            {
                var j = i + pattern.count
                while j < b.count, XMLScalarSyntax.isASCIISpace(b[j]) { j += 1 }
                guard j < b.count, b[j] == UInt8(ascii: "=") else { i += 1; continue }
                j += 1
                while j < b.count, XMLScalarSyntax.isASCIISpace(b[j]) { j += 1 }
                guard j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") else { return nil }
                let quote = b[j]
                let start = j + 1
                var end = start
                while end < b.count, b[end] != quote { end += 1 }
                guard end < b.count else { return nil }
                return String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    private static func normalized(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "-" && $0 != "_" })
    }

    /// The document as UTF-8 without a byte-order mark, or nil when `bytes` already are that
    /// (after skipping a UTF-8 mark, reported through `skip`).
    static func utf8Copy(
        of b: UnsafeRawBufferPointer, encoding: XMLTextEncoding, skip: inout Int
    ) throws(PlistError) -> [UInt8]? {
        skip = 0
        switch encoding {
        case .utf8(let bom):
            skip = bom ? 3 : 0
            return nil
        case .utf16(let bigEndian, let bom):
            return try UnicodeTranscoder.utf8Text(b, encoding: .utf16(bigEndian: bigEndian, skip: bom ? 2 : 0), format: .xml)
        case .utf32(let bigEndian, let bom):
            return try UnicodeTranscoder.utf8Text(b, encoding: .utf32(bigEndian: bigEndian, skip: bom ? 4 : 0), format: .xml)
        case .declared(let name):
            return try convertWithLibXML(b, encodingName: name, toUTF8: true)
        }
    }

    private static func encodingError(_ message: String) -> PlistError {
        PlistError(.badEncoding, format: .xml, at: .lineColumn(line: 1, column: 1), message)
    }

    /// Converts between an 8-bit encoding and UTF-8 with libxml2's handler for `encodingName`.
    static func convertWithLibXML(
        _ b: UnsafeRawBufferPointer, encodingName: String, toUTF8: Bool
    ) throws(PlistError) -> [UInt8] {
        guard let handler = xmlFindCharEncodingHandler(encodingName) else {
            throw encodingError("unknown text encoding \"\(encodingName)\"")
        }
        defer { xmlCharEncCloseFunc(handler) }
        guard let input = xmlBufferCreateSize(b.count + 1), let output = xmlBufferCreateSize(b.count * 2 + 16) else {
            throw encodingError("out of memory converting from \(encodingName)")
        }
        defer {
            xmlBufferFree(input)
            xmlBufferFree(output)
        }
        if let base = b.baseAddress, b.count > 0 {
            guard b.count <= Int(Int32.max) else { throw encodingError("document too large to convert") }
            xmlBufferAdd(input, base.assumingMemoryBound(to: xmlChar.self), Int32(b.count))
        }
        let status = toUTF8 ? xmlCharEncInFunc(handler, output, input) : xmlCharEncOutFunc(handler, output, input)
        guard status >= 0, xmlBufferLength(input) == 0 else {
            throw encodingError(
                toUTF8 ? "the bytes are not valid \(encodingName)" : "the text cannot be written in \(encodingName)")
        }
        let length = Int(xmlBufferLength(output))
        guard let content = xmlBufferContent(output) else { return [] }
        return Array(UnsafeBufferPointer(start: content, count: length))
    }

    /// UTF-8 output re-encoded as `encoding` (with its byte-order mark when it had one).
    static func encode(_ utf8: [UInt8], as encoding: XMLTextEncoding) throws(PlistError) -> [UInt8] {
        switch encoding {
        case .utf8(let bom):
            return bom ? [0xEF, 0xBB, 0xBF] + utf8 : utf8
        case .utf16(let bigEndian, let bom):
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count * 2 + 2)
            if bom { out += bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE] }
            for unit in String(decoding: utf8, as: UTF8.self).utf16 {
                if bigEndian {
                    out.append(UInt8(unit >> 8))
                    out.append(UInt8(unit & 0xFF))
                } else {
                    out.append(UInt8(unit & 0xFF))
                    out.append(UInt8(unit >> 8))
                }
            }
            return out
        case .utf32(let bigEndian, let bom):
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count * 4 + 4)
            if bom { out += bigEndian ? [0x00, 0x00, 0xFE, 0xFF] : [0xFF, 0xFE, 0x00, 0x00] }
            for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
                let v = scalar.value
                let bytes = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
                out += bigEndian ? bytes : bytes.reversed()
            }
            return out
        case .declared(let name):
            let converted: Result<[UInt8], PlistError> = utf8.withUnsafeBytes { raw in
                Result { () throws(PlistError) in try convertWithLibXML(raw, encodingName: name, toUTF8: false) }
            }
            return try converted.get()
        }
    }
}
