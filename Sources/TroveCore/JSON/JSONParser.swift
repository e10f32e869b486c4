/// The JSON grammar over validated UTF-8 text, with containers under construction on the
/// explicit stack of a ``TextTreeBuilder``, so that nesting is bounded by the limits, never by
/// the call stack.
struct JSONParser {
    let text: UnsafeBufferPointer<UInt8>
    let limits: PlistLimits
    let allowsTrailingCommas: Bool
    private var pos = 0
    /// The containers being read, and the accounting of the limits.
    private var tree: TextTreeBuilder
    /// Where each value's text lies, when layout notes were asked for.
    private(set) var layout: TextLayoutRecorder?

    init(text: UnsafeBufferPointer<UInt8>, limits: PlistLimits, allowsTrailingCommas: Bool, keepingLayout: Bool = false) {
        self.text = text
        self.limits = limits
        self.allowsTrailingCommas = allowsTrailingCommas
        tree = TextTreeBuilder(limits: limits)
        if keepingLayout, TextLayoutRecorder.fits(text) { layout = TextLayoutRecorder() }
    }

    private typealias Frame = TextContainerFrame

    private enum Step {
        case value
        case finished(PlistValue)
        /// Just after `[`: an element or `]`.
        case firstElementOrEnd
        /// Just after `{` (`afterComma` false) or after a `,` in an object.
        case keyOrEnd(afterComma: Bool)
    }

    mutating func parseDocument() throws(PlistError) -> PlistValue {
        skipWhitespace()
        guard pos < text.count else {
            throw fail(.unexpectedEnd, at: pos, "the document is empty; expected a JSON value")
        }
        var step = Step.value
        while true {
            switch step {
            case .value:
                step = try startValue()
            case .finished(let value):
                if let exceeded = tree.count(value, key: tree.top?.pendingKey) { throw limitError(exceeded) }
                guard let top = tree.top else {
                    skipWhitespace()
                    if pos < text.count {
                        throw fail(.badRoot, at: pos, "unexpected \(describe(at: pos)) after the JSON value")
                    }
                    return value
                }
                step = try deliver(value, into: top)
            case .firstElementOrEnd:
                skipWhitespace()
                if pos < text.count, text[pos] == UInt8(ascii: "]"), let top = tree.top {
                    pos += 1
                    layout?.closeContainer(at: pos)
                    step = .finished(tree.close(top))
                } else {
                    step = .value
                }
            case .keyOrEnd(let afterComma):
                skipWhitespace()
                guard pos < text.count, let top = tree.top else { throw unterminated() }
                if text[pos] == UInt8(ascii: "}"), !afterComma || allowsTrailingCommas {
                    pos += 1
                    step = .finished(closeObject(top))
                    continue
                }
                guard text[pos] == UInt8(ascii: "\"") else {
                    throw fail(.syntax, at: pos, "expected a string key\(afterComma ? "" : " or '}'"), found \(describe(at: pos))")
                }
                layout?.key(at: pos)
                let key = try parseString()
                skipWhitespace()
                guard pos < text.count else { throw unterminated() }
                guard text[pos] == UInt8(ascii: ":") else {
                    throw fail(.syntax, at: pos, "expected ':' after key \"\(key)\", found \(describe(at: pos))")
                }
                pos += 1
                top.pendingKey = key
                step = .value
            }
        }
    }

    private mutating func startValue() throws(PlistError) -> Step {
        skipWhitespace()
        guard pos < text.count else { throw unterminated() }
        layout?.beginValue(at: pos)
        let scalar: PlistValue
        switch text[pos] {
        case UInt8(ascii: "{"):
            try push(.dictionary)
            pos += 1
            layout?.openContainer()
            return .keyOrEnd(afterComma: false)
        case UInt8(ascii: "["):
            try push(.array)
            pos += 1
            layout?.openContainer()
            return .firstElementOrEnd
        case UInt8(ascii: "\""):
            scalar = .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            scalar = try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            scalar = .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            scalar = .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            scalar = .null
        default:
            throw fail(.syntax, at: pos, "unexpected \(describe(at: pos)) where a JSON value should start")
        }
        layout?.endScalar(at: pos)
        return .finished(scalar)
    }

    /// Closes the object on top of the stack, whose `}` was just read.
    private mutating func closeObject(_ top: Frame) -> PlistValue {
        layout?.closeContainer(at: pos)
        let closed = tree.close(top)
        if layout != nil, case .dictionary(let entries) = closed {
            layout?.closedDictionary(keys: top.keys, as: entries)
        }
        return closed
    }

    private mutating func deliver(_ value: PlistValue, into top: Frame) throws(PlistError) -> Step {
        skipWhitespace()
        if top.isArray {
            top.items.append(value)
            guard pos < text.count else { throw unterminated() }
            switch text[pos] {
            case UInt8(ascii: ","):
                layout?.separator(at: pos)
                pos += 1
                skipWhitespace()
                if allowsTrailingCommas, pos < text.count, text[pos] == UInt8(ascii: "]") {
                    pos += 1
                    layout?.closeContainer(at: pos)
                    return .finished(tree.close(top))
                }
                return .value
            case UInt8(ascii: "]"):
                pos += 1
                layout?.closeContainer(at: pos)
                return .finished(tree.close(top))
            default:
                throw fail(.syntax, at: pos, "expected ',' or ']' after an array element, found \(describe(at: pos))")
            }
        }
        let key = top.pendingKey ?? ""
        top.add(value, forKey: key)
        guard pos < text.count else { throw unterminated() }
        switch text[pos] {
        case UInt8(ascii: ","):
            layout?.separator(at: pos)
            pos += 1
            top.pendingKey = nil
            return .keyOrEnd(afterComma: true)
        case UInt8(ascii: "}"):
            pos += 1
            return .finished(closeObject(top))
        default:
            throw fail(.syntax, at: pos, "expected ',' or '}' after the value for key \"\(key)\", found \(describe(at: pos))")
        }
    }

    private mutating func push(_ kind: Frame.Kind) throws(PlistError) {
        if let exceeded = tree.open(kind, at: pos) { throw limitError(exceeded) }
    }

    private func limitError(_ exceeded: PlistLimit) -> PlistError {
        fail(exceeded.code, at: pos, limits.message(exceeding: exceeded))
    }

    private func unterminated() -> PlistError {
        guard let top = tree.top else {
            return fail(.unexpectedEnd, at: pos, "the document ended where a value was expected")
        }
        let (kind, closer) = top.isArray ? ("array", "]") : ("object", "}")
        return fail(.unexpectedEnd, at: pos, "the document ended inside the \(kind) opened at \(location(top.openedAt)); expected '\(closer)'")
    }

    private mutating func skipWhitespace() {
        while pos < text.count {
            switch text[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    private mutating func expectLiteral(_ word: StaticString) throws(PlistError) {
        let start = pos
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard pos < text.count, text[pos] == byte else {
                throw fail(.syntax, at: start, "invalid literal; expected \(word)")
            }
            pos += 1
        }
    }

    // MARK: - Strings

    /// Reads a string; `pos` is at the opening quote.
    private mutating func parseString() throws(PlistError) -> String {
        let openedAt = pos
        pos += 1
        var runStart = pos
        var buffer: [UInt8] = []
        var sawEscape = false
        while pos < text.count {
            let c = text[pos]
            if c == UInt8(ascii: "\"") {
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
            if c < 0x20 {
                throw fail(.badString, at: pos, "unescaped control character \(describe(at: pos)) in a string")
            }
            guard c == UInt8(ascii: "\\") else {
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
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(e)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try readHex4(escapeAt: escapeAt)
                switch unit {
                case 0xD800...0xDBFF:
                    let lowAt = pos
                    guard pos + 1 < text.count, text[pos] == UInt8(ascii: "\\"), text[pos + 1] == UInt8(ascii: "u") else {
                        throw fail(.badString, at: escapeAt, "\\u\(hex(unit)) is a high surrogate without the low surrogate that must follow it")
                    }
                    pos += 2
                    let low = try readHex4(escapeAt: lowAt)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fail(.badString, at: escapeAt, "\\u\(hex(unit)) is a high surrogate followed by \\u\(hex(low)), not a low surrogate")
                    }
                    let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                    UnicodeTranscoder.appendUTF8(Unicode.Scalar(value) ?? "\u{FFFD}", to: &buffer)
                case 0xDC00...0xDFFF:
                    throw fail(.badString, at: escapeAt, "\\u\(hex(unit)) is a low surrogate without a high surrogate before it")
                default:
                    UnicodeTranscoder.appendUTF8(Unicode.Scalar(unit) ?? "\u{FFFD}", to: &buffer)
                }
            default:
                throw fail(.badEscape, at: escapeAt, "\\\(describeEscape(e)) is not a JSON escape")
            }
            runStart = pos
        }
        throw fail(.unexpectedEnd, at: pos, "the document ended inside the string starting at \(location(openedAt))")
    }

    private mutating func readHex4(escapeAt: Int) throws(PlistError) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard pos < text.count, let nibble = Self.hexValue(text[pos]) else {
                if pos >= text.count {
                    throw fail(.unexpectedEnd, at: pos, "the document ended inside a \\u escape")
                }
                throw fail(.badEscape, at: escapeAt, "\\u must be followed by exactly four hex digits")
            }
            unit = unit << 4 | UInt16(nibble)
            pos += 1
        }
        return unit
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private func describeEscape(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? String(Character(Unicode.Scalar(c))) : "U+\(hex(UInt16(c)))"
    }

    // MARK: - Numbers

    /// Reads a number; `pos` is at `-` or a digit.
    private mutating func parseNumber() throws(PlistError) -> PlistValue {
        let start = pos
        var negative = false
        if text[pos] == UInt8(ascii: "-") {
            negative = true
            pos += 1
        }
        let integerStart = pos
        guard pos < text.count, Self.isDigit(text[pos]) else {
            throw fail(.syntax, at: start, "'-' must be followed by a digit")
        }
        if text[pos] == UInt8(ascii: "0"), pos + 1 < text.count, Self.isDigit(text[pos + 1]) {
            throw fail(.syntax, at: start, "a number may not have a leading zero")
        }
        while pos < text.count, Self.isDigit(text[pos]) { pos += 1 }
        let integerEnd = pos
        var isReal = false
        if pos < text.count, text[pos] == UInt8(ascii: ".") {
            isReal = true
            pos += 1
            guard pos < text.count, Self.isDigit(text[pos]) else {
                throw fail(.syntax, at: pos, "a decimal point must be followed by a digit")
            }
            while pos < text.count, Self.isDigit(text[pos]) { pos += 1 }
        }
        if pos < text.count, text[pos] == UInt8(ascii: "e") || text[pos] == UInt8(ascii: "E") {
            isReal = true
            pos += 1
            if pos < text.count, text[pos] == UInt8(ascii: "+") || text[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < text.count, Self.isDigit(text[pos]) else {
                throw fail(.syntax, at: pos, "an exponent must have at least one digit")
            }
            while pos < text.count, Self.isDigit(text[pos]) { pos += 1 }
        }
        if !isReal, let integer = Self.integer(negative: negative, digits: text[integerStart..<integerEnd]) {
            return .integer(integer)
        }
        guard let real = DecimalReal.value(of: UnsafeBufferPointer(rebasing: text[start..<pos])), real.isFinite else {
            let spelling = String(decoding: UnsafeBufferPointer(rebasing: text[start..<pos]), as: UTF8.self)
            throw fail(.badReal, at: start, "number \(spelling) is too large for a double")
        }
        return .real(PlistReal(real))
    }

    /// The integer the digits spell, or nil outside `Int64.min ... UInt64.max`.
    private static func integer(negative: Bool, digits: Slice<UnsafeBufferPointer<UInt8>>) -> PlistInteger? {
        var magnitude: UInt64 = 0
        for d in digits {
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(d - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        return PlistInteger(isNegative: negative, magnitude: magnitude)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    // MARK: - Errors

    private func location(_ offset: Int) -> PlistError.Location {
        TextLocation.lineColumn(in: text, at: offset)
    }

    private func fail(_ code: PlistError.Code, at offset: Int, _ message: String) -> PlistError {
        PlistError(code, format: .json, at: location(offset), keyPath: currentKeyPath(), message)
    }

    /// Where in the value the parser is: the keys and element indexes of the open containers.
    private func currentKeyPath() -> PlistKeyPath? {
        var components: [PlistKeyPath.Component] = []
        for frame in tree.stack {
            if frame.isArray {
                components.append(.index(frame.items.count))
            } else if let key = frame.pendingKey {
                components.append(.key(key))
            } else {
                break
            }
        }
        return components.isEmpty ? nil : PlistKeyPath(components: components)
    }

    private func describe(at offset: Int) -> String {
        guard offset < text.count else { return "the end of the document" }
        let c = text[offset]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c < 0x80 { return "U+\(hex(UInt16(c)))" }
        var end = offset + 1
        while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
        let scalar = String(decoding: UnsafeBufferPointer(rebasing: text[offset..<end]), as: UTF8.self).unicodeScalars.first
        let value = scalar?.value ?? 0xFFFD
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
