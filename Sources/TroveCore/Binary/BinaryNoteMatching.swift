/// Matching a value's nodes to the notes of the file it was read from: whether a note can hold a
/// value, where a container's children's notes are, a dictionary's entries matched by key text
/// once its keys are no longer the noted ones in the noted order, and the entries of a dictionary
/// whose file repeated keys.
extension BinaryObjectPlanner {
    /// True when an object encoded as `note` could hold `value`.
    static func note(_ note: BinaryLayout.EncodingNote, fits value: PlistValue) -> Bool {
        switch (note.type, value) {
        case (0x0, .null): return note.marker == 0x00
        case (0x0, .bool): return note.marker == 0x08 || note.marker == 0x09
        case (0x1, .integer), (0x2, .real), (0x3, .date), (0x4, .data), (0x8, .uid): return true
        case (0x5, .string), (0x6, .string), (0x7, .string): return true
        case (0xA, .array), (0xC, .array), (0xD, .dictionary): return true
        default: return false
        }
    }

    /// The walk entry whose subtree notes the children of container `object`, met at walk entry
    /// `position`: the object's first visit.
    ///
    /// A later visit of an object spans one walk entry and a first visit of a non-empty
    /// container more, so `position` is the first visit when it spans more; when it spans one
    /// and the noted count is zero, every visit notes the same (no children, no repeated keys).
    /// Only a non-empty container met at a later visit, which its holder did not answer (the
    /// node differs, or the first visit's node took nothing), looks the first visit up, in a
    /// table made the first time one does.
    @inline(__always)
    mutating func firstVisit(of object: Int, at position: Int) -> Int {
        if extents[position] > 1 || encodings[object].marker & 0x0F == 0 { return position }
        return lookUpFirstVisit(of: object)
    }

    @inline(never)
    private mutating func lookUpFirstVisit(of object: Int) -> Int {
        if firstVisits.isEmpty, let layout {
            var first = [Int](repeating: -1, count: notedObjectCount)
            for (position, visited) in layout.walkObjects.enumerated() where first[Int(visited)] < 0 {
                first[Int(visited)] = position
            }
            firstVisits = first
        }
        return firstVisits[object]
    }

    /// Whether `object`, named by a noted key entry, was a key with exactly the code units of
    /// `key`. The key texts share storage with the decoded value's keys, so an unchanged key is
    /// the same two words and is decided without reading its text.
    @inline(__always)
    func keyMatches(_ object: UInt32, _ key: UnsafePointer<String>) -> Bool {
        guard let noted = keyTextStorage.text(of: Int(object)) else { return false }
        if UnsafeRawPointer(noted).load(as: StringRepresentation.self) == UnsafeRawPointer(key).load(as: StringRepresentation.self) {
            return true
        }
        return Self.sameText(noted, key)
    }

    @inline(never)
    private static func sameText(_ a: UnsafePointer<String>, _ b: UnsafePointer<String>) -> Bool {
        a.pointee.hasSameUTF8(as: b.pointee)
    }

    /// Plans the keys `keys[start ..< count]` of a dictionary whose key `start` is not its noted
    /// key there, matching each by text to the noted keys (`notedEntries` of them from walk entry
    /// `firstKey`; `values ..< end` holds the noted values' entries), so that inserting,
    /// removing or reordering keys leaves the other entries on their own notes. The keys before
    /// `start` were their noted keys in order and took their own entries, as a match by text
    /// gives them. Returns where, in `matchedPositions`, the run of the values' entries starts.
    mutating func planKeysByText(
        _ keys: UnsafePointer<String>, count: Int, from start: Int, firstKey: Int, notedEntries: Int, values: Int, end: Int,
        references: Int
    ) throws(PlistError) -> Int {
        var valuePositions: [Int] = []
        valuePositions.reserveCapacity(notedEntries)
        var cursor = values
        while cursor < end {
            valuePositions.append(cursor)
            cursor += Int(extents[cursor])
        }
        // Each noted key text once, with its first position, matched by code units as keys are.
        var notedTexts: [String] = []
        var notedPositions: [Int] = []
        let notedIndex = PlistKeyIndex(capacity: notedEntries)
        for i in 0..<notedEntries {
            guard let text = keyTexts[walk[firstKey + i]] else { continue }
            notedTexts.append(text)
            if notedTexts.withUnsafeBufferPointer({ notedIndex.insert(notedTexts.count - 1, of: $0) }) == nil {
                notedPositions.append(i)
            } else {
                notedTexts.removeLast()
            }
        }
        let run = matchedPositions.count
        for i in 0..<start { matchedPositions.push(i < valuePositions.count ? valuePositions[i] : -1) }
        for i in start..<count {
            let noted = notedTexts.withUnsafeBufferPointer { notedIndex.position(of: keys[i], in: $0) }.map { notedPositions[$0] }
            let position = noted.map { firstKey + $0 } ?? -1
            children[references + i] = UInt32(truncatingIfNeeded: try planKey(keys + i, notedAt: position, textMatched: noted != nil))
            matchedPositions.push(noted.flatMap { $0 < valuePositions.count ? valuePositions[$0] : nil } ?? -1)
        }
        return run
    }

    /// The file's entries of a dictionary whose keys repeated, when its notes say so and it still
    /// has exactly the noted keys: every noted key in file order, each later occurrence with the
    /// value it held and the first with the dictionary's value.
    func restoredEntries(of entries: PlistDictionary, subtree: Int) -> [(String, PlistValue)]? {
        guard let repeated = repeatedKeys[UInt32(truncatingIfNeeded: subtree)] else { return nil }
        guard PlistDictionary(repeated.keys.lazy.map { ($0, PlistValue.null) }).count == entries.count else { return nil }
        var restored: [(String, PlistValue)] = []
        restored.reserveCapacity(repeated.keys.count)
        for (i, key) in repeated.keys.enumerated() {
            guard let current = entries[key] else { return nil }
            restored.append((key, repeated.hiddenValues[i] ?? current))
        }
        return restored
    }
}

/// Steps through the walk entries of a container's children.
///
/// It reads the extents through a pointer to the notes' array, so a cursor is three words and
/// copying one retains nothing.
struct NoteCursor {
    private let extents: UnsafePointer<UInt32>?
    private var position: Int
    private let end: Int

    init(extents: UnsafePointer<UInt32>?, container: Int?) {
        if let extents, let container {
            self.extents = extents
            position = container + 1
            end = container + Int(extents[container])
        } else {
            self.extents = nil
            position = 0
            end = 0
        }
    }

    /// The next child's walk entry, or nil once the noted children are used up.
    @inline(__always)
    mutating func next() -> Int? {
        guard position < end, let extents else { return nil }
        defer { position += Int(extents[position]) }
        return position
    }

    /// Skips `count` keys of a dictionary: keys are strings, whose walk entries span one entry
    /// each.
    mutating func skip(keys count: Int) {
        position = Swift.min(position + count, end)
    }

    /// How many children remain: the steps from one child's entry to the next, as ``next()``
    /// takes them, without its optional per step (a long dictionary's noted entries are
    /// counted this way at every rewrite).
    func remainingCount() -> Int {
        guard let extents else { return 0 }
        var position = self.position
        var count = 0
        while position < end {
            position &+= Int(extents[position])
            count &+= 1
        }
        return count
    }
}
