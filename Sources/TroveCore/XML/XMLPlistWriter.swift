import Foundation

/// Writes XML property lists.
///
/// Without a layout the output is byte-identical to CoreFoundation's XML writer (what
/// `plutil -convert xml1` prints): the Apple header, tab indentation, dictionary keys sorted by
/// UTF-16 code units, `&`/`<`/`>` escaped, reals as `%.17g`, base64 wrapped at 76 columns.
///
/// With the ``XMLLayout`` of a document that was read, the output follows the notes: keys stay
/// in the value's order (document order for a value that was read), and every node whose value
/// is unchanged is spelled as it was, so an unedited document comes back byte for byte and an
/// edited one differs only where it was edited.
public struct XMLPlistWriter: Sendable {
    /// Bounds on what is written: ``PlistLimits/maxDepth`` (deeper values could not be read
    /// back), and ``PlistLimits/maxExpandedValues`` and ``PlistLimits/maxDecodedBytes``, which
    /// stop a value whose shared containers would expand without end.
    public var limits: PlistLimits
    /// The deepest nesting written: `limits.maxDepth`, at most ``PlistLimits/depthCeiling``.
    public var maxDepth: Int {
        get { limits.maxDepth }
        set { limits.maxDepth = newValue }
    }

    /// A writer that refuses values nested deeper than `maxDepth` (CF's macOS limit by default).
    public init(maxDepth: Int = PlistLimits.default.maxDepth) {
        self.limits = PlistLimits(maxDepth: maxDepth)
    }

    /// A writer with the given limits.
    public init(limits: PlistLimits) {
        self.limits = limits
    }

    /// The document for `value`, following `layout` when given.
    /// - Throws: ``PlistError`` `.unsupportedValue` for ``PlistValue/null`` (XML has no null),
    ///   `.depthLimit` beyond ``maxDepth``, `.badEncoding` when the layout's 8-bit encoding
    ///   cannot hold a character of the value.
    public func write(_ value: PlistValue, layout: XMLLayout? = nil) throws(PlistError) -> [UInt8] {
        let bytes = try emitUTF8(value, layout: layout).array
        guard let layout, layout.encoding != .standard else { return bytes }
        return try XMLTranscoder.encode(bytes, as: layout.encoding)
    }

    /// The same document as `Data` that owns the emitter's buffer (UTF-8 documents; others are
    /// transcoded as ``write(_:layout:)`` does), so that `Plist.write` does not copy it twice.
    func writeData(_ value: PlistValue, layout: XMLLayout? = nil) throws(PlistError) -> Data {
        if let layout, layout.encoding != .standard { return Data(try write(value, layout: layout)) }
        return try emitUTF8(value, layout: layout).data()
    }

    /// The UTF-8 document for `value`: CoreFoundation's without a layout; following `layout`
    /// otherwise, which for a layout without notes (a document CF or Trove wrote, read
    /// losslessly and perhaps edited) is CoreFoundation's with the value's own key order.
    private func emitUTF8(_ value: PlistValue, layout: XMLLayout?) throws(PlistError) -> ByteBuffer {
        guard let layout, layout.hasNotes else {
            var emitter = XMLCanonicalEmitter(maxDepth: maxDepth, limits: limits, keepsKeyOrder: layout != nil)
            try emitter.writeDocument(value)
            return emitter.out
        }
        var emitter = XMLEmitter(layout: layout, maxDepth: maxDepth)
        emitter.meter = LimitMeter(limits: limits)
        try emitter.writeDocument(value)
        return emitter.out
    }
}

/// One write following a document's notes: the output buffer and the notes being followed
/// (``XMLCanonicalEmitter`` writes a value without notes).
///
/// Nesting is walked with an explicit stack of open containers (`OpenContainer`), never by
/// recursion, so a value at the depth ceiling fits a small thread stack. The stack is a local of
/// `writeDocument(_:)`'s loop, which passes each child to `writeNode(_:old:isRoot:in:)`
/// straight from it, lent rather than copied.
struct XMLEmitter: ~Copyable {
    var out = ByteBuffer(capacity: 4096)
    let layout: XMLLayout
    let maxDepth: Int
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)
    private var scratch = ByteBuffer()
    /// The document's line break and indentation.
    private let breaks: XMLIndentedBreaks

    /// An array or dictionary whose start tag is written and whose end tag is not.
    private struct OpenContainer {
        var cursor: PlistContainerCursor
        /// The node number of the original child whose notes the next child takes, while
        /// `originalChildrenLeft` is positive: children of an unchanged-kind container take the
        /// notes of the original children at the same position.
        var originalChild = 0
        var originalChildrenLeft = 0
        /// Later occurrences of repeated keys to write back between the entries, with the
        /// dictionary whose current values decide whether each still applies.
        let repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary)?
        /// The noted gap before the end tag; nil for the standard break.
        let closing: [UInt8]?
        /// The noted end tag; nil for the canonical one.
        let endTag: [UInt8]?

        var name: StaticString { cursor.isDictionary ? "dict" : "array" }
    }

    init(layout: XMLLayout, maxDepth: Int) {
        self.layout = layout
        self.maxDepth = maxDepth
        breaks = XMLIndentedBreaks(lineBreak: layout.lineBreak, unit: layout.indentUnit)
    }

    mutating func writeDocument(_ value: PlistValue) throws(PlistError) {
        out.append(contentsOf: layout.prolog ?? XMLCanonicalSpelling.prolog)
        // The open containers, outermost first; their cursors' current children make the key
        // path of the node being written.
        var open: [OpenContainer] = []
        if let root = try writeNode(value, old: 0, isRoot: true, in: open) {
            open.append(root)
        }
        while let top = open.indices.last {
            if let repeats = open[top].repeats { writeRepeatedEntries(repeats, at: open[top].cursor.next) }
            guard let position = open[top].cursor.advance() else {
                closeContainer(open.removeLast(), depth: top)
                continue
            }
            var old: Int?
            if open[top].originalChildrenLeft > 0 {
                let first = open[top].originalChild
                let valueIndex = open[top].cursor.isDictionary ? first + 1 : first
                open[top].originalChild = valueIndex + (layout.containers[valueIndex]?.subtreeSize ?? 1)
                open[top].originalChildrenLeft -= 1
                old = first
            }
            if open[top].cursor.isDictionary {
                writeKey(open[top].cursor.keys[position], depth: top + 1, old: old)
                old = old.map { $0 + 1 }
            }
            if let opened = try writeNode(open[top].cursor.values[position], old: old, in: open) {
                open.append(opened)
            }
        }
        out.append(contentsOf: layout.epilog ?? XMLCanonicalSpelling.epilog)
    }

    /// The path of the node being written below `open`.
    private static func keyPath(_ open: [OpenContainer]) -> PlistKeyPath {
        PlistContainerCursor.keyPath(open.lazy.map(\.cursor))
    }

    private func note(_ old: Int?) -> XMLNodeNote? {
        // Most documents written by Apple's software have no node notes; then nothing is hashed.
        guard let old, !layout.notes.isEmpty else { return nil }
        return layout.notes[old]
    }

    private mutating func appendLeading(_ note: XMLNodeNote?, depth: Int) {
        if let leading = note?.leading {
            out.append(contentsOf: leading)
        } else {
            appendBreak(depth: depth)
        }
    }

    /// A line break and indentation, as the document spelled them.
    private mutating func appendBreak(depth: Int) {
        breaks.append(depth: depth, to: &out)
    }

    /// Writes one node below the containers in `open`: a scalar whole, a container up to its
    /// children, returning it to be opened (nil when it was written whole). `old` is its
    /// original node number.
    private mutating func writeNode(
        _ value: PlistValue, old: Int?, isRoot: Bool = false, in open: [OpenContainer]
    ) throws(PlistError) -> OpenContainer? {
        if let exceeded = meter.count(value) {
            throw meter.limits.error(exceeding: exceeded, format: .xml, keyPath: Self.keyPath(open))
        }
        let depth = open.count
        let note = note(old)
        if !isRoot { appendLeading(note, depth: depth) }
        if let raw = note?.rawElement, let spelled = note?.spelledValue, Self.sameSpelling(spelled, value) {
            out.append(contentsOf: raw)
            return nil
        }
        switch value {
        case .null:
            throw PlistError(
                .unsupportedValue, format: .xml, keyPath: Self.keyPath(open), "XML property lists cannot hold null")
        case .array(let elements):
            return try openContainer(PlistContainerCursor(array: elements), old: old, note: note, in: open)
        case .dictionary(let d):
            // With notes, the value's own order is the document's.
            return try openContainer(PlistContainerCursor(dictionary: d), old: old, note: note, in: open, dictionary: d)
        default:
            writeScalar(value, depth: depth, note: note)
            return nil
        }
    }

    /// Writes the later occurrences of repeated keys noted at entry position `k` that still hold
    /// the dictionary's current value.
    private mutating func writeRepeatedEntries(
        _ repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary), at k: Int
    ) {
        for r in repeats.entries where r.position == k {
            if let current = repeats.dictionary[r.key], Self.sameSpelling(current, r.spelledValue) {
                out.append(contentsOf: r.raw)
            }
        }
    }

    private mutating func writeKey(_ key: String, depth: Int, old: Int?) {
        let note = note(old)
        appendLeading(note, depth: depth)
        writeScalar(.string(key), depth: depth, note: note, tagName: "key")
    }

    /// Writes a scalar's tags and content, using the note's spellings while they still fit.
    private mutating func writeScalar(
        _ value: PlistValue, depth: Int, note: XMLNodeNote?, tagName: StaticString? = nil
    ) {
        guard let note else {
            // No notes for this node: CF's spelling, written straight into the output.
            let tags = XMLCanonicalSpelling.scalarTags(value, isKey: tagName != nil)
            XMLCanonicalSpelling.append(tags.start, to: &out)
            if case .bool = value { return }
            XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &out)
            XMLCanonicalSpelling.append(tags.end, to: &out)
            return
        }
        let name = tagName ?? XMLCanonicalSpelling.elementName(value)
        scratch.removeAll()
        if let raw = note.content, let spelled = note.spelledValue, Self.sameSpelling(spelled, value) {
            scratch.append(contentsOf: raw)
        } else {
            XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        }
        let isBool: Bool
        if case .bool = value { isBool = true } else { isBool = false }
        if let start = note.startTag, Self.tagFits(start, name: name, value: value, isKeyTag: tagName != nil) {
            let selfClosing = Self.isSelfClosing(start)
            if !selfClosing || scratch.isEmpty {
                out.append(contentsOf: start)
                if !selfClosing {
                    out.append(contentsOf: scratch)
                    if let end = note.endTag, !end.isEmpty {
                        out.append(contentsOf: end)
                    } else {
                        out.append("</")
                        out.append(contentsOf: Self.tagName(start))
                        out.append(UInt8(ascii: ">"))
                    }
                }
                return
            }
        }
        if isBool {
            out.append(UInt8(ascii: "<"))
            XMLCanonicalSpelling.append(name, to: &out)
            XMLCanonicalSpelling.append("/>", to: &out)
            return
        }
        out.append(UInt8(ascii: "<"))
        XMLCanonicalSpelling.append(name, to: &out)
        out.append(UInt8(ascii: ">"))
        out.append(contentsOf: scratch)
        if note.startTag == nil, let end = note.endTag, Self.tagName(end).elementsEqual(Self.bytes(name)) {
            out.append(contentsOf: end)
        } else {
            XMLCanonicalSpelling.append("</", to: &out)
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
    }

    /// Writes a container's start tag and returns it to be opened, or writes it whole when it is
    /// empty and returns nil.
    private mutating func openContainer(
        _ cursor: consuming PlistContainerCursor, old: Int?, note: XMLNodeNote?, in open: [OpenContainer],
        dictionary: PlistDictionary? = nil
    ) throws(PlistError) -> OpenContainer? {
        let depth = open.count
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .xml, keyPath: Self.keyPath(open),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
        let isDictionary = cursor.isDictionary
        let name: StaticString = isDictionary ? "dict" : "array"
        let shape: XMLContainerShape? = old.flatMap { layout.containers[$0] }.flatMap {
            $0.isDictionary == isDictionary ? $0 : nil
        }
        let start = note?.startTag.flatMap { Self.tagName($0).elementsEqual(Self.bytes(name)) ? $0 : nil }
        let endTag = note?.endTag.flatMap {
            !$0.isEmpty && Self.tagName($0).elementsEqual(Self.bytes(name)) ? $0 : nil
        }
        if cursor.count == 0 {
            if let start, shape?.childCount == 0 {
                out.append(contentsOf: start)
                if !Self.isSelfClosing(start) {
                    out.append(contentsOf: note?.closing ?? [])
                    appendEndTag(name, endTag)
                }
            } else {
                out.append(UInt8(ascii: "<"))
                XMLCanonicalSpelling.append(name, to: &out)
                XMLCanonicalSpelling.append("/>", to: &out)
            }
            return nil
        }
        if let start, !Self.isSelfClosing(start) {
            out.append(contentsOf: start)
        } else {
            out.append(UInt8(ascii: "<"))
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
        var repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary)?
        if let entries = note?.repeatedEntries, !entries.isEmpty, let dictionary {
            repeats = (entries, dictionary)
        }
        // The original children are numbered from old + 1, each original child's subtree skipped
        // over to reach the next.
        var originalChild = 0
        var originalChildrenLeft = 0
        if let shape, let old {
            originalChild = old + 1
            originalChildrenLeft = shape.childCount
        }
        return OpenContainer(
            cursor: cursor, originalChild: originalChild, originalChildrenLeft: originalChildrenLeft,
            repeats: repeats, closing: shape == nil ? nil : note?.closing, endTag: endTag)
    }

    /// Writes the end of a container at `depth` whose children are all written.
    private mutating func closeContainer(_ container: consuming OpenContainer, depth: Int) {
        if let closing = container.closing {
            out.append(contentsOf: closing)
        } else {
            appendBreak(depth: depth)
        }
        appendEndTag(container.name, container.endTag)
    }

    /// Writes `endTag`, a noted end tag that names the element, or the canonical one.
    private mutating func appendEndTag(_ name: StaticString, _ endTag: [UInt8]?) {
        if let endTag {
            out.append(contentsOf: endTag)
        } else {
            XMLCanonicalSpelling.append("</", to: &out)
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
    }

    // MARK: Note checks

    /// Values compared as strictly as their spelling demands: strings by UTF-8 bytes (Swift's
    /// `==` equates canonically equivalent strings), reals and dates by bit pattern.
    static func sameSpelling(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.hasSameUTF8(as: y)
        case let (.real(x), .real(y)): return x.value.bitPattern == y.value.bitPattern
        case let (.date(x), .date(y)): return x.secondsSinceReferenceDate.bitPattern == y.secondsSinceReferenceDate.bitPattern
        default: return a == b
        }
    }

    /// Whether a recorded start tag may spell `value`: same element name, or `<key>` for a
    /// string standing as a value.
    private static func tagFits(_ tag: [UInt8], name: StaticString, value: PlistValue, isKeyTag: Bool) -> Bool {
        let spelled = tagName(tag)
        if spelled.elementsEqual(bytes(name)) { return true }
        if !isKeyTag, case .string = value, spelled.elementsEqual("key".utf8) { return true }
        return false
    }

    static func isSelfClosing(_ tag: [UInt8]) -> Bool {
        tag.count >= 2 && tag[tag.count - 2] == UInt8(ascii: "/") && tag[tag.count - 1] == UInt8(ascii: ">")
    }

    /// The element name of `<name ...>` or `</name>`.
    static func tagName<Tag: Collection<UInt8>>(_ tag: Tag) -> Tag.SubSequence {
        var i = tag.startIndex
        while i != tag.endIndex, tag[i] == UInt8(ascii: "<") || tag[i] == UInt8(ascii: "/") { i = tag.index(after: i) }
        var j = i
        while j != tag.endIndex, !XMLMarkupPrescan.endsName(tag[j]) { j = tag.index(after: j) }
        return tag[i..<j]
    }

    static func bytes(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
    }
}
