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
