import CTroveFastPaths

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the XML that property-list writers actually produce, without libxml2, and gives up on
/// anything else.
///
/// Apple's writers, and nearly every other one, use a small part of XML: a declaration, a
/// DOCTYPE without an internal subset, comments, the format's elements without attributes (but
/// `<plist version="1.0">`), text with the five predefined entities and character references.
/// For that subset this scanner builds the same value as the libxml2 path of
/// ``XMLPlistReader`` at a fraction of the cost: libxml2's general machinery (SAX callbacks,
/// attribute and namespace handling, its own buffers) was most of the time of reading a document.
///
/// It never reports an error. On anything outside the subset, or anything the libxml2 path
/// would refuse or read in a CF-specific way (a CDATA section, an unknown entity, a reference to
/// a character XML forbids, a limit reached, malformed markup), it returns nil and the reader parses the document
/// again with libxml2, which then decides. So the subset only has to be recognised exactly, never
/// diagnosed; the libxml2 path stays the reference, and the `xml` fuzz target checks that both give
/// the same value for every document the scanner accepts.
struct XMLCommonSubsetScanner: ~Copyable {
    /// An open `<plist>`, `<array>` or `<dict>`. Scalars are read whole where they start, so they
    /// never need a frame.
    private struct Frame {
        var kind: XMLElementKind
        /// Where this container's finished children start on `values`, and a dictionary's keys
        /// on `keys`; a dictionary holds one more key than values while a key waits for its value.
        var valueBase: Int
        var keyBase: Int
        /// The container's node number in the layout's numbering, and the place of its shape
        /// among the layout check's, while the check goes on.
        var node = 0
        var shapePlace = 0
    }

    private let b: UnsafeBufferPointer<UInt8>
    private let p: UnsafePointer<UInt8>
    private let n: Int
    private let limits: PlistLimits
    private var i = 0
    private var frames: [Frame] = []
    private var values = PlistValueStack()
    private var keys = MovingStack<String>()
    private var dictionaries = PlistDictionaryAssembler()
    private var meter: LimitMeter
    private var containerDepth = 0
    /// The text of a scalar with entity references, decoded.
    private var decoded = ByteBuffer()
    private var result: PlistValue?
    private var layoutIsUnreliable = false
    private var hasRepeatedKeys = false
    /// For a lossless read: whether the document is canonical, checked along the way.
    private var layoutCheck = XMLCanonicalLayoutCheck()
    /// Where the root value's last `>` ended, once it has.
    private var rootValueEnd = -1
    /// Set by `makeString` when a reference is not one the canonical writer writes.
    private var sawOtherReference = false

    /// What the scanner gives the reader: the same as a libxml2 parse of the document.
    struct Outcome {
        var value: PlistValue
        var layoutIsUnreliable: Bool
        var hasRepeatedKeys: Bool
        /// When the document was checked and found canonical but for content notes: its
        /// layout, whose encoding the reader sets (see ``XMLCanonicalLayoutCheck``).
        var checkedLayout: XMLLayout?
    }

    /// The document `b` (UTF-8) read, or nil when the libxml2 path must read it.
    /// `checkingLayout`: also decide whether the document is canonical.
    static func read(_ b: UnsafeBufferPointer<UInt8>, limits: PlistLimits, checkingLayout: Bool = false) -> Outcome? {
        guard let base = b.baseAddress, b.count > 0 else { return nil }
        var scanner = XMLCommonSubsetScanner(b, base: base, limits: limits)
        if checkingLayout {
            // About one container in 256 bytes of a typical document: room for the shapes of a
            // small one at once, and a start for a large one.
            scanner.layoutCheck.reserveShapes(min(b.count / 256, 4096) + 4)
        } else {
            scanner.layoutCheck.giveUp()
        }
        guard scanner.skipProlog(), scanner.readRoot(), let value = scanner.result else { return nil }
        var layout: XMLLayout?
        if scanner.layoutCheck.isCanonical, !scanner.hasRepeatedKeys, !scanner.layoutIsUnreliable, scanner.rootValueEnd >= 0 {
            scanner.layoutCheck.checkEpilog(base + scanner.rootValueEnd, count: scanner.n - scanner.rootValueEnd)
            if scanner.layoutCheck.isCanonical {
                layout = scanner.layoutCheck.layout()
            }
        }
        return Outcome(
            value: value, layoutIsUnreliable: scanner.layoutIsUnreliable, hasRepeatedKeys: scanner.hasRepeatedKeys,
            checkedLayout: layout)
    }

    private init(_ b: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, limits: PlistLimits) {
        self.b = b
        p = base
        n = b.count
        self.limits = limits
        meter = LimitMeter(limits: limits)
        frames.reserveCapacity(16)
    }

    // MARK: Markup outside the root

    /// Skips the XML declaration (at the very start only), comments and a DOCTYPE without an
    /// internal subset, leaving `i` on the `<` of the root element.
    private mutating func skipProlog() -> Bool {
        while true {
            skipSpace()
            guard i + 1 < n, p[i] == UInt8(ascii: "<") else { return false }
            switch p[i + 1] {
            case UInt8(ascii: "?"):
                // libxml2 checks a declaration's grammar and its encoding's name: only the
                // spellings writers use are taken here. Other processing instructions are rare
                // enough to leave to libxml2 as well.
                guard i == 0, let width = Self.declarations.firstMatch(p, n, at: i) else { return false }
                i += width
            case UInt8(ascii: "!"):
                if matches("<!--", at: i) {
                    guard skipComment() else { return false }
                } else {
                    guard let width = Self.doctypes.firstMatch(p, n, at: i) else { return false }
                    i += width
                }
            default:
                return true
            }
        }
    }

    /// The XML declarations the scanner takes, byte for byte.
    private static let declarations = Spellings([
        #"<?xml version="1.0" encoding="UTF-8"?>"#,
        #"<?xml version="1.0" encoding="utf-8"?>"#,
        #"<?xml version="1.0"?>"#,
        #"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#,
        #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    ])

    /// The DOCTYPEs the scanner takes, byte for byte: Apple's, present and past.
    private static let doctypes = Spellings([
        #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
        #"<!DOCTYPE plist PUBLIC "-//Apple Computer//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
        #"<!DOCTYPE plist SYSTEM "file://localhost/System/Library/DTDs/PropertyList.dtd">"#,
    ])

    /// Fixed pieces of markup, matched byte for byte.
    private struct Spellings {
        let spellings: [[UInt8]]

        init(_ strings: [String]) { spellings = strings.map { Array($0.utf8) } }

        /// The width of the first spelling that stands at `k`, if any.
        func firstMatch(_ p: UnsafePointer<UInt8>, _ n: Int, at k: Int) -> Int? {
            for spelling in spellings where n - k >= spelling.count {
                if spelling.indices.allSatisfy({ p[k + $0] == spelling[$0] }) { return spelling.count }
            }
            return nil
        }
    }

    /// Skips the comment at `i`. Left to libxml2: comments holding `--` before their end (which
    /// libxml2 reads differently from CF), controls, and bytes that are not UTF-8.
    private mutating func skipComment() -> Bool {
        guard let end = find("--", from: i + 4), end + 2 < n, p[end + 2] == UInt8(ascii: ">") else { return false }
        let body = UnsafeBufferPointer(start: p + i + 4, count: end - i - 4)
        var isASCII = true
        for c in body {
            if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { return false }
            if c >= 0x80 { isASCII = false }
        }
        guard isASCII || UnicodeTranscoder.isValidUTF8(UnsafeRawBufferPointer(body)) else { return false }
        i = end + 3
        return true
    }

    // MARK: Elements

    /// Reads elements from the root's start tag to its end tag (CF reads nothing after it).
    private mutating func readRoot() -> Bool {
        while true {
            guard p[i] == UInt8(ascii: "<"), i + 1 < n else { return false }
            let next = p[i + 1]
            if next == UInt8(ascii: "/") {
                guard closeContainer() else { return false }
            } else if next == UInt8(ascii: "!") {
                guard !frames.isEmpty, matches("<!--", at: i), skipComment() else { return false }
                layoutCheck.giveUp()
            } else {
                guard openElement() else { return false }
            }
            if result != nil { return true }
            // Only whitespace may stand between the elements of a container.
            if layoutCheck.isCanonical, containerDepth > 0 {
                skipCheckedGap()
            } else {
                skipSpace()
            }
            guard i < n else { return false }
        }
    }

    /// Skips the whitespace after the markup that ended at `i` (always with a `>`) inside a
    /// container while the layout is checked, and checks it on the way: canonically it is a
    /// newline and one tab per level of the tag that follows, which is the container's depth
    /// for an element and one less for its end tag. Counting the tabs a word at a time is both
    /// the skip and the check, so a lossless read does not walk the gap twice; the start and end
    /// tags then need no gap check of their own. Kept out of line: inlined, it crowded the plain
    /// read's whitespace loop beside it.
    @inline(never)
    private mutating func skipCheckedGap() {
        let p = self.p, n = self.n, start = i
        guard start < n, p[start] == 0x0A else { return skipGap(notCanonicalFrom: start) }
        var k = start + 1
        var sawOther = false
        while n - k >= 8 {
            let other = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self) ^ 0x0909_0909_0909_0909
            if other != 0 {
                // Little-endian: the lowest byte that is not a tab comes first.
                k += UInt64(littleEndian: other).trailingZeroBitCount >> 3
                sawOther = true
                break
            }
            k += 8
        }
        if !sawOther {
            while k < n, p[k] == 0x09 { k += 1 }
        }
        guard n - k >= 2, p[k] == UInt8(ascii: "<") else { return skipGap(notCanonicalFrom: k) }
        let depth = p[k + 1] == UInt8(ascii: "/") ? containerDepth - 1 : containerDepth
        guard k - start - 1 == depth else { return skipGap(notCanonicalFrom: k) }
        i = k
    }

    /// The rest of a gap that is not canonical, from `k`: the check gives up.
    @inline(never)
    private mutating func skipGap(notCanonicalFrom k: Int) {
        layoutCheck.giveUp()
        i = k
        skipSpace()
    }

    /// Reads the start tag at `i`; a scalar is read to its end tag, a container is opened.
    private mutating func openElement() -> Bool {
        let tagStart = i
        var j = i + 1
        while j < n, p[j] >= UInt8(ascii: "a"), p[j] <= UInt8(ascii: "z") { j += 1 }
        guard j < n, let kind = XMLElementKind(name: p + i + 1, count: j - i - 1) else { return false }
        var isEmpty = false
        switch p[j] {
        case UInt8(ascii: ">"):
            i = j + 1
        case UInt8(ascii: "/"):
            guard j + 1 < n, p[j + 1] == UInt8(ascii: ">") else { return false }
            isEmpty = true
            i = j + 2
        default:
            // The one attribute writers put on an element; CF skips any others, which libxml2
            // reads differently, so they are left to its path.
            guard kind == .plist, matches(#" version="1.0">"#, at: j) else { return false }
            i = j + 15
        }

        var isDictionaryKey = false
        if let parent = frames.last {
            switch parent.kind {
            case .dict:
                if !hasPendingKey(parent) {
                    guard kind == .key else { return false }
                    isDictionaryKey = true
                } else if kind == .plist {
                    layoutIsUnreliable = true
                }
            case .array:
                if kind == .plist { layoutIsUnreliable = true }
            default:
                // A `<plist>` holds one value.
                if values.count > parent.valueBase { return false }
            }
        }

        var node = 0
        if layoutCheck.isCanonical, kind != .plist {
            node = checkElementStart(kind, at: tagStart, isEmpty: isEmpty, isDictionaryKey: isDictionaryKey)
        }

        switch kind {
        case .array, .dict:
            containerDepth += 1
            guard containerDepth <= limits.maxDepth else { return false }
            if isEmpty {
                containerDepth -= 1
                if layoutCheck.isCanonical { layoutCheck.closeEmptyContainer(at: node, isDictionary: kind == .dict) }
                return deliver(kind == .array ? .array([]) : .dictionary(takeDictionary(keyBase: keys.count, valueBase: values.count)))
            }
            let place = layoutCheck.isCanonical ? layoutCheck.openContainer(at: node) : 0
            frames.append(Frame(kind: kind, valueBase: values.count, keyBase: keys.count, node: node, shapePlace: place))
            return true
        case .plist:
            guard !isEmpty else { return false }
            frames.append(Frame(kind: kind, valueBase: values.count, keyBase: keys.count))
            return true
        default:
            return readScalar(kind, isEmpty: isEmpty, isDictionaryKey: isDictionaryKey, node: node)
        }
    }

    /// Reads the end tag at `i`, which must close the innermost container.
    private mutating func closeContainer() -> Bool {
        // `skipCheckedGap` checked the gap before the end tag.
        guard let frame = frames.last, let width = endTag(of: frame.kind, at: i) else { return false }
        i += width
        frames.removeLast()
        switch frame.kind {
        case .plist:
            guard values.count > frame.valueBase else { return false }
            return deliver(values.popLast())
        case .array:
            containerDepth -= 1
            if layoutCheck.isCanonical {
                layoutCheck.closeContainer(
                    at: frame.node, place: frame.shapePlace, isDictionary: false, childCount: values.count - frame.valueBase)
            }
            return deliver(.array(values.popArray(from: frame.valueBase)))
        default:
            containerDepth -= 1
            guard !hasPendingKey(frame) else { return false }
            let dictionary = takeDictionary(keyBase: frame.keyBase, valueBase: frame.valueBase)
            let value = XMLParseSession.dictionaryOrUID(dictionary)
            if layoutCheck.isCanonical {
                if case .uid(let uid) = value {
                    // Canonical when its integer was the UID's own number, which CF writes.
                    guard case .integer(let n)? = dictionary["CF$UID"], n == PlistInteger(uid) else {
                        layoutCheck.giveUp()
                        return deliver(value)
                    }
                    layoutCheck.closeUID(at: frame.node)
                } else {
                    layoutCheck.closeContainer(at: frame.node, place: frame.shapePlace, isDictionary: true, childCount: dictionary.count)
                }
            }
            return deliver(value)
        }
    }

    /// The layout check at the start tag at `tagStart` of a value element or key: for the root
    /// value, the prolog; for every one, its tag form. Returns the element's node number.
    @inline(__always)
    private mutating func checkElementStart(_ kind: XMLElementKind, at tagStart: Int, isEmpty: Bool, isDictionaryKey: Bool) -> Int {
        // Inside a container, `skipCheckedGap` checked the gap before the tag.
        if containerDepth == 0 {
            // The root value; a scalar root is left to the layout scanner, which takes the
            // document's indentation from the text after the root's start tag.
            if !kind.isContainer { layoutCheck.giveUp() }
            layoutCheck.checkProlog(p, count: tagStart)
        }
        switch kind {
        case .true, .false: if !isEmpty { layoutCheck.giveUp() }
        case .array, .dict: break
        case .key: if isEmpty || !isDictionaryKey { layoutCheck.giveUp() }
        default: if isEmpty { layoutCheck.giveUp() }
        }
        return layoutCheck.takeNodeNumber()
    }

    /// Reads a scalar's text and its end tag; `i` stands after its start tag. `node` is its node
    /// number while the layout is checked.
    private mutating func readScalar(_ kind: XMLElementKind, isEmpty: Bool, isDictionaryKey: Bool, node: Int) -> Bool {
        let start = i
        var seen: UInt32 = 0
        if !isEmpty {
            // Controls (a carriage return among them) and U+FFFE/U+FFFF, which XML changes or
            // refuses, stay as they are: CF keeps them, and so does the libxml2 path (its
            // prescan hands them through as character references).
            i += trove_xml_text_end(p + i, n - i, &seen)
            // `]]>` ends a CDATA section, and libxml2 refuses it in text.
            if seen & UInt32(TROVE_XML_TEXT_GREATER) != 0, containsCDATAEnd(from: start, to: i) { return false }
        }
        let hasReferences = seen & UInt32(TROVE_XML_TEXT_AMPERSAND) != 0
        let isASCII = seen & UInt32(TROVE_XML_TEXT_NON_ASCII) == 0
        let text = UnsafeBufferPointer(start: p + start, count: i - start)
        guard text.count <= limits.maxDecodedBytes else { return false }
        if !isEmpty {
            guard let width = endTag(of: kind, at: i) else { return false }
            i += width
        }

        let value: PlistValue
        switch kind {
        case .key, .string:
            guard let string = makeString(text, hasReferences: hasReferences, isASCII: isASCII) else { return false }
            // The canonical writer escapes `&`, `<` and `>` with the named entities, and nothing else.
            if layoutCheck.isCanonical, sawOtherReference || seen & UInt32(TROVE_XML_TEXT_GREATER) != 0 {
                layoutCheck.noteContent(text, of: .string(string), node: node)
            }
            if isDictionaryKey {
                keys.push(string)
                return true
            }
            value = .string(string)
        case .true, .false:
            guard text.isEmpty else { return false }
            value = .bool(kind == .true)
        default:
            guard !hasReferences, isASCII else { return false }
            do throws(XMLScalarSyntax.Failure) {
                switch kind {
                case .integer:
                    let n = try XMLScalarSyntax.parseInteger(text)
                    value = .integer(n)
                    if layoutCheck.isCanonical { layoutCheck.checkInteger(text, n, node: node) }
                case .real:
                    if layoutCheck.isCanonical {
                        var isCanonical: Bool?
                        let r = try XMLScalarSyntax.parseReal(text, isCanonical: &isCanonical)
                        value = .real(PlistReal(r))
                        switch isCanonical {
                        case true?: break
                        case false?: layoutCheck.noteContent(text, of: value, node: node)
                        case nil: layoutCheck.checkReal(text, r, node: node)
                        }
                    } else {
                        value = .real(PlistReal(try XMLScalarSyntax.parseReal(text)))
                    }
                case .date:
                    if layoutCheck.isCanonical {
                        var isCanonical: Bool?
                        value = .date(try XMLScalarSyntax.parseDate(text, isCanonical: &isCanonical))
                        switch isCanonical {
                        case true?: break
                        case false?: layoutCheck.noteContent(text, of: value, node: node)
                        case nil: layoutCheck.checkContent(text, of: value, depth: containerDepth, node: node)
                        }
                    } else {
                        value = .date(try XMLScalarSyntax.parseDate(text))
                    }
                default:
                    if layoutCheck.isCanonical {
                        var slowBytes = 0
                        value = .data(Data(try XMLScalarSyntax.decodeBase64(text, slowBytes: &slowBytes)))
                        layoutCheck.checkContent(text, of: value, depth: containerDepth, node: node, slowBytes: slowBytes)
                    } else {
                        value = .data(Data(try XMLScalarSyntax.decodeBase64(text)))
                    }
                }
            } catch {
                return false
            }
        }
        return deliver(value)
    }

    // MARK: Values

    /// Places a finished value in its container, or makes it the result.
    private mutating func deliver(_ value: PlistValue) -> Bool {
        var bytes = 0
        if let top = frames.last, top.kind == .dict, hasPendingKey(top) { bytes = keys[keys.count - 1].utf8.count }
        switch value {
        case .string(let s): bytes += s.utf8.count
        case .data(let d): bytes += d.count
        default: break
        }
        guard meter.countValue() == nil, bytes == 0 || meter.countBytes(bytes) == nil else { return false }
        if containerDepth == 0, rootValueEnd < 0 { rootValueEnd = i }
        if frames.isEmpty {
            result = value
        } else {
            values.push(value)
        }
        return true
    }

    private func hasPendingKey(_ frame: Frame) -> Bool {
        keys.count - frame.keyBase > values.count - frame.valueBase
    }

    /// The dictionary whose keys and values start at the bases, removed from the stacks. A
    /// repeated key keeps its first position and takes the last value, as in CF's XML reader.
    private mutating func takeDictionary(keyBase: Int, valueBase: Int) -> PlistDictionary {
        let (dictionary, repeated) = dictionaries.assemble(
            keys: keys.popArray(from: keyBase), values: values.popArray(from: valueBase), keeping: .lastValue)
        if repeated { hasRepeatedKeys = true }
        return dictionary
    }

    /// The string a `<string>` or `<key>` holds, or nil when it is not valid UTF-8 or uses a
    /// reference this scanner leaves to libxml2.
    private mutating func makeString(_ text: UnsafeBufferPointer<UInt8>, hasReferences: Bool, isASCII: Bool) -> String? {
        guard hasReferences else {
            sawOtherReference = false
            if isASCII { return String(provenUTF8: text, isASCII: true) }
            return UnicodeTranscoder.isValidUTF8(UnsafeRawBufferPointer(text)) ? String(provenUTF8: text, isASCII: false) : nil
        }
        // References are ASCII, so the text is valid UTF-8 exactly when the runs between them
        // are, and the decoded text then is too (a reference stands for a Unicode scalar).
        guard let base = text.baseAddress, isASCII || UnicodeTranscoder.isValidUTF8(UnsafeRawBufferPointer(text)) else { return nil }
        decoded.removeAll()
        sawOtherReference = false
        var isDecodedASCII = isASCII
        var k = 0
        while let ampersand = XMLMarkupPrescan.find(text, UInt8(ascii: "&"), from: k) {
            // The text since the last reference, in one copy.
            decoded.append(base + k, count: ampersand - k)
            guard let (character, width) = Self.reference(text, at: ampersand) else { return nil }
            if layoutCheck.isCanonical, text[ampersand + 1] == UInt8(ascii: "#") || (character != 0x26 && character != 0x3C && character != 0x3E) {
                sawOtherReference = true
            }
            if character >= 0x80 { isDecodedASCII = false }
            decoded.appendUTF8(codePoint: character)
            k = ampersand + width
        }
        decoded.append(base + k, count: text.count - k)
        return decoded.withUnsafeBufferPointer { String(provenUTF8: $0, isASCII: isDecodedASCII) }
    }

    /// The character the reference at `k` stands for and the reference's width, for the five
    /// predefined entities and character references to characters XML allows.
    private static func reference(_ t: UnsafeBufferPointer<UInt8>, at k: Int) -> (UInt32, Int)? {
        func at(_ s: StaticString) -> Bool {
            let m = s.utf8CodeUnitCount
            guard t.count - k >= m else { return false }
            for j in 0..<m where t[k + j] != s.utf8Start[j] { return false }
            return true
        }
        if at("&lt;") { return (0x3C, 4) }
        if at("&gt;") { return (0x3E, 4) }
        if at("&amp;") { return (0x26, 5) }
        if at("&quot;") { return (0x22, 6) }
        if at("&apos;") { return (0x27, 6) }
        guard at("&#") else { return nil }
        var j = k + 2
        let hex = j < t.count && t[j] == UInt8(ascii: "x")
        if hex { j += 1 }
        let digitsStart = j
        var code: UInt32 = 0
        while j < t.count, j - digitsStart < 8 {
            let c = t[j]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: digit = 0xFF
            }
            if digit == 0xFF { break }
            code = code * (hex ? 16 : 10) + digit
            j += 1
        }
        guard j > digitsStart, j < t.count, t[j] == UInt8(ascii: ";") else { return nil }
        // The characters XML 1.0 allows; the others are CF's leniency, left to libxml2's path.
        let allowed = code == 0x09 || code == 0x0A || code == 0x0D || (0x20...0xD7FF).contains(code)
            || (0xE000...0xFFFD).contains(code) || (0x10000...0x10FFFF).contains(code)
        return allowed ? (code, j + 1 - k) : nil
    }

    // MARK: Bytes

    /// Whether `]]>` stands in `start..<end`.
    private func containsCDATAEnd(from start: Int, to end: Int) -> Bool {
        var k = start
        while k + 3 <= end {
            if p[k] == UInt8(ascii: "]"), p[k + 1] == UInt8(ascii: "]"), p[k + 2] == UInt8(ascii: ">") { return true }
            k += 1
        }
        return false
    }

    /// The width of `kind`'s end tag if it stands at `k`, compared a word at a time: the tag is
    /// at most 10 bytes (`</integer>`).
    @inline(__always)
    private func endTag(of kind: XMLElementKind, at k: Int) -> Int? {
        let (word, width) = Self.endTagWords[Int(kind.rawValue)]
        guard n - k >= 16 else {
            // Near the end of the input, byte by byte from the same words.
            guard n - k >= width else { return nil }
            for j in 0..<width {
                let expected = UInt8(truncatingIfNeeded: j < 8 ? word.low >> (UInt64(j) * 8) : word.high >> (UInt64(j - 8) * 8))
                if p[k + j] != expected { return nil }
            }
            return width
        }
        let raw = UnsafeRawPointer(p + k)
        let head = raw.loadUnaligned(as: UInt64.self)
        if width <= 8 {
            let mask: UInt64 = width == 8 ? ~0 : (1 << (UInt64(width) * 8)) &- 1
            return head & mask == word.low ? width : nil
        }
        let tail = UInt64(raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        let tailMask: UInt64 = width == 10 ? 0xFFFF : 0xFF
        return head == word.low && tail & tailMask == word.high ? width : nil
    }

    /// Each kind's end tag as little-endian words (the first 8 bytes, then the rest) and its width.
    private static let endTagWords: [(word: (low: UInt64, high: UInt64), width: Int)] = (0...10).map { raw in
        let name = XMLElementKind(rawValue: UInt8(raw))!.name
        let bytes = Array("</".utf8) + UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount) + [UInt8(ascii: ">")]
        var low: UInt64 = 0, high: UInt64 = 0
        for (k, byte) in bytes.enumerated() {
            if k < 8 { low |= UInt64(byte) << (UInt64(k) * 8) } else { high |= UInt64(byte) << (UInt64(k - 8) * 8) }
        }
        return ((low, high), bytes.count)
    }

    private mutating func skipSpace() {
        while i < n, XMLScalarSyntax.isASCIISpace(p[i]) { i += 1 }
    }

    private func matches(_ s: StaticString, at k: Int) -> Bool {
        XMLMarkupPrescan.matches(b, s, at: k)
    }

    private func find(_ s: StaticString, from k: Int) -> Int? {
        XMLMarkupPrescan.find(b, s, from: k)
    }
}
