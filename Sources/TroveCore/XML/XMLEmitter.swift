/// One write following a document's notes: the output buffer and the notes being followed
/// (``XMLCanonicalEmitter`` writes a value without notes).
///
/// Nesting is walked with an explicit stack of open containers (`OpenContainer`), never by
/// recursion, so a value at the depth ceiling fits a small thread stack. The stack is a local of
/// `writeDocument(_:)`'s loop, which passes each child to `writeNode` straight from it, lent
/// rather than copied.
///
/// Notes are sparse (a file Apple wrote has a handful, for a `&apos;` or a hex integer), so the
/// walk is shaped for the nodes without one: the original node numbers it visits only increase,
/// so whether a node has a note and the shape of its original container are found by cursors
/// that move forward (``XMLNoteCursor``, ``XMLContainerShapes/shape(at:place:)``), and a node
/// without a note is written as ``XMLCanonicalEmitter`` writes it, straight from its value. Only
/// a noted node goes through the note's spellings (`XMLEmitter+Notes.swift`).
struct XMLEmitter: ~Copyable {
    var out = ByteBuffer(capacity: 4096)
    let layout: XMLLayout
    let maxDepth: Int
    /// Counts what is written, so a shared container cannot expand without end.
    var meter = LimitMeter(limits: .default)
    var scratch = ByteBuffer()
    /// The document's line break and indentation.
    private let breaks: XMLIndentedBreaks
    /// The line break followed by `XMLIndentedBreaks.precomputedDepth` indent units, which
    /// `breaks` holds too: a copy in a buffer of the emitter's own, so that a break is one
    /// append rather than a walk into the breaks' arrays.
    private let breakRun: ByteBuffer
    private let lineBreakCount: Int
    private let unitCount: Int
    /// Which original nodes have a note.
    private var noted: XMLNodeOrderCursor<XMLNotedNode>
    /// The shapes of the original containers.
    private var shapes: XMLNodeOrderCursor<XMLContainerShapes.Entry>

    /// An array or dictionary whose start tag is written and whose end tag is not.
    struct OpenContainer {
        var cursor: PlistContainerCursor
        /// The node number of the original child whose notes the next child takes, while
        /// `originalChildrenLeft` is positive: children of an unchanged-kind container take the
        /// notes of the original children at the same position.
        var originalChild = 0
        var originalChildrenLeft = 0
        /// What the container's own note says about its children and its end; nil for a
        /// container without one, as nearly all are. A reference, so that the stack's entries
        /// stay small.
        let noted: NotedContainer?

        var name: StaticString { cursor.isDictionary ? "dict" : "array" }
    }

    /// The parts of a container's note that apply after its start tag.
    final class NotedContainer {
        /// Later occurrences of repeated keys to write back between the entries, with the
        /// dictionary whose current values decide whether each still applies.
        let repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary)?
        /// The noted gap before the end tag; nil for the standard break.
        let closing: [UInt8]?
        /// The noted end tag; nil for the canonical one.
        let endTag: [UInt8]?

        init(repeats: (entries: [XMLRepeatedEntry], dictionary: PlistDictionary)?, closing: [UInt8]?, endTag: [UInt8]?) {
            self.repeats = repeats
            self.closing = closing
            self.endTag = endTag
        }
    }

    init(layout: XMLLayout, maxDepth: Int) {
        self.layout = layout
        self.maxDepth = maxDepth
        breaks = XMLIndentedBreaks(lineBreak: layout.lineBreak, unit: layout.indentUnit)
        lineBreakCount = layout.lineBreak.count
        unitCount = layout.indentUnit.count
        var run = ByteBuffer(capacity: lineBreakCount + XMLIndentedBreaks.precomputedDepth * unitCount)
        run.append(contentsOf: layout.lineBreak)
        for _ in 0..<XMLIndentedBreaks.precomputedDepth { run.append(contentsOf: layout.indentUnit) }
        breakRun = run
        noted = XMLNodeOrderCursor(XMLNotedNode.sorted(layout.notes))
        shapes = layout.containers.cursor()
    }

    mutating func writeDocument(_ value: PlistValue) throws(PlistError) {
        out.append(contentsOf: layout.prolog ?? XMLCanonicalSpelling.prolog)
        // The open containers, outermost first; their cursors' current children make the key
        // path of the node being written. Room for typical nesting, so that the stack is
        // allocated once.
        var open: [OpenContainer] = []
        open.reserveCapacity(16)
        let rootShape = shapes.record(at: 0)?.shape
        if let root = try writeNode(value, old: 0, shape: rootShape, in: open) {
            open.append(root)
        }
        while let top = open.indices.last {
            if let repeats = open[top].noted?.repeats { writeRepeatedEntries(repeats, at: open[top].cursor.next) }
            guard let position = open[top].cursor.advance() else {
                closeContainer(open.removeLast(), depth: top)
                continue
            }
            let isDictionary = open[top].cursor.isDictionary
            var old: Int?
            var shape: XMLContainerShape?
            if open[top].originalChildrenLeft > 0 {
                let first = open[top].originalChild
                let valueIndex = isDictionary ? first + 1 : first
                shape = shapes.record(at: valueIndex)?.shape
                open[top].originalChild = valueIndex + (shape?.subtreeSize ?? 1)
                open[top].originalChildrenLeft -= 1
                old = first
            }
            if isDictionary {
                if let old, noted.hasRecord(at: old) {
                    writeNotedKey(open[top].cursor.keys[position], depth: top + 1, note: layout.notes[old])
                } else {
                    appendBreak(depth: top + 1)
                    out.append("<key>")
                    XMLCanonicalSpelling.appendEscaped(open[top].cursor.keys[position], to: &out)
                    out.append("</key>")
                }
                old = old.map { $0 + 1 }
            }
            // The child is read in place each time rather than bound to a local, which would
            // retain and release it; a scalar without a note returns nothing to open.
            if let old, noted.hasRecord(at: old) {
                if let opened = try writeNotedNode(
                    open[top].cursor.values[position], note: layout.notes[old], old: old, shape: shape, in: open)
                {
                    open.append(opened)
                }
            } else if open[top].cursor.values[position].isContainer {
                if let opened = try openContainer(open[top].cursor.values[position], old: old, shape: shape, in: open) {
                    open.append(opened)
                }
            } else {
                try writeScalar(open[top].cursor.values[position], in: open)
            }
        }
        out.append(contentsOf: layout.epilog ?? XMLCanonicalSpelling.epilog)
    }

    /// The path of the node being written below `open`.
    static func keyPath(_ open: [OpenContainer]) -> PlistKeyPath {
        PlistContainerCursor.keyPath(open.lazy.map(\.cursor))
    }

    /// A line break and indentation, as the document spelled them: one append from the
    /// precomputed run up to its depth.
    @inline(__always)
    mutating func appendBreak(depth: Int) {
        if depth <= XMLIndentedBreaks.precomputedDepth {
            // At most the run's length: the depth is bounded just above.
            out.append(prefix: lineBreakCount &+ depth &* unitCount, of: breakRun)
        } else {
            appendDeepBreak(depth: depth)
        }
    }

    @inline(never)
    private mutating func appendDeepBreak(depth: Int) {
        breaks.append(depth: depth, to: &out)
    }

    /// Writes one node below the containers in `open` (the root when it is empty): a scalar
    /// whole, a container up to its children, returning it to be opened (nil when it was written
    /// whole). `old` is its original node number and `shape` the shape of the original node when
    /// it was a container.
    private mutating func writeNode(
        _ value: PlistValue, old: Int?, shape: XMLContainerShape?, in open: [OpenContainer]
    ) throws(PlistError) -> OpenContainer? {
        if let old, noted.hasRecord(at: old) {
            return try writeNotedNode(value, note: layout.notes[old], old: old, shape: shape, in: open)
        }
        if value.isContainer { return try openContainer(value, old: old, shape: shape, in: open) }
        try writeScalar(value, in: open)
        return nil
    }

    /// Writes a scalar without a note: CF's spelling, straight into the output. The limits are
    /// counted per case, as the canonical emitter counts them, rather than by taking the value
    /// apart twice. The cases repeat `XMLCanonicalEmitter.writeNode`'s on purpose: one shared
    /// function, called after the emitter's own switch on containers, dispatched on the value a
    /// second time and cost the plain XML write 1.3-2.7% more instructions.
    private mutating func writeScalar(_ value: PlistValue, in open: [OpenContainer]) throws(PlistError) {
        if let exceeded = meter.countValue() { throw limitError(exceeded, open) }
        let depth = open.count
        if depth > 0 { appendBreak(depth: depth) }
        switch value {
        case .string(let s):
            if let exceeded = meter.countBytes(s.utf8.count) { throw limitError(exceeded, open) }
            out.append("<string>")
            XMLCanonicalSpelling.appendEscaped(s, to: &out)
            out.append("</string>")
        case .integer(let n):
            out.append("<integer>")
            out.appendDecimal(n)
            out.append("</integer>")
        case .real(let r):
            out.append("<real>")
            XMLCanonicalSpelling.appendReal(r.value, to: &out)
            out.append("</real>")
        case .bool(let b):
            out.append(b ? "<true/>" : "<false/>")
        case .date(let d):
            out.append("<date>")
            XMLCanonicalSpelling.appendDate(d, to: &out)
            out.append("</date>")
        case .data(let d):
            if let exceeded = meter.countBytes(d.count) { throw limitError(exceeded, open) }
            out.append("<data>")
            XMLCanonicalSpelling.appendDataContent(d, depth: depth, to: &out)
            out.append("</data>")
        case .uid(let u):
            out.append("<dict>")
            XMLCanonicalSpelling.appendUIDContent(u, depth: depth, to: &out)
            out.append("</dict>")
        case .null:
            throw PlistError(
                .unsupportedValue, format: .xml, keyPath: Self.keyPath(open), "XML property lists cannot hold null")
        case .array, .dictionary:
            preconditionFailure("containers are opened by openContainer")
        }
    }

    /// Writes the start tag of an array or dictionary without a note and returns it to be
    /// opened, or writes it whole when it is empty and returns nil.
    private mutating func openContainer(
        _ value: PlistValue, old: Int?, shape: XMLContainerShape?, in open: [OpenContainer]
    ) throws(PlistError) -> OpenContainer? {
        if let exceeded = meter.countValue() { throw limitError(exceeded, open) }
        let depth = open.count
        if depth > 0 { appendBreak(depth: depth) }
        switch value {
        case .array(let elements):
            try checkDepth(depth, open)
            guard !elements.isEmpty else {
                out.append("<array/>")
                return nil
            }
            out.append("<array>")
            return Self.opened(PlistContainerCursor(array: elements), old: old, shape: shape, noted: nil)
        case .dictionary(let d):
            var keyBytes = 0
            for key in d.keys { keyBytes = keyBytes.saturatingAdd(key.utf8.count) }
            if let exceeded = meter.countBytes(keyBytes) { throw limitError(exceeded, open) }
            try checkDepth(depth, open)
            guard !d.isEmpty else {
                out.append("<dict/>")
                return nil
            }
            out.append("<dict>")
            // With notes, the value's own order is the document's.
            return Self.opened(PlistContainerCursor(dictionary: d), old: old, shape: shape, noted: nil)
        default:
            preconditionFailure("scalars are written by writeScalar")
        }
    }

    /// A container whose start tag is written, its children numbered from `old + 1` while the
    /// original node was a container of the same kind (`shape`), each original child's subtree
    /// skipped over to reach the next.
    @inline(__always)
    static func opened(
        _ cursor: consuming PlistContainerCursor, old: Int?, shape: XMLContainerShape?, noted: NotedContainer?
    ) -> OpenContainer {
        guard let old, let shape, shape.isDictionary == cursor.isDictionary else {
            return OpenContainer(cursor: cursor, noted: noted)
        }
        return OpenContainer(cursor: cursor, originalChild: old + 1, originalChildrenLeft: shape.childCount, noted: noted)
    }

    /// Writes the end of a container at `depth` whose children are all written.
    private mutating func closeContainer(_ container: consuming OpenContainer, depth: Int) {
        guard let noted = container.noted else {
            appendBreak(depth: depth)
            out.append(container.cursor.isDictionary ? "</dict>" : "</array>")
            return
        }
        if let closing = noted.closing {
            out.append(contentsOf: closing)
        } else {
            appendBreak(depth: depth)
        }
        appendEndTag(container.name, noted.endTag)
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

    func limitError(_ exceeded: PlistLimit, _ open: [OpenContainer]) -> PlistError {
        meter.limits.error(exceeding: exceeded, format: .xml, keyPath: Self.keyPath(open))
    }

    func checkDepth(_ depth: Int, _ open: [OpenContainer]) throws(PlistError) {
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .xml, keyPath: Self.keyPath(open),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
    }
}
