import CLibXML2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The property-list elements, as CoreFoundation's scanner knows them.
enum XMLElementKind: UInt8 {
    case plist, array, dict, key, string, integer, real, date, data, `true`, `false`

    /// The element's name. Spelled out rather than taken from the case name: interpolating an
    /// enum case into a string goes through runtime reflection, millions of instructions at the
    /// first use, most of a small file's conversion in a fresh process.
    var name: StaticString {
        switch self {
        case .plist: "plist"
        case .array: "array"
        case .dict: "dict"
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .true: "true"
        case .false: "false"
        }
    }

    /// The kind for a libxml2 local name (NUL-terminated), or nil for an element that is not part
    /// of the format.
    init?(name p: UnsafePointer<UInt8>) {
        // The format's names are at most 7 bytes; a longer name is none of them.
        var count = 0
        while count < 8, p[count] != 0 { count += 1 }
        self.init(name: p, count: count)
    }

    /// The kind for the `count` bytes of a name at `p`, or nil.
    init?(name p: UnsafePointer<UInt8>, count: Int) {
        func equals(_ s: StaticString) -> Bool {
            guard count == s.utf8CodeUnitCount else { return false }
            for k in 0..<count where p[k] != s.utf8Start[k] { return false }
            return true
        }
        switch count {
        case 3 where equals("key"): self = .key
        case 4:
            if equals("dict") { self = .dict } else if equals("real") { self = .real } else if equals("date") { self = .date }
            else if equals("data") { self = .data } else if equals("true") { self = .true } else { return nil }
        case 5:
            if equals("array") { self = .array } else if equals("plist") { self = .plist } else if equals("false") { self = .false }
            else { return nil }
        case 6 where equals("string"): self = .string
        case 7 where equals("integer"): self = .integer
        default: return nil
        }
    }

    var isContainer: Bool { self == .array || self == .dict }
    /// Elements whose text is their value; everything else holds elements or nothing.
    var isScalar: Bool { !isContainer && self != .plist }
    /// Scalars whose text CF reads through its string scanner, which understands CDATA.
    var acceptsCDATA: Bool { self == .string || self == .key || self == .real }
}

/// The state of one parse: the stack of open elements, the values and keys they have finished,
/// the text of the current scalar and the first error. libxml2 calls the SAX functions below
/// with a pointer to it as user data; it is a struct behind a pointer rather than a class so the
/// per-event calls pay for neither reference counting nor dynamic exclusivity checks. It is
/// non-copyable because its value stack owns the values it holds.
struct XMLParseSession: ~Copyable {
    /// One open element. Plain data: what a container has finished lives on the session's
    /// `values` and `keys` stacks above the frame's bases, so pushing and popping frames retains
    /// and releases nothing, and a finished child is never copied into a growing array of its
    /// parent's.
    struct Frame {
        var kind: XMLElementKind
        var line: Int
        var column: Int
        /// True for `<key>` elements that name a dictionary entry (a `<key>` elsewhere is a string).
        var isDictionaryKey = false
        var isEmptyTag = false
        /// Where this element's finished children start on `values`, and a dictionary's keys on
        /// `keys`. A dictionary holds one more key than values while a key waits for its value.
        var valueBase = 0
        var keyBase = 0
    }

    let limits: PlistLimits
    var context: xmlParserCtxtPtr?
    /// The first error; set once, through ``fail(_:_:line:column:)``.
    private(set) var failure: PlistError? {
        didSet { hasFailed = failure != nil }
    }
    /// `failure != nil`, kept apart because every event asks it: testing the optional error
    /// itself copied and destroyed it (an outlined copy of its strings) on each of those calls.
    private(set) var hasFailed = false
    var frames: [Frame] = []
    /// The finished children of every open element, innermost last.
    var values = PlistValueStack()
    /// The keys of every open dictionary, innermost last.
    var keys = MovingStack<String>()
    var dictionaries = PlistDictionaryAssembler()
    var text = ByteBuffer()
    var result: PlistValue?
    var containerDepth = 0
    /// Counts values and the bytes of strings, data and keys against the limits.
    var meter: LimitMeter
    /// Set when the document holds something the layout notes cannot describe one-to-one
    /// (a `<plist>` nested inside a container).
    var layoutIsUnreliable = false
    /// Set when a dictionary repeats a key, which the layout scanner must then look for.
    var hasRepeatedKeys = false

    init(limits: PlistLimits) {
        self.limits = limits
        meter = LimitMeter(limits: limits)
    }

    // MARK: Positions and failures

    var position: (line: Int, column: Int) {
        guard let input = context?.pointee.input else { return (1, 1) }
        return (Int(input.pointee.line), max(1, Int(input.pointee.col)))
    }

    mutating func fail(_ code: PlistError.Code, _ message: String, line: Int? = nil, column: Int? = nil) {
        guard !hasFailed else { return }
        let here = position
        failure = PlistError(
            code, format: .xml, at: .lineColumn(line: line ?? here.line, column: column ?? here.column),
            keyPath: currentKeyPath, message)
        if let context { xmlStopParser(context) }
    }

    /// Where in the value the parse stands: the pending key of each open dictionary and the
    /// next index of each open array.
    private var currentKeyPath: PlistKeyPath? {
        var components: [PlistKeyPath.Component] = []
        for (i, frame) in frames.enumerated() {
            let valuesEnd = i + 1 < frames.count ? frames[i + 1].valueBase : values.count
            let keysEnd = i + 1 < frames.count ? frames[i + 1].keyBase : keys.count
            switch frame.kind {
            case .array: components.append(.index(valuesEnd - frame.valueBase))
            case .dict:
                // The key waiting for its value, if any.
                if keysEnd - frame.keyBase > valuesEnd - frame.valueBase { components.append(.key(keys[keysEnd - 1])) }
            default: break
            }
        }
        return components.isEmpty ? nil : PlistKeyPath(components: components)
    }

    /// Whether the input cursor sits on the `/` of an empty-element tag. libxml2 calls the
    /// start-element handler before it consumes the tag's `/>` or `>`.
    private var cursorIsAtEmptyTagEnd: Bool {
        guard let input = context?.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end,
            cur < end
        else { return false }
        return cur.pointee == UInt8(ascii: "/")
    }

    // MARK: Events

    mutating func startElement(localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?) {
        guard !hasFailed else { return }
        // Built only for messages: most elements never need their name as a String.
        var name: String { String(cString: localName) }
        guard prefix == nil, let kind = XMLElementKind(name: localName) else {
            let shown = prefix.map { String(cString: $0) + ":" + name } ?? name
            fail(.unexpectedElement, "unknown element <\(shown)>")
            return
        }
        let here = position
        var frame = Frame(kind: kind, line: here.line, column: here.column, valueBase: values.count, keyBase: keys.count)
        frame.isEmptyTag = cursorIsAtEmptyTagEnd
        if let parentFrame = frames.last {
            switch parentFrame.kind {
            case .dict:
                if !hasPendingKey(parentFrame) {
                    guard kind == .key else {
                        fail(.missingValue, "found <\(name)> where <dict> expects a <key>")
                        return
                    }
                    frame.isDictionaryKey = true
                } else if kind == .plist {
                    layoutIsUnreliable = true
                }
            case .array:
                if kind == .plist { layoutIsUnreliable = true }
            case .plist:
                if values.count > parentFrame.valueBase {
                    fail(.badRoot, "<plist> holds more than one value")
                    return
                }
            default:
                fail(.unexpectedElement, "element <\(name)> inside <\(parentFrame.kind)>")
                return
            }
        } else if result != nil {
            fail(.badRoot, "more than one root element")
            return
        }
        if kind.isContainer {
            containerDepth += 1
            if containerDepth > limits.maxDepth {
                fail(.depthLimit, limits.message(exceeding: .depth))
                return
            }
        }
        if kind == .plist && frame.isEmptyTag {
            fail(.badRoot, "empty <plist/> holds no value")
            return
        }
        if kind.isScalar { text.removeAll() }
        frames.append(frame)
    }

    mutating func endElement() {
        guard !hasFailed, let frame = frames.popLast() else { return }
        let value: PlistValue
        switch frame.kind {
        case .plist:
            guard values.count > frame.valueBase else {
                fail(.badRoot, "<plist> holds no value", line: frame.line, column: frame.column)
                return
            }
            value = values.popLast()
        case .array:
            containerDepth -= 1
            value = .array(values.popArray(from: frame.valueBase))
        case .dict:
            containerDepth -= 1
            if hasPendingKey(frame) {
                fail(.missingValue, "key \"\(keys[keys.count - 1])\" has no value")
                return
            }
            value = Self.dictionaryOrUID(takeDictionary(frame))
        case .key where frame.isDictionaryKey:
            keys.push(text.string)
            return
        case .key, .string:
            value = .string(text.string)
        case .true, .false:
            guard text.isEmpty else {
                fail(.syntax, "<\(frame.kind)> must be empty", line: frame.line, column: frame.column)
                return
            }
            value = .bool(frame.kind == .true)
        case .integer, .real, .date, .data:
            do throws(XMLScalarSyntax.Failure) {
                value = try text.withUnsafeBufferPointer { b throws(XMLScalarSyntax.Failure) in
                    switch frame.kind {
                    case .integer: return .integer(try XMLScalarSyntax.parseInteger(b))
                    case .real: return .real(PlistReal(try XMLScalarSyntax.parseReal(b)))
                    case .date: return .date(try XMLScalarSyntax.parseDate(b))
                    default: return .data(Data(try XMLScalarSyntax.decodeBase64(b)))
                    }
                }
            } catch {
                fail(error.code, error.message, line: frame.line, column: frame.column)
                return
            }
        }
        deliver(value)
    }

    /// CF turns a dictionary whose only entry is `CF$UID` with an integer into a keyed-archive
    /// UID, keeping the low 32 bits of the number as CF's `uint32_t` does.
    static func dictionaryOrUID(_ d: PlistDictionary) -> PlistValue {
        if d.count == 1, case .integer(let n)? = d["CF$UID"] {
            return .uid(UInt64(UInt32(truncatingIfNeeded: n.bitPattern)))
        }
        return .dictionary(d)
    }

    private mutating func deliver(_ value: PlistValue) {
        if let exceeded = meter.countValue() ?? countBytes(of: value) {
            fail(exceeded.code, limits.message(exceeding: exceeded))
            return
        }
        guard !frames.isEmpty else {
            result = value
            // CF stops at the end of the root element; whatever follows is never looked at.
            if let context { xmlStopParser(context) }
            return
        }
        values.push(value)
    }

    /// Whether the dictionary `frame` (the innermost open element) has a key waiting for its
    /// value.
    private func hasPendingKey(_ frame: Frame) -> Bool {
        keys.count - frame.keyBase > values.count - frame.valueBase
    }

    /// The finished dictionary `frame` as keys and values, removed from the stacks. A repeated
    /// key keeps its first position and takes the last value, as in CF.
    private mutating func takeDictionary(_ frame: Frame) -> PlistDictionary {
        let (dictionary, repeated) = dictionaries.assemble(
            keys: keys.popArray(from: frame.keyBase), values: values.popArray(from: frame.valueBase), keeping: .lastValue)
        if repeated { hasRepeatedKeys = true }
        return dictionary
    }

    /// Counts a string's or data's payload, and the key a dictionary will store the value under.
    private mutating func countBytes(of value: PlistValue) -> PlistLimit? {
        var bytes = 0
        if let top = frames.last, top.kind == .dict, hasPendingKey(top) { bytes = keys[keys.count - 1].utf8.count }
        switch value {
        case .string(let s): bytes += s.utf8.count
        case .data(let d): bytes += d.count
        default: break
        }
        return bytes == 0 ? nil : meter.countBytes(bytes)
    }

    mutating func characters(_ p: UnsafePointer<UInt8>, _ count: Int) {
        guard !hasFailed, count > 0 else { return }
        if let context, context.pointee.wellFormed == 0 { context.pointee.wellFormed = 1 }
        if !frames.isEmpty, frames[frames.count - 1].kind.isScalar {
            // Checked per chunk libxml2 delivers, so no element's text outgrows the byte limit
            // before its value is counted.
            guard text.count.saturatingAdd(count) <= limits.maxDecodedBytes else {
                fail(.byteLimit, limits.message(exceeding: .decodedBytes))
                return
            }
            text.append(p, count: count)
            return
        }
        for k in 0..<count where !XMLScalarSyntax.isASCIISpace(p[k]) {
            let where_ = frames.isEmpty ? "outside the root element" : "inside <\(frames[frames.count - 1].kind)>"
            fail(.syntax, "unexpected text \(where_)")
            return
        }
    }

    mutating func cdata(_ p: UnsafePointer<UInt8>, _ count: Int) {
        guard !hasFailed else { return }
        guard !frames.isEmpty, frames[frames.count - 1].kind.acceptsCDATA else {
            fail(.syntax, "a CDATA section may only stand in <string>, <key> or <real>")
            return
        }
        text.append(p, count: count)
    }

    mutating func markupInsideContent(_ what: String) {
        guard !hasFailed else { return }
        if !frames.isEmpty, frames[frames.count - 1].kind.isScalar {
            fail(.syntax, "\(what) inside <\(frames[frames.count - 1].kind)>")
        }
    }

    mutating func undeclaredEntity(_ name: String) {
        fail(.badEscape, "unknown entity &\(name);")
    }

    /// Appends a character libxml2 refused but CF accepts (a raw control character, or a
    /// character reference such as `&#0;` to a character XML 1.0 forbids). Returns false when the
    /// character cannot be kept here.
    mutating func acceptForbiddenCharacter(_ value: Int) -> Bool {
        guard !frames.isEmpty, frames[frames.count - 1].kind.isScalar, value >= 0, value < 0x110000,
            !(0xD800..<0xE000).contains(value)
        else { return false }
        text.appendUTF8(codePoint: UInt32(value))
        return true
    }

    /// After a diagnostic libxml2 marks the document not well-formed, and from then on drops
    /// predefined entity references (`&amp;`) instead of reporting them, recovery mode or not.
    /// The next text event clears the mark (see ``characters(_:_:)``); references that follow a
    /// tolerated character reference directly are decoded here and skipped in the input.
    private mutating func takePredefinedEntitiesAfterError() {
        guard let input = context?.pointee.input, var cur = input.pointee.cur, let end = input.pointee.end else { return }
        let entities: [(StaticString, UInt8)] = [("&lt;", 0x3C), ("&gt;", 0x3E), ("&amp;", 0x26), ("&apos;", 0x27), ("&quot;", 0x22)]
        outer: while cur < end, cur.pointee == UInt8(ascii: "&") {
            for (spelling, character) in entities {
                let n = spelling.utf8CodeUnitCount
                guard end - cur >= n, (0..<n).allSatisfy({ cur[$0] == spelling.utf8Start[$0] }) else { continue }
                text.append(character)
                cur += n
                input.pointee.col += Int32(n)
                continue outer
            }
            break
        }
        input.pointee.cur = cur
    }

    /// Routes one libxml2 diagnostic: tolerated ones (where CF is more lenient than XML) are
    /// absorbed, the first real one becomes the session's ``PlistError``.
    mutating func diagnostic(_ e: UnsafePointer<xmlError>) {
        guard !hasFailed else { return }
        let err = e.pointee
        let code = Int(err.code)
        let message = err.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "XML error"
        let line = Int(err.line) > 0 ? Int(err.line) : position.line
        let column = Int(err.int2) > 0 ? Int(err.int2) : position.column
        if err.domain == Int32(XML_FROM_NAMESPACE.rawValue) { return }
        switch code {
        case Int(XML_ERR_INVALID_CHAR.rawValue):
            let lowered = message.lowercased()
            if lowered.contains("invalid xmlchar value") || lowered.contains("invalid char value") {
                if lowered.hasPrefix("xmlparsecomment") { return }
                if acceptForbiddenCharacter(Int(err.int1)) {
                    if lowered.hasPrefix("xmlparsecharref") { takePredefinedEntitiesAfterError() }
                    return
                }
                fail(.badEscape, "character U+\(String(err.int1, radix: 16, uppercase: true)) is not allowed here", line: line, column: column)
                return
            }
            if lowered.contains("out of bounds") {
                fail(.badEscape, "character reference beyond U+10FFFF", line: line, column: column)
                return
            }
            fail(.badEncoding, message, line: line, column: column)
            return
        case Int(XML_ERR_HYPHEN_IN_COMMENT.rawValue), Int(XML_ERR_RESERVED_XML_NAME.rawValue),
            Int(XML_ERR_ATTRIBUTE_REDEFINED.rawValue), Int(XML_WAR_UNDECLARED_ENTITY.rawValue):
            // CF ends comments at the first `-->`, skips processing instructions wherever they
            // are, and never reads attributes. Undeclared entities reach `reference` instead.
            return
        default:
            break
        }
        if err.level == XML_ERR_WARNING { return }
        let mapped: PlistError.Code
        switch code {
        case Int(XML_ERR_UNDECLARED_ENTITY.rawValue), Int(XML_ERR_ENTITYREF_SEMICOL_MISSING.rawValue),
            Int(XML_ERR_ENTITYREF_NO_NAME.rawValue), Int(XML_ERR_INVALID_CHARREF.rawValue),
            Int(XML_ERR_INVALID_DEC_CHARREF.rawValue), Int(XML_ERR_INVALID_HEX_CHARREF.rawValue),
            Int(XML_ERR_ENTITY_LOOP.rawValue), Int(XML_ERR_ENTITY_PE_INTERNAL.rawValue):
            mapped = .badEscape
        case Int(XML_ERR_DOCUMENT_EMPTY.rawValue):
            mapped = .badRoot
        case Int(XML_ERR_TAG_NOT_FINISHED.rawValue), Int(XML_ERR_LTSLASH_REQUIRED.rawValue):
            mapped = frames.isEmpty ? .syntax : .unexpectedEnd
        case Int(XML_ERR_UNKNOWN_ENCODING.rawValue), Int(XML_ERR_UNSUPPORTED_ENCODING.rawValue),
            Int(XML_ERR_INVALID_ENCODING.rawValue):
            mapped = .badEncoding
        default:
            mapped = .syntax
        }
        fail(mapped, message, line: line, column: column)
    }
}
