import Foundation

/// Decides which objects a binary plist will hold, in which order, and what each references:
/// the first of the two passes of a write that follows layout notes (``BinaryPlainEncoder``
/// writes values without notes). Nesting is followed with an explicit stack.
///
/// Without layout notes every node is new and objects come out in CoreFoundation's flatten
/// order (depth-first pre-order; a dictionary, then all its keys, then each value's subtree),
/// with strings, numbers, dates and data uniqued by exact value: byte for byte what the plain
/// encoder writes, which the tests check. With notes, each node first
/// tries the object index its note names: it takes the index when the index is still free, or
/// shares it when the index already holds an equal value (a shared object). Everything else is
/// new and is appended after the noted objects, CF-style.
struct BinaryObjectPlanner: ~Copyable {
    /// What a planned object holds.
    enum Content {
        /// A string, number, date, data, bool, UID or null, in `Slot.value`.
        case scalar
        /// An array (written as a set when `isSet`), children in `children`.
        case array(isSet: Bool)
        /// A dictionary: its key slots, then its value slots, in `children`.
        case dictionary
        /// An unreferenced object encoded exactly like another slot.
        case copy(of: Int)
    }

    /// One object of the output.
    struct Slot {
        /// Sort key of the output order: the noted object index, or `noted count + n` for the
        /// n-th new object.
        var order: Int
        var value: PlistValue
        var content: Content
        /// How the file encoded the object this slot took over, if any.
        var note: BinaryLayout.EncodingNote?
        var childStart = 0
        var childCount = 0
    }

    let layout: BinaryLayout?
    let maxDepth: Int
    /// Counts the values that new containers hold, so that a value whose shared containers
    /// would expand past ``PlistLimits/maxExpandedValues`` stops instead of planning each copy.
    var meter = LimitMeter(limits: .default)
    private(set) var slots: [Slot] = []
    /// Every container's child slots: a container reserves its run when it is planned, and each
    /// child's slot is filled in as soon as it is known (a container's own slot is known before
    /// its children are planned).
    private(set) var children: [Int] = []
    /// Slot holding each noted object index, or -1 while the index is free.
    private var holderOfObject: [Int]
    /// Walk position of each noted object's first visit (whose subtree describes its children).
    private var firstVisit: [Int]
    private var newObjectCount = 0
    /// About how many bytes the scalar objects planned so far take (see
    /// ``PlistValue/estimatedBinaryObjectSize``), so that the encoder allocates its output once.
    private(set) var scalarBytes = 0
    /// Exact-value index of scalar slots, filled on the first new scalar (`uniquingBuilt`) so
    /// that an unchanged rewrite hashes nothing.
    private var uniqued = ScalarUniquingTable()
    private var uniquingBuilt = false

    /// A copy of the notes' walk extents that the cursors read through a pointer; nil without
    /// notes. Owned here and freed in `deinit`.
    private let walkExtents: UnsafeMutablePointer<UInt32>?

    init(layout: BinaryLayout?, maxDepth: Int) {
        self.layout = layout
        self.maxDepth = maxDepth
        if let layout {
            let extents = UnsafeMutablePointer<UInt32>.allocate(capacity: Swift.max(layout.walkExtents.count, 1))
            layout.walkExtents.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { extents.initialize(from: base, count: source.count) }
            }
            walkExtents = extents
            holderOfObject = Array(repeating: -1, count: layout.objectCount)
            var first = Array(repeating: -1, count: layout.objectCount)
            for (position, object) in layout.walkObjects.enumerated() where first[Int(object)] < 0 {
                first[Int(object)] = position
            }
            firstVisit = first
        } else {
            holderOfObject = []
            firstVisit = []
            walkExtents = nil
        }
    }

    deinit { walkExtents?.deallocate() }

    var notedObjectCount: Int { layout?.objectCount ?? 0 }

    // MARK: - Planning

    /// A container whose children are being planned.
    ///
    /// The children are kept as plain arrays rather than as the container's value: reading a
    /// child out of an enum payload of a frame on the stack copied the whole payload (a retain
    /// and release of every buffer of the dictionary and its notes) for every child.
    private struct Frame {
        var slot: Int
        /// Where this container's child slots start in `children`.
        var firstChild: Int
        /// Containers above this one.
        var depth: Int
        /// An array's elements; empty for a dictionary.
        var elements: [PlistValue] = []
        /// A dictionary's keys and values, in the order to write them; empty for an array.
        var keys: [String] = []
        var values: [PlistValue] = []
        var isDictionary: Bool
        /// Where each entry's notes are, for a dictionary whose keys were matched to its notes
        /// by text; empty when the entries follow the cursors instead.
        var entryNotes = DictionaryEntryNotes()
        /// True for a dictionary whose entries follow the cursors: keys through `cursor`, values
        /// through `valueCursor`. So go a dictionary with exactly its noted keys in the noted
        /// order (the common case) and one written with the repeated keys its notes recorded.
        var followsCursors = false
        var total: Int
        var next = 0
        /// Notes of array elements, or of restored keys.
        var cursor: NoteCursor
        /// Notes of restored values.
        var valueCursor: NoteCursor
    }

    /// Plans the top value and the orphan copies the notes ask for; returns the top slot.
    ///
    /// Containers are planned with an explicit stack rather than recursion, so deep values need
    /// no more than a small thread stack.
    mutating func planDocument(_ value: PlistValue) throws(PlistError) -> Int {
        // A slot is about a hundred bytes, and growing the array a step at a time copied every
        // slot about twice: room for the noted objects (a lossless rewrite needs about as many)
        // or for a small document is made at once.
        slots.reserveCapacity(Swift.max(notedObjectCount, 256))
        var stack: [Frame] = []
        let top = try plan(value, notedAt: layout == nil ? nil : 0, depth: 0, stack: &stack)
        while !stack.isEmpty {
            let last = stack.count - 1
            let index = stack[last].next
            guard index < stack[last].total else {
                stack.removeLast()
                continue
            }
            let (child, position) = Self.nextChild(of: &stack[last])
            let firstChild = stack[last].firstChild
            // `plan` may push a frame above `last`, never remove it.
            children[firstChild + index] = try plan(child, notedAt: position, depth: stack[last].depth + 1, stack: &stack)
        }
        if let layout {
            for copy in layout.copies {
                let original = holderOfObject[Int(copy.original)]
                guard holderOfObject[Int(copy.object)] < 0, original >= 0 else { continue }
                slots.append(Slot(order: Int(copy.object), value: .null, content: .copy(of: original)))
                scalarBytes += slots[original].value.estimatedBinaryObjectSize
            }
        }
        return top
    }

    /// The next child of a container to plan, with its note: array elements in order; for a
    /// dictionary all keys, then all values.
    private static func nextChild(of frame: inout Frame) -> (PlistValue, Int?) {
        let i = frame.next
        frame.next += 1
        guard frame.isDictionary else { return (frame.elements[i], frame.cursor.next()) }
        let count = frame.keys.count
        if frame.followsCursors {
            if i < count { return (.string(frame.keys[i]), frame.cursor.next()) }
            return (frame.values[i - count], frame.valueCursor.next())
        }
        if i < count { return (.string(frame.keys[i]), frame.entryNotes.key(i)) }
        return (frame.values[i - count], frame.entryNotes.value(i - count))
    }

    /// Plans `value`, whose note (if any) is walk entry `position`: returns the slot a reference
    /// to the value must name, after pushing a frame for a new container's children.
    private mutating func plan(
        _ value: PlistValue, notedAt position: Int?, depth: Int, stack: inout [Frame]
    ) throws(PlistError) -> Int {
        var subtree: Int?
        if let position, let layout {
            let object = Int(layout.walkObjects[position])
            let note = layout.encodings[object]
            if Self.note(note, fits: value) {
                subtree = firstVisit[object]
                let holder = holderOfObject[object]
                if holder < 0 {
                    return try add(value, order: object, note: note, subtree: subtree, depth: depth, stack: &stack)
                }
                if Self.sameValue(slots[holder].value, value) { return holder }
            }
        }
        if !value.isContainer {
            if !uniquingBuilt { buildUniquingIndex() }
            switch uniqued.lookup(value, scalarAt: { slots[$0].value }) {
            case .found(let existing):
                switch value {
                case .bool, .uid:
                    // CoreFoundation does not unique booleans and UIDs: it appends each
                    // occurrence as an object of its own, but every reference names the first.
                    slots.append(Slot(order: nextNewOrder(), value: value, content: .copy(of: existing)))
                    scalarBytes += value.estimatedBinaryObjectSize
                default: break
                }
                return existing
            case .absent(let insertion):
                let slot = slots.count
                slots.append(Slot(order: nextNewOrder(), value: value, content: .scalar))
                scalarBytes += value.estimatedBinaryObjectSize
                uniqued.insert(slot, at: insertion)
                return slot
            case nil:
                preconditionFailure("a scalar always has a uniquing hash")
            }
        }
        return try add(value, order: nextNewOrder(), note: nil, subtree: subtree, depth: depth, stack: &stack)
    }

    private mutating func nextNewOrder() -> Int {
        defer { newObjectCount += 1 }
        return notedObjectCount + newObjectCount
    }

    /// Appends a slot for `value` and returns it; for a container, also reserves its child slots
    /// and pushes a frame to plan its children, following the notes of walk entry `subtree` when
    /// given.
    private mutating func add(
        _ value: PlistValue, order: Int, note: BinaryLayout.EncodingNote?, subtree: Int?, depth: Int,
        stack: inout [Frame]
    ) throws(PlistError) -> Int {
        let slot = slots.count
        if order < notedObjectCount { holderOfObject[order] = slot }
        try countExpansion(of: value)
        switch value {
        case .array(let elements):
            try checkDepth(depth)
            let firstChild = reserveChildren(elements.count)
            slots.append(Slot(
                order: order, value: value, content: .array(isSet: note?.type == 0xC), note: note,
                childStart: firstChild, childCount: elements.count))
            let cursor = NoteCursor(extents: walkExtents, container: subtree)
            stack.append(Frame(
                slot: slot, firstChild: firstChild, depth: depth, elements: elements, isDictionary: false,
                total: elements.count, cursor: cursor, valueCursor: cursor))
            return slot
        case .dictionary(let entries):
            try checkDepth(depth)
            let keyCursor = NoteCursor(extents: walkExtents, container: subtree)
            var valueCursor = keyCursor
            valueCursor.skip(valueCursor.remainingCount() / 2)
            var frame: Frame
            if let restored = restoredEntries(of: entries, subtree: subtree) {
                frame = Frame(
                    slot: slot, firstChild: 0, depth: depth, keys: restored.map(\.0),
                    values: restored.map(\.1), isDictionary: true, followsCursors: true,
                    total: 2 * restored.count, cursor: keyCursor, valueCursor: valueCursor)
            } else if let notes = entryNotesByKey(for: entries, subtree: subtree) {
                frame = Frame(
                    slot: slot, firstChild: 0, depth: depth, keys: entries.keys,
                    values: entries.values, isDictionary: true, entryNotes: notes,
                    total: 2 * entries.count, cursor: keyCursor, valueCursor: keyCursor)
            } else {
                // The noted keys in the noted order, or no notes at all (empty cursors).
                frame = Frame(
                    slot: slot, firstChild: 0, depth: depth, keys: entries.keys,
                    values: entries.values, isDictionary: true, followsCursors: true,
                    total: 2 * entries.count, cursor: keyCursor, valueCursor: valueCursor)
            }
            frame.firstChild = reserveChildren(frame.total)
            slots.append(Slot(
                order: order, value: value, content: .dictionary, note: note,
                childStart: frame.firstChild, childCount: frame.total))
            stack.append(frame)
            return slot
        default:
            slots.append(Slot(order: order, value: value, content: .scalar, note: note))
            scalarBytes += value.estimatedBinaryObjectSize
            if uniquingBuilt, case .absent(let insertion)? = uniqued.lookup(value, scalarAt: { slots[$0].value }) {
                uniqued.insert(slot, at: insertion)
            }
            return slot
        }
    }

    /// Where the notes of each entry of a dictionary are when its keys are no longer the noted
    /// keys in the noted order: matched by key text, so inserting, removing or reordering keys
    /// leaves the other entries on their own notes. Nil when the keys are still the noted ones in
    /// order (the common, cheap case, which follows the cursors) or there are no notes.
    private func entryNotesByKey(for entries: PlistDictionary, subtree: Int?) -> DictionaryEntryNotes? {
        guard let layout, let subtree else { return nil }
        var cursor = NoteCursor(extents: walkExtents, container: subtree)
        let notedCount = cursor.remainingCount() / 2
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
    /// has exactly the noted keys: every noted key in file order, each with the value it hid or,
    /// for its last occurrence, the dictionary's value.
    private func restoredEntries(of entries: PlistDictionary, subtree: Int?) -> [(String, PlistValue)]? {
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

    /// Reserves `count` child slots, filled in as the children are planned; returns the first.
    private mutating func reserveChildren(_ count: Int) -> Int {
        let first = children.count
        children.append(contentsOf: repeatElement(-1, count: count))
        return first
    }

    /// Counts a new container's elements (and the top value itself) against the limits.
    private mutating func countExpansion(of value: PlistValue) throws(PlistError) {
        let elements: Int
        switch value {
        case .array(let a): elements = a.count
        case .dictionary(let d): elements = d.count
        default: return
        }
        if let exceeded = meter.countValues(slots.isEmpty ? elements + 1 : elements) {
            throw meter.limits.error(exceeding: exceeded, format: .binary)
        }
    }

    private func checkDepth(_ depth: Int) throws(PlistError) {
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .binary,
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth); Apple's readers would refuse the file")
        }
    }

    private mutating func buildUniquingIndex() {
        uniquingBuilt = true
        uniqued = ScalarUniquingTable(minimumCapacity: slots.count)
        for slot in slots.indices {
            guard case .scalar = slots[slot].content,
                case .absent(let insertion)? = uniqued.lookup(slots[slot].value, scalarAt: { slots[$0].value })
            else { continue }
            uniqued.insert(slot, at: insertion)
        }
    }

    // MARK: - Matching notes to values

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

    /// Whether a node may share the slot that already holds `held`: exact equality for scalars
    /// (bit patterns, code units), value equality for containers, which is O(1) when they share
    /// storage as a shared object decoded once does.
    static func sameValue(_ held: PlistValue, _ value: PlistValue) -> Bool {
        held.isContainer ? held == value : ScalarUniquingTable.identical(held, value)
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
