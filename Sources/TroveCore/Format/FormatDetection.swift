extension PlistFormat {
    /// Guesses the format of `bytes` from their content alone, never from a file name.
    ///
    /// Binary plists start with `bplist`. XML is recognised by a byte-order mark or encoding
    /// pattern of UTF-16/UTF-32 text that begins with `<`, or by `<?xml`, `<!` or `<plist` after
    /// optional whitespace. Everything else that is text is taken as OpenStep, which is the
    /// fallback CoreFoundation uses too. Returns nil for empty input.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> PlistFormat? {
        if bytes.isEmpty { return nil }
        // "bpli" and "st" compared as two little-endian words: `starts(with:)` over a string's
        // UTF-8 view took some hundreds of instructions, a share of reading a small file.
        if bytes.count >= 6, bytes.loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x696C_7062),
            bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self) == UInt16(littleEndian: 0x7473) {
            return .binary
        }
        if let first = firstSignificantCharacter(bytes) {
            if first == UInt8(ascii: "<") {
                return looksLikeXML(bytes) ? .xml : .openStep
            }
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
                // `{` and `"` start OpenStep documents too; only a JSON parse can tell them apart.
                return first == UInt8(ascii: "[") ? .json : .openStep
            }
        }
        return .openStep
    }

    /// The first non-whitespace ASCII character of the text, looking through a UTF-8/16/32 BOM
    /// or the zero bytes of UTF-16/32 text without one.
    static func firstSignificantCharacter(_ b: UnsafeRawBufferPointer) -> UInt8? {
        let (start0, stride, lowOffset) = textShape(b)
        var start = start0
        while start + stride <= b.count {
            var isASCII = true
            for k in 0..<stride where k != lowOffset {
                if b[start + k] != 0 { isASCII = false }
            }
            let c = b[start + lowOffset]
            if !isASCII { return nil }
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                start += stride
                continue
            }
            return c
        }
        return nil
    }

    /// (first code unit offset, code unit size, offset of the low byte within a unit).
    static func textShape(_ b: UnsafeRawBufferPointer) -> (Int, Int, Int) {
        func at(_ i: Int) -> UInt8 { i < b.count ? b[i] : 0xAA }
        if at(0) == 0x00, at(1) == 0x00, at(2) == 0xFE, at(3) == 0xFF { return (4, 4, 3) }
        if at(0) == 0xFF, at(1) == 0xFE, at(2) == 0x00, at(3) == 0x00 { return (4, 4, 0) }
        if at(0) == 0xFE, at(1) == 0xFF { return (2, 2, 1) }
        if at(0) == 0xFF, at(1) == 0xFE { return (2, 2, 0) }
        if at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { return (3, 1, 0) }
        // No BOM: `<` or whitespace in UTF-16/32 shows as zero bytes around one ASCII byte.
        if b.count >= 4, at(0) == 0, at(1) == 0, at(2) == 0, at(3) != 0 { return (0, 4, 3) }
        if b.count >= 4, at(0) != 0, at(1) == 0, at(2) == 0, at(3) == 0 { return (0, 4, 0) }
        if b.count >= 2, at(0) == 0, at(1) != 0 { return (0, 2, 1) }
        if b.count >= 2, at(0) != 0, at(1) == 0 { return (0, 2, 0) }
        return (0, 1, 0)
    }

    /// True when a document starting with `<` opens like XML rather than OpenStep `<hex data>`.
    static func looksLikeXML(_ b: UnsafeRawBufferPointer) -> Bool {
        let (start0, stride, low) = textShape(b)
        var start = start0
        while start + stride <= b.count {
            let c = b[start + low]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { start += stride } else { break }
        }
        var ascii: [UInt8] = []
        var i = start
        while i + stride <= b.count, ascii.count < 6 {
            ascii.append(b[i + low])
            i += stride
        }
        let text = String(decoding: ascii, as: UTF8.self)
        return text.hasPrefix("<?") || text.hasPrefix("<!") || text.lowercased().hasPrefix("<plist")
    }
}
