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
    private(set) var slots: [Slot] = []
    /// Every container's children, by their slots' orders (which the encoder turns into object
    /// indices without going through the slots): a container reserves its run when it is planned,
    /// and each child's order is filled in as soon as it is known (a container's own slot is known
    /// before its children are planned).
    private(set) var children = MovingStack<Int>(capacity: 256)
    /// The bytes of every scalar slot (and the canonical keys of respelled ones), in slot order.
    private(set) var encoded = ByteBuffer(capacity: 1024)
    /// The value of each container slot a later node may ask to share (see `keepsValue`).
    private var containerValues: [PlistValue] = []
    /// Whether a second node may name each noted object (see ``visits(_:extents:objectCount:)``);
    /// only such containers keep their values, since a retain and release each cost more than
    /// the rest of planning a small container.
    private let keepsValue: [Bool]
    /// The payloads of `.largeData` slots.
    private(set) var largePayloads: [Data] = []
    /// The bytes the output's scalar objects and copies take (a copied container's at most), so
    /// that the encoder allocates its output once.
    private(set) var scalarBytes = 0
    /// The notes' walk and encodings, held apart from `layout` so that reading them per node
    /// copies nothing; empty without notes.
    let walkObjects: [UInt32]
    private let encodings: [BinaryLayout.EncodingNote]
    /// Slot holding each noted object index, or -1 while the index is free.
    private var holderOfObject: [Int]
    /// Walk position of each noted object's first visit (whose subtree describes its children).
    private var firstVisit: [Int]
    private var newObjectCount = 0
    /// The notes' key texts and dictionaries with repeated keys, held apart from `layout` for
    /// the same reason: binding `layout` to read them retained and released each of its arrays
    /// for every dictionary.
    let keyTexts: BinaryLayout.KeyTexts
    let repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys]
    /// The slot that last planned or matched each of the recent keys, by the key's
    /// representation: that slot holds exactly the key's text (see ``planKey(_:notedAt:)``).
    private var recentKeys: BinaryRecentObjects
    /// The same for short scalars, by canonical encoding (see ``planScalar(_:notedAt:)``).
    private var recentScalars: BinaryRecentObjects
    /// Scalar slots by canonical encoding, filled on the first new scalar (`uniquingBuilt`) so
    /// that an unchanged rewrite hashes nothing.
    private var uniqued = ScalarUniquingTable()
    private var uniquingBuilt = false

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

    /// Plans the scalar `value`, whose note (if any) is walk entry `position`; returns the slot a
    /// reference to it must name.
    @inline(__always)
    private mutating func planScalar(_ value: PlistValue, notedAt position: Int?) throws(PlistError) -> Int {
        // A number, date, boolean, UID or null shared by many records: when the noted object's
        // holder is the slot an equal scalar (the same canonical encoding) last came to, the
        // holder holds this value under the object's own note, so planning it again would only
        // find the holder.
        // An object met only once (most, in a file of distinct records) is not looked for.
        guard let position else { return try planScalarAgain(value, notedAt: nil) }
        let object = Int(walkObjects[position])
        let holder = holderOfObject[object]
        guard holder >= 0 || keepsValue[object], let encoding = BinaryShortEncoding(value) else {
            return try planScalarAgain(value, notedAt: position)
        }
        let recent = recentScalars.slot(encoding.low, encoding.high)
        if holder >= 0, let known = recentScalars.object(at: recent, encoding.low, encoding.high), Int(known) == holder {
            return holder
        }
        let slot = try planScalarAgain(value, notedAt: position)
        if slot < Int(UInt32.max) { recentScalars.remember(UInt32(slot), at: recent, encoding.low, encoding.high) }
        return slot
    }

    /// Plans a scalar that ``planScalar(_:notedAt:)`` could not answer from the recent scalars.
    private mutating func planScalarAgain(_ value: PlistValue, notedAt position: Int?) throws(PlistError) -> Int {
        let listsRepeats: Bool
        switch value {
        case .bool, .uid:
            // CoreFoundation does not unique booleans and UIDs: it appends each occurrence as an
            // object of its own, but every reference names the first.
            listsRepeats = true
        case .data(let payload) where payload.count >= BinaryLargeDataTable.minimumCount:
            if !uniquingBuilt, let position, let slot = planLargeData(payload, notedAt: position) { return slot }
            listsRepeats = false
        default:
            listsRepeats = false
        }
        return try planScalar(
            notedAt: position, listsRepeats: listsRepeats, fits: { Self.note($0, fits: value) },
            encode: { buffer, note, highWord in
                buffer.appendBinaryScalar(value, note: note, int128HighWord: { highWord })
            })
    }

    /// Plans a large data value whose note is walk entry `position` without copying its payload:
    /// it takes over the noted object while that is free, or shares it while it holds an equal
    /// payload. Nil when neither applies, and the value is planned as any other scalar (which
    /// tells a shared object's bytes apart from those of a `.largeData` holder).
    private mutating func planLargeData(_ payload: Data, notedAt position: Int) -> Int? {
        let object = Int(walkObjects[position])
        let note = encodings[object]
        guard note.type == 0x4 else { return nil }
        let holder = holderOfObject[object]
        if holder >= 0 {
            guard case .largeData(let held) = slots[holder].content, largePayloads[held] == payload else { return nil }
            return holder
        }
        let slot = slots.count
        holderOfObject[object] = slot
        let start = encoded.count
        encoded.appendBinaryMarker(0x4, count: payload.count, note: note)
        let count = encoded.count - start
        slots.append(Slot(order: object, content: .largeData(payload: largePayloads.count), note: note, first: start, count: count))
        largePayloads.append(payload)
        scalarBytes += count + payload.count
        return slot
    }

    /// Plans a dictionary key, as ``planScalar(_:notedAt:)`` plans a string value, without
    /// wrapping it in a ``PlistValue`` first.
    @inline(__always)
    private mutating func planKey(_ key: String, notedAt position: Int?) throws(PlistError) -> Int {
        // Most keys of a rewrite repeat a key object shared by many dictionaries, decoded once
        // and so one storage: when the noted object's holder is the slot this very
        // representation last came to, the holder holds the key's text under the object's own
        // note, so planning the key again would only find the holder.
        // An object met only once is not looked for.
        guard let position else { return try planKeyAgain(key, notedAt: nil, holder: -1) }
        let object = Int(walkObjects[position])
        let holder = holderOfObject[object]
        guard holder >= 0 || keepsValue[object] else { return try planKeyAgain(key, notedAt: position, holder: holder) }
        let representation = StringRepresentation(key)
        let recent = recentKeys.slot(representation.low, representation.high)
        if holder >= 0, let known = recentKeys.object(at: recent, representation.low, representation.high), Int(known) == holder {
            return holder
        }
        let slot = try planKeyAgain(key, notedAt: position, holder: holder)
        if slot < Int(UInt32.max) { recentKeys.remember(UInt32(slot), at: recent, representation.low, representation.high) }
        return slot
    }

    /// Plans a key that ``planKey(_:notedAt:)`` could not answer from the recent keys;
    /// `holder` holds the noted object (-1 for none).
    private mutating func planKeyAgain(_ key: String, notedAt position: Int?, holder: Int) throws(PlistError) -> Int {
        // A key noted in canonical ASCII is compared with the key's UTF-8 where it lies, rather
        // than encoded again to be compared.
        if holder >= 0, let same = holdsASCII(key, holder) {
            if same { return holder }
        }
        return try planScalar(
            notedAt: position, listsRepeats: false, fits: { $0.type >= 0x5 && $0.type <= 0x7 },
            encode: { buffer, note, _ in buffer.appendBinaryString(key, note: note) })
    }

    /// Plans a scalar that `encode` writes (given a note, or nil for the canonical encoding, and
    /// the high word of a noted 16-byte integer; it returns whether it wrote the canonical
    /// encoding) and whose note `fits` accepts.
    @inline(__always)
    private mutating func planScalar(
        notedAt position: Int?, listsRepeats: Bool, fits: (BinaryLayout.EncodingNote) -> Bool,
        encode: (inout ByteBuffer, BinaryLayout.EncodingNote?, UInt64) -> Bool
    ) throws(PlistError) -> Int {
        if let position {
            let object = Int(walkObjects[position])
            let note = encodings[object]
            if fits(note) {
                let highWord = note.marker == 0x14 ? int128HighWord(of: object) : 0
                let holder = holderOfObject[object]
                let start = encoded.count
                let canonical = encode(&encoded, note, highWord)
                if holder < 0 {
                    return addNotedScalar(object: object, note: note, bytesFrom: start, canonical: canonical) {
                        _ = encode(&$0, nil, 0)
                    }
                }
                // The same note spells identical scalars alike and different ones differently.
                let same = hasBytes(of: holder, from: start)
                encoded.truncate(to: start)
                if same { return holder }
            }
        }
        if !uniquingBuilt { buildUniquingIndex() }
        let start = encoded.count
        _ = encode(&encoded, nil, 0)
        let count = encoded.count - start
        switch lookUp(keyFrom: start, count: count) {
        case .found(let existing):
            encoded.truncate(to: start)
            if listsRepeats {
                slots.append(Slot(order: nextNewOrder(), content: .copy(of: existing)))
                scalarBytes += slots[existing].count
            }
            return existing
        case .absent(let insertion):
            let slot = slots.count
            slots.append(Slot(order: nextNewOrder(), content: .scalar, first: start, count: count))
            scalarBytes += count
            uniqued.insert(slot, at: insertion)
            return slot
        }
    }

    /// Appends the slot of a scalar that takes over noted object `object`, its bytes written in
    /// the noted spelling from `start` on; when that spelling is not the canonical one,
    /// `encodeCanonically` writes the canonical encoding after it, as the slot's uniquing key.
    @inline(__always)
    private mutating func addNotedScalar(
        object: Int, note: BinaryLayout.EncodingNote, bytesFrom start: Int, canonical: Bool,
        encodeCanonically: (inout ByteBuffer) -> Void
    ) -> Int {
        let slot = slots.count
        holderOfObject[object] = slot
        let count = encoded.count - start
        var content = Content.scalar
        if !canonical {
            encodeCanonically(&encoded)
            content = .spelledScalar(keyCount: encoded.count - start - count)
        }
        slots.append(Slot(order: object, content: content, note: note, first: start, count: count))
        scalarBytes += count
        if uniquingBuilt, let key = slots[slot].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count) {
            uniqued.insert(slot, at: insertion)
        }
        return slot
    }

    /// The high word a noted 16-byte integer held.
    @inline(never)
    private func int128HighWord(of object: Int) -> UInt64 {
        layout?.int128HighWords[UInt32(truncatingIfNeeded: object)] ?? 0
    }

    /// Whether `holder`, a canonical ASCII string object, holds exactly `key`; nil when the slot
    /// is anything else or the key is not in contiguous storage, and the encodings must be
    /// compared. Under the holder's note, equal text is spelled alike, and a different key is a
    /// different string whatever its spelling.
    @inline(__always)
    private func holdsASCII(_ key: String, _ holder: Int) -> Bool? {
        let held = slots[holder]
        guard case .scalar = held.content else { return nil }
        return encoded.withUnsafeBufferPointer { buffer -> Bool? in
            let marker = buffer[held.first]
            guard marker >> 4 == 0x5 else { return nil }
            // The text follows the marker and, for 15 bytes or more, an integer object.
            let header = marker & 0x0F == 0x0F ? 2 + 1 << Int(buffer[held.first + 1] & 0x0F) : 1
            return key.utf8.withContiguousStorageIfAvailable { utf8 in
                // Never nil: the held encoding is at least its marker byte.
                let base = UnsafeRawPointer(buffer.baseAddress!)
                return utf8.count == held.count - header
                    && (utf8.isEmpty || ScalarUniquingTable.sameBytes(base + held.first + header, utf8.baseAddress!, count: utf8.count))
            }
        }
    }

    /// Whether scalar slot `holder` has exactly the bytes written from `start` to the end of
    /// `encoded`.
    @inline(__always)
    private func hasBytes(of holder: Int, from start: Int) -> Bool {
        let held = slots[holder]
        guard held.count == encoded.count - start else { return false }
        return encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the bytes compared were just written.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return ScalarUniquingTable.sameBytes(base + held.first, base + start, count: held.count)
        }
    }

    private mutating func nextNewOrder() -> Int {
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

    /// Indexes every scalar slot planned so far, once the first new scalar needs the index; an
    /// equal scalar met again keeps the first slot.
    private mutating func buildUniquingIndex() {
        uniquingBuilt = true
        uniqued = ScalarUniquingTable(minimumCapacity: slots.count)
        for slot in slots.indices {
            if case .largeData(let payload) = slots[slot].content { encodeLargeData(slot, payload: largePayloads[payload]) }
            guard let key = slots[slot].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count)
            else { continue }
            uniqued.insert(slot, at: insertion)
        }
    }

    /// Turns `.largeData` slot `slot` into a scalar slot whose bytes (and canonical encoding, when
    /// the noted spelling is another) are in `encoded`, so that equal new data unifies with it.
    private mutating func encodeLargeData(_ slot: Int, payload: Data) {
        let start = encoded.count
        let canonical = encoded.appendBinaryScalar(.data(payload), note: slots[slot].note, int128HighWord: { 0 })
        let count = encoded.count - start
        slots[slot].content = .scalar
        if !canonical {
            _ = encoded.appendBinaryScalar(.data(payload), note: nil, int128HighWord: { 0 })
            slots[slot].content = .spelledScalar(keyCount: encoded.count - start - count)
        }
        slots[slot].first = start
        slots[slot].count = count
    }

    /// Finds the scalar slot whose canonical encoding is `encoded[start ..< start + count]`.
    private mutating func lookUp(keyFrom start: Int, count: Int) -> ScalarUniquingTable.Lookup {
        encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the key looked up lies in the buffer.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return uniqued.lookup(
                encoding: UnsafeRawBufferPointer(start: base + start, count: count), in: base,
                fastHash: { seed, key in ScalarUniquingTable.fastHash(encoding: key, seed: seed) },
                encodingOf: { slot in
                    // Only scalar slots are in the table.
                    slots[slot].uniquingKey ?? (0, 0)
                })
        }
    }
}
