/// Where each value of a text document (OpenStep or JSON) lay in its source text: what lets the
/// text formats' writers copy every unchanged value's text and write new text only for what
/// changed.
///
/// Unlike the XML and binary notes, these keep the text itself: a text document is mostly what
/// no writer would produce on its own (comments, blank lines, quoting, number spellings), so a
/// copy of it, with positions into it, is both the smallest and the simplest record.
///
/// ## Invariants
///
/// - `text` is the document as UTF-8, without its byte-order mark (the format's layout keeps the
///   encoding and the mark).
/// - `nodes` lists every value in document pre-order (node 0 is the root), the values of repeated
///   keys included; a dictionary's children are its entries' values in document order. A
///   container's children are the nodes from its number + 1, each `subtreeSize` after the last.
/// - `value` is the value as read; node n describes the value reached in it by the same walk,
///   except that a dictionary entry whose key repeats later holds a value the dictionary
///   dropped (the last one wins). `entryPositions` gives, for each dictionary that repeats a key,
///   the position in `value`'s dictionary of each child's key.
/// - `isBraceless` is true when the root is a `.strings` body without braces; its range is then
///   the whole text.
struct TextLayoutNotes: Sendable {
    var text: [UInt8]
    var nodes: [TextNodeNote]
    var value: PlistValue
    var isBraceless: Bool
    var entryPositions: [Int32: [Int32]]
}

/// One value of a text document as read.
struct TextNodeNote: Sendable {
    /// The value's text: a scalar's token, or a container from its opening to its closing
    /// bracket. The value of a `.strings` shortcut entry (`"key";`) has an empty range at the end
    /// of its key.
    var start: Int32
    var end: Int32
    /// The first token of the entry holding the value: its key in a dictionary, the value itself
    /// in an array and at the root.
    var entryStart: Int32
    /// Where the `;` or `,` after the entry is, or -1 when none follows it.
    var separator: Int32
    /// Nodes in the subtree, this one included.
    var subtreeSize: Int32
    /// A container's entries or elements, repeated keys included.
    var childCount: Int32

    /// True when the value has no text of its own: a `.strings` shortcut entry's value.
    var isShortcut: Bool { start == end }
}

extension TextLayoutNotes {
    /// The node numbers of a container's children, in document order.
    func children(of node: Int32) -> [Int32] {
        let count = Int(nodes[Int(node)].childCount)
        var result: [Int32] = []
        result.reserveCapacity(count)
        var child = node + 1
        for _ in 0..<count {
            result.append(child)
            child += nodes[Int(child)].subtreeSize
        }
        return result
    }
}

/// Records a ``TextLayoutNotes``'s nodes while a text parser reads, driven by the parser's
/// events. A parser holds one only when layout notes were asked for, so a plain read pays one
/// nil check per event.
struct TextLayoutRecorder {
    private(set) var nodes: [TextNodeNote] = []
    /// The open containers, outermost first, each with its latest child.
    private var open: [(node: Int32, lastChild: Int32)] = []
    /// The start of the key whose value comes next, or -1.
    private var pendingKey: Int32 = -1
    private(set) var entryPositions: [Int32: [Int32]] = [:]
    private(set) var isBraceless = false
    /// The container `closeContainer` closed last.
    private var lastClosed: Int32 = 0

    /// Positions are kept in 32 bits; a longer text keeps no notes.
    static func fits(_ text: UnsafeBufferPointer<UInt8>) -> Bool { text.count < Int(Int32.max) }

    /// A dictionary key starts at `position`.
    mutating func key(at position: Int) { pendingKey = Int32(truncatingIfNeeded: position) }

    /// A value's token starts at `position`.
    mutating func beginValue(at position: Int) {
        let start = Int32(truncatingIfNeeded: position)
        let number = Int32(truncatingIfNeeded: nodes.count)
        if let top = open.indices.last {
            nodes[Int(open[top].node)].childCount += 1
            open[top].lastChild = number
        }
        nodes.append(
            TextNodeNote(
                start: start, end: start, entryStart: pendingKey >= 0 ? pendingKey : start, separator: -1,
                subtreeSize: 1, childCount: 0))
        pendingKey = -1
    }

    /// The scalar just begun ends before `position`.
    mutating func endScalar(at position: Int) {
        nodes[nodes.count - 1].end = Int32(truncatingIfNeeded: position)
    }

    /// The value just begun is a container whose entries follow.
    mutating func openContainer() {
        let number = Int32(truncatingIfNeeded: nodes.count - 1)
        open.append((number, -1))
    }

    /// The innermost container ends before `position`.
    mutating func closeContainer(at position: Int) {
        guard let (node, _) = open.popLast() else { return }
        lastClosed = node
        nodes[Int(node)].end = Int32(truncatingIfNeeded: position)
        nodes[Int(node)].subtreeSize = Int32(truncatingIfNeeded: nodes.count) - node
    }

    /// A `.strings` shortcut entry, `"key";`: its value is the key, and has no text of its own.
    mutating func shortcutValue(at keyEnd: Int) {
        beginValue(at: keyEnd)
    }

    /// The `;` or `,` after the innermost container's latest entry is at `position`.
    mutating func separator(at position: Int) {
        guard let top = open.last, top.lastChild >= 0 else { return }
        nodes[Int(top.lastChild)].separator = Int32(truncatingIfNeeded: position)
    }

    /// The dictionary that closed last (the braceless root when none did) had `keys` in
    /// document order and became `dictionary`; when a key repeated, each entry's position in the
    /// dictionary is noted.
    mutating func closedDictionary(keys: [String], as dictionary: PlistDictionary) {
        guard keys.count > dictionary.count else { return }
        entryPositions[lastClosed] = keys.map { Int32(truncatingIfNeeded: dictionary.index(forKey: $0) ?? 0) }
    }

    /// Starts over with the root as a `.strings` body over the whole text: what the OpenStep
    /// parser does when a top-level string turns out to be followed by more text.
    mutating func restartBraceless() {
        nodes.removeAll(keepingCapacity: true)
        open.removeAll()
        entryPositions.removeAll()
        pendingKey = -1
        isBraceless = true
        lastClosed = 0
        beginValue(at: 0)
        openContainer()
    }

    /// The `.strings` body has ended (it has no closing bracket): a following
    /// `closedDictionary` is about the root.
    mutating func endBraceless() { lastClosed = 0 }

    /// The notes, once the parser has read `value` from `text`.
    func notes(text: [UInt8], value: PlistValue) -> TextLayoutNotes {
        var nodes = self.nodes
        if isBraceless, !nodes.isEmpty {
            // A body ends wherever the parser stopped; the rest of the text is its tail.
            nodes[0].end = Int32(truncatingIfNeeded: text.count)
            nodes[0].subtreeSize = Int32(truncatingIfNeeded: nodes.count)
        }
        return TextLayoutNotes(
            text: text, nodes: nodes, value: value, isBraceless: isBraceless, entryPositions: entryPositions)
    }
}
