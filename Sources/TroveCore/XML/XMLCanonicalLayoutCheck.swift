import CTroveFastPaths
import Foundation

/// Decides, while ``XMLCommonSubsetScanner`` reads a document for a lossless read, whether the
/// document is what the canonical writer would write for the value read but for the spelling
/// of some scalars' text, and collects the container shapes the layout numbers its nodes by
/// and the notes for those scalars.
///
/// A document written by CoreFoundation or by Trove's writer is canonical, and its
/// ``XMLLayout`` is then just those shapes: no prolog or epilog, the standard line break and
/// indentation. Hand-edited files mostly differ in text alone (`&apos;`, `0x10`, `1.50`), which
/// a content note describes. Knowing that from the scanner's own pass spares the second walk of
/// ``XMLLayoutScanner`` over bytes and value, which cost as much as the read itself. The check
/// is conservative: on anything it does not decide cheaply (a comment, a gap other than the
/// standard break, a tag the writer would spell otherwise, a UID, a scalar root...) it gives
/// up, and the reader runs the layout scanner, which stays the reference for the notes. Node
/// numbers, shapes and notes follow the layout's rules (pre-order, a dictionary entry is its
/// key then its value, a UID one node; a content note holds the text and the value it spells).
struct XMLCanonicalLayoutCheck: ~Copyable {
    /// False once some byte was found, or could not cheaply be shown, to be canonical or
    /// described by a content note.
    private(set) var isCanonical = true
    /// The next node number.
    private(set) var nodeCount = 0
    /// The shapes of the containers: each holds its place from its start tag, so they are in
    /// node order.
    private var shapes = XMLContainerShapes()
    /// The content notes of scalars whose text is not the canonical spelling of their value.
    private var notes: [Int: XMLNodeNote] = [:]
    private var scratch = ByteBuffer()

    /// The layout found: the shapes of every finished container, by node number, and the
    /// content notes; the encoding is the reader's to set.
    func layout() -> XMLLayout {
        var layout = XMLLayout()
        layout.containers = shapes
        layout.notes = notes
        return layout
    }

    /// Makes room for the shapes of `count` containers.
    mutating func reserveShapes(_ count: Int) {
        shapes.reserveCapacity(count)
    }

    mutating func giveUp() {
        isCanonical = false
        shapes.removeAll()
        notes = [:]
    }

    /// Keeps `text`, the content of node `node`, as a note: it is not the canonical spelling of
    /// `value`, which it was read as.
    mutating func noteContent(_ text: UnsafeBufferPointer<UInt8>, of value: PlistValue, node: Int) {
        notes[node] = XMLNodeNote(content: Array(text), spelledValue: value)
    }

    /// Numbers a new node (a value element or a dictionary key) and returns its number.
    @inline(__always)
    mutating func takeNodeNumber() -> Int {
        nodeCount += 1
        return nodeCount - 1
    }

    /// Opens the array or dictionary numbered `index` (its start tag read); returns the place
    /// its shape takes when it closes.
    mutating func openContainer(at index: Int) -> Int {
        shapes.holdPlace(for: index)
    }

    /// Records a finished array or dictionary opened as node `index` at `place`.
    mutating func closeContainer(at index: Int, place: Int, isDictionary: Bool, childCount: Int) {
        // A container written with a start and an end tag but no child is `<array/>` canonically.
        guard childCount > 0 else { return giveUp() }
        shapes.fill(place, with: XMLContainerShape(isDictionary: isDictionary, childCount: childCount, subtreeSize: nodeCount - index))
    }

    /// Records an array or dictionary written as an empty-element tag, node `index`.
    mutating func closeEmptyContainer(at index: Int, isDictionary: Bool) {
        shapes.record(XMLContainerShape(isDictionary: isDictionary, childCount: 0, subtreeSize: 1), at: index)
    }

    /// A dictionary opened as node `index` turned out to be a UID, which is one node: the key
    /// and integer inside it are its content, not nodes, and it has no shape (its place, held
    /// last since nothing inside it is a container, is dropped).
    mutating func closeUID(at index: Int) {
        nodeCount = index + 1
        shapes.dropLastPlace()
    }

    /// Checks the bytes before the root value: the canonical header, whose `<plist>` start tag
    /// is followed by a line break.
    mutating func checkProlog(_ p: UnsafePointer<UInt8>, count: Int) {
        check(p, count: count, areExactly: XMLCanonicalSpelling.prolog)
    }

    /// Checks the bytes after the root value, to the end of the document.
    mutating func checkEpilog(_ p: UnsafePointer<UInt8>, count: Int) {
        check(p, count: count, areExactly: XMLCanonicalSpelling.epilog)
    }

    private mutating func check(_ p: UnsafePointer<UInt8>, count: Int, areExactly expected: [UInt8]) {
        guard count == expected.count, expected.withUnsafeBufferPointer({ memcmp(p, $0.baseAddress!, count) == 0 }) else {
            return giveUp()
        }
    }

    /// Whether `text`, which the reader decoded to `count` bytes, is their canonical base64 at
    /// `depth` (see ``XMLCanonicalSpelling/appendDataContent(_:depth:to:)``), decided without
    /// encoding them again: text of the canonical shape (line breaks, tabs, letters, padding
    /// and zero bits after the last byte) is the canonical spelling of what it decodes to.
    ///
    /// `slowBytes` is how many bytes the decoder did not take as four letters at a quantum
    /// boundary (see ``XMLScalarSyntax/decodeBase64(_:slowBytes:)``), or nil. Canonical text
    /// leaves it only its line breaks and tabs, and a padded last quantum; when that is the
    /// count, and those bytes stand where they belong, every other byte is a letter, and only
    /// the line structure and the last quantum need looking at.
    static func isCanonicalData(_ text: UnsafeBufferPointer<UInt8>, count n: Int, depth: Int, slowBytes: Int? = nil) -> Bool {
        let indent = min(depth, 8)
        let lineLength = 76 - 8 * indent
        let encodedCount = (n + 2) / 3 * 4
        let lineCount = (encodedCount + lineLength - 1) / lineLength
        let separators = 1 + lineCount * (indent + 1) + depth
        guard let p = text.baseAddress, text.count == encodedCount + separators, p[0] == 0x0A else {
            return false
        }
        let padding = (3 - n % 3) % 3
        let lettersAreKnown = slowBytes == separators + (padding > 0 ? 4 : 0)
        var k = 1
        var remaining = encodedCount
        if lettersAreKnown {
            // Every line but the last is full: only its tabs and its line break need looking at,
            // the tabs as one word. A full line holds at least eight bytes past its start (its
            // letters alone do: 76 - 8 * 8 = 12), so the word lies inside the text.
            let tabs = indent == 8 ? UInt64.max : (1 << UInt64(8 * indent)) &- 1
            let raw = UnsafeRawPointer(p)
            while remaining > lineLength {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                guard (word ^ 0x0909_0909_0909_0909) & tabs == 0 else { return false }
                k += indent &+ lineLength
                guard p[k] == 0x0A else { return false }
                k += 1
                remaining -= lineLength
            }
        }
        while remaining > 0 {
            for _ in 0..<indent {
                guard p[k] == 0x09 else { return false }
                k += 1
            }
            let length = min(lineLength, remaining)
            remaining -= length
            let letters = remaining == 0 ? length - padding : length
            if lettersAreKnown {
                // Only the padded last quantum went through the decoder's byte-at-a-time path.
                if remaining == 0, padding > 0 {
                    for j in (letters - (4 - padding))..<letters where XMLScalarSyntax.base64Letters[Int(p[k + j])] < 0 { return false }
                }
            } else {
                guard trove_is_base64_letters(p + k, letters) != 0 else { return false }
            }
            for j in letters..<length where p[k + j] != UInt8(ascii: "=") { return false }
            if remaining == 0, padding > 0 {
                // The bits after the last byte, which a decoder drops, are zero canonically.
                let last = p[k + letters - 1]
                guard XMLScalarSyntax.base64Letters[Int(last)] & (padding == 1 ? 0x3 : 0xF) == 0 else { return false }
            }
            k += length
            guard p[k] == 0x0A else { return false }
            k += 1
        }
        for _ in 0..<depth {
            guard p[k] == 0x09 else { return false }
            k += 1
        }
        return true
    }

    /// Whether `text`, which ``XMLScalarSyntax/parseInteger(_:)`` accepted, is the canonical
    /// spelling of the integer it read (``ByteBuffer/appendDecimal(_:)``'s: an optional `-`, then
    /// digits without a leading zero, or `0`). The parse refuses anything after its digits and
    /// hex digits without `0x`, so the bytes at the start decide it: a space, a `+`, a `0x` or a
    /// leading zero all put something other than a digit from 1 to 9 where the digits begin.
    static func isCanonicalParsedInteger(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let first = text[0] == UInt8(ascii: "-") ? 1 : 0
        let lead = text[first]
        return (lead >= UInt8(ascii: "1") && lead <= UInt8(ascii: "9")) || (text.count == 1 && lead == UInt8(ascii: "0"))
    }

    /// Checks the text of the integer `n`, node `node`, which ``XMLScalarSyntax/parseInteger(_:)``
    /// read from it.
    @inline(__always)
    mutating func checkInteger(_ text: UnsafeBufferPointer<UInt8>, _ n: PlistInteger, node: Int) {
        if !Self.isCanonicalParsedInteger(text) { noteContent(text, of: .integer(n), node: node) }
    }

    /// Checks the text of the real `r`, node `node`: compared with its `%.17g` in place where
    /// that is exact, else spelled.
    @inline(__always)
    mutating func checkReal(_ text: UnsafeBufferPointer<UInt8>, _ r: Double, node: Int) {
        let answer = trove_real_is_g17(text.baseAddress, text.count, r)
        if answer == 1 { return }
        if answer == 0 { return noteContent(text, of: .real(PlistReal(r)), node: node) }
        checkContent(text, of: .real(PlistReal(r)), depth: 0, node: node)
    }

    /// Checks a scalar's content (`text`, between its tags) against the canonical spelling of
    /// `value` at `depth`, and notes it when it differs. Strings are decided by the scanner,
    /// which saw their references. `slowBytes` is the base64 decoder's count for data.
    mutating func checkContent(
        _ text: UnsafeBufferPointer<UInt8>, of value: PlistValue, depth: Int, node: Int, slowBytes: Int? = nil
    ) {
        // Dates and data are mostly decided from the text alone; the rest is spelled.
        let decided: Bool?
        switch value {
        case .date(let d): decided = XMLCanonicalSpelling.isCanonicalDate(text, d)
        case .data(let d): decided = Self.isCanonicalData(text, count: d.count, depth: depth, slowBytes: slowBytes)
        case .integer(let n): decided = XMLCanonicalSpelling.isCanonicalInteger(text, n)
        case .real: decided = nil
        default: return giveUp()
        }
        if let decided {
            if !decided { noteContent(text, of: value, node: node) }
            return
        }
        scratch.removeAll()
        XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        if !scratch.equals(text[...]) { noteContent(text, of: value, node: node) }
    }
}
