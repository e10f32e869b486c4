import CTroveFastPaths
import Foundation

/// Decides, while ``XMLCommonSubsetScanner`` reads a document for a lossless read, whether every
/// byte of it is what the canonical writer would write for the value read, and collects the
/// container shapes the layout numbers its nodes by.
///
/// A document written by CoreFoundation or by Trove's writer is canonical, and its
/// ``XMLLayout`` is then just those shapes: no notes, no prolog or epilog, the standard line
/// break and indentation. Knowing that from the scanner's own pass spares the second walk of
/// ``XMLLayoutScanner`` over bytes and value, which cost as much as the read itself. The check
/// is conservative: on anything it does not decide cheaply (a comment, a reference other than
/// `&amp;`, `&lt;` and `&gt;`, a UID, a scalar root...) it gives up, and the reader runs the
/// layout scanner, which stays the reference for the notes. Node numbers and shapes follow
/// the layout's rules (pre-order, a dictionary entry is its key then its value, a UID one node).
struct XMLCanonicalLayoutCheck: ~Copyable {
    /// False once some byte was found, or could not cheaply be shown, to be canonical.
    private(set) var isCanonical = true
    /// The next node number.
    private(set) var nodeCount = 0
    /// Every finished container's node number and shape, in the order they closed: gathered in
    /// an array and hashed once at the end into a dictionary of the right size, rather than
    /// rehashed each time a growing dictionary doubles.
    private var shapes: [(node: Int, shape: XMLContainerShape)] = []
    private var scratch = ByteBuffer()

    /// Every finished container's shape, by node number.
    var containers: [Int: XMLContainerShape] {
        var byNode = [Int: XMLContainerShape](minimumCapacity: shapes.count)
        for (node, shape) in shapes { byNode[node] = shape }
        return byNode
    }

    mutating func giveUp() {
        isCanonical = false
        shapes = []
    }

    /// Numbers a new node (a value element or a dictionary key) and returns its number.
    @inline(__always)
    mutating func takeNodeNumber() -> Int {
        nodeCount += 1
        return nodeCount - 1
    }

    /// Records a finished array or dictionary opened as node `index`.
    mutating func closeContainer(at index: Int, isDictionary: Bool, childCount: Int) {
        // A container written with a start and an end tag but no child is `<array/>` canonically.
        guard childCount > 0 else { return giveUp() }
        shapes.append((index, XMLContainerShape(isDictionary: isDictionary, childCount: childCount, subtreeSize: nodeCount - index)))
    }

    /// Records an array or dictionary written as an empty-element tag, node `index`.
    mutating func closeEmptyContainer(at index: Int, isDictionary: Bool) {
        shapes.append((index, XMLContainerShape(isDictionary: isDictionary, childCount: 0, subtreeSize: 1)))
    }

    /// A dictionary opened as node `index` turned out to be a UID, which is one node: the key
    /// and integer inside it are its content, not nodes.
    mutating func closeUID(at index: Int) {
        nodeCount = index + 1
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

    /// Checks the gap before the element or end tag at `tagStart` at `depth`: a newline and
    /// `depth` tabs. The scanner reaches a tag only over whitespace from the `>` of the markup
    /// before it, so the gap is exactly that when that `>` stands right before the newline.
    @inline(__always)
    mutating func checkGap(before tagStart: Int, in p: UnsafePointer<UInt8>, depth: Int) {
        let newline = tagStart - depth - 1
        guard newline >= 1, p[newline - 1] == UInt8(ascii: ">"), p[newline] == 0x0A else { return giveUp() }
        var k = newline + 1
        while k < tagStart {
            if p[k] != 0x09 { return giveUp() }
            k += 1
        }
    }

    /// Whether `text`, which the reader decoded to `count` bytes, is their canonical base64 at
    /// `depth` (see ``XMLCanonicalSpelling/appendDataContent(_:depth:to:)``), decided without
    /// encoding them again: text of the canonical shape (line breaks, tabs, letters, padding
    /// and zero bits after the last byte) is the canonical spelling of what it decodes to.
    static func isCanonicalData(_ text: UnsafeBufferPointer<UInt8>, count n: Int, depth: Int) -> Bool {
        let indent = min(depth, 8)
        let lineLength = 76 - 8 * indent
        let encodedCount = (n + 2) / 3 * 4
        let lineCount = (encodedCount + lineLength - 1) / lineLength
        guard let p = text.baseAddress, text.count == 1 + encodedCount + lineCount * (indent + 1) + depth, p[0] == 0x0A else {
            return false
        }
        let padding = (3 - n % 3) % 3
        var k = 1
        var remaining = encodedCount
        while remaining > 0 {
            for _ in 0..<indent {
                guard p[k] == 0x09 else { return false }
                k += 1
            }
            let length = min(lineLength, remaining)
            remaining -= length
            let letters = remaining == 0 ? length - padding : length
            guard trove_is_base64_letters(p + k, letters) != 0 else { return false }
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

    /// Checks a scalar's content (`text`, between its tags) against the canonical spelling of
    /// `value` at `depth`. Strings are decided by the scanner, which saw their references.
    mutating func checkContent(_ text: UnsafeBufferPointer<UInt8>, of value: PlistValue, depth: Int) {
        // Integers and dates are mostly decided from the text alone; the rest is spelled.
        let decided: Bool?
        switch value {
        case .integer(let n): decided = XMLCanonicalSpelling.isCanonicalInteger(text, n)
        case .date(let d): decided = XMLCanonicalSpelling.isCanonicalDate(text, d)
        case .data(let d): decided = Self.isCanonicalData(text, count: d.count, depth: depth)
        case .real: decided = nil
        default: return giveUp()
        }
        if let decided {
            if !decided { giveUp() }
            return
        }
        scratch.removeAll()
        XMLCanonicalSpelling.appendScalarContent(value, depth: depth, to: &scratch)
        if !scratch.equals(text[...]) { giveUp() }
    }
}
