import Foundation

/// Derives an ``XMLLayout`` from a document that libxml2 has already accepted, by walking its
/// UTF-8 bytes alongside the value read from them and comparing each piece with what the
/// canonical writer would produce.
///
/// The walk follows CF's tag rules (a tag ends at its first `>`), so it agrees with the reader on
/// every document the reader accepts. Should the bytes and the value ever disagree, it gives up
/// and the document is simply written canonically.
struct XMLLayoutScanner: ~Copyable {
    private let b: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private var counter = 0
    private var layout: XMLLayout
    private var scratch = ByteBuffer()
    private let expectRepeatedKeys: Bool
    /// The layout's line break and indentation, once `detectIndentation` has found them.
    private var breaks = XMLIndentedBreaks.canonical

    /// An array or dictionary whose start tag has been scanned and whose end tag has not.
    private struct OpenContainer {
        var cursor: PlistContainerCursor
        /// Its node number.
        let index: Int
        // What its start differed in, the only two parts a container's start can have; the rest
        // is known when it closes. Ranges, so the frame moves without reference counting.
        let leading: Range<Int>?
        let startTag: Range<Int>?
        /// Set for a dictionary when the document may repeat keys: entries are then scanned in
        /// the document's key order instead of with `cursor`.
        let repeatedKeys: RepeatedKeyWalk?
    }

    /// The entries of a dictionary as the document lists them, repeated keys included. A class,
    /// so that the rare dictionary that needs one keeps every other container's frame small.
    private final class RepeatedKeyWalk {
        let dictionary: PlistDictionary
        /// Every key element, in document order.
        let keys: [String]
        /// The document position of each key's last occurrence: the one whose value the
        /// dictionary holds.
        let lastOccurrence: [String: Int]
        var seen = Set<String>()
        /// The next document position in `keys`.
        var next = 0
        /// The dictionary entries scanned so far.
        var entryIndex = 0
        var repeats: [XMLRepeatedEntry] = []

        /// Reads the key elements ahead, leaving `scanner` where it was; nil when the entries do
        /// not scan.
        init?(scanning scanner: inout XMLLayoutScanner, _ dictionary: PlistDictionary) {
            self.dictionary = dictionary
            let start = scanner.pos
            var keys: [String] = []
            while true {
                let entryStart = scanner.pos
                scanner.skipTrivia()
                if scanner.pos >= scanner.b.count || scanner.matches("</") {
                    scanner.pos = entryStart
                    break
                }
                guard let key = scanner.readKeyElement() else { return nil }
                scanner.skipTrivia()
                guard scanner.skipElement() else { return nil }
                keys.append(key)
            }
            scanner.pos = start
            var lastOccurrence: [String: Int] = [:]
            for (j, key) in keys.enumerated() { lastOccurrence[key] = j }
            self.keys = keys
            self.lastOccurrence = lastOccurrence
        }
    }

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
        scanner.layout.containers.putInNodeOrder()
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
        guard scanTree(value) else { return false }
        let epilog = b[pos..<b.count]
        if !epilog.elementsEqual(XMLCanonicalSpelling.epilog) { layout.epilog = Array(epilog) }
        return true
    }

    /// Where one node's bytes differ from the canonical spelling, as ranges of the document.
    /// Plain integers: most nodes differ in nothing, and building and dropping an `XMLNodeNote`
    /// (seven optional arrays and an optional value) for each of them cost about a sixth of the
    /// whole scan in reference counting. The note is made only for a node that has differences.
    private struct NodeDifferences {
        var leading: Range<Int>?
        var startTag: Range<Int>?
        var endTag: Range<Int>?
        /// Set when the content is not the canonical spelling of the node's value, which the
        /// note then keeps as `spelledValue`.
        var content: Range<Int>?
        var closing: Range<Int>?

        var isEmpty: Bool {
            leading == nil && startTag == nil && endTag == nil && content == nil && closing == nil
        }

        /// The note holding the bytes of every differing part; `value` is the node's value,
        /// kept when its content differs.
        func note(in b: UnsafeBufferPointer<UInt8>, value: PlistValue?) -> XMLNodeNote {
            func bytes(_ r: Range<Int>?) -> [UInt8]? { r.map { Array(b[$0]) } }
            var note = XMLNodeNote()
            note.leading = bytes(leading)
            note.startTag = bytes(startTag)
            note.endTag = bytes(endTag)
            note.closing = bytes(closing)
            if let content {
                note.content = bytes(content)
                note.spelledValue = value
            }
            return note
        }
    }

    /// Keeps the note for node `index` when it differs from the canonical spelling at all.
    private mutating func record(_ differences: NodeDifferences, at index: Int, value: PlistValue) {
        if !differences.isEmpty { layout.notes[index] = differences.note(in: b, value: value) }
    }

    // MARK: Nodes

    /// Scans the root value element and everything in it. Nesting is walked with an explicit
    /// stack of open containers, so a document at the depth ceiling fits a small thread stack; the
    /// stack is a local of this loop, which lends each child to `scanNode(_:depth:isRoot:)`
    /// straight from it.
    private mutating func scanTree(_ root: PlistValue) -> Bool {
        var open: [OpenContainer] = []
        guard Self.record(scanNode(root, depth: 0, isRoot: true), in: &open) else { return false }
        while let top = open.indices.last {
            let depth = top + 1
            if let walk = open[top].repeatedKeys {
                switch scanNextEntry(of: walk, depth: depth) {
                case .failed: return false
                case .scanned: continue
                case .value(let child):
                    guard Self.record(scanNode(child, depth: depth), in: &open) else { return false }
                    continue
                case .end: break
                }
            } else if let position = open[top].cursor.advance() {
                if open[top].cursor.isDictionary {
                    guard scanKey(open[top].cursor.keys[position], depth: depth) else { return false }
                }
                guard Self.record(scanNode(open[top].cursor.values[position], depth: depth), in: &open) else {
                    return false
                }
                continue
            }
            guard closeContainer(open.removeLast(), depth: top) else { return false }
        }
        return true
    }

    /// What scanning the start of a value element came to.
    private enum NodeStep {
        /// The bytes did not match the value.
        case failed
        /// The whole element was scanned.
        case scanned
        /// A container's start tag was scanned; its children are next.
        case opened(OpenContainer)
    }

    /// Adds the container `step` opened, if any, to `open`; false when the scan failed.
    private static func record(_ step: consuming NodeStep, in open: inout [OpenContainer]) -> Bool {
        switch consume step {
        case .failed: return false
        case .scanned: return true
        case .opened(let container):
            open.append(container)
            return true
        }
    }

    /// Scans one value element at `depth` (with its leading trivia unless it is the root): a
    /// scalar whole, a container up to its children.
    private mutating func scanNode(_ value: PlistValue, depth: Int, isRoot: Bool = false) -> NodeStep {
        let index = counter
        counter += 1
        var note = NodeDifferences()
        if !isRoot { scanLeading(depth: depth, into: &note) }
        guard let (tag, selfClosing) = scanStartTag() else { return .failed }
        let name = XMLEmitter.tagName(tag)
        let expected = XMLCanonicalSpelling.elementName(value)
        var nameFits = Self.isTag(name, opening: "", name: expected, closing: "")
        if case .string = value, Self.isTag(name, opening: "", name: "key", closing: "") { nameFits = true }
        guard nameFits else { return .failed }

        let cursor: PlistContainerCursor
        switch value {
        case .array(let elements):
            cursor = PlistContainerCursor(array: elements)
        case .dictionary(let d):
            cursor = PlistContainerCursor(dictionary: d)
        default:
            guard scanScalarBody(value, name: expected, tag: tag, selfClosing: selfClosing, depth: depth, note: &note)
            else { return .failed }
            record(note, at: index, value: value)
            return .scanned
        }
        if selfClosing || cursor.count == 0 {
            if !Self.isTag(tag, opening: "<", name: expected, closing: "/>") { note.startTag = tag.range }
            if selfClosing {
                guard cursor.count == 0 else { return .failed }
                layout.containers.record(XMLContainerShape(
                    isDictionary: cursor.isDictionary, childCount: 0, subtreeSize: 1), at: index)
                record(note, at: index, value: value)
                return .scanned
            }
        } else if !Self.isTag(tag, opening: "<", name: expected, closing: ">") {
            note.startTag = tag.range
        }
        var repeatedKeys: RepeatedKeyWalk?
        if expectRepeatedKeys, case .dictionary(let d) = value {
            guard let walk = RepeatedKeyWalk(scanning: &self, d) else { return .failed }
            repeatedKeys = walk
        }
        return .opened(
            OpenContainer(
                cursor: cursor, index: index, leading: note.leading, startTag: note.startTag,
                repeatedKeys: repeatedKeys))
    }

    /// What scanning up to the next entry of a dictionary whose document may repeat keys came to.
    private enum EntryStep {
        /// The bytes did not match the value.
        case failed
        /// The entry's value element is next in the bytes (its key has been scanned).
        case value(PlistValue)
        /// A whole entry was scanned on the spot; go on.
        case scanned
        /// Every entry has been scanned; the dictionary's end is next.
        case end
    }

    /// Scans the gap before the end tag of a container at `depth` and the end tag, then records
    /// the container's notes.
    private mutating func closeContainer(_ container: consuming OpenContainer, depth: Int) -> Bool {
        var differences = NodeDifferences()
        differences.leading = container.leading
        differences.startTag = container.startTag
        let closingStart = pos
        skipTrivia()
        let closing = b[closingStart..<pos]
        if container.cursor.count == 0 {
            if !closing.isEmpty { differences.closing = closing.range }
        } else if !isCanonicalBreak(closing, depth: depth) {
            differences.closing = closing.range
        }
        guard matches("</"), let gt = find(UInt8(ascii: ">"), from: pos) else { return false }
        let endTag = b[pos...gt]
        pos = gt + 1
        if !Self.isTag(endTag, opening: "</", name: container.cursor.isDictionary ? "dict" : "array", closing: ">") {
            differences.endTag = endTag.range
        }
        var note: XMLNodeNote?
        if !differences.isEmpty { note = differences.note(in: b, value: nil) }
        if let repeats = container.repeatedKeys?.repeats, !repeats.isEmpty {
            note = note ?? XMLNodeNote()
            note?.repeatedEntries = repeats
        }
        let index = container.index
        layout.containers.record(XMLContainerShape(
            isDictionary: container.cursor.isDictionary, childCount: container.cursor.count,
            subtreeSize: counter - index), at: index)
        if let note { layout.notes[index] = note }
        return true
    }

    /// Scans up to the next entry of a dictionary whose document may repeat keys: the first
    /// occurrence of a repeated key holds the dictionary's position but not its value, so its
    /// value element is kept whole; later occurrences are kept whole as repeated entries.
    private mutating func scanNextEntry(of walk: RepeatedKeyWalk, depth: Int) -> EntryStep {
        let d = walk.dictionary
        guard walk.next < walk.keys.count else { return walk.entryIndex == d.count ? .end : .failed }
        let j = walk.next
        let key = walk.keys[j]
        walk.next += 1
        if walk.seen.contains(key) {
            let rawStart = pos
            skipTrivia()
            _ = readKeyElement()
            skipTrivia()
            guard skipElement(), let current = d[key] else { return .failed }
            let raw = Array(b[rawStart..<pos])
            walk.repeats.append(XMLRepeatedEntry(position: walk.entryIndex, key: key, spelledValue: current, raw: raw))
            return .scanned
        }
        walk.seen.insert(key)
        guard walk.entryIndex < d.count, d[walk.entryIndex].key.hasSameUTF8(as: key) else { return .failed }
        let value = d[walk.entryIndex].value
        walk.entryIndex += 1
        guard scanKey(key, depth: depth) else { return .failed }
        if walk.lastOccurrence[key] == j { return .value(value) }
        let index = counter
        var leading = NodeDifferences()
        scanLeading(depth: depth, into: &leading)
        var note = leading.note(in: b, value: nil)
        let elementStart = pos
        guard skipElement() else { return .failed }
        note.rawElement = Array(b[elementStart..<pos])
        note.spelledValue = value
        layout.notes[index] = note
        let size = Self.nodeCount(value)
        counter += size
        if case .dictionary = value {
            layout.containers.record(XMLContainerShape(isDictionary: true, childCount: 0, subtreeSize: size), at: index)
        } else if case .array = value {
            layout.containers.record(XMLContainerShape(isDictionary: false, childCount: 0, subtreeSize: size), at: index)
        }
        return .scanned
    }

    /// Nodes in a value's subtree, by the layout's numbering: one per value and one per key.
    static func nodeCount(_ value: PlistValue) -> Int {
        var count = 0
        var pending: [PlistValue] = [value]
        while let next = pending.popLast() {
            count += 1
            switch next {
            case .array(let elements):
                pending.append(contentsOf: elements)
            case .dictionary(let d):
                count += d.count
                pending.append(contentsOf: d.values)
            default:
                break
            }
        }
        return count
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
        var note = NodeDifferences()
        scanLeading(depth: depth, into: &note)
        guard let (tag, selfClosing) = scanStartTag(), Self.isTag(XMLEmitter.tagName(tag), opening: "", name: "key", closing: "") else {
            return false
        }
        guard scanScalarBody(.string(key), name: "key", tag: tag, selfClosing: selfClosing, depth: depth, note: &note)
        else { return false }
        record(note, at: index, value: .string(key))
        return true
    }

    private mutating func scanLeading(depth: Int, into note: inout NodeDifferences) {
        let start = pos
        skipTrivia()
        let leading = b[start..<pos]
        if !isCanonicalBreak(leading, depth: depth) { note.leading = leading.range }
    }

    /// Compares a scalar's tags and content with the canonical ones.
    private mutating func scanScalarBody(
        _ value: PlistValue, name: StaticString, tag: Slice<UnsafeBufferPointer<UInt8>>, selfClosing: Bool, depth: Int,
        note: inout NodeDifferences
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
        if !Self.isTag(tag, opening: "<", name: name, closing: isBool ? "/>" : ">") { note.startTag = tag.range }
        if isBool ? !endTag.isEmpty : !Self.isTag(endTag, opening: "</", name: name, closing: ">") {
            note.endTag = endTag.range
        }
        if !isCanonicalContent(content, of: value, depth: depth) {
            note.content = content.range
        }
        return true
    }

    /// Whether `content` is what the canonical writer spells `value` as. A string (most
    /// scalars, and every key) is compared in place: its canonical spelling is its own UTF-8
    /// unless it holds `&`, `<` or `>`, which a matching content would hold too.
    private mutating func isCanonicalContent(
        _ content: Slice<UnsafeBufferPointer<UInt8>>, of value: PlistValue, depth: Int
    ) -> Bool {
        if case .string(let text) = value,
            let plain = text.utf8.withContiguousStorageIfAvailable({ utf8 -> Bool in
                guard utf8.count == content.count else { return false }
                guard let base = content.base.baseAddress, let textBase = utf8.baseAddress else { return true }
                let start = base + content.startIndex
                return memcmp(start, textBase, utf8.count) == 0
                    && memchr(start, Int32(UInt8(ascii: "&")), utf8.count) == nil
                    && memchr(start, Int32(UInt8(ascii: ">")), utf8.count) == nil
            }), plain {
            return true
        }
        let decided: Bool?
        switch value {
        case .integer(let n): decided = XMLCanonicalSpelling.isCanonicalInteger(UnsafeBufferPointer(rebasing: content), n)
        case .date(let d): decided = XMLCanonicalSpelling.isCanonicalDate(UnsafeBufferPointer(rebasing: content), d)
        default: decided = nil
        }
        if let decided { return decided }
        scratch.removeAll()
        XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        return scratch.equals(content)
    }

    /// Whether `tag` is exactly `opening`, `name`, `closing`: the canonical tag, compared in
    /// place rather than spelled out first.
    @inline(__always)
    private static func isTag(
        _ tag: Slice<UnsafeBufferPointer<UInt8>>, opening: StaticString, name: StaticString, closing: StaticString
    ) -> Bool {
        let o = opening.utf8CodeUnitCount, n = name.utf8CodeUnitCount, c = closing.utf8CodeUnitCount
        guard tag.count == o + n + c, let base = tag.base.baseAddress else { return false }
        let start = base + tag.startIndex
        return memcmp(start, opening.utf8Start, o) == 0 && memcmp(start + o, name.utf8Start, n) == 0
            && memcmp(start + o + n, closing.utf8Start, c) == 0
    }

    // MARK: Byte scanning

    /// The start tag at `pos` (up to its first `>`), and whether it closes itself.
    private mutating func scanStartTag() -> (Slice<UnsafeBufferPointer<UInt8>>, Bool)? {
        guard pos < b.count, b[pos] == UInt8(ascii: "<"), let gt = XMLMarkupPrescan.findNear(b, UInt8(ascii: ">"), from: pos)
        else { return nil }
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
        breaks = XMLIndentedBreaks(lineBreak: layout.lineBreak, unit: layout.indentUnit)
    }

    /// The document's line break followed by `depth` indentation units.
    private func isCanonicalBreak(_ s: Slice<UnsafeBufferPointer<UInt8>>, depth: Int) -> Bool {
        breaks.matches(s, depth: depth)
    }

    /// Skips whitespace, comments, processing instructions and DOCTYPEs.
    private mutating func skipTrivia() {
        while pos < b.count {
            let c = b[pos]
            if XMLScalarSyntax.isASCIISpace(c) {
                pos += 1
            } else if c != UInt8(ascii: "<") || pos + 1 == b.count
                || (b[pos + 1] != UInt8(ascii: "!") && b[pos + 1] != UInt8(ascii: "?")) {
                // Text, or the element or end tag that ends the gap: the usual case, decided
                // without trying each kind of markup in turn.
                return
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

    private func find(_ c: UInt8, from start: Int) -> Int? { XMLMarkupPrescan.find(b, c, from: start) }

    private func findSequence(_ s: StaticString, from start: Int) -> Int? { XMLMarkupPrescan.find(b, s, from: start) }
}

extension Slice where Base == UnsafeBufferPointer<UInt8> {
    /// The slice's positions in the document.
    fileprivate var range: Range<Int> { startIndex..<endIndex }
}
