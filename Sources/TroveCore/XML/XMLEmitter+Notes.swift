/// The nodes ``XMLEmitter`` writes through their notes: each noted spelling (leading trivia, tags,
/// content, a whole element) is used while it still fits the node's current value, and CF's
/// spelling takes over for whatever no longer does.
extension XMLEmitter {
    /// Writes a node that has a note, as `writeNode` does for one without.
    mutating func writeNotedNode(
        _ value: PlistValue, note: XMLNodeNote?, old: Int, shape: XMLContainerShape?, in open: [OpenContainer]
    ) throws(PlistError) -> OpenContainer? {
        if let exceeded = meter.count(value) { throw limitError(exceeded, open) }
        let depth = open.count
        if depth > 0 { appendLeading(note, depth: depth) }
        if let raw = note?.rawElement, let spelled = note?.spelledValue, Self.sameSpelling(spelled, value) {
            out.append(contentsOf: raw)
            return nil
        }
        switch value {
        case .null:
            throw PlistError(
                .unsupportedValue, format: .xml, keyPath: Self.keyPath(open), "XML property lists cannot hold null")
        case .array(let elements):
            return try openNotedContainer(PlistContainerCursor(array: elements), old: old, shape: shape, note: note, in: open)
        case .dictionary(let d):
            // With notes, the value's own order is the document's.
            return try openNotedContainer(
                PlistContainerCursor(dictionary: d), old: old, shape: shape, note: note, in: open, dictionary: d)
        default:
            writeScalar(value, depth: depth, note: note)
            return nil
        }
    }

    /// Writes a dictionary key that has a note.
    mutating func writeNotedKey(_ key: String, depth: Int, note: XMLNodeNote?) {
        appendLeading(note, depth: depth)
        writeScalar(.string(key), depth: depth, note: note, tagName: "key")
    }

    private mutating func appendLeading(_ note: XMLNodeNote?, depth: Int) {
        if let leading = note?.leading {
            out.append(contentsOf: leading)
        } else {
            appendBreak(depth: depth)
        }
    }

    /// Writes a scalar's tags and content, using the note's spellings while they still fit.
    private mutating func writeScalar(
        _ value: PlistValue, depth: Int, note: XMLNodeNote?, tagName: StaticString? = nil
    ) {
        guard let note else {
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
            appendEmptyTag(name)
            return
        }
        appendStartTag(name)
        out.append(contentsOf: scratch)
        let endTag = note.startTag == nil ? note.endTag.flatMap { Self.tagName($0).elementsEqual(Self.bytes(name)) ? $0 : nil } : nil
        appendEndTag(name, endTag)
    }

    /// Writes the start tag of a container that has a note and returns it to be opened, or
    /// writes it whole when it is empty and returns nil. `shape` is the original node's.
    private mutating func openNotedContainer(
        _ cursor: consuming PlistContainerCursor, old: Int, shape: XMLContainerShape?, note: XMLNodeNote?,
        in open: [OpenContainer], dictionary: PlistDictionary? = nil
    ) throws(PlistError) -> OpenContainer? {
        let depth = open.count
        try checkDepth(depth, open)
        let isDictionary = cursor.isDictionary
        let name: StaticString = isDictionary ? "dict" : "array"
        // The original node's shape, while it was a container of the same kind.
        let shape = shape.flatMap { $0.isDictionary == isDictionary ? $0 : nil }
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
                appendEmptyTag(name)
            }
            return nil
        }
        if let start, !Self.isSelfClosing(start) {
            out.append(contentsOf: start)
        } else {
            appendStartTag(name)
        }
        var repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary)?
        if let entries = note?.repeatedEntries, !entries.isEmpty, let dictionary {
            repeats = (entries, dictionary)
        }
        let closing = shape == nil ? nil : note?.closing
        let noted = repeats == nil && closing == nil && endTag == nil
            ? nil : NotedContainer(repeats: repeats, closing: closing, endTag: endTag)
        return Self.opened(cursor, old: old, shape: shape, noted: noted)
    }

    /// Writes CF's `<name>`.
    private mutating func appendStartTag(_ name: StaticString) {
        out.append(UInt8(ascii: "<"))
        XMLCanonicalSpelling.append(name, to: &out)
        out.append(UInt8(ascii: ">"))
    }

    /// Writes CF's `<name/>`.
    private mutating func appendEmptyTag(_ name: StaticString) {
        out.append(UInt8(ascii: "<"))
        XMLCanonicalSpelling.append(name, to: &out)
        XMLCanonicalSpelling.append("/>", to: &out)
    }

    /// Writes `endTag`, a noted end tag that names the element, or the canonical one.
    mutating func appendEndTag(_ name: StaticString, _ endTag: [UInt8]?) {
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
