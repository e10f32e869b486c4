/// Matching a dictionary value's entries to the notes of the dictionary it was read as: by
/// cursor while the keys are the noted ones in the noted order, else by key text; and restoring
/// the entries of a dictionary whose file repeated keys.
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

    /// The walk position of each noted object's first visit (-1 for none), and whether a second
    /// node of the value may name the object and ask to share the first one's: true for objects
    /// the walk visits more than once and for everything in their subtrees (a node that cannot
    /// share a repeated object still follows that object's noted children, so they can be met a
    /// second time). A node meets an object another node already holds only through a walk entry
    /// these cover.
    static func visits(
        _ walkObjects: [UInt32], extents: UnsafePointer<UInt32>, objectCount: Int
    ) -> (firstVisit: [Int], mayBeMetAgain: [Bool]) {
        var first = [Int](repeating: -1, count: objectCount)
        var marked = [Bool](repeating: false, count: objectCount)
        walkObjects.withUnsafeBufferPointer { walk in
            first.withUnsafeMutableBufferPointer { first in
                marked.withUnsafeMutableBufferPointer { marked in
                    // First visits, and repeated objects marked on the way.
                    for (position, object) in walk.enumerated() {
                        let object = Int(object)
                        if first[object] < 0 { first[object] = position } else { marked[object] = true }
                    }
                    // Subtrees of a pre-order walk nest, so one running end covers each subtree
                    // of a repeated object.
                    var coveredTo = 0
                    for (position, object) in walk.enumerated() {
                        let object = Int(object)
                        if position >= coveredTo && marked[object] && first[object] == position {
                            coveredTo = position + Int(extents[position])
                        }
                        if position < coveredTo { marked[object] = true }
                    }
                }
            }
        }
        return (first, marked)
    }

    /// Where the notes of each entry of a dictionary are when its keys are no longer the noted
    /// keys in the noted order: matched by key text, so inserting, removing or reordering keys
    /// leaves the other entries on their own notes. Nil when the keys are still the noted ones in
    /// order (the common, cheap case, which follows the cursors) or there are no notes.
    /// `notedCount` is the number of entries the notes give the dictionary.
    func entryNotesByKey(for entries: PlistDictionary, subtree: Int?, notedCount: Int) -> DictionaryEntryNotes? {
        guard let subtree, walkExtents != nil else { return nil }
        var cursor = NoteCursor(extents: walkExtents, container: subtree)
        let firstKey = subtree + 1
        let keys = entries.keys
        if notedCount == keys.count {
            let inOrder = keys.withUnsafeBufferPointer { keys in
                walkObjects.withUnsafeBufferPointer { walk in
                    (0..<notedCount).allSatisfy { keyTexts.hasText(of: walk[firstKey + $0], sameAs: keys[$0]) }
                }
            }
            if inOrder { return nil }
        }
        cursor.skip(keys: notedCount)
        var valuePositions: [Int] = []
        valuePositions.reserveCapacity(notedCount)
        while let position = cursor.next() { valuePositions.append(position) }
        // Each noted key text once, with its first position, matched by code units as keys are.
        var notedTexts: [String] = []
        var notedPositions: [Int] = []
        let notedIndex = PlistKeyIndex(capacity: notedCount)
        for i in 0..<notedCount {
            guard let text = keyTexts[walkObjects[firstKey + i]] else { continue }
            notedTexts.append(text)
            if notedTexts.withUnsafeBufferPointer({ notedIndex.insert(notedTexts.count - 1, of: $0) }) == nil {
                notedPositions.append(i)
            } else {
                notedTexts.removeLast()
            }
        }
        var keyPositions: [Int?] = []
        var matchedValues: [Int?] = []
        keyPositions.reserveCapacity(keys.count)
        matchedValues.reserveCapacity(keys.count)
        for key in keys {
            let i = notedTexts.withUnsafeBufferPointer { notedIndex.position(of: key, in: $0) }.map { notedPositions[$0] }
            keyPositions.append(i.map { firstKey + $0 })
            matchedValues.append(i.flatMap { $0 < valuePositions.count ? valuePositions[$0] : nil })
        }
        return DictionaryEntryNotes(keyPositions: keyPositions, valuePositions: matchedValues)
    }

    /// The file's entries of a dictionary whose keys repeated, when its notes say so and it still
    /// has exactly the noted keys: every noted key in file order, each later occurrence with the
    /// value it held and the first with the dictionary's value.
    func restoredEntries(of entries: PlistDictionary, subtree: Int?) -> [(String, PlistValue)]? {
        guard let subtree, !repeatedKeys.isEmpty, let repeated = repeatedKeys[UInt32(truncatingIfNeeded: subtree)] else { return nil }
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

/// The walk entries noting each entry of a dictionary value whose keys were matched to the notes
/// by text, by the entry's index; nil where an entry has no noted counterpart.
struct DictionaryEntryNotes {
    private var keyPositions: [Int?] = []
    private var valuePositions: [Int?] = []

    /// No notes.
    init() {}

    init(keyPositions: [Int?], valuePositions: [Int?]) {
        self.keyPositions = keyPositions
        self.valuePositions = valuePositions
    }

    func key(_ i: Int) -> Int? { i < keyPositions.count ? keyPositions[i] : nil }

    func value(_ i: Int) -> Int? { i < valuePositions.count ? valuePositions[i] : nil }
}

/// Steps through the walk entries of a container's children.
///
/// It reads the extents through a pointer to the planner's copy of them, so a cursor (two of
/// which sit in every frame) is three words and copying one retains nothing.
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

    /// How many children remain.
    func remainingCount() -> Int {
        var copy = self
        var count = 0
        while copy.next() != nil { count += 1 }
        return count
    }
}
