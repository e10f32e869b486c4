import CTroveFastPaths
import Foundation

/// Reconciles CoreFoundation's tag scanning with libxml2's before parsing.
///
/// CF ends every tag at its first `>` without looking at quotes, skips whatever sits between the
/// tag name and that `>`, and skips a DOCTYPE up to its first `>` as well. libxml2 parses
/// attributes and DOCTYPEs properly, so it rejects some documents CF reads (`<string =">`) and
/// reads others differently (`<key q=">">test</key>` is the key `">test` to CF). The prescan
/// finds tags and DOCTYPEs that libxml2 would not read the CF way and blanks their extra text
/// with spaces (the byte count stays the same, so line and column numbers still hold). It also
/// refuses DOCTYPE internal subsets, which CF rejects and which are the only way to declare
/// entities (no entity expansion can then happen at all). Only markup before the root element
/// is taken for a DOCTYPE: `<!DOCTYPE` inside the root is an error for CF, and is left for
/// libxml2 to refuse. Nothing is copied unless a rewrite is
/// needed, which is never the case for files Apple writes.
///
/// It also protects characters XML would change or refuse but CF keeps: a carriage return in
/// text (XML turns `\r\n` into `\n`) and the C0 controls XML 1.0 forbids (`\0`, `\u{1}`...).
/// Inside the root element these are replaced by character references, which libxml2 hands
/// through unchanged (or, for forbidden characters, reports so the reader can keep them).
struct XMLMarkupPrescan {
    /// Byte ranges to replace, in order, with their replacements.
    private(set) var edits: [(range: Range<Int>, replacement: [UInt8])] = []

    /// Scans `b` (UTF-8). Throws `.syntax` for a DOCTYPE with an internal subset.
    /// `skippingPlainMarkup: false` looks at every tag in Swift, for tests of the C fast path.
    init(_ b: UnsafeBufferPointer<UInt8>, skippingPlainMarkup: Bool = true) throws(PlistError) {
        guard b.baseAddress != nil else { return }
        var i = 0
        let n = b.count
        let hasControls = skippingPlainMarkup ? Self.needsTextEdits(b) : Self.containsControlOrEF(b)
        var insideRoot = false
        while i < n {
            if skippingPlainMarkup, !hasControls, let base = b.baseAddress {
                // Plain tags and the text between them need nothing here; C walks past them
                // (with memchr) to the next piece of markup the loop below must look at.
                var sawStartTag: Int32 = 0
                i = trove_skip_plain_markup(base, n, i, &sawStartTag)
                if sawStartTag != 0 { insideRoot = true }
                if i >= n { break }
            }
            let textStart = i
            let found = Self.findNear(b, UInt8(ascii: "<"), from: i)
            let lt = found ?? n
            if hasControls && insideRoot {
                var k = textStart
                while let hit = Self.firstControlOrEF(b, from: k, to: lt) {
                    let c = b[hit]
                    if c != 0xEF {
                        edits.append((hit..<(hit + 1), Array("&#\(c);".utf8)))
                    } else if Self.isFFFEOrFFFF(b, at: hit, before: lt) {
                        edits.append((hit..<(hit + 3), Array("&#\(b[hit + 2] == 0xBE ? 65534 : 65535);".utf8)))
                    }
                    k = hit + 1
                }
            }
            guard found != nil else { break }
            i = lt + 1
            guard i < n else { break }
            let c = b[i]
            if c == UInt8(ascii: "?") {
                i = Self.find(b, "?>", from: i + 1).map { $0 + 2 } ?? n
            } else if c == UInt8(ascii: "!") {
                if Self.matches(b, "!--", at: i) {
                    guard let end = Self.find(b, "-->", from: i + 3) else {
                        i = n
                        continue
                    }
                    blankDoubleHyphens(b, in: (i + 3)..<end)
                    i = end + 3
                } else if Self.matches(b, "![CDATA[", at: i) {
                    i = Self.find(b, "]]>", from: i + 8).map { $0 + 3 } ?? n
                } else if !insideRoot, Self.matches(b, "!DOCTYPE", at: i) {
                    // Only before the root element is this a DOCTYPE. Inside it CF refuses any
                    // `<!` that opens neither a comment nor a CDATA section, and so does libxml2
                    // when it is left alone; after the root CF reads nothing at all.
                    let end = Self.find(b, ">", from: i) ?? n
                    if let bracket = Self.find(b, "[", from: i), bracket < end {
                        let (line, column) = Self.lineColumn(b, offset: bracket)
                        throw PlistError(
                            .syntax, format: .xml, at: .lineColumn(line: line, column: column),
                            "a DOCTYPE with an internal subset is not allowed in a property list")
                    }
                    if !Self.isPlainDoctype(b, from: i + 8, to: end) {
                        let r = lt..<min(end + 1, n)
                        edits.append((r, [UInt8](repeating: UInt8(ascii: " "), count: r.count)))
                    }
                    i = end + 1
                }
            } else if c == UInt8(ascii: "/") {
                i = Self.findNear(b, UInt8(ascii: ">"), from: i).map { $0 + 1 } ?? n
            } else {
                var nameEnd = i
                while nameEnd < n, !Self.endsName(b[nameEnd]) { nameEnd += 1 }
                insideRoot = true
                // The usual tag, `<name>` or `<name/>`, has nothing for CF and libxml2 to
                // read differently.
                if nameEnd < n, b[nameEnd] == UInt8(ascii: ">") {
                    i = nameEnd + 1
                    continue
                }
                if nameEnd + 1 < n, b[nameEnd] == UInt8(ascii: "/"), b[nameEnd + 1] == UInt8(ascii: ">") {
                    i = nameEnd + 2
                    continue
                }
                guard let end = Self.find(b, ">", from: nameEnd) else { break }
                if !Self.isPlainAttributeList(b, from: nameEnd, to: end) {
                    // Keep a final `/` so an empty-element tag stays one, as CF reads it.
                    let stop = b[end - 1] == UInt8(ascii: "/") && end - 1 > nameEnd ? end - 1 : end
                    if nameEnd < stop {
                        edits.append((nameEnd..<stop, [UInt8](repeating: UInt8(ascii: " "), count: stop - nameEnd)))
                    }
                }
                i = end + 1
            }
        }
    }

    /// CF ends a comment at its first `-->` and takes anything before it. XML forbids `--` in a
    /// comment and a body ending in `-`, and libxml2 then ends the comment elsewhere or not at
    /// all, so the two would disagree on what is markup after it (a rewrite could even turn the
    /// document unreadable). Each hyphen that starts such a pair in the body becomes a space,
    /// which changes only the comment's text.
    private mutating func blankDoubleHyphens(_ b: UnsafeBufferPointer<UInt8>, in body: Range<Int>) {
        let hyphen = UInt8(ascii: "-")
        var k = body.lowerBound
        while k < body.upperBound {
            if b[k] == hyphen, k + 1 == body.upperBound || b[k + 1] == hyphen {
                edits.append((k..<(k + 1), [UInt8(ascii: " ")]))
            }
            k += 1
        }
    }

    /// True when the prescan found nothing to rewrite.
    var isEmpty: Bool { edits.isEmpty }

    /// A copy of `b` with the recorded edits made.
    func apply(to b: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var copy: [UInt8] = []
        copy.reserveCapacity(b.count + edits.count * 4)
        var k = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            copy.append(contentsOf: UnsafeBufferPointer(rebasing: b[k..<edit.range.lowerBound]))
            copy.append(contentsOf: edit.replacement)
            k = edit.range.upperBound
        }
        copy.append(contentsOf: UnsafeBufferPointer(rebasing: b[k..<b.count]))
        return copy
    }

    // MARK: Scanning helpers

    /// Whether some text of `b` needs a character reference: a C0 control other than tab and
    /// newline, or U+FFFE or U+FFFF. Other characters that start with the byte 0xEF (U+F000...,
    /// fullwidth forms among them) are common in real text and need nothing.
    static func needsTextEdits(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        while let hit = firstControlOrEF(b, from: k, to: b.count) {
            if b[hit] != 0xEF { return true }
            if Self.isFFFEOrFFFF(b, at: hit, before: b.count) { return true }
            k = hit + 1
        }
        return false
    }

    /// Whether the 0xEF at `position` starts U+FFFE or U+FFFF within `..<end`: Unicode scalars CF
    /// keeps, characters XML forbids.
    @inline(__always)
    static func isFFFEOrFFFF(_ b: UnsafeBufferPointer<UInt8>, at position: Int, before end: Int) -> Bool {
        position + 2 < end && b[position + 1] == 0xBF && (b[position + 2] == 0xBE || b[position + 2] == 0xBF)
    }

    /// Whether `b` holds a C0 control other than tab and newline, or the byte 0xEF (which starts
    /// U+FFFE and U+FFFF). The walk without the C fast path uses it, for tests of that path.
    static func containsControlOrEF(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        firstControlOrEF(b, from: 0, to: b.count) != nil
    }

    /// The position of the first C0 control other than tab and newline, or byte 0xEF, in
    /// `start..<end`; this looks at every byte of every document (and at every text byte again
    /// when the document has any such byte), so it runs in C (``trove_first_control_or_ef``).
    /// A short range (the text between two tags, when the document has such bytes at all) is
    /// looked at here, since the call would cost more than the bytes.
    @inline(__always)
    static func firstControlOrEF(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard let base = b.baseAddress, start < end else { return nil }
        if end - start < 32 {
            for i in start..<end {
                let c = b[i]
                if (c < 0x20 && c != 0x09 && c != 0x0A) || c == 0xEF { return i }
            }
            return nil
        }
        let found = trove_first_control_or_ef(base + start, end - start)
        return found < end - start ? start + found : nil
    }

    static func endsName(_ c: UInt8) -> Bool {
        c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || XMLScalarSyntax.isASCIISpace(c)
    }

    static func matches(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString, at i: Int) -> Bool {
        let count = s.utf8CodeUnitCount
        guard i + count <= b.count else { return false }
        let p = s.utf8Start
        for k in 0..<count where b[i + k] != p[k] { return false }
        return true
    }

    static func find(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString, from start: Int) -> Int? {
        guard let base = b.baseAddress else { return nil }
        let first = s.utf8Start[0]
        var i = start
        // memchr inline rather than through the byte `find`: this runs at every end tag, and
        // calling it made this function three times as costly under callgrind.
        while i < b.count {
            guard let hit = memchr(base + i, Int32(first), b.count - i) else { return nil }
            let k = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
            if matches(b, s, at: k) { return k }
            i = k + 1
        }
        return nil
    }

    /// The position of the first `byte` at or after `start`, for the short distances between
    /// tags and inside them: the first two words are searched here, eight bytes a step, and only
    /// a longer run is left to `memchr`, whose call costs more than those steps.
    @inline(__always)
    static func findNear(_ b: UnsafeBufferPointer<UInt8>, _ byte: UInt8, from start: Int) -> Int? {
        guard let base = b.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let n = b.count
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var i = start
        var words = 0
        // Invariant: i + 8 <= n inside the loop, so every load is within the buffer.
        while words < 2 && i &+ 8 <= n {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
            // The high bit of each zero byte of `w`, exactly: `(x & 0x7F) + 0x7F` never carries
            // into the next byte.
            let zero = ~(((w & low7) &+ low7) | w) & 0x8080_8080_8080_8080
            if zero != 0 { return i &+ (UInt64(littleEndian: zero).trailingZeroBitCount >> 3) }
            i &+= 8
            words &+= 1
        }
        if i &+ 8 > n {
            while i < n {
                if b[i] == byte { return i }
                i &+= 1
            }
            return nil
        }
        return find(b, byte, from: i)
    }

    /// The position of the first `byte` at or after `start`, found with `memchr`.
    @inline(__always)
    static func find(_ b: UnsafeBufferPointer<UInt8>, _ byte: UInt8, from start: Int) -> Int? {
        guard start < b.count, let base = b.baseAddress, let hit = memchr(base + start, Int32(byte), b.count - start) else {
            return nil
        }
        return UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
    }

    /// 1-based line and column (in bytes) of `offset`.
    static func lineColumn(_ b: UnsafeBufferPointer<UInt8>, offset: Int) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        var k = 0
        while k < offset && k < b.count {
            if b[k] == 0x0A {
                line += 1
                lineStart = k + 1
            }
            k += 1
        }
        return (line, offset - lineStart + 1)
    }

    /// `( S Name S? = S? ("..." | '...') )* S? /?` between a tag name and its first `>`.
    private static func isPlainAttributeList(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start
        while true {
            var sawSpace = false
            while i < end, XMLScalarSyntax.isASCIISpace(b[i]) {
                i += 1
                sawSpace = true
            }
            if i == end { return true }
            if b[i] == UInt8(ascii: "/") { return i + 1 == end }
            guard sawSpace else { return false }
            let nameStart = i
            while i < end, isNameByte(b[i]) { i += 1 }
            guard i > nameStart else { return false }
            while i < end, XMLScalarSyntax.isASCIISpace(b[i]) { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "=") else { return false }
            i += 1
            while i < end, XMLScalarSyntax.isASCIISpace(b[i]) { i += 1 }
            guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return false }
            let quote = b[i]
            i += 1
            while i < end, b[i] != quote {
                if b[i] == UInt8(ascii: "<") || b[i] == UInt8(ascii: "&") { return false }
                i += 1
            }
            guard i < end else { return false }
            i += 1
        }
    }

    /// `S Name (S (SYSTEM S Lit | PUBLIC S Lit S Lit))? S?` after `<!DOCTYPE`.
    private static func isPlainDoctype(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start
        func space(required: Bool) -> Bool {
            let s = i
            while i < end, XMLScalarSyntax.isASCIISpace(b[i]) { i += 1 }
            return !required || i > s
        }
        func word() -> Int {
            let s = i
            while i < end, isNameByte(b[i]) { i += 1 }
            return i - s
        }
        func literal() -> Bool {
            guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return false }
            let q = b[i]
            i += 1
            while i < end, b[i] != q { i += 1 }
            guard i < end else { return false }
            i += 1
            return true
        }
        guard space(required: true), word() > 0 else { return false }
        _ = space(required: false)
        if i == end { return true }
        let keywordStart = i
        let length = word()
        let isPublic = length == 6 && matches(b, "PUBLIC", at: keywordStart)
        let isSystem = length == 6 && matches(b, "SYSTEM", at: keywordStart)
        guard isPublic || isSystem, space(required: true), literal() else { return false }
        if isPublic {
            guard space(required: true), literal() else { return false }
        }
        _ = space(required: false)
        return i == end
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") || c >= 0x80
    }
}
