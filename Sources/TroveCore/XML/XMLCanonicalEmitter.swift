/// One write without layout notes: CoreFoundation's bytes for a value, keys sorted, or kept in
/// the value's order for a layout that has no notes.
///
/// ``XMLEmitter`` writes the same bytes when it has no notes, but every node there is placed
/// among the original nodes (its number, whether it has a note, its original shape); this loop
/// does none of that, and writes sorted keys. The walk is the same: an explicit stack of
/// cursors, never recursion, each child written straight from its cursor.
struct XMLCanonicalEmitter: ~Copyable {
    var out: ByteBuffer
    let maxDepth: Int
    /// Counts what is written, so a shared container cannot expand without end.
    var meter: LimitMeter
    /// Whether dictionaries are written in their own order rather than sorted: a document read
    /// losslessly keeps its key order, and one CF wrote had them sorted anyway.
    let keepsKeyOrder: Bool
    /// The sort's copies of the keys of the open cursors that have one (``PlistContainerCursor/hasKeyText``),
    /// innermost last.
    private var keyTexts: [SortedKeyText] = []

    init(maxDepth: Int, limits: PlistLimits, keepsKeyOrder: Bool = false, capacity: Int = 4096) {
        out = ByteBuffer(capacity: capacity)
        self.maxDepth = maxDepth
        meter = LimitMeter(limits: limits)
        self.keepsKeyOrder = keepsKeyOrder
    }

    mutating func writeDocument(_ value: PlistValue) throws(PlistError) {
        out.append(XMLCanonicalSpelling.prologText)
        // The open containers, outermost first; their current children make the key path of the
        // node being written. Room for typical nesting, so that the stack is allocated once.
        var open: [PlistContainerCursor] = []
        open.reserveCapacity(16)
        if let root = try writeNode(value, in: open) { open.append(root) }
        while let top = open.indices.last {
            guard let position = open[top].advance() else {
                let isDictionary = open[top].isDictionary
                if open[top].hasKeyText { keyTexts.removeLast() }
                open.removeLast()
                appendBreak(depth: top)
                out.append(isDictionary ? "</dict>" : "</array>")
                continue
            }
            if open[top].isDictionary {
                appendBreak(depth: top + 1)
                out.append("<key>")
                if open[top].hasKeyText {
                    let text = keyTexts[keyTexts.count - 1]
                    text.withKey(at: position) { XMLCanonicalSpelling.appendEscaped(utf8: $0, to: &out) }
                } else {
                    XMLCanonicalSpelling.appendEscaped(open[top].keys[position], to: &out)
                }
                out.append("</key>")
            }
            if let opened = try writeNode(open[top].values[position], in: open) { open.append(opened) }
        }
        out.append("\n</plist>\n")
    }

    /// A line break and `depth` tabs, in one append up to the depth the spelling holds.
    @inline(__always)
    private mutating func appendBreak(depth: Int) {
        let breaks = XMLCanonicalSpelling.breakText
        if depth < breaks.utf8CodeUnitCount {
            out.append(breaks.utf8Start, count: depth + 1)
        } else {
            out.append(0x0A)
            XMLCanonicalSpelling.appendTabs(depth, to: &out)
        }
    }

    /// Writes one node below the containers in `open`: a scalar whole, a container up to its
    /// children, returning its cursor to be opened (nil when it was written whole).
    private mutating func writeNode(_ value: PlistValue, in open: [PlistContainerCursor]) throws(PlistError) -> PlistContainerCursor? {
        // The limits are counted here rather than through `LimitMeter.count(_:)`, which takes the
        // value apart a second time (and retains its payload again) before this switch.
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
                .unsupportedValue, format: .xml, keyPath: PlistContainerCursor.keyPath(open),
                "XML property lists cannot hold null")
        case .array(let elements):
            try checkDepth(depth, open)
            guard !elements.isEmpty else {
                out.append("<array/>")
                return nil
            }
            out.append("<array>")
            return PlistContainerCursor(array: elements)
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
            if keepsKeyOrder { return PlistContainerCursor(dictionary: d) }
            let sorted = PlistContainerCursor.sortedKeys(of: d, by: PlistKeyOrder.self)
            if let text = sorted.text { keyTexts.append(text) }
            return PlistContainerCursor(dictionary: d, sortedKeys: sorted)
        }
        return nil
    }

    private func limitError(_ exceeded: PlistLimit, _ open: [PlistContainerCursor]) -> PlistError {
        meter.limits.error(exceeding: exceeded, format: .xml, keyPath: PlistContainerCursor.keyPath(open))
    }

    private func checkDepth(_ depth: Int, _ open: [PlistContainerCursor]) throws(PlistError) {
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .xml, keyPath: PlistContainerCursor.keyPath(open),
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
    }
}
