/// Matching a dictionary value's entries to the notes of the dictionary it was read as: by
/// cursor while the keys are the noted ones in the noted order, else by key text; and restoring
/// the entries of a dictionary whose file repeated keys.
extension BinaryObjectPlanner {
    /// Where the notes of each entry of a dictionary are when its keys are no longer the noted
    /// keys in the noted order: matched by key text, so inserting, removing or reordering keys
    /// leaves the other entries on their own notes. Nil when the keys are still the noted ones in
    /// order (the common, cheap case, which follows the cursors) or there are no notes.
    /// `notedCount` is the number of entries the notes give the dictionary.
    func entryNotesByKey(for entries: PlistDictionary, subtree: Int?, notedCount: Int) -> DictionaryEntryNotes? {
        guard let layout, let subtree else { return nil }
        var cursor = NoteCursor(extents: walkExtents, container: subtree)
        let firstKey = subtree + 1
        let keys = entries.keys
        if notedCount == keys.count {
            var inOrder = true
            for i in 0..<notedCount {
                guard let text = layout.keyTexts[layout.walkObjects[firstKey + i]], text.hasSameUTF8(as: keys[i]) else {
                    inOrder = false
                    break
                }
            }
            if inOrder { return nil }
        }
        cursor.skip(notedCount)
        var valuePositions: [Int] = []
        valuePositions.reserveCapacity(notedCount)
        while let position = cursor.next() { valuePositions.append(position) }
        // Each noted key text once, with its first position, matched by code units as keys are.
        var notedTexts: [String] = []
        var notedPositions: [Int] = []
        let notedIndex = PlistKeyIndex(capacity: notedCount)
        for i in 0..<notedCount {
            guard let text = layout.keyTexts[layout.walkObjects[firstKey + i]] else { continue }
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
        guard let subtree, let layout, !layout.repeatedKeys.isEmpty,
            let repeated = layout.repeatedKeys[UInt32(truncatingIfNeeded: subtree)]
        else { return nil }
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

    /// Skips `count` children.
    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = next() }
    }

    /// How many children remain.
    func remainingCount() -> Int {
        var copy = self
        var count = 0
        while copy.next() != nil { count += 1 }
        return count
    }
}
