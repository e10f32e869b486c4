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
        var emitter = XMLEmitter(layout: layout, maxDepth: maxDepth)
        emitter.meter = LimitMeter(limits: limits)
        try emitter.writeDocument(value)
        guard let layout, layout.encoding != .standard else { return emitter.out }
        return try XMLTranscoder.encode(emitter.out, as: layout.encoding)
    }
}

/// One write: the output buffer and the notes being followed.
struct XMLEmitter {
    var out: [UInt8] = []
    let layout: XMLLayout?
    let maxDepth: Int
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)
    private var scratch: [UInt8] = []
    /// Where the node being written sits, for errors. Array positions stay integers until an
    /// error needs them: formatting one string per element would cost more than the element.
    private var keyPathSteps: [KeyPathStep] = []

    private enum KeyPathStep {
        case index(Int)
        case key(String)
    }

    private var keyPath: [String] {
        keyPathSteps.map { step in
            switch step {
            case .index(let i): return String(i)
            case .key(let key): return key
            }
        }
    }

    init(layout: XMLLayout?, maxDepth: Int) {
        self.layout = layout
        self.maxDepth = maxDepth
        out.reserveCapacity(4096)
    }

    mutating func writeDocument(_ value: PlistValue) throws(PlistError) {
        out.append(contentsOf: layout?.prolog ?? XMLCanonicalSpelling.prolog)
        try writeNode(value, depth: 0, old: layout == nil ? nil : 0, isRoot: true)
        out.append(contentsOf: layout?.epilog ?? XMLCanonicalSpelling.epilog)
    }

    private func note(_ old: Int?) -> XMLNodeNote? {
        guard let old, let layout else { return nil }
        return layout.notes[old]
    }

    private mutating func appendLeading(_ note: XMLNodeNote?, depth: Int) {
        if let leading = note?.leading {
            out.append(contentsOf: leading)
        } else {
            appendBreak(depth: depth)
        }
    }

    /// A line break and indentation: CF's newline and tabs, or the document's own.
    private mutating func appendBreak(depth: Int) {
        guard let layout else {
            out.append(0x0A)
            XMLCanonicalSpelling.appendTabs(depth, to: &out)
            return
        }
        out.append(contentsOf: layout.lineBreak)
        for _ in 0..<depth { out.append(contentsOf: layout.indentUnit) }
    }

    private mutating func writeNode(_ value: PlistValue, depth: Int, old: Int?, isRoot: Bool = false) throws(PlistError) {
        if let exceeded = meter.count(value) {
            throw meter.limits.error(exceeding: exceeded, format: .xml, keyPath: PlistKeyPath(components: keyPath))
        }
        let note = note(old)
        if !isRoot { appendLeading(note, depth: depth) }
        if let raw = note?.rawElement, let spelled = note?.spelledValue, Self.sameSpelling(spelled, value) {
            out.append(contentsOf: raw)
            return
        }
        switch value {
        case .null:
            throw PlistError(
                .unsupportedValue, format: .xml, keyPath: PlistKeyPath(components: keyPath),
                "XML property lists cannot hold null")
        case .array(let elements):
            try writeContainer(
                name: "array", isDictionary: false, count: elements.count, depth: depth, old: old, note: note
            ) { (emitter: inout XMLEmitter, childDepth: Int, oldChild: (Int) -> Int?) throws(PlistError) in
                for (k, element) in elements.enumerated() {
                    emitter.keyPathSteps.append(.index(k))
                    try emitter.writeNode(element, depth: childDepth, old: oldChild(k))
                    emitter.keyPathSteps.removeLast()
                }
            }
        case .dictionary(let d):
            // CF sorts keys; a permutation of positions does that without copying and
            // rehashing the dictionary.
            let order: [Int]? = layout == nil ? Self.sortedPositions(d) : nil
            let keys = d.storage.keys
            let values = d.storage.values
            let repeats = note?.repeatedEntries ?? []
            try writeContainer(
                name: "dict", isDictionary: true, count: d.count, depth: depth, old: old, note: note
            ) { (emitter: inout XMLEmitter, childDepth: Int, oldChild: (Int) -> Int?) throws(PlistError) in
                func writeRepeats(at position: Int, into emitter: inout XMLEmitter) {
                    for r in repeats where r.position == position {
                        if let current = d[r.key], Self.sameSpelling(current, r.spelledValue) {
                            emitter.out.append(contentsOf: r.raw)
                        }
                    }
                }
                for k in 0..<keys.count {
                    if !repeats.isEmpty { writeRepeats(at: k, into: &emitter) }
                    let position = order?[k] ?? k
                    let key = keys[position]
                    let keyOld = oldChild(k)
                    emitter.writeKey(key, depth: childDepth, old: keyOld)
                    emitter.keyPathSteps.append(.key(key))
                    try emitter.writeNode(values[position], depth: childDepth, old: keyOld.map { $0 + 1 })
                    emitter.keyPathSteps.removeLast()
                }
                if !repeats.isEmpty { writeRepeats(at: keys.count, into: &emitter) }
            }
        default:
            writeScalar(value, depth: depth, note: note)
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
        let name = tagName ?? XMLCanonicalSpelling.elementName(value)
        scratch.removeAll(keepingCapacity: true)
        if let raw = note?.content, let spelled = note?.spelledValue, Self.sameSpelling(spelled, value) {
            scratch.append(contentsOf: raw)
        } else {
            XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        }
        let isBool: Bool
        if case .bool = value { isBool = true } else { isBool = false }
        if let start = note?.startTag, Self.tagFits(start, name: name, value: value, isKeyTag: tagName != nil) {
            let selfClosing = Self.isSelfClosing(start)
            if !selfClosing || scratch.isEmpty {
                out.append(contentsOf: start)
                if !selfClosing {
                    out.append(contentsOf: scratch)
                    if let end = note?.endTag, !end.isEmpty {
                        out.append(contentsOf: end)
                    } else {
                        out.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
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
        if note?.startTag == nil, let end = note?.endTag, Self.tagName(end).elementsEqual(Self.bytes(name)) {
            out.append(contentsOf: end)
        } else {
            XMLCanonicalSpelling.append("</", to: &out)
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
    }

    private mutating func writeContainer(
        name: StaticString, isDictionary: Bool, count: Int, depth: Int, old: Int?, note: XMLNodeNote?,
        children: (inout XMLEmitter, Int, (Int) -> Int?) throws(PlistError) -> Void
    ) throws(PlistError) {
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .xml, keyPath: PlistKeyPath(components: keyPath),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
        let shape: XMLContainerShape? = old.flatMap { layout?.containers[$0] }.flatMap {
            $0.isDictionary == isDictionary ? $0 : nil
        }
        let start = note?.startTag.flatMap { Self.tagName($0).elementsEqual(Self.bytes(name)) ? $0 : nil }
        if count == 0 {
            if let start, shape?.childCount == 0 {
                out.append(contentsOf: start)
                if !Self.isSelfClosing(start) {
                    out.append(contentsOf: note?.closing ?? [])
                    appendEndTag(name, note: note)
                }
            } else {
                out.append(UInt8(ascii: "<"))
                XMLCanonicalSpelling.append(name, to: &out)
                XMLCanonicalSpelling.append("/>", to: &out)
            }
            return
        }
        if let start, !Self.isSelfClosing(start) {
            out.append(contentsOf: start)
        } else {
            out.append(UInt8(ascii: "<"))
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
        // Children of an unchanged-kind container take the notes of the original children at
        // the same position; the numbering skips over each original child's subtree.
        var offsets: [Int] = []
        if let shape, let old {
            offsets.reserveCapacity(shape.childCount)
            var next = old + 1
            for _ in 0..<shape.childCount {
                offsets.append(next)
                let valueIndex = isDictionary ? next + 1 : next
                next = valueIndex + (layout?.containers[valueIndex]?.subtreeSize ?? 1)
            }
        }
        let lookup: (Int) -> Int? = { k in k < offsets.count ? offsets[k] : nil }
        try children(&self, depth + 1, lookup)
        if let closing = note?.closing, shape != nil {
            out.append(contentsOf: closing)
        } else {
            appendBreak(depth: depth)
        }
        appendEndTag(name, note: note)
    }

    private mutating func appendEndTag(_ name: StaticString, note: XMLNodeNote?) {
        if let end = note?.endTag, !end.isEmpty, Self.tagName(end).elementsEqual(Self.bytes(name)) {
            out.append(contentsOf: end)
        } else {
            XMLCanonicalSpelling.append("</", to: &out)
            XMLCanonicalSpelling.append(name, to: &out)
            out.append(UInt8(ascii: ">"))
        }
    }

    /// The positions of `d`'s entries in CF's key order (``PlistKeyOrder``).
    static func sortedPositions(_ d: PlistDictionary) -> [Int] {
        let keys = d.storage.keys
        return keys.indices.sorted { PlistKeyOrder.precedes(keys[$0], keys[$1]) }
    }

    // MARK: Note checks

    /// Values compared as strictly as their spelling demands: strings by UTF-8 bytes (Swift's
    /// `==` equates canonically equivalent strings), reals and dates by bit pattern.
    static func sameSpelling(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
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
