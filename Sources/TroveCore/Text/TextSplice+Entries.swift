/// Planning an edited container: which original entry each current entry continues, and the
/// pieces of original text and new text that write them.
///
/// The text of a container is cut into a head, one stretch per entry and a tail. An entry's
/// stretch runs from its *lead* (the blank lines and comments above its first token, and the
/// indentation before it) through its key, value and separator to its *trail*: the rest of the
/// separator's line when that holds only spaces and comments, with the line break. So an entry
/// owns the comment at the end of its line, and the head owns the rest of the opening bracket's
/// line. What a change does to the text:
///
/// - A replaced value gets new text between its entry's original key and separator.
/// - A removed entry takes its stretch with it, but leaves the lines of its lead that are not
///   its own: comments indented less than its key (an Xcode section marker) and whatever is
///   above a blank line. Comments at its own indentation directly above it, and one blank line
///   above those, go with it.
/// - An inserted entry copies a sibling's indentation, key-to-value spacing and quoting, and the
///   container's line break; it goes after the entry of the key that precedes it in the
///   dictionary, or at the same index in an array.
/// - Separators follow the file: `;` after every OpenStep dictionary entry, and a `,` after the
///   last element only when the last element had one.
extension TextSplice {
    /// Where one original entry's text lies.
    struct EntrySpan {
        var node: Int32
        var leadStart: Int32
        /// The entry's first token: its key, or the value in an array.
        var token: Int32
        var valueStart: Int32
        var valueEnd: Int32
        var separator: Int32
        /// The end of the entry's stretch: after its trail, or its value when no separator follows.
        var trailEnd: Int32
    }

    /// A container's text cut into head, entries and tail.
    struct ContainerSpans {
        var start: Int32
        var end: Int32
        var headEnd: Int32
        var entries: [EntrySpan]
        /// Where the tail (the trivia after the last entry and the closing bracket) starts.
        var tailStart: Int32
        /// True for a `.strings` body without braces.
        var isBraceless: Bool
    }

    /// One step of an edited container, in output order.
    enum Item {
        /// Original entry `entry`, now holding `current`; it read as `original`.
        case keep(Int, current: PlistValue, original: PlistValue, component: PlistKeyPath.Component)
        /// Original entry `entry`, an earlier occurrence of a repeated key: copied as it was.
        case shadow(Int)
        /// A new entry (`key` nil in an array).
        case insert(String?, PlistValue, component: PlistKeyPath.Component)
        /// Original entry `entry`, gone.
        case remove(Int)
    }

    /// What new entries of a container copy from their siblings.
    struct EntryStyle {
        var lead: [UInt8]
        /// The indentation of a new entry's line.
        var indent: [UInt8]
        /// What follows a new entry's separator: the container's line break, or nothing.
        var trail: [UInt8]
        var mid: [UInt8]
        var keyToken: UInt8?
        var valueToken: UInt8?
    }

    func spans(of node: Int32) -> ContainerSpans {
        let container = notes.nodes[Int(node)]
        let braceless = node == 0 && notes.isBraceless
        let closeLimit = braceless ? container.end : container.end - 1
        let children = notes.children(of: node)
        let firstToken = children.first.map { notes.nodes[Int($0)].entryStart } ?? closeLimit
        let headEnd = braceless ? container.start : trailEnd(from: container.start + 1, limit: firstToken)
        var entries: [EntrySpan] = []
        entries.reserveCapacity(children.count)
        var lead = headEnd
        for (k, child) in children.enumerated() {
            let note = notes.nodes[Int(child)]
            let nextToken = k + 1 < children.count ? notes.nodes[Int(children[k + 1])].entryStart : closeLimit
            let end = note.separator >= 0 ? trailEnd(from: note.separator + 1, limit: nextToken) : note.end
            entries.append(
                EntrySpan(
                    node: child, leadStart: lead, token: note.entryStart, valueStart: note.start, valueEnd: note.end,
                    separator: note.separator, trailEnd: end))
            lead = end
        }
        return ContainerSpans(
            start: container.start, end: container.end, headEnd: headEnd, entries: entries, tailStart: lead,
            isBraceless: braceless)
    }

    /// The end of the trail that starts at `start`: after the first line break when only spaces,
    /// tabs and comments on one line come before it; `start` itself otherwise.
    func trailEnd(from start: Int32, limit: Int32) -> Int32 {
        let text = notes.text
        var i = Int(start)
        let end = Int(limit)
        while i < end {
            switch text[i] {
            case 0x20, 0x09:
                i += 1
            case 0x0A:
                return Int32(truncatingIfNeeded: i + 1)
            case 0x0D:
                return Int32(truncatingIfNeeded: i + 1 < end && text[i + 1] == 0x0A ? i + 2 : i + 1)
            case UInt8(ascii: "/") where dialect.hasComments && i + 1 < end && text[i + 1] == UInt8(ascii: "/"):
                i += 2
                while i < end, text[i] != 0x0A, text[i] != 0x0D { i += 1 }
            case UInt8(ascii: "/") where dialect.hasComments && i + 1 < end && text[i + 1] == UInt8(ascii: "*"):
                var j = i + 2
                while j + 1 < end, !(text[j] == UInt8(ascii: "*") && text[j + 1] == UInt8(ascii: "/")) {
                    // A comment running onto later lines belongs to what follows it.
                    if text[j] == 0x0A || text[j] == 0x0D { return start }
                    j += 1
                }
                guard j + 1 < end else { return start }
                i = j + 2
            default:
                return start
            }
        }
        return start
    }

    // MARK: Matching

    mutating func dictionaryPlan(node: Int32, now: PlistDictionary, then: PlistDictionary) -> [Piece] {
        let spans = spans(of: node)
        let style = style()
        if spans.entries.isEmpty { return bracelessBodyPlan(spans, now, style: style) }
        let positions: [Int] = notes.entryPositions[node].map { $0.map(Int.init) } ?? Array(spans.entries.indices)
        var live = Array(repeating: -1, count: then.count)
        var first = Array(repeating: -1, count: then.count)
        for (i, p) in positions.enumerated() {
            live[p] = i
            if first[p] < 0 { first[p] = i }
        }
        var currentOf = Array(repeating: -1, count: then.count)
        var originalOf = Array(repeating: -1, count: now.count)
        if now.count == then.count, now.keys.elementsEqual(then.keys, by: { $0.hasSameUTF8(as: $1) }) {
            currentOf = Array(0..<then.count)
            originalOf = currentOf
        } else {
            for (j, key) in now.keys.enumerated() {
                if let p = then.index(forKey: key) {
                    currentOf[p] = j
                    originalOf[j] = p
                }
            }
        }
        func insert(_ j: Int) -> Item { .insert(now.keys[j], now.values[j], component: .key(now.keys[j])) }
        func keep(_ i: Int, _ p: Int) -> Item {
            let j = currentOf[p]
            return .keep(i, current: now.values[j], original: then.values[p], component: .key(now.keys[j]))
        }
        var items: [Item] = []
        items.reserveCapacity(max(now.count, positions.count))
        var previous = -1
        var inOrder = true
        for p in originalOf where p >= 0 {
            if p < previous { inOrder = false }
            previous = p
        }
        if inOrder {
            // Entries in document order; a new key goes after the first entry of the key before it.
            var after: [Int: [Int]] = [:]
            var lastOriginal = -1
            for j in 0..<now.count {
                if originalOf[j] >= 0 {
                    lastOriginal = originalOf[j]
                } else if lastOriginal < 0 {
                    items.append(insert(j))
                } else {
                    after[lastOriginal, default: []].append(j)
                }
            }
            for (i, p) in positions.enumerated() {
                guard currentOf[p] >= 0 else {
                    items.append(.remove(i))
                    continue
                }
                items.append(live[p] == i ? keep(i, p) : .shadow(i))
                if first[p] == i, let added = after[p] { items.append(contentsOf: added.map(insert)) }
            }
        } else {
            // Keys reordered: the value's order, each key's earlier occurrences just before it.
            for j in 0..<now.count {
                let p = originalOf[j]
                guard p >= 0 else {
                    items.append(insert(j))
                    continue
                }
                for (i, q) in positions.enumerated() where q == p && i != live[p] { items.append(.shadow(i)) }
                items.append(keep(live[p], p))
            }
            for (i, p) in positions.enumerated() where currentOf[p] < 0 { items.append(.remove(i)) }
        }
        return pieces(items, spans, inDictionary: true, style: style)
    }

    mutating func arrayPlan(node: Int32, now: [PlistValue], then: [PlistValue]) -> [Piece] {
        let spans = spans(of: node)
        let style = style()
        let k = then.count, m = now.count
        func keep(_ i: Int, _ j: Int) -> Item { .keep(i, current: now[j], original: then[i], component: .index(j)) }
        var items: [Item] = []
        items.reserveCapacity(max(k, m))
        guard k != m else {
            for i in 0..<k { items.append(keep(i, i)) }
            return pieces(items, spans, inDictionary: false, style: style)
        }
        // One run of elements inserted or removed: the common ends keep their notes, and the
        // middle pairs up by position before the surplus is added or dropped.
        var prefix = 0
        while prefix < min(k, m), TextValueMatch.same(now[prefix], then[prefix]) { prefix += 1 }
        var suffix = 0
        while prefix + suffix < min(k, m), TextValueMatch.same(now[m - 1 - suffix], then[k - 1 - suffix]) { suffix += 1 }
        let oldMiddle = k - prefix - suffix, newMiddle = m - prefix - suffix
        for i in 0..<prefix { items.append(keep(i, i)) }
        for d in 0..<min(oldMiddle, newMiddle) { items.append(keep(prefix + d, prefix + d)) }
        for d in min(oldMiddle, newMiddle)..<oldMiddle { items.append(.remove(prefix + d)) }
        for d in min(oldMiddle, newMiddle)..<newMiddle {
            items.append(.insert(nil, now[prefix + d], component: .index(prefix + d)))
        }
        for d in 0..<suffix { items.append(keep(k - suffix + d, m - suffix + d)) }
        return pieces(items, spans, inDictionary: false, style: style)
    }

    /// A `.strings` document with no entries (only comments, or nothing) that gains some: they
    /// follow its text, one `"key" = "value";` a line.
    private func bracelessBodyPlan(_ spans: ContainerSpans, _ now: PlistDictionary, style: TextDocumentStyle) -> [Piece] {
        let lineBreak = style.lineBreak
        var pieces: [Piece] = [.copy(spans.start, spans.end)]
        // CF reads a `/*` left open as running to the end; it is closed so the entries are not in it.
        if endsInOpenComment() { pieces.append(.bytes(Array("*/".utf8))) }
        if let last = notes.text.last, last != 0x0A, last != 0x0D { pieces.append(.bytes(lineBreak)) }
        let quote = UInt8(ascii: "\"")
        for (key, value) in now {
            pieces.append(.key(key, sibling: quote))
            pieces.append(.bytes(dialect.defaultMid(style)))
            pieces.append(.fresh(value, indent: [], token: quote, component: .key(key)))
            pieces.append(.bytes([dialect.separator(inDictionary: true)] + lineBreak))
        }
        return pieces
    }

    /// True when the text, which holds only trivia, ends inside a `/*` comment.
    private func endsInOpenComment() -> Bool {
        let text = notes.text
        var i = 0
        while i + 1 < text.count {
            if text[i] == UInt8(ascii: "/"), text[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i + 1 < text.count, !(text[i] == UInt8(ascii: "*") && text[i + 1] == UInt8(ascii: "/")) { i += 1 }
                if i + 1 >= text.count { return true }
                i += 2
            } else if text[i] == UInt8(ascii: "/"), text[i + 1] == UInt8(ascii: "/") {
                while i < text.count, text[i] != 0x0A, text[i] != 0x0D { i += 1 }
            } else {
                i += 1
            }
        }
        return false
    }

    // MARK: Pieces

    /// The pieces that write `items` over a container cut into `spans`.
    private func pieces(_ items: [Item], _ spans: ContainerSpans, inDictionary: Bool, style: TextDocumentStyle) -> [Piece] {
        let text = notes.text
        var pieces: [Piece] = [.copy(spans.start, spans.headEnd)]
        let required = dialect.separatorIsRequired(inDictionary: inDictionary)
        let trailing = spans.entries.last.map { $0.separator >= 0 }
            ?? dialect.trailingSeparatorByDefault(inDictionary: inDictionary)
        let separator = dialect.separator(inDictionary: inDictionary)
        let lastWritten = items.lastIndex { if case .remove = $0 { return false } else { return true } }
        // What new entries copy from their siblings, found when the first one needs it.
        var newEntries: EntryStyle?
        // The lead of a removed entry on the line of the entry after it, which that entry takes
        // (`{a = 1; b = 2; }` without `a` is `{b = 2; }`).
        var inheritedLead: Range<Int32>?
        func hasBreak(_ start: Int32, _ end: Int32) -> Bool {
            text[Int(start)..<Int(end)].contains { $0 == 0x0A || $0 == 0x0D }
        }
        func lead(of entry: EntrySpan, _ pieces: inout [Piece]) {
            if let inherited = inheritedLead, !hasBreak(entry.leadStart, entry.token) {
                pieces.append(.copy(inherited.lowerBound, inherited.upperBound))
                pieces.append(.copy(entry.token, entry.valueStart))
            } else {
                pieces.append(.copy(entry.leadStart, entry.valueStart))
            }
            inheritedLead = nil
        }
        for (index, item) in items.enumerated() {
            let needsSeparator = required || index != lastWritten || trailing
            switch item {
            case .remove(let i):
                let entry = spans.entries[i]
                let kept = keptLeadEnd(entry)
                pieces.append(.copy(entry.leadStart, kept))
                if kept == entry.leadStart, inheritedLead == nil, !hasBreak(entry.leadStart, entry.token) {
                    inheritedLead = entry.leadStart..<entry.token
                }
            case .shadow(let i):
                let entry = spans.entries[i]
                lead(of: entry, &pieces)
                pieces.append(.copy(entry.valueStart, entry.trailEnd))
            case .keep(let i, let current, let original, let component):
                let entry = spans.entries[i]
                lead(of: entry, &pieces)
                if notes.nodes[Int(entry.node)].isShortcut, !TextValueMatch.sameScalar(current, original) {
                    // `"key";` now maps the key to another value: it gets a `=` and the value.
                    pieces.append(.bytes(style.mid ?? dialect.defaultMid(style)))
                    pieces.append(
                        .fresh(current, indent: lineIndent(at: entry.token), token: text[Int(entry.token)], component: component))
                } else {
                    pieces.append(.child(node: entry.node, original: original, current: current, component: component))
                }
                if entry.separator >= 0 {
                    if needsSeparator {
                        pieces.append(.copy(entry.valueEnd, entry.trailEnd))
                    } else {
                        pieces.append(.copy(entry.valueEnd, entry.separator))
                        if let comment = trailComment(entry) { pieces.append(.copy(comment.lowerBound, comment.upperBound)) }
                    }
                } else if needsSeparator {
                    if newEntries == nil { newEntries = entryStyle(spans, inDictionary: inDictionary, style: style) }
                    pieces.append(.bytes([separator] + (newEntries?.trail ?? [])))
                }
            case .insert(let key, let value, let component):
                inheritedLead = nil
                if newEntries == nil { newEntries = entryStyle(spans, inDictionary: inDictionary, style: style) }
                guard let style = newEntries else { continue }
                pieces.append(.bytes(style.lead))
                if let key {
                    pieces.append(.key(key, sibling: style.keyToken))
                    pieces.append(.bytes(style.mid))
                }
                pieces.append(.fresh(value, indent: style.indent, token: style.valueToken, component: component))
                if needsSeparator { pieces.append(.bytes([separator] + style.trail)) }
            }
        }
        // A `.strings` body ends at the first thing that cannot start a key, and CF ignores the
        // rest; with no entry left, that rest would start the document, so only its trivia stays.
        let tailEnd = spans.isBraceless && lastWritten == nil ? triviaEnd(from: spans.tailStart, limit: spans.end) : spans.end
        pieces.append(.copy(spans.tailStart, tailEnd))
        return pieces
    }

    /// The end of the whitespace and comments from `start`.
    private func triviaEnd(from start: Int32, limit: Int32) -> Int32 {
        let text = notes.text
        var i = Int(start)
        let end = Int(limit)
        while i < end {
            let c = text[i]
            if c == 0x20 || (0x09...0x0D).contains(c) {
                i += 1
            } else if dialect.hasComments, c == UInt8(ascii: "/"), i + 1 < end, text[i + 1] == UInt8(ascii: "/") {
                while i < end, text[i] != 0x0A, text[i] != 0x0D { i += 1 }
            } else if dialect.hasComments, c == UInt8(ascii: "/"), i + 1 < end, text[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i + 1 < end, !(text[i] == UInt8(ascii: "*") && text[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i = min(i + 2, end)
            } else {
                break
            }
        }
        return Int32(truncatingIfNeeded: i)
    }

    /// The end of the part of a removed entry's lead that stays (see the type's notes).
    private func keptLeadEnd(_ entry: EntrySpan) -> Int32 {
        let text = notes.text
        let token = Int(entry.token)
        // Where the lead's lines start, a comment running over several lines counting as one.
        var lineStarts = [Int(entry.leadStart)]
        var i = Int(entry.leadStart)
        while i < token {
            let c = text[i]
            if dialect.hasComments, c == UInt8(ascii: "/"), i + 1 < token, text[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i + 1 < token, !(text[i] == UInt8(ascii: "*") && text[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 2
            } else if dialect.hasComments, c == UInt8(ascii: "/"), i + 1 < token, text[i + 1] == UInt8(ascii: "/") {
                while i < token, text[i] != 0x0A, text[i] != 0x0D { i += 1 }
            } else if c == 0x0A || c == 0x0D {
                i += c == 0x0D && i + 1 < token && text[i + 1] == 0x0A ? 2 : 1
                lineStarts.append(i)
            } else {
                i += 1
            }
        }
        /// The end of the spaces and tabs from `start`.
        func indentEnd(_ start: Int) -> Int {
            var end = start
            while end < token, text[end] == 0x20 || text[end] == 0x09 { end += 1 }
            return end
        }
        func isBreak(_ c: UInt8) -> Bool { c == 0x0A || c == 0x0D }
        var line = lineStarts.count - 1
        let keyIndent = indentEnd(lineStarts[line]) - lineStarts[line]
        // Comment lines at the key's indentation or deeper, directly above it, go with it...
        while line > 0 {
            let above = lineStarts[line - 1]
            let textStart = indentEnd(above)
            guard !isBreak(text[textStart]), textStart - above >= keyIndent else { break }
            line -= 1
        }
        // ...and so does one blank line above them.
        if line > 0, isBreak(text[indentEnd(lineStarts[line - 1])]) { line -= 1 }
        return Int32(truncatingIfNeeded: lineStarts[line])
    }

    /// The comment in an entry's trail, without the line break, when the trail holds one.
    private func trailComment(_ entry: EntrySpan) -> Range<Int32>? {
        let text = notes.text
        var end = Int(entry.trailEnd)
        let start = Int(entry.separator) + 1
        while end > start, text[end - 1] == 0x0A || text[end - 1] == 0x0D { end -= 1 }
        guard text[start..<end].contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return nil }
        return Int32(truncatingIfNeeded: start)..<Int32(truncatingIfNeeded: end)
    }

    /// The style new entries of a container take from its entries (which it has).
    private func entryStyle(_ spans: ContainerSpans, inDictionary: Bool, style: TextDocumentStyle) -> EntryStyle {
        let text = notes.text
        func isBreak(_ c: UInt8) -> Bool { c == 0x0A || c == 0x0D }
        func lineBreakEnding(_ start: Int, _ end: Int) -> [UInt8]? {
            guard end > start, isBreak(text[end - 1]) else { return nil }
            return end - 2 >= start && text[end - 2] == 0x0D && text[end - 1] == 0x0A ? [0x0D, 0x0A] : [text[end - 1]]
        }
        var trail: [UInt8] = []
        if let found = spans.entries.lazy.compactMap({ entry in
            entry.separator >= 0 ? lineBreakEnding(Int(entry.separator) + 1, Int(entry.trailEnd)) : nil
        }).first {
            trail = found
        } else if let found = lineBreakEnding(Int(spans.start), Int(spans.headEnd)) {
            trail = found
        } else if spans.entries.contains(where: { entry in
            text[Int(entry.leadStart)..<Int(entry.token)].contains(where: isBreak)
        }) {
            trail = style.lineBreak
        }
        let reference = spans.entries[spans.entries.count >= 2 ? spans.entries.count - 1 : 0]
        var leadStart = Int(reference.leadStart)
        let token = Int(reference.token)
        if let lastBreak = text[leadStart..<token].lastIndex(where: isBreak) { leadStart = lastBreak + 1 }
        var leadEnd = leadStart
        while leadEnd < token, text[leadEnd] == 0x20 || text[leadEnd] == 0x09 { leadEnd += 1 }
        var lead = Array(text[leadStart..<leadEnd])
        let indent = trail.isEmpty ? lineIndent(at: reference.token) : lead
        if lead.isEmpty, trail.isEmpty, spans.entries.count < 2 {
            // One entry on one line shows no spacing between entries: the document's, if any.
            lead = dialect.oneLineSpace(style)
        }
        let note = notes.nodes[Int(reference.node)]
        var mid = dialect.defaultMid(style)
        if inDictionary, !note.isShortcut, let start = plainMid(before: note.start) {
            mid = Array(text[Int(start)..<Int(note.start)])
        }
        let valueToken: UInt8? =
            note.isShortcut ? text[token] : (note.childCount > 0 || note.start == note.end ? nil : text[Int(note.start)])
        return EntryStyle(
            lead: lead, indent: indent, trail: trail, mid: mid, keyToken: inDictionary ? text[token] : nil,
            valueToken: valueToken)
    }
}
