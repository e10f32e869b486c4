/// What an XML property list looked like beyond its value: the notes that let
/// ``XMLPlistWriter`` write a document back byte for byte, and keep an edited document's
/// untouched parts as they were.
///
/// The notes describe *deviations from CoreFoundation's canonical output*, never a copy of the
/// input: a file written by Apple yields almost no notes at all.
///
/// ## Invariants
///
/// - **Node numbering.** Nodes are numbered in document pre-order from 0 (the root value). A
///   dictionary entry is two nodes, its key then its value. A UID (`CF$UID` dictionary) is one
///   node; its inner key and integer are part of its content. ``containers`` holds, for every
///   array and dictionary, its child count (entries for dictionaries) and its subtree size in
///   nodes, so the writer can find each child's number and stay aligned after edits: the k-th
///   child of an edited container takes the notes of the k-th original child; children beyond
///   the original count, and nodes whose kind changed from scalar to container, get none.
/// - **Trivia.** `leading` is everything between the previous tag's `>` and this node's `<`
///   (whitespace, comments, processing instructions), recorded only when it differs from the
///   document's standard break: ``lineBreak`` plus one ``indentUnit`` per depth (a newline and
///   tabs for Apple's files; a file indented with spaces or using CRLF sets them once, so its
///   nodes need no notes and nodes added by an edit are indented the file's way). `closing` is the same for the gap before a
///   container's end tag. The root value's leading trivia belong to ``prolog``.
/// - **Tags.** `startTag` / `endTag` are recorded only when they differ from the canonical tags
///   for the value; an empty `endTag` means the element was written as an empty-element tag
///   (`<string/>`). A tag note is used only while the element it names still fits the value
///   (a `<key>` tag may spell a string in an array; `<string/>` only an empty string).
/// - **Content.** `content` is the raw text between a scalar's tags when it differs from the
///   canonical rendering (`0x10`, `1.50`, `&#x41;`, CDATA, another base64 line layout), with
///   `spelledValue`, the value it was read as. The writer uses the spelling only while the value
///   is still exactly that (strings compared by UTF-8 bytes, reals and dates by bit pattern).
/// - **Repeated keys.** When a dictionary repeats a key, the dictionary holds the last value at
///   the first key's position. The first occurrence's value element is kept as `rawElement`
///   (spelling the current value) and each later occurrence as a ``XMLRepeatedEntry`` of the
///   dictionary; both are written only while the key still has that value.
/// - **Document.** ``prolog`` is everything before the root value's `<` (XML declaration,
///   DOCTYPE, comments, the `<plist>` start tag) and ``epilog`` everything after its final `>`
///   (`</plist>` and whatever followed), each nil when canonical. ``encoding`` is the text
///   encoding and byte-order mark the document used; output is converted back to it.
public struct XMLLayout: Sendable {
    /// The text encoding the document was read in, and is written back in.
    public var encoding: XMLTextEncoding
    /// Bytes before the root value's start tag, or nil for the canonical header.
    var prolog: [UInt8]?
    /// Bytes after the root value's end tag, or nil for the canonical `\n</plist>\n`.
    var epilog: [UInt8]?
    /// The line break between elements (`\n`, or `\r\n` for a file that uses it).
    var lineBreak: [UInt8] = [0x0A]
    /// One level of indentation (a tab, or the spaces a file indents with).
    var indentUnit: [UInt8] = [0x09]
    /// Per-node deviations, by pre-order number. Absent means canonical.
    var notes: [Int: XMLNodeNote] = [:]
    /// Child counts and subtree sizes of every container, by pre-order number.
    var containers = XMLContainerShapes()

    /// Empty notes for a document in `encoding`: everything else canonical.
    public init(encoding: XMLTextEncoding = .standard) {
        self.encoding = encoding
    }

    /// The number of nodes that carry a note, a measure of how far the document is from
    /// Apple's canonical output.
    public var noteCount: Int { notes.count + (prolog == nil ? 0 : 1) + (epilog == nil ? 0 : 1) }

    /// False when following the layout comes to the canonical writer's output with keys in the
    /// value's order: no node note, the canonical header and end, a newline and tabs. (The
    /// encoding is applied after either way.)
    var hasNotes: Bool {
        noteCount > 0 || lineBreak != [0x0A] || indentUnit != [0x09]
    }
}

/// The shapes of a document's arrays and dictionaries, by node number: kept in node order and
/// looked up by binary search. A reader records one shape per container, and hashing each into
/// a dictionary cost more than a writer's lookups save.
struct XMLContainerShapes: Sendable {
    struct Entry: XMLNodeNumbered {
        var node: Int
        var shape: XMLContainerShape
    }

    private var entries: [Entry] = []
    /// False once a shape was recorded before one with a lower node number.
    private var isInNodeOrder = true

    /// How many containers have a shape.
    var count: Int { entries.count }

    /// The shape of container `node`, if one was recorded.
    subscript(node: Int) -> XMLContainerShape? {
        let low = entries.firstPosition(atOrAfter: node, before: entries.count)
        return low < entries.count && entries[low].node == node ? entries[low].shape : nil
    }

    /// A cursor over the shapes for a walk that asks for them in increasing node order.
    func cursor() -> XMLNodeOrderCursor<Entry> { XMLNodeOrderCursor(entries) }

    /// Every shape, by node number.
    var byNode: [Int: XMLContainerShape] {
        Dictionary(entries.map { ($0.node, $0.shape) }, uniquingKeysWith: { _, last in last })
    }

    /// Records the shape of container `node`, in any order: a reader that records them out of
    /// node order calls ``putInNodeOrder()`` when it is done.
    mutating func record(_ shape: XMLContainerShape, at node: Int) {
        if let last = entries.last, last.node >= node { isInNodeOrder = false }
        entries.append(Entry(node: node, shape: shape))
    }

    /// Sorts the shapes recorded out of node order.
    mutating func putInNodeOrder() {
        guard !isInNodeOrder else { return }
        entries.sort { $0.node < $1.node }
        isInNodeOrder = true
    }

    /// Holds a place for the shape of container `node`, which is known when the container
    /// closes; places held as containers open stay in node order. Returns it for
    /// ``fill(_:with:)``.
    mutating func holdPlace(for node: Int) -> Int {
        entries.append(Entry(node: node, shape: XMLContainerShape(isDictionary: false, childCount: 0, subtreeSize: 0)))
        return entries.count - 1
    }

    /// Gives the place `place` from ``holdPlace(for:)`` its shape.
    mutating func fill(_ place: Int, with shape: XMLContainerShape) {
        entries[place].shape = shape
    }

    /// Drops the place held last, for a container that turned out to be no container.
    mutating func dropLastPlace() {
        entries.removeLast()
    }

    /// Makes room for `count` shapes.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
    }

    mutating func removeAll() {
        entries.removeAll()
        isInNodeOrder = true
    }
}

/// The shape of one array or dictionary as read.
struct XMLContainerShape: Sendable {
    var isDictionary: Bool
    /// Elements, or entries for a dictionary.
    var childCount: Int
    /// Nodes in the subtree, the container itself included.
    var subtreeSize: Int
}

/// How one node deviated from the canonical writer's output. Every field nil means canonical.
struct XMLNodeNote: Sendable {
    var leading: [UInt8]?
    var startTag: [UInt8]?
    var endTag: [UInt8]?
    var content: [UInt8]?
    var spelledValue: PlistValue?
    var closing: [UInt8]?
    /// The whole element as written, used while the value is still `spelledValue`: the first
    /// occurrence of a dictionary key that the document repeats, whose value was overwritten.
    var rawElement: [UInt8]?
    /// Later occurrences of repeated keys in a dictionary, kept verbatim.
    var repeatedEntries: [XMLRepeatedEntry]?

    var isEmpty: Bool {
        leading == nil && startTag == nil && endTag == nil && content == nil && closing == nil && rawElement == nil
            && repeatedEntries == nil
    }
}

/// A later occurrence of a key a dictionary repeats (CF keeps the last value, the dictionary the
/// first position). It is written back verbatim while the key still has the value it set.
struct XMLRepeatedEntry: Sendable {
    /// How many of the dictionary's entries precede it.
    var position: Int
    var key: String
    var spelledValue: PlistValue
    /// Its leading trivia, key element and value element.
    var raw: [UInt8]
}
