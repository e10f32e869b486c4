import Foundation

/// Decides which objects a binary plist will hold, in which order, and what each references,
/// and encodes the scalars as it meets them: the first of the two passes of a write that follows
/// layout notes (``BinaryPlainEncoder`` writes values without notes). Nesting is followed with an
/// explicit stack.
///
/// Without layout notes every node is new and objects come out in CoreFoundation's flatten
/// order (depth-first pre-order; a dictionary, then all its keys, then each value's subtree),
/// with strings, numbers, dates and data uniqued by exact value: byte for byte what the plain
/// encoder writes, which the tests check. With notes, each node first
/// tries the object index its note names: it takes the index when the index is still free, or
/// shares it when the index already holds an equal value (a shared object). Everything else is
/// new and is appended after the noted objects, CF-style.
///
/// A scalar is encoded into `encoded` the moment it is planned, in its noted spelling, and its
/// slot keeps only where the bytes lie, so the second pass copies bytes instead of encoding
/// again. Equality is decided on those bytes:
/// * a node that may share a noted object is encoded under the object's note and compared with
///   the holder's bytes; under one note, equal bytes mean identical scalars;
/// * new scalars are uniqued by canonical encoding (the bytes written without a note), as the
///   plain encoder uniques them. A noted scalar spelled otherwise (an integer wider than
///   minimal, ASCII text held as UTF-16, a count spelled long) also gets its canonical encoding
///   written after its own bytes, as its uniquing key, so that it still unifies with an equal
///   new scalar by value. Containers keep their value, to be compared whole.
///
/// Invariants: a `.scalar` slot's bytes `encoded[first ..< first + count]` are its canonical
/// encoding; a `.spelledScalar(keyCount:)` slot's canonical encoding follows its own bytes; a
/// container's children are the orders `children[first ..< first + count]` and its value is
/// `containerValues[value]` (-1 when not kept). No two slots share an order. Only scalar slots
/// are in the uniquing table.
struct BinaryObjectPlanner: ~Copyable {
    /// What a planned object holds.
    enum Content {
        /// A string, number, date, data, bool, UID or null whose bytes are its canonical encoding.
        case scalar
        /// A scalar whose noted spelling is not its canonical encoding, which follows its bytes
        /// in `encoded` (`keyCount` bytes long) as its uniquing key.
        case spelledScalar(keyCount: Int)
        /// An array (written as a set when `isSet`), its value at `containerValues[value]` if kept.
        case array(isSet: Bool, value: Int)
        /// A dictionary: its key slots, then its value slots, in `children`; its value at
        /// `containerValues[value]`.
        case dictionary(value: Int)
        /// An unreferenced object encoded exactly like another slot.
        case copy(of: Int)
        /// A data object of ``BinaryLargeDataTable/minimumCount`` bytes or more that took over a
        /// noted object: its marker (in the noted spelling) in `encoded`, its payload left in the
        /// value, at `largePayloads[payload]`, and copied once, into the output.
        case largeData(payload: Int)
    }

    /// One object of the output.
    struct Slot {
        /// Sort key of the output order: the noted object index, or `noted count + n` for the
        /// n-th new object.
        var order: Int
        var content: Content
        /// How the file encoded the object this slot took over, if any.
        var note: BinaryLayout.EncodingNote?
        /// A scalar's first byte in `encoded`, or a container's first child in `children`.
        var first = 0
        /// A scalar's byte count, or a container's child count.
        var count = 0

        /// Where the canonical encoding of a scalar lies in `encoded`; nil for containers and
        /// copies, which are never uniqued, and for large data, whose bytes are written to
        /// `encoded` only when the uniquing index is built.
        var uniquingKey: (first: Int, count: Int)? {
            switch content {
            case .scalar: (first, count)
            case .spelledScalar(let keyCount): (first + count, keyCount)
            default: nil
            }
        }
    }

    let layout: BinaryLayout?
    let maxDepth: Int
    /// Counts the values that new containers hold, so that a value whose shared containers
    /// would expand past ``PlistLimits/maxExpandedValues`` stops instead of planning each copy.
    var meter = LimitMeter(limits: .default)
    var slots: [Slot] = []
    /// Every container's children, by their slots' orders (which the encoder turns into object
    /// indices without going through the slots): a container reserves its run when it is planned,
    /// and each child's order is filled in as soon as it is known (a container's own slot is known
    /// before its children are planned).
    var children = MovingStack<Int>(capacity: 256)
    /// The bytes of every scalar slot (and the canonical keys of respelled ones), in slot order.
    var encoded = ByteBuffer(capacity: 1024)
    /// The value of each container slot a later node may ask to share (see `keepsValue`).
    private var containerValues: [PlistValue] = []
    /// Whether a second node may name each noted object (see ``visits(_:extents:objectCount:)``);
    /// only such containers keep their values, since a retain and release each cost more than
    /// the rest of planning a small container.
    let keepsValue: [Bool]
    /// The payloads of `.largeData` slots.
    var largePayloads: [Data] = []
    /// The bytes the output's scalar objects and copies take (a copied container's at most), so
    /// that the encoder allocates its output once.
    var scalarBytes = 0
    /// The notes' walk and encodings, held apart from `layout` so that reading them per node
    /// copies nothing; empty without notes.
    let walkObjects: [UInt32]
    let encodings: [BinaryLayout.EncodingNote]
    /// Slot holding each noted object index, or -1 while the index is free.
    var holderOfObject: [Int]
    /// Walk position of each noted object's first visit (whose subtree describes its children).
    var firstVisit: [Int]
    var newObjectCount = 0
    /// The notes' key texts and dictionaries with repeated keys, held apart from `layout` for
    /// the same reason: binding `layout` to read them retained and released each of its arrays
    /// for every dictionary.
    let keyTexts: BinaryLayout.KeyTexts
    let repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys]
    /// The slot that last planned or matched each of the recent keys, by the key's
    /// representation: that slot holds exactly the key's text (see ``planKey(_:notedAt:)``).
    var recentKeys: BinaryRecentObjects
    /// The same for short scalars, by canonical encoding (see ``planScalar(_:notedAt:)``).
    var recentScalars: BinaryRecentObjects
    /// Scalar slots by canonical encoding, filled on the first new scalar (`uniquingBuilt`) so
    /// that an unchanged rewrite hashes nothing.
    var uniqued = ScalarUniquingTable()
    var uniquingBuilt = false

    /// A copy of the notes' walk extents that the cursors read through a pointer; nil without
    /// notes. Owned here and freed in `deinit`.
    let walkExtents: UnsafeMutablePointer<UInt32>?

    init(layout: BinaryLayout?, maxDepth: Int) {
        self.layout = layout
        self.maxDepth = maxDepth
        // Sized for the file: a small one pays for few entries to clear.
        let cacheBits = Swift.min(Swift.max((layout?.objectCount ?? 0).bitWidth - (layout?.objectCount ?? 0).leadingZeroBitCount, 4), 9)
        recentKeys = BinaryRecentObjects(bits: cacheBits)
        recentScalars = BinaryRecentObjects(bits: cacheBits)
        if let layout {
            let extents = UnsafeMutablePointer<UInt32>.allocate(capacity: Swift.max(layout.walkExtents.count, 1))
            layout.walkExtents.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { extents.initialize(from: base, count: source.count) }
            }
            walkExtents = extents
            walkObjects = layout.walkObjects
            // An unchanged rewrite references about one child per walk entry and holds about as
            // many scalar bytes as the file's objects take: room for them is made at once.
            children = MovingStack(capacity: Swift.max(layout.walkObjects.count, 256))
            encoded = ByteBuffer(capacity: Swift.max(16 * layout.objectCount, 1024))
            encodings = layout.encodings
            keyTexts = layout.keyTexts
            repeatedKeys = layout.repeatedKeys
            holderOfObject = Array(repeating: -1, count: layout.objectCount)
            (firstVisit, keepsValue) = Self.visits(layout.walkObjects, extents: extents, objectCount: layout.objectCount)
        } else {
            walkObjects = []
            encodings = []
            keyTexts = BinaryLayout.KeyTexts(objectCount: 0)
            repeatedKeys = [:]
            holderOfObject = []
            firstVisit = []
            keepsValue = []
            walkExtents = nil
        }
    }

    deinit { walkExtents?.deallocate() }

    var notedObjectCount: Int { encodings.count }

    /// The orders handed out: every noted object's, claimed or not, and each new object's.
    var orderCount: Int { notedObjectCount + newObjectCount }

    // MARK: - Planning

    /// A container whose children are being planned.
    ///
    /// The children are kept as plain arrays rather than as the container's value: reading a
    /// child out of an enum payload copied the whole payload (a retain and release of every
    /// buffer of the dictionary and its notes) for every child.
    private struct Frame {
        /// Where this container's child slots start in `children`.
        var firstChild: Int
        /// Containers above this one.
        var depth: Int
        /// A dictionary's keys, in the order to write them; empty for an array.
        var keys: [String] = []
        /// A dictionary's values, in the order of `keys`, or an array's elements. (One field for
        /// both keeps the frame small: it is moved whenever a container is entered or left.)
        var values: [PlistValue] = []
        /// Where each entry's notes are, for a dictionary whose keys were matched to its notes
        /// by text; empty when the entries follow the cursors instead.
        var entryNotes = DictionaryEntryNotes()
        /// True for an array, and for a dictionary whose entries follow the cursors: keys through
        /// `cursor`, values through `valueCursor`. So go a dictionary with exactly its noted keys
        /// in the noted order (the common case) and one written with the repeated keys its notes
        /// recorded.
        var followsCursors = false
        var total: Int
        var next = 0
        /// Notes of keys.
        var cursor: NoteCursor
        /// Notes of values or array elements.
        var valueCursor: NoteCursor
    }

    /// Plans the top value and the orphan copies the notes ask for; returns the top slot.
    ///
    /// Containers are planned with an explicit stack rather than recursion, so deep values need
    /// no more than a small thread stack. The innermost container's frame is a local and only its
    /// suspended ancestors are on the stack, so that a scalar child is read out of the frame's
    /// arrays in place rather than copied (a retain and release per node). A container child is
    /// copied out, since planning it replaces the frame.
    mutating func planDocument(_ value: PlistValue) throws(PlistError) -> Int {
        // Growing the array a step at a time copied every slot about twice: room for the noted
        // objects (a lossless rewrite needs about as many) or for a small document is made at once.
        slots.reserveCapacity(Swift.max(notedObjectCount, 256))
        var stack: [Frame] = []
        // An empty frame below the top container, so that planning a container always has one
        // to suspend.
        let noNotes = NoteCursor(extents: nil, container: nil)
        var frame = Frame(firstChild: 0, depth: -1, total: 0, cursor: noNotes, valueCursor: noNotes)
        let topPosition = layout == nil ? nil : 0
        let top = value.isContainer
            ? try planContainer(value, notedAt: topPosition, depth: 0, frame: &frame, stack: &stack)
            : try planScalar(value, notedAt: topPosition)
        while true {
            let i = frame.next
            guard i < frame.total else {
                guard let parent = stack.popLast() else { break }
                frame = parent
                continue
            }
            frame.next = i + 1
            let slot: Int
            if i < frame.keys.count {
                slot = try planKey(frame.keys[i], notedAt: frame.followsCursors ? frame.cursor.next() : frame.entryNotes.key(i))
            } else {
                let j = i - frame.keys.count
                let position = frame.followsCursors ? frame.valueCursor.next() : frame.entryNotes.value(j)
                if frame.values[j].isContainer {
                    let child = frame.values[j]
                    let firstChild = frame.firstChild
                    slot = try planContainer(child, notedAt: position, depth: frame.depth + 1, frame: &frame, stack: &stack)
                    children[firstChild + i] = slots[slot].order
                    continue
                }
                slot = try planScalar(frame.values[j], notedAt: position)
            }
            children[frame.firstChild + i] = slots[slot].order
        }
        if let layout {
            for copy in layout.copies {
                let original = holderOfObject[Int(copy.original)]
                guard holderOfObject[Int(copy.object)] < 0, original >= 0 else { continue }
                slots.append(Slot(order: Int(copy.object), content: .copy(of: original)))
                let bytes = switch slots[original].content {
                case .scalar, .spelledScalar: slots[original].count
                case .largeData(let payload): slots[original].count + largePayloads[payload].count
                default: 9 + 8 * slots[original].count
                }
                scalarBytes += bytes
            }
        }
        return top
    }

    mutating func nextNewOrder() -> Int {
        defer { newObjectCount += 1 }
        return notedObjectCount + newObjectCount
    }

    /// Plans a container: the noted object when it is free, the noted object's slot when that
    /// holds an equal value, else a new object that still follows the noted object's children.
    /// A new container's frame becomes `frame`, the one it replaces going on `stack`. Returns
    /// the slot a reference to the container must name.
    private mutating func planContainer(
        _ value: PlistValue, notedAt position: Int?, depth: Int, frame: inout Frame, stack: inout [Frame]
    ) throws(PlistError) -> Int {
        var subtree: Int?
        var order: Int?
        var note: BinaryLayout.EncodingNote?
        if let position {
            let object = Int(walkObjects[position])
            let noted = encodings[object]
            if Self.note(noted, fits: value) {
                subtree = firstVisit[object]
                let holder = holderOfObject[object]
                if holder >= 0 {
                    if containerValue(of: holder) == value { return holder }
                } else {
                    order = object
                    note = noted
                }
            }
        }
        let slot = slots.count
        let inner = try add(value, order: order ?? nextNewOrder(), note: note, subtree: subtree, depth: depth)
        stack.append(frame)
        frame = inner
        return slot
    }

    /// The value of container slot `slot` (equal values are O(1) to compare when they share
    /// storage, as a shared object decoded once does); nil when it was not kept.
    private func containerValue(of slot: Int) -> PlistValue? {
        switch slots[slot].content {
        case .array(_, let value), .dictionary(let value): value < 0 ? nil : containerValues[value]
        default: nil
        }
    }

    /// Appends a slot for the container `value`, reserves its child slots and returns the frame
    /// that plans its children, following the notes of walk entry `subtree` when given.
    private mutating func add(
        _ value: PlistValue, order: Int, note: BinaryLayout.EncodingNote?, subtree: Int?, depth: Int
    ) throws(PlistError) -> Frame {
        let slot = slots.count
        if order < notedObjectCount { holderOfObject[order] = slot }
        try countExpansion(of: value)
        try checkDepth(depth)
        var held = -1
        if order < notedObjectCount && keepsValue[order] {
            held = containerValues.count
            containerValues.append(value)
        }
        switch value {
        case .array(let elements):
            let firstChild = reserveChildren(elements.count)
            slots.append(Slot(
                order: order, content: .array(isSet: note?.type == 0xC, value: held), note: note,
                first: firstChild, count: elements.count))
            let cursor = NoteCursor(extents: walkExtents, container: subtree)
            return Frame(
                firstChild: firstChild, depth: depth, values: elements, followsCursors: true,
                total: elements.count, cursor: cursor, valueCursor: cursor)
        case .dictionary(let entries):
            let keyCursor = NoteCursor(extents: walkExtents, container: subtree)
            var valueCursor = keyCursor
            var notedEntries = 0
            if let subtree {
                // A count below 15 is in the noted marker; a longer one is counted from the walk.
                let marker = encodings[Int(walkObjects[subtree])].marker
                notedEntries = marker & 0x0F < 0x0F ? Int(marker & 0x0F) : keyCursor.remainingCount() / 2
            }
            valueCursor.skip(keys: notedEntries)
            var frame: Frame
            if let restored = restoredEntries(of: entries, subtree: subtree) {
                frame = Frame(
                    firstChild: 0, depth: depth, keys: restored.map(\.0),
                    values: restored.map(\.1), followsCursors: true,
                    total: 2 * restored.count, cursor: keyCursor, valueCursor: valueCursor)
            } else if let notes = entryNotesByKey(for: entries, subtree: subtree, notedCount: notedEntries) {
                frame = Frame(
                    firstChild: 0, depth: depth, keys: entries.keys,
                    values: entries.values, entryNotes: notes,
                    total: 2 * entries.count, cursor: keyCursor, valueCursor: keyCursor)
            } else {
                // The noted keys in the noted order, or no notes at all (empty cursors).
                frame = Frame(
                    firstChild: 0, depth: depth, keys: entries.keys,
                    values: entries.values, followsCursors: true,
                    total: 2 * entries.count, cursor: keyCursor, valueCursor: valueCursor)
            }
            frame.firstChild = reserveChildren(frame.total)
            slots.append(Slot(
                order: order, content: .dictionary(value: held), note: note,
                first: frame.firstChild, count: frame.total))
            return frame
        default:
            preconditionFailure("scalars are planned by planScalar")
        }
    }

    /// Reserves `count` child slots, filled in as the children are planned; returns the first.
    private mutating func reserveChildren(_ count: Int) -> Int {
        let first = children.count
        // Most containers hold a few children, for which a loop costs less than a call to memset.
        if count <= 8 {
            for _ in 0..<count { children.push(-1) }
        } else {
            children.push(repeating: -1, count: count)
        }
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
}
