import Foundation

/// The old-style grammar over validated UTF-8 text. All syntax is ASCII, so the parser walks
/// bytes and only string contents ever hold other characters.
///
/// Containers under construction live on the explicit stack of a ``TextTreeBuilder`` instead of
/// the call stack, so a hostile document can exhaust neither; the stack is bounded by
/// ``PlistLimits/maxDepth``, and the builder accounts for the other limits.
struct OpenStepParser {
    let text: UnsafeBufferPointer<UInt8>
    let limits: PlistLimits
    let allowsGNUstep: Bool
    var pos = 0
    /// The containers being read, and the accounting of the limits.
    private var tree: TextTreeBuilder
    /// Where each value's text lies, when layout notes were asked for.
    private(set) var layout: TextLayoutRecorder?

    init(text: UnsafeBufferPointer<UInt8>, limits: PlistLimits, allowsGNUstep: Bool, keepingLayout: Bool = false) {
        self.text = text
        self.limits = limits
        self.allowsGNUstep = allowsGNUstep
        tree = TextTreeBuilder(limits: limits)
        if keepingLayout, TextLayoutRecorder.fits(text) { layout = TextLayoutRecorder() }
    }

    private typealias Frame = TextContainerFrame

    /// What the parser expects next.
    private enum Step {
        case value
        case finished(PlistValue)
        case arrayElementOrEnd
        case dictionaryKeyOrEnd
    }

    // MARK: - Document

    /// Parses the whole document: one value, or the body of a brace-less `.strings` dictionary.
    mutating func parseDocument() throws(PlistError) -> PlistValue {
        guard skipSpace() else {
            // Whitespace and comments only: CF defines this as an empty dictionary.
            layout?.restartBraceless()
            return .dictionary(PlistDictionary())
        }
        let begin = pos
        let value = try run(from: .value)
        guard skipSpace() else { return value }
        guard case .string = value else {
            throw fail(.badRoot, at: pos, "unexpected \(describe(at: pos)) after the end of the property list")
        }
        // A string followed by more text is the start of a `.strings` file: re-read from the
        // beginning as the entries of a dictionary without braces.
        pos = begin
        tree.restart(with: .braceLessDictionary, at: begin)
        layout?.restartBraceless()
        return try run(from: .dictionaryKeyOrEnd)
    }

    /// Drives the grammar until the stack is empty again, or a brace-less body has ended.
    private mutating func run(from first: Step) throws(PlistError) -> PlistValue {
        var step = first
        while true {
            switch step {
            case .value:
                step = try startValue()
            case .finished(let value):
                try count(value, key: tree.top?.pendingKey)
                guard let top = tree.top else { return value }
                step = try deliver(value, into: top)
            case .arrayElementOrEnd:
                guard skipSpace() else { throw unterminated() }
                if text[pos] == UInt8(ascii: ")"), let top = tree.top {
                    pos += 1
                    layout?.closeContainer(at: pos)
                    step = .finished(tree.close(top))
                } else if startsValue(text[pos]) {
                    step = .value
                } else {
                    throw fail(.syntax, at: pos, "expected an array element or ')', found \(describe(at: pos))")
                }
            case .dictionaryKeyOrEnd:
                guard let top = tree.top else { return .dictionary(PlistDictionary()) }
                if let next = try readKeyOrEnd(top) {
                    step = next
                } else {
                    // The brace-less `.strings` body ends at the first non-key; CF ignores the rest.
                    let body = tree.finished(top)
                    if layout != nil, case .dictionary(let entries) = body {
                        layout?.endBraceless()
                        layout?.closedDictionary(keys: top.keys, as: entries)
                    }
                    return body
                }
            }
        }
    }

    /// Reads the first character of a value: opens a container or reads a whole scalar.
    private mutating func startValue() throws(PlistError) -> Step {
        guard skipSpace() else { throw unterminated() }
        let c = text[pos]
        layout?.beginValue(at: pos)
        let scalar: PlistValue
        switch c {
        case UInt8(ascii: "{"):
            try push(.dictionary)
            pos += 1
            layout?.openContainer()
            return .dictionaryKeyOrEnd
        case UInt8(ascii: "("):
            try push(.array)
            pos += 1
            layout?.openContainer()
            return .arrayElementOrEnd
        case UInt8(ascii: "<"):
            scalar = try parseAngleBracketValue()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            scalar = .string(try parseQuotedString())
        default:
            guard Self.isUnquotedCharacter(c) else {
                throw fail(.syntax, at: pos, "unexpected \(describe(at: pos)) where a value should start")
            }
            scalar = .string(parseUnquotedString())
        }
        layout?.endScalar(at: pos)
        return .finished(scalar)
    }

    /// Adds a finished value to the container on top of the stack and says what comes next.
    private mutating func deliver(_ value: PlistValue, into top: Frame) throws(PlistError) -> Step {
        if top.kind == .array {
            top.items.append(value)
            guard skipSpace() else { throw unterminated() }
            switch text[pos] {
            case UInt8(ascii: ","):
                layout?.separator(at: pos)
                pos += 1
                return .arrayElementOrEnd
            case UInt8(ascii: ")"):
                pos += 1
                layout?.closeContainer(at: pos)
                return .finished(tree.close(top))
            default:
                throw fail(.syntax, at: pos, "expected ',' or ')' after an array element, found \(describe(at: pos))")
            }
        }
        let key = top.pendingKey ?? ""
        top.add(value, forKey: key)
        guard skipSpace(), text[pos] == UInt8(ascii: ";") else {
            let found = pos < text.count ? describe(at: pos) : "the end of the document"
            throw fail(
                pos < text.count ? .syntax : .unexpectedEnd, at: pos,
                "missing ';' after the value for key \"\(key)\", found \(found)")
        }
        top.pendingKey = nil
        layout?.separator(at: pos)
        pos += 1
        return .dictionaryKeyOrEnd
    }

    /// In a dictionary: reads `key = `, `key;`, or the closing brace. Returns nil when a
    /// brace-less body has ended.
    private mutating func readKeyOrEnd(_ top: Frame) throws(PlistError) -> Step? {
        let found = skipSpace()
        guard found, text[pos] == UInt8(ascii: "\"") || text[pos] == UInt8(ascii: "'")
            || Self.isUnquotedCharacter(text[pos])
        else {
            if top.kind == .braceLessDictionary { return nil }
            guard found else { throw unterminated() }
            guard text[pos] == UInt8(ascii: "}") else {
                throw fail(.syntax, at: pos, "expected a string key or '}' in the dictionary, found \(describe(at: pos))")
            }
            pos += 1
            layout?.closeContainer(at: pos)
            let closed = tree.close(top)
            if layout != nil, case .dictionary(let entries) = closed {
                layout?.closedDictionary(keys: top.keys, as: entries)
            }
            return .finished(closed)
        }
        layout?.key(at: pos)
        let key = text[pos] == UInt8(ascii: "\"") || text[pos] == UInt8(ascii: "'")
            ? try parseQuotedString() : parseUnquotedString()
        let keyEnd = pos
        guard skipSpace() else {
            throw fail(.unexpectedEnd, at: pos, "the document ended after key \"\(key)\"; expected '=' or ';'")
        }
        switch text[pos] {
        case UInt8(ascii: ";"):
            // The strings-file shortcut: a key alone maps to itself.
            layout?.shortcutValue(at: keyEnd)
            layout?.separator(at: pos)
            pos += 1
            try count(.string(key), key: key)
            top.add(.string(key), forKey: key)
            return .dictionaryKeyOrEnd
        case UInt8(ascii: "="):
            pos += 1
            top.pendingKey = key
            return .value
        default:
            throw fail(.syntax, at: pos, "expected '=' or ';' after key \"\(key)\", found \(describe(at: pos))")
        }
    }

    private mutating func push(_ kind: Frame.Kind) throws(PlistError) {
        if let exceeded = tree.open(kind, at: pos) {
            throw fail(exceeded.code, at: pos, limits.message(exceeding: exceeded))
        }
    }

    private mutating func count(_ value: PlistValue, key: String?) throws(PlistError) {
        if let exceeded = tree.count(value, key: key) {
            throw fail(exceeded.code, at: pos, limits.message(exceeding: exceeded))
        }
    }

    /// The error for input that ends inside the innermost open container.
    private func unterminated() -> PlistError {
        guard let top = tree.top else {
            return fail(.unexpectedEnd, at: pos, "the document ended where a value was expected")
        }
        switch top.kind {
        case .array:
            return fail(.unexpectedEnd, at: pos, "the document ended inside the array opened at \(location(top.openedAt)); expected ')'")
        case .dictionary:
            return fail(.unexpectedEnd, at: pos, "the document ended inside the dictionary opened at \(location(top.openedAt)); expected '}'")
        case .braceLessDictionary:
            return fail(.unexpectedEnd, at: pos, "the document ended before the value for key \"\(top.pendingKey ?? "")\"")
        }
    }

    // MARK: - Whitespace and comments

    /// Skips whitespace, `//` and `/* */` comments. Returns false at the end of the text.
    mutating func skipSpace() -> Bool {
        while pos < text.count {
            let c = text[pos]
            switch c {
            case 0x09...0x0D, 0x20:
                pos += 1
            case 0xE2 where isLineOrParagraphSeparator(at: pos):
                pos += 3
            case UInt8(ascii: "/"):
                guard pos + 1 < text.count else { return true }
                let next = text[pos + 1]
                if next == UInt8(ascii: "/") {
                    pos += 2
                    while pos < text.count {
                        let d = text[pos]
                        if d == 0x0A || d == 0x0D || (d == 0xE2 && isLineOrParagraphSeparator(at: pos)) { break }
                        pos += 1
                    }
                } else if next == UInt8(ascii: "*") {
                    // An unterminated comment runs to the end of the text, as in CF.
                    pos += 2
                    while pos < text.count {
                        if text[pos] == UInt8(ascii: "*"), pos + 1 < text.count, text[pos + 1] == UInt8(ascii: "/") {
                            pos += 2
                            break
                        }
                        pos += 1
                    }
                } else {
                    return true
                }
            default:
                return true
            }
        }
        return false
    }

    /// True for U+2028 and U+2029 (E2 80 A8 / E2 80 A9), which CF treats as whitespace.
    func isLineOrParagraphSeparator(at i: Int) -> Bool {
        i + 2 < text.count && text[i] == 0xE2 && text[i + 1] == 0x80 && (text[i + 2] == 0xA8 || text[i + 2] == 0xA9)
    }

    // MARK: - Strings

    /// `[A-Za-z0-9_$/:.-]`, the characters CF allows in an unquoted string.
    static func isUnquotedCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "/"),
            UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private func startsValue(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"):
            return true
        default:
            return Self.isUnquotedCharacter(c)
        }
    }

    private mutating func parseUnquotedString() -> String {
        let start = pos
        while pos < text.count, Self.isUnquotedCharacter(text[pos]) { pos += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: text[start..<pos]), as: UTF8.self)
    }

    /// Reads a `"` or `'` quoted string with its escapes; `pos` is at the opening quote.
    mutating func parseQuotedString() throws(PlistError) -> String {
        let openedAt = pos
        let quote = text[pos]
        pos += 1
        var runStart = pos
        var buffer: [UInt8] = []
        var sawEscape = false
        // A `\U` high surrogate waiting for the `\U` low surrogate that must follow it.
        var pendingHigh: (unit: UInt16, at: Int)?
        while pos < text.count {
            let c = text[pos]
            if c != UInt8(ascii: "\\") {
                if let high = pendingHigh { throw unpairedSurrogate(high.unit, at: high.at) }
                if c == quote {
                    let value: String
                    if sawEscape {
                        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<pos]))
                        value = String(decoding: buffer, as: UTF8.self)
                    } else {
                        value = String(decoding: UnsafeBufferPointer(rebasing: text[runStart..<pos]), as: UTF8.self)
                    }
                    pos += 1
                    return value
                }
                pos += 1
                continue
            }
            sawEscape = true
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<pos]))
            let escapeAt = pos
            pos += 1
            guard pos < text.count else { break }
            let e = text[pos]
            pos += 1
            if e == UInt8(ascii: "U") {
                let unit = try readHexEscape(escapeAt: escapeAt)
                switch unit {
                case 0xD800...0xDBFF:
                    if let high = pendingHigh { throw unpairedSurrogate(high.unit, at: high.at) }
                    pendingHigh = (unit, escapeAt)
                case 0xDC00...0xDFFF:
                    guard let high = pendingHigh else { throw unpairedSurrogate(unit, at: escapeAt) }
                    let value = 0x10000 + (UInt32(high.unit - 0xD800) << 10) + UInt32(unit - 0xDC00)
                    UnicodeTranscoder.appendUTF8(Unicode.Scalar(value) ?? "\u{FFFD}", to: &buffer)
                    pendingHigh = nil
                default:
                    if let high = pendingHigh { throw unpairedSurrogate(high.unit, at: high.at) }
                    UnicodeTranscoder.appendUTF8(Unicode.Scalar(unit) ?? "\u{FFFD}", to: &buffer)
                }
                runStart = pos
                continue
            }
            if let high = pendingHigh { throw unpairedSurrogate(high.unit, at: high.at) }
            switch e {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // Up to three octal digits; like CF, the value wraps to one byte, which is then
                // read as a NeXTSTEP character.
                var byte = e &- UInt8(ascii: "0")
                var digits = 1
                while digits < 3, pos < text.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(text[pos]) {
                    byte = byte &<< 3 &+ (text[pos] &- UInt8(ascii: "0"))
                    pos += 1
                    digits += 1
                }
                UnicodeTranscoder.appendUTF8(NeXTSTEPEncoding.scalar(for: byte), to: &buffer)
            case UInt8(ascii: "a"): buffer.append(0x07)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "v"): buffer.append(0x0B)
            default:
                // Any other escaped character stands for itself, whole (it may be several bytes).
                let length = Self.utf8SequenceLength(lead: e)
                let end = min(pos - 1 + length, text.count)
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: text[(pos - 1)..<end]))
                pos = end
            }
            runStart = pos
        }
        throw fail(.unexpectedEnd, at: openedAt, "unterminated quoted string starting at \(location(openedAt))")
    }

    /// The 1 to 4 hex digits after `\U`, as one UTF-16 code unit.
    private mutating func readHexEscape(escapeAt: Int) throws(PlistError) -> UInt16 {
        var unit: UInt16 = 0
        var digits = 0
        while digits < 4, pos < text.count, let nibble = Self.hexValue(text[pos]) {
            unit = unit << 4 | UInt16(nibble)
            pos += 1
            digits += 1
        }
        guard digits > 0 else {
            throw fail(.badEscape, at: escapeAt, "\\U must be followed by 1 to 4 hex digits")
        }
        return unit
    }

    private func unpairedSurrogate(_ unit: UInt16, at offset: Int) -> PlistError {
        let hex = String(unit, radix: 16, uppercase: true)
        return fail(.badString, at: offset, "\\U\(hex) is half of a UTF-16 surrogate pair without its other half")
    }

    static func utf8SequenceLength(lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xFF: return 4
        case 0xE0...0xEF: return 3
        case 0xC0...0xDF: return 2
        default: return 1
        }
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: - Errors

    func location(_ offset: Int) -> PlistError.Location {
        TextLocation.lineColumn(in: text, at: offset)
    }

    func fail(_ code: PlistError.Code, at offset: Int, _ message: String) -> PlistError {
        PlistError(code, format: .openStep, at: location(offset), keyPath: currentKeyPath(), message)
    }

    /// Where in the value the parser is: the keys and element indexes of the open containers.
    private func currentKeyPath() -> PlistKeyPath? {
        var components: [PlistKeyPath.Component] = []
        for frame in tree.stack {
            if frame.kind == .array {
                components.append(.index(frame.items.count))
            } else if let key = frame.pendingKey {
                components.append(.key(key))
            } else {
                break
            }
        }
        return components.isEmpty ? nil : PlistKeyPath(components: components)
    }

    /// The character at `offset` for a message: `'x'` for printable ASCII, `U+XXXX` otherwise.
    func describe(at offset: Int) -> String {
        guard offset < text.count else { return "the end of the document" }
        let c = text[offset]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c < 0x80 { return "U+" + hex4(UInt32(c)) }
        let length = Self.utf8SequenceLength(lead: c)
        let end = min(offset + length, text.count)
        let scalar = String(decoding: UnsafeBufferPointer(rebasing: text[offset..<end]), as: UTF8.self).unicodeScalars.first
        return "U+" + hex4(scalar?.value ?? 0xFFFD)
    }

    private func hex4(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
