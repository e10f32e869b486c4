/// What a text format gives the splice writer wherever there is no original text to copy: its
/// punctuation, and new text for values and keys in the document's style.
protocol TextSpliceDialect {
    /// The format, for errors.
    var format: PlistFormat { get }
    /// The byte that ends an entry: `;` after an OpenStep dictionary entry, `,` otherwise.
    func separator(inDictionary: Bool) -> UInt8
    /// True when every entry, the last one too, must end with its separator.
    func separatorIsRequired(inDictionary: Bool) -> Bool
    /// Whether a container that had no entries ends its last new entry with a separator.
    func trailingSeparatorByDefault(inDictionary: Bool) -> Bool
    /// The byte between a key and its value: `=` or `:`.
    var keyMark: UInt8 { get }
    /// True when trivia may hold `//` and `/* */` comments.
    var hasComments: Bool { get }
    /// The key-to-value separator, with its spaces, where the document shows none to copy.
    func defaultMid(_ style: TextDocumentStyle) -> [UInt8]
    /// What separates entries on one line where the container shows nothing to copy.
    func oneLineSpace(_ style: TextDocumentStyle) -> [UInt8]
    /// One level of indentation where the document shows none.
    var defaultIndentUnit: [UInt8] { get }
    /// Appends the text of a new dictionary key; `sibling` is the first byte of a neighbouring
    /// key's text (which tells its quoting), if there is one.
    mutating func appendKey(_ key: String, sibling: UInt8?, style: TextDocumentStyle, to out: inout ByteBuffer)
        throws(PlistError)
    /// Appends new text for `value`, which starts a line indented by `context.indent` when it
    /// is a container.
    mutating func appendValue(_ value: PlistValue, _ context: TextFreshContext, to out: inout ByteBuffer)
        throws(PlistError)
}

/// Where new text for a value goes.
struct TextFreshContext {
    /// The indentation of the line the value is on.
    var indent: [UInt8]
    var style: TextDocumentStyle
    /// The first byte of the text the value replaces, or of a sibling value, which tells the
    /// quoting the document uses there; nil when there is none.
    var token: UInt8?
    /// How many levels of nesting the value may still open.
    var depthLeft: Int
}

/// How a document lays out text, taken from the document itself the first time new text needs
/// it: its line break, its unit of indentation, and the spacing around `=` or `:` and after a
/// separator on one line.
struct TextDocumentStyle {
    /// `\n`, `\r\n` or `\r`: the first line break of the document (`\n` when it has none).
    var lineBreak: [UInt8] = [0x0A]
    /// One level of indentation.
    var indentUnit: [UInt8]
    /// True when the root container spans lines, so new containers do too.
    var isMultiline = true
    /// The key-to-value separator of the first dictionary entry that has a plain one.
    var mid: [UInt8]?
    /// What follows a separator inside a one-line container.
    var listSpace: [UInt8] = []
    /// True when the document's text holds `\/` (JSON's optional escape of `/`).
    var escapesSlash = false
}

/// Writes a value over the text it was read from, following ``TextLayoutNotes``: the text of
/// every value that is unchanged is copied, and only what changed gets new text, from the
/// format's ``TextSpliceDialect``.
///
/// Containers are walked with an explicit stack of frames, never by recursion, so a value at the
/// depth ceiling fits a small thread stack. A frame holds the plan of an edited container: the
/// pieces of original text to copy and the children to place between them (see
/// `TextSplice+Entries.swift`).
struct TextSplice<Dialect: TextSpliceDialect>: ~Copyable {
    let notes: TextLayoutNotes
    var dialect: Dialect
    let maxDepth: Int
    var out: ByteBuffer
    private var cachedStyle: TextDocumentStyle?

    /// One step of writing an edited container.
    enum Piece {
        /// Original text, copied.
        case copy(Int32, Int32)
        /// New punctuation or trivia.
        case bytes([UInt8])
        /// A child that has original text: placed over node `node`, which read as `original`.
        case child(node: Int32, original: PlistValue, current: PlistValue, component: PlistKeyPath.Component)
        /// A child with no original text, written new on a line indented by `indent`.
        case fresh(PlistValue, indent: [UInt8], token: UInt8?, component: PlistKeyPath.Component)
        /// A new dictionary key; `sibling` as in ``TextSpliceDialect/appendKey(_:sibling:style:to:)``.
        case key(String, sibling: UInt8?)
    }

    /// An edited container being written.
    struct Frame {
        var pieces: [Piece]
        var next = 0
        /// Where the container is in its parent, for the key path of an error.
        var component: PlistKeyPath.Component?
    }

    init(notes: TextLayoutNotes, dialect: Dialect, maxDepth: Int) {
        self.notes = notes
        self.dialect = dialect
        self.maxDepth = maxDepth
        out = ByteBuffer(capacity: notes.text.count + 64)
    }

    /// Writes `value` as the document, in UTF-8.
    mutating func write(_ value: PlistValue) throws(PlistError) {
        let root = notes.nodes[0]
        copy(0, root.start)
        var frames: [Frame] = []
        try place(value, original: notes.value, node: 0, component: nil, frames: &frames)
        while let top = frames.indices.last {
            guard frames[top].next < frames[top].pieces.count else {
                frames.removeLast()
                continue
            }
            let piece = frames[top].pieces[frames[top].next]
            frames[top].next += 1
            switch piece {
            case .copy(let start, let end):
                copy(start, end)
            case .bytes(let bytes):
                out.append(contentsOf: bytes)
            case .child(let node, let original, let current, let component):
                try place(current, original: original, node: node, component: component, frames: &frames)
            case .fresh(let value, let indent, let token, let component):
                try fresh(value, indent: indent, token: token, path: Self.path(frames, component))
            case .key(let key, let sibling):
                let style = style()
                try dialect.appendKey(key, sibling: sibling, style: style, to: &out)
            }
        }
        copy(root.end, Int32(truncatingIfNeeded: notes.text.count))
    }

    /// Writes `current` where node `node` (read as `original`) was: its text copied when it is
    /// unchanged, a frame opened for an edited container of the same kind, new text otherwise.
    private mutating func place(
        _ current: PlistValue, original: PlistValue, node: Int32, component: PlistKeyPath.Component?,
        frames: inout [Frame]
    ) throws(PlistError) {
        let note = notes.nodes[Int(node)]
        let pieces: [Piece]?
        // A container that had no entries has no entry to copy the style of: one that gains
        // some is written new (a `.strings` body without braces excepted).
        let hasEntries = note.childCount > 0 || (node == 0 && notes.isBraceless)
        switch (current, original) {
        case (.dictionary(let now), .dictionary(let then)) where hasEntries || now.isEmpty:
            pieces = TextValueMatch.sameStorage(current, original) ? nil : dictionaryPlan(node: node, now: now, then: then)
        case (.array(let now), .array(let then)) where hasEntries || now.isEmpty:
            pieces = TextValueMatch.sameStorage(current, original) ? nil : arrayPlan(node: node, now: now, then: then)
        default:
            if !current.isContainer, TextValueMatch.sameScalar(current, original) {
                pieces = nil
            } else {
                let path = Self.path(frames, component)
                let token = byte(at: note.isShortcut ? note.entryStart : note.start)
                try fresh(current, indent: lineIndent(at: note.entryStart), token: token, path: path)
                return
            }
        }
        guard let pieces else {
            copy(note.start, note.end)
            return
        }
        guard frames.count < maxDepth else {
            throw PlistError(
                .depthLimit, format: dialect.format,
                keyPath: Self.path(frames, component), "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth)")
        }
        frames.append(Frame(pieces: pieces, component: component))
    }

    /// Writes new text for a value at the depth of the open frames (`path` says where).
    private mutating func fresh(
        _ value: PlistValue, indent: [UInt8], token: UInt8?, path: PlistKeyPath
    ) throws(PlistError) {
        let depth = path.components.count
        let context = TextFreshContext(indent: indent, style: style(), token: token, depthLeft: max(0, maxDepth - depth))
        do {
            try dialect.appendValue(value, context, to: &out)
        } catch {
            var located = error
            if depth > 0 {
                located.keyPath = PlistKeyPath(components: path.components + (error.keyPath?.components ?? []))
            }
            throw located
        }
    }

    /// The key path of a child at `component` of the innermost frame.
    private static func path(_ frames: [Frame], _ component: PlistKeyPath.Component?) -> PlistKeyPath {
        var components = frames.compactMap(\.component)
        if let component { components.append(component) }
        return PlistKeyPath(components: components)
    }

    mutating func copy(_ start: Int32, _ end: Int32) {
        guard start < end else { return }
        notes.text.withUnsafeBufferPointer { text in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[Int(start)..<Int(end)]))
        }
    }

    // MARK: Text around the values

    /// The byte at `position`, when the text has one there.
    func byte(at position: Int32) -> UInt8? {
        Int(position) < notes.text.count ? notes.text[Int(position)] : nil
    }

    /// The spaces and tabs that begin the line `position` is on.
    func lineIndent(at position: Int32) -> [UInt8] {
        let text = notes.text
        var lineStart = Int(position)
        while lineStart > 0, text[lineStart - 1] != 0x0A, text[lineStart - 1] != 0x0D { lineStart -= 1 }
        var end = lineStart
        while end < text.count, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
        return Array(text[lineStart..<end])
    }

    /// The document's style, found once.
    mutating func style() -> TextDocumentStyle {
        if let cachedStyle { return cachedStyle }
        let found = detectStyle()
        cachedStyle = found
        return found
    }

    private func detectStyle() -> TextDocumentStyle {
        let text = notes.text
        var style = TextDocumentStyle(indentUnit: dialect.defaultIndentUnit)
        if let lf = text.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            if text[lf] == 0x0D {
                style.lineBreak = lf + 1 < text.count && text[lf + 1] == 0x0A ? [0x0D, 0x0A] : [0x0D]
            }
        }
        let root = notes.nodes[0]
        style.isMultiline =
            notes.isBraceless
            || text[Int(root.start)..<Int(root.end)].contains { $0 == 0x0A || $0 == 0x0D }
        style.escapesSlash = zip(text, text.dropFirst()).contains { $0 == UInt8(ascii: "\\") && $1 == UInt8(ascii: "/") }
        // The indent unit: the first child on a line of its own, less its container's indentation.
        var foundUnit = false, foundMid = false, foundSpace = style.isMultiline
        for (number, node) in notes.nodes.enumerated() where node.childCount > 0 {
            let container = Int32(truncatingIfNeeded: number)
            let outer = lineIndent(at: node.start)
            for child in notes.children(of: container) {
                let entry = notes.nodes[Int(child)]
                if !foundUnit, startsLine(entry.entryStart) {
                    let inner = lineIndent(at: entry.entryStart)
                    if inner.count > outer.count, inner.starts(with: outer) {
                        style.indentUnit = Array(inner[outer.count...])
                        foundUnit = true
                    }
                }
                if !foundMid, entry.entryStart != entry.start, let mid = plainMid(before: entry.start) {
                    style.mid = Array(text[Int(mid)..<Int(entry.start)])
                    foundMid = true
                }
                if !foundSpace, entry.separator >= 0 {
                    var end = Int(entry.separator) + 1
                    while end < text.count, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
                    if end < text.count, text[end] != 0x0A, text[end] != 0x0D {
                        style.listSpace = Array(text[(Int(entry.separator) + 1)..<end])
                        foundSpace = true
                    }
                }
            }
            if foundUnit && foundMid && foundSpace { break }
        }
        return style
    }

    /// True when only spaces and tabs precede `position` on its line.
    func startsLine(_ position: Int32) -> Bool {
        var i = Int(position)
        while i > 0 {
            let c = notes.text[i - 1]
            if c == 0x0A || c == 0x0D { return true }
            if c != 0x20 && c != 0x09 { return false }
            i -= 1
        }
        return true
    }

    /// The start of a plain key-to-value separator (spaces, `=` or `:`, spaces) ending at
    /// `valueStart`, or nil when what precedes the value is anything else.
    func plainMid(before valueStart: Int32) -> Int32? {
        let text = notes.text
        var i = Int(valueStart)
        while i > 0, text[i - 1] == 0x20 || text[i - 1] == 0x09 { i -= 1 }
        guard i > 0, text[i - 1] == dialect.keyMark else { return nil }
        i -= 1
        while i > 0, text[i - 1] == 0x20 || text[i - 1] == 0x09 { i -= 1 }
        return Int32(truncatingIfNeeded: i)
    }
}

/// Exact comparisons that decide whether a value's original text still spells it.
enum TextValueMatch {
    /// True when two containers are the same storage (or both empty of the same kind): a value
    /// not edited since it was read, whose text can be copied whole.
    static func sameStorage(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.array(x), .array(y)): return ContainerIdentity(x) == ContainerIdentity(y)
        case let (.dictionary(x), .dictionary(y)): return ContainerIdentity(x) == ContainerIdentity(y)
        default: return false
        }
    }

    /// Scalars compared as strictly as their text spells them: strings by UTF-8 code units (`==`
    /// equates canonically equivalent strings), reals by bit pattern.
    static func sameScalar(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x.hasSameUTF8(as: y)
        case let (.real(x), .real(y)): return x.value.bitPattern == y.value.bitPattern
        case let (.date(x), .date(y)):
            return x.secondsSinceReferenceDate.bitPattern == y.secondsSinceReferenceDate.bitPattern
        case (.array, _), (.dictionary, _): return false
        default: return a == b
        }
    }

    /// Whole values compared exactly: scalars as ``sameScalar(_:_:)``, dictionaries with their
    /// keys in the same order. Containers with the same storage are equal at once.
    static func same(_ a: PlistValue, _ b: PlistValue) -> Bool {
        var pending: [(PlistValue, PlistValue)] = [(a, b)]
        while let (x, y) = pending.popLast() {
            switch (x, y) {
            case let (.array(p), .array(q)):
                guard p.count == q.count else { return false }
                if ContainerIdentity(p) == ContainerIdentity(q) { continue }
                pending.append(contentsOf: zip(p, q))
            case let (.dictionary(p), .dictionary(q)):
                guard p.count == q.count else { return false }
                if ContainerIdentity(p) == ContainerIdentity(q) { continue }
                guard p.keys.elementsEqual(q.keys, by: { $0.hasSameUTF8(as: $1) }) else { return false }
                pending.append(contentsOf: zip(p.values, q.values))
            default:
                guard sameScalar(x, y) else { return false }
            }
        }
        return true
    }
}
