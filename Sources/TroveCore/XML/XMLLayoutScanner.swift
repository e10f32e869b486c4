/// Derives an ``XMLLayout`` from a document that libxml2 has already accepted, by walking its
/// UTF-8 bytes alongside the value read from them and comparing each piece with what the
/// canonical writer would produce.
///
/// The walk follows CF's tag rules (a tag ends at its first `>`), so it agrees with the reader on
/// every document the reader accepts. Should the bytes and the value ever disagree, it gives up
/// and the document is simply written canonically.
struct XMLLayoutScanner {
    private let b: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private var counter = 0
    private var layout: XMLLayout
    private var scratch: [UInt8] = []
    private let expectRepeatedKeys: Bool
    /// Repeated-key entries found in the dictionary being scanned, by its node number.
    private var repeatedEntries: [Int: [XMLRepeatedEntry]] = [:]

    private init(_ b: UnsafeBufferPointer<UInt8>, encoding: XMLTextEncoding, expectRepeatedKeys: Bool) {
        self.b = b
        self.layout = XMLLayout(encoding: encoding)
        self.expectRepeatedKeys = expectRepeatedKeys
    }

    /// The notes for `b`, which was read as `value`; nil when they cannot be derived.
    static func scan(
        _ b: UnsafeBufferPointer<UInt8>, value: PlistValue, encoding: XMLTextEncoding, expectRepeatedKeys: Bool = false
    ) -> XMLLayout? {
        var scanner = XMLLayoutScanner(b, encoding: encoding, expectRepeatedKeys: expectRepeatedKeys)
        guard scanner.scanDocument(value) else { return nil }
        return scanner.layout
    }

    private mutating func scanDocument(_ value: PlistValue) -> Bool {
        skipTrivia()
        if matches("<plist"), pos + 6 < b.count, XMLMarkupPrescan.endsName(b[pos + 6]) {
            guard let gt = find(UInt8(ascii: ">"), from: pos), b[gt - 1] != UInt8(ascii: "/") else { return false }
            pos = gt + 1
            skipTrivia()
        }
        let prolog = b[0..<pos]
        if !prolog.elementsEqual(XMLCanonicalSpelling.prolog) { layout.prolog = Array(prolog) }
        detectIndentation()
        guard scanNode(value, depth: 0, isRoot: true) else { return false }
        let epilog = b[pos..<b.count]
        if !epilog.elementsEqual(XMLCanonicalSpelling.epilog) { layout.epilog = Array(epilog) }
        return true
    }

    // MARK: Nodes

    /// Scans one value element (with its leading trivia unless it is the root).
    private mutating func scanNode(_ value: PlistValue, depth: Int, isRoot: Bool = false) -> Bool {
        let index = counter
        counter += 1
        var note = XMLNodeNote()
        if !isRoot { scanLeading(depth: depth, into: &note) }
        guard let (tag, selfClosing) = scanStartTag() else { return false }
        let name = XMLEmitter.tagName(tag)
        let expected = XMLCanonicalSpelling.elementName(value)
        var nameFits = name.elementsEqual(XMLEmitter.bytes(expected))
        if case .string = value, name.elementsEqual("key".utf8) { nameFits = true }
        guard nameFits else { return false }

        switch value {
        case .array(let elements):
            guard
                scanContainer(
                    name: expected, tag: tag, selfClosing: selfClosing, count: elements.count, depth: depth, note: &note,
                    children: { (s: inout XMLLayoutScanner) -> Bool in
                        for element in elements where !s.scanNode(element, depth: depth + 1) { return false }
                        return true
                    })
            else { return false }
            layout.containers[index] = XMLContainerShape(
                isDictionary: false, childCount: elements.count, subtreeSize: counter - index)
        case .dictionary(let d):
            guard
                scanContainer(
                    name: expected, tag: tag, selfClosing: selfClosing, count: d.count, depth: depth, note: &note,
                    children: { (s: inout XMLLayoutScanner) -> Bool in
                        if s.expectRepeatedKeys { return s.scanEntriesWithRepeats(d, depth: depth + 1, dictionary: index) }
                        for (key, child) in d {
                            guard s.scanKey(key, depth: depth + 1), s.scanNode(child, depth: depth + 1) else { return false }
                        }
                        return true
                    })
            else { return false }
            layout.containers[index] = XMLContainerShape(
                isDictionary: true, childCount: d.count, subtreeSize: counter - index)
        default:
            guard scanScalarBody(value, name: expected, tag: tag, selfClosing: selfClosing, depth: depth, note: &note)
            else { return false }
        }
        if let repeats = repeatedEntries.removeValue(forKey: index) { note.repeatedEntries = repeats }
        if !note.isEmpty { layout.notes[index] = note }
        return true
    }

    /// Scans a dictionary's entries when the document may repeat keys: the first occurrence
    /// of a repeated key holds the dictionary's position but not its value, so its value
    /// element is kept whole; later occurrences are kept whole as repeated entries.
    private mutating func scanEntriesWithRepeats(_ d: PlistDictionary, depth: Int, dictionary: Int) -> Bool {
        let start = pos
        var keys: [String] = []
        while true {
            let entryStart = pos
            skipTrivia()
            if pos >= b.count || matches("</") {
                pos = entryStart
                break
            }
            guard let key = readKeyElement() else { return false }
            skipTrivia()
            guard skipElement() else { return false }
            keys.append(key)
        }
        var lastOccurrence: [String: Int] = [:]
        for (j, key) in keys.enumerated() { lastOccurrence[key] = j }
        var seen = Set<String>()
        var entryIndex = 0
        var repeats: [XMLRepeatedEntry] = []
        pos = start
        for (j, key) in keys.enumerated() {
            if seen.contains(key) {
                let rawStart = pos
                skipTrivia()
                _ = readKeyElement()
                skipTrivia()
                guard skipElement(), let current = d[key] else { return false }
                repeats.append(XMLRepeatedEntry(position: entryIndex, key: key, spelledValue: current, raw: Array(b[rawStart..<pos])))
                continue
            }
            seen.insert(key)
            guard entryIndex < d.count, d[entryIndex].key.utf8.elementsEqual(key.utf8) else { return false }
            let value = d[entryIndex].value
            guard scanKey(key, depth: depth) else { return false }
            if lastOccurrence[key] != j {
                let index = counter
                var note = XMLNodeNote()
                scanLeading(depth: depth, into: &note)
                let elementStart = pos
                guard skipElement() else { return false }
                note.rawElement = Array(b[elementStart..<pos])
                note.spelledValue = value
                layout.notes[index] = note
                let size = Self.nodeCount(value)
                counter += size
                if case .dictionary = value {
                    layout.containers[index] = XMLContainerShape(isDictionary: true, childCount: 0, subtreeSize: size)
                } else if case .array = value {
                    layout.containers[index] = XMLContainerShape(isDictionary: false, childCount: 0, subtreeSize: size)
                }
            } else {
                guard scanNode(value, depth: depth) else { return false }
            }
            entryIndex += 1
        }
        guard entryIndex == d.count else { return false }
        if !repeats.isEmpty { repeatedEntries[dictionary] = repeats }
        return true
    }

    /// Nodes in a value's subtree, by the layout's numbering.
    static func nodeCount(_ value: PlistValue) -> Int {
        switch value {
        case .array(let a): return a.reduce(1) { $0 + nodeCount($1) }
        case .dictionary(let d): return d.values.reduce(1) { $0 + 1 + nodeCount($1) }
        default: return 1
        }
    }

    /// Reads a `<key>` element at `pos` and returns its decoded text.
    private mutating func readKeyElement() -> String? {
        guard let (_, selfClosing) = scanStartTag() else { return nil }
        if selfClosing { return "" }
        let contentStart = pos
        guard skipText() else { return nil }
        let text = XMLTextDecoding.decode(b[contentStart..<pos])
        guard matches("</"), let gt = find(UInt8(ascii: ">"), from: pos) else { return nil }
        pos = gt + 1
        return text
    }

    /// Moves past character data and CDATA sections to the next `<` that starts markup.
    private mutating func skipText() -> Bool {
        while true {
            guard let lt = find(UInt8(ascii: "<"), from: pos) else { return false }
            pos = lt
            guard matches("<![CDATA[") else { return true }
            guard let end = findSequence("]]>", from: pos + 9) else { return false }
            pos = end + 3
        }
    }

    /// Moves past one whole element, nested ones included.
    private mutating func skipElement() -> Bool {
        guard let (_, selfClosing) = scanStartTag() else { return false }
        if selfClosing { return true }
        var depth = 1
        while depth > 0 {
            guard skipText() else { return false }
            if matches("<!--") || matches("<?") {
                skipTrivia()
            } else if matches("</") {
                guard let gt = find(UInt8(ascii: ">"), from: pos) else { return false }
                pos = gt + 1
                depth -= 1
            } else {
                guard let (_, closes) = scanStartTag() else { return false }
                if !closes { depth += 1 }
            }
        }
        return true
    }

    private mutating func scanKey(_ key: String, depth: Int) -> Bool {
        let index = counter
        counter += 1
        var note = XMLNodeNote()
        scanLeading(depth: depth, into: &note)
        guard let (tag, selfClosing) = scanStartTag(), XMLEmitter.tagName(tag).elementsEqual("key".utf8) else {
            return false
        }
        guard scanScalarBody(.string(key), name: "key", tag: tag, selfClosing: selfClosing, depth: depth, note: &note)
        else { return false }
        if !note.isEmpty { layout.notes[index] = note }
        return true
    }

    private mutating func scanLeading(depth: Int, into note: inout XMLNodeNote) {
        let start = pos
        skipTrivia()
        let leading = b[start..<pos]
        if !isCanonicalBreak(leading, depth: depth) { note.leading = Array(leading) }
    }

    /// Compares a scalar's tags and content with the canonical ones.
    private mutating func scanScalarBody(
        _ value: PlistValue, name: StaticString, tag: Slice<UnsafeBufferPointer<UInt8>>, selfClosing: Bool, depth: Int,
        note: inout XMLNodeNote
    ) -> Bool {
        var content = b[pos..<pos]
        var endTag = b[pos..<pos]
        if !selfClosing {
            let contentStart = pos
            if case .uid = value {
                guard let close = findSequence("</dict", from: pos) else { return false }
                pos = close
            } else {
                while true {
                    guard let lt = find(UInt8(ascii: "<"), from: pos) else { return false }
                    pos = lt
                    if matches("<![CDATA[") {
                        guard let end = findSequence("]]>", from: pos + 9) else { return false }
                        pos = end + 3
                        continue
                    }
                    break
                }
            }
            content = b[contentStart..<pos]
            guard matches("</"), let gt = find(UInt8(ascii: ">"), from: pos) else { return false }
            endTag = b[pos...gt]
            pos = gt + 1
        }
        let isBool: Bool
        if case .bool = value { isBool = true } else { isBool = false }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(UInt8(ascii: "<"))
        XMLCanonicalSpelling.append(name, to: &scratch)
        XMLCanonicalSpelling.append(isBool ? "/>" : ">", to: &scratch)
        if !tag.elementsEqual(scratch) { note.startTag = Array(tag) }
        scratch.removeAll(keepingCapacity: true)
        if !isBool {
            XMLCanonicalSpelling.append("</", to: &scratch)
            XMLCanonicalSpelling.append(name, to: &scratch)
            scratch.append(UInt8(ascii: ">"))
        }
        if !endTag.elementsEqual(scratch) { note.endTag = Array(endTag) }
        scratch.removeAll(keepingCapacity: true)
        XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        if !content.elementsEqual(scratch) {
            note.content = Array(content)
            note.spelledValue = value
        }
        return true
    }

    private mutating func scanContainer(
        name: StaticString, tag: Slice<UnsafeBufferPointer<UInt8>>, selfClosing: Bool, count: Int, depth: Int,
        note: inout XMLNodeNote, children: (inout XMLLayoutScanner) -> Bool
    ) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(UInt8(ascii: "<"))
        XMLCanonicalSpelling.append(name, to: &scratch)
        if selfClosing || count == 0 {
            XMLCanonicalSpelling.append("/>", to: &scratch)
            if !tag.elementsEqual(scratch) { note.startTag = Array(tag) }
            if selfClosing { return count == 0 }
        } else {
            scratch.append(UInt8(ascii: ">"))
            if !tag.elementsEqual(scratch) { note.startTag = Array(tag) }
        }
        guard children(&self) else { return false }
        let closingStart = pos
        skipTrivia()
        let closing = b[closingStart..<pos]
        if count == 0 {
            if !closing.isEmpty { note.closing = Array(closing) }
        } else if !isCanonicalBreak(closing, depth: depth) {
            note.closing = Array(closing)
        }
        guard matches("</"), let gt = find(UInt8(ascii: ">"), from: pos) else { return false }
        let endTag = b[pos...gt]
        pos = gt + 1
        scratch.removeAll(keepingCapacity: true)
        XMLCanonicalSpelling.append("</", to: &scratch)
        XMLCanonicalSpelling.append(name, to: &scratch)
        scratch.append(UInt8(ascii: ">"))
        if !endTag.elementsEqual(scratch) { note.endTag = Array(endTag) }
        return true
    }

    // MARK: Byte scanning

    /// The start tag at `pos` (up to its first `>`), and whether it closes itself.
    private mutating func scanStartTag() -> (Slice<UnsafeBufferPointer<UInt8>>, Bool)? {
        guard pos < b.count, b[pos] == UInt8(ascii: "<"), let gt = find(UInt8(ascii: ">"), from: pos) else { return nil }
        let tag = b[pos...gt]
        pos = gt + 1
        return (tag, gt > 0 && b[gt - 1] == UInt8(ascii: "/"))
    }

    /// Takes the document's line break and indentation unit from the gap between the root's
    /// start tag and its first child, when that gap is one break and a run of only tabs or only
    /// spaces.
    private mutating func detectIndentation() {
        guard let gt = find(UInt8(ascii: ">"), from: pos), gt > 0, b[gt - 1] != UInt8(ascii: "/") else { return }
        var i = gt + 1
        let lineBreak: [UInt8]
        if i + 1 < b.count, b[i] == 0x0D, b[i + 1] == 0x0A {
            lineBreak = [0x0D, 0x0A]
        } else if i < b.count, b[i] == 0x0A {
            lineBreak = [0x0A]
        } else {
            return
        }
        i += lineBreak.count
        let start = i
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        let run = b[start..<i]
        guard let first = run.first, run.allSatisfy({ $0 == first }), i < b.count, b[i] == UInt8(ascii: "<") else { return }
        layout.lineBreak = lineBreak
        layout.indentUnit = Array(run)
    }

    /// The document's line break followed by `depth` indentation units.
    private func isCanonicalBreak(_ s: Slice<UnsafeBufferPointer<UInt8>>, depth: Int) -> Bool {
        let lb = layout.lineBreak, unit = layout.indentUnit
        guard s.count == lb.count + depth * unit.count, s.starts(with: lb) else { return false }
        var k = s.startIndex + lb.count
        for _ in 0..<depth {
            guard s[k..<(k + unit.count)].elementsEqual(unit) else { return false }
            k += unit.count
        }
        return true
    }

    /// Skips whitespace, comments, processing instructions and DOCTYPEs.
    private mutating func skipTrivia() {
        while pos < b.count {
            let c = b[pos]
            if XMLScalarSyntax.isASCIISpace(c) {
                pos += 1
            } else if matches("<!--") {
                pos = findSequence("-->", from: pos + 4).map { $0 + 3 } ?? b.count
            } else if matches("<?") {
                pos = findSequence("?>", from: pos + 2).map { $0 + 2 } ?? b.count
            } else if matches("<!"), !matches("<![CDATA[") {
                pos = find(UInt8(ascii: ">"), from: pos).map { $0 + 1 } ?? b.count
            } else {
                return
            }
        }
    }

    private func matches(_ s: StaticString) -> Bool { XMLMarkupPrescan.matches(b, s, at: pos) }

    private func find(_ c: UInt8, from start: Int) -> Int? {
        var i = start
        while i < b.count {
            if b[i] == c { return i }
            i += 1
        }
        return nil
    }

    private func findSequence(_ s: StaticString, from start: Int) -> Int? { XMLMarkupPrescan.find(b, s, from: start) }
}
