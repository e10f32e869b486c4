import Foundation

/// Decides which objects a binary plist will hold, in which order, and what each references,
/// and encodes the scalars as it meets them: the first of the two passes of a write that follows
/// layout notes (``BinaryPlainEncoder`` writes values without notes; the second pass is
/// ``emit(top:)``). Nesting is followed with an explicit stack.
///
/// Without layout notes every node is new and objects come out in CoreFoundation's flatten
/// order (depth-first pre-order; a dictionary, then all its keys, then each value's subtree),
/// with strings, numbers, dates and data uniqued by exact value: byte for byte what the plain
/// encoder writes, which the tests check. With notes, each node first tries the object index its
/// note names: it takes the index when the index is still free, or shares it when the index
/// already holds an equal value (a shared object). Everything else is new and is appended after
/// the noted objects, CF-style.
///
/// Objects are kept by output order (``Object``): the noted objects' orders are their indices,
/// each unclaimed until a node takes it over, and new objects follow. A node's order is what
/// references to it name, so an unchanged rewrite writes its references as they are.
///
/// The walk reads the value in place, as the plain encoder does: a frame points into a
/// container's element storage, which the value being written keeps alive and unchanged, so
/// visiting a child neither retains nor releases it, and a container keeps a pointer to its node
/// to be compared with a later node naming the same object.
///
/// A scalar is encoded into `encoded` the moment it is planned, in its noted spelling, and its
/// object keeps only where the bytes lie, so the second pass copies bytes instead of encoding
/// again. Equality is decided on those bytes:
/// * a node naming an object already held is compared with the holder: a short scalar by its
///   canonical encoding (two words) against the holder's, a key noted as canonical ASCII by its
///   UTF-8 in place, anything else encoded under the object's note and compared with the
///   holder's bytes; under one note, equal bytes mean identical scalars. A key whose text is the
///   noted key text (checked anyway, to match a dictionary's entries to their notes) names a
///   holder that took the object over with that same text without any comparison;
/// * new scalars are uniqued by canonical encoding (the bytes written without a note), as the
///   plain encoder uniques them. A noted scalar spelled otherwise (an integer wider than
///   minimal, ASCII text held as UTF-16, a count spelled long) also gets its canonical encoding
///   written after its own bytes, as its uniquing key, so that it still unifies with an equal
///   new scalar by value.
///
/// Invariants: `objects.count` is the noted object count plus the new objects; a noted object
/// nothing claimed is ``Object/unclaimed``. A `.scalar` object's bytes
/// `encoded[first ..< first + count]` are its canonical encoding; a `.spelledScalar` object's
/// canonical encoding (`extra` bytes) follows its own bytes; a container's children are the
/// orders `children[first ..< first + count]` (a dictionary's keys, then its values) and `extra`
/// points to its node in the value. Only scalar objects are in the uniquing table. Before the
/// table is built, `plannedScalars` lists the scalar objects claimed so far in planning order.
struct BinaryObjectPlanner: ~Copyable {
    /// One object of the output, by order.
    struct Object {
        /// A scalar's first byte in `encoded`, a container's first child in `children`, a large
        /// data object's marker in `encoded`.
        var first: Int
        /// The kind in the low four bits, ``recordsWords`` at bit 7, a recorded short scalar's
        /// ninth byte or a container's one-byte marker (``shortMarker``) in bits 8 to 15, and
        /// from bit 16 on a scalar's byte count (its noted
        /// spelling), a container's child count (twice its entries for a dictionary), or a large
        /// data object's marker length.
        var packed: Int
        /// A respelled scalar's canonical encoding length, a container's node in the value (its
        /// address), a copy's original order, a large data object's payload in `largePayloads`,
        /// a recorded short scalar's first eight bytes.
        var extra: Int

        static let unclaimed = 0, scalar = 1, spelledScalar = 2, array = 3, set = 4, dictionary = 5
        static let copy = 6, largeData = 7
        /// A scalar whose canonical encoding is a short one (``BinaryShortEncoding``), kept in
        /// `extra` and the ninth byte in `packed` as well as in `encoded`, so that a node met
        /// again is compared with two words rather than with the bytes.
        static let recordsWords = 0x80

        init(kind: Int, first: Int = 0, count: Int = 0, extra: Int = 0) {
            self.first = first
            packed = count << 16 | kind
            self.extra = extra
        }

        /// A scalar whose canonical encoding `short` lies in `encoded` from `first` on.
        @inline(__always)
        init(first: Int, short: BinaryShortEncoding) {
            self.first = first
            packed = Self.packed(short)
            extra = Int(bitPattern: UInt(short.low))
        }

        /// `packed` of a scalar recorded with the short encoding `short`.
        @inline(__always)
        static func packed(_ short: BinaryShortEncoding) -> Int {
            short.length << 16 | Int(truncatingIfNeeded: short.high & 0xFF) << 8 | recordsWords | scalar
        }

        /// A container whose marker is one byte, its count inline as its note spelled it (or
        /// no note), keeps the marker here, so that the second pass writes it without reading
        /// the note; 0 for a longer marker (a container's one-byte marker is never 0).
        @inline(__always)
        init(container kind: Int, first: Int, count: Int, node: Int, markerLength: Int, shortMarker: UInt8) {
            self.init(kind: kind, first: first, count: count, extra: node)
            if markerLength == 1 { packed |= Int(shortMarker) << 8 }
        }

        /// A container's one-byte marker, 0 when its marker is longer.
        @inline(__always) var shortMarker: UInt8 { UInt8(truncatingIfNeeded: packed >> 8) }

        @inline(__always) var kind: Int { packed & 0xF }
        @inline(__always) var count: Int { packed >> 16 }
        @inline(__always) var isContainer: Bool { kind >= Self.array && kind <= Self.dictionary }

        /// Where the canonical encoding of a scalar lies in `encoded`; nil for containers and
        /// copies, which are never uniqued, and for large data, whose bytes are written to
        /// `encoded` only when the uniquing index is built.
        var uniquingKey: (first: Int, count: Int)? {
            switch kind {
            case Self.scalar: (first, count)
            case Self.spelledScalar: (first + count, extra)
            default: nil
            }
        }
    }

    let layout: BinaryLayout?
    /// Whether strings' words can be read as text (see ``holdsASCII(_:text:_:)``): asked once
    /// per write rather than at every string.
    let readsSmallASCII = StringRepresentation.readsSmallASCII
    let readsTailAllocatedUTF8 = StringRepresentation.readsTailAllocatedUTF8
    /// The held objects that strings met again were found to hold, by the strings' words (see
    /// ``planStringAgain(_:text:notedAt:object:)``): a string shared by many references is
    /// compared once per storage rather than at every reference.
    var recentStrings = BinaryRecentObjects(initialBits: 4, bits: 9)
    let maxDepth: Int
    /// Counts the values that new containers hold, so that a value whose shared containers
    /// would expand past ``PlistLimits/maxExpandedValues`` stops instead of planning each copy.
    var meter = LimitMeter(limits: .default)
    /// Every object by order (see ``Object``).
    var objects: PlannedObjects
    /// Every container's children, by order: a container reserves its run when it is planned,
    /// and each child's order is filled in as soon as it is known.
    var children: MovingStack<UInt32>
    /// The bytes of every scalar object (and the canonical keys of respelled ones).
    var encoded: ByteBuffer
    /// The payloads of `.largeData` objects.
    var largePayloads: [Data] = []
    /// The bytes the output's scalar objects take, copies included, and the markers of its
    /// containers, so that the second pass writes into a buffer of the file's exact size.
    var scalarBytes = 0
    var containerMarkerBytes = 0
    /// References the output's containers hold: `children.count` plus those of copied containers.
    var copiedReferences = 0
    /// Noted orders that hold an object (claimed by a node or filled by a copy).
    var filledNotedCount = 0
    let notedObjectCount: Int
    /// The notes, read through pointers into the arrays `layout` keeps alive (and never
    /// changes): walk entries' objects and extents, each object's encoding, and the key texts.
    let walk: UnsafePointer<UInt32>
    let extents: UnsafePointer<UInt32>
    let encodings: UnsafePointer<BinaryLayout.EncodingNote>
    let keyTextStorage: BinaryLayout.KeyTexts.Storage
    let keyTexts: BinaryLayout.KeyTexts
    let repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys]
    /// Walk position of each noted object's first visit, made the first time a node needs the
    /// children's notes of an object met at a later visit (see ``firstVisit(of:at:)``).
    var firstVisits: [Int] = []
    /// The walk entries of the values of dictionaries whose keys were matched to their notes by
    /// text (a frame refers to its run), -1 where an entry has none.
    var matchedPositions = MovingStack<Int>(capacity: 16)
    /// The entries of dictionaries written with the repeated keys their notes recorded, kept
    /// alive while frames point into them.
    var restoredKeys: [[String]] = []
    var restoredValues: [[PlistValue]] = []
    /// Scalar objects claimed before the uniquing table was built, in planning order.
    var plannedScalars = MovingStack<UInt32>(capacity: 16)
    /// Scalar objects by canonical encoding, filled on the first new scalar (`uniquingBuilt`) so
    /// that an unchanged rewrite hashes nothing.
    var uniqued = ScalarUniquingTable()
    var uniquingBuilt = false

    init(layout: consuming BinaryLayout?, maxDepth: Int) {
        self.maxDepth = maxDepth
        let noted = layout?.objectCount ?? 0
        notedObjectCount = noted
        // Room for the noted objects (a lossless rewrite claims about all of them), their
        // references (about one per walk entry) and their bytes, made at once.
        objects = PlannedObjects(noted: noted, capacity: noted + noted / 8 + 64)
        children = MovingStack(capacity: Swift.max(layout?.walkObjects.count ?? 0, 256))
        encoded = ByteBuffer(capacity: Swift.max(16 * noted, 1024))
        keyTexts = layout?.keyTexts ?? BinaryLayout.KeyTexts(objectCount: 0)
        repeatedKeys = layout?.repeatedKeys ?? [:]
        walk = Self.storage(of: layout?.walkObjects)
        extents = Self.storage(of: layout?.walkExtents)
        encodings = Self.storage(of: layout?.encodings)
        keyTextStorage = keyTexts.storage
        // Moved in last, once nothing else reads the parameter: the walk, extents and encodings
        // pointers point into arrays it keeps alive.
        self.layout = consume layout
    }

    /// The first step of a walk column that `layout` keeps alive for as long as the planner
    /// lives; a pointer nothing reads through for an absent one.
    @inline(__always)
    static func storage(of steps: BinaryLayout.WalkSteps?) -> UnsafePointer<UInt32> {
        steps?.entries ?? UnsafePointer(bitPattern: MemoryLayout<UInt32>.alignment)!
    }

    /// The first element of an array that `layout` (or the planner) keeps alive and unchanged
    /// for as long as the planner lives, so the storage stays where it is; a pointer nothing
    /// reads through for an empty or absent one (no walk entry or object refers to it then).
    @inline(__always)
    static func storage<Element>(of array: [Element]?) -> UnsafePointer<Element> {
        array?.withUnsafeBufferPointer { $0.baseAddress } ?? UnsafePointer(bitPattern: MemoryLayout<Element>.alignment)!
    }

    /// The first element of a non-empty array of the value being written, which stays where it
    /// is while the value is borrowed for the walk.
    @inline(__always)
    static func storage<Element>(of array: [Element]) -> UnsafePointer<Element> {
        // Never nil: only non-empty arrays are walked.
        array.withUnsafeBufferPointer { $0.baseAddress! }
    }

    /// Appends a new object's order, to be filled in by the caller.
    @inline(__always)
    mutating func newOrder() -> Int { objects.append() }

    // MARK: - Planning

    /// A container whose values are being planned (a dictionary's keys are planned with the
    /// dictionary itself).
    private struct Frame {
        /// An array's elements or a dictionary's values, in the value (or in `restoredValues`).
        var values: UnsafePointer<PlistValue>
        var count: Int
        var next = 0
        /// Where the references to `values` start in `children`.
        var firstReference: Int
        /// The next value's walk entry while below `end`; when `end` is -1, the run of
        /// `matchedPositions` holding every value's entry starts here.
        var position: Int
        var end: Int
    }

    /// What planning a container needs of it, read where it lies: reading the node whole
    /// would copy it (a retain and a release of each of its buffers), since the planner's own
    /// writes could, for all the compiler knows, change the memory it lies in.
    struct ContainerNode {
        var isDictionary: Bool
        /// Elements of an array, entries of a dictionary.
        var count: Int
        /// A dictionary's keys, when it has any.
        var keys: UnsafePointer<String>?
        /// An array's elements or a dictionary's values, when it has any.
        var values: UnsafePointer<PlistValue>?

        @inline(__always)
        init(_ value: UnsafePointer<PlistValue>) {
            switch value.pointee {
            case .array(let elements):
                isDictionary = false
                count = elements.count
                keys = nil
                values = elements.isEmpty ? nil : BinaryObjectPlanner.storage(of: elements)
            case .dictionary(let entries):
                isDictionary = true
                count = entries.count
                keys = entries.isEmpty ? nil : BinaryObjectPlanner.storage(of: entries.keys)
                values = entries.isEmpty ? nil : BinaryObjectPlanner.storage(of: entries.values)
            default:
                preconditionFailure("a container node holds a container")
            }
        }
    }

    /// Plans the top value and the orphans the notes keep or copy; returns the top's order.
    ///
    /// The top value is borrowed for the whole walk, which keeps every container in it alive
    /// and unchanged, so the frames' pointers into their storage stay valid until the walk ends.
    /// The innermost container's frame is a local and only its suspended ancestors are on the
    /// stack.
    mutating func planDocument(_ value: PlistValue) throws(PlistError) -> Int {
        let top = try withUnsafePointer(to: value) { (top) throws(PlistError) -> Int in try plan(top) }
        if let layout {
            addKeptOrphans(layout.keptOrphans)
            addCopies(layout.copies)
        }
        return top
    }

    private mutating func plan(_ top: UnsafePointer<PlistValue>) throws(PlistError) -> Int {
        let topPosition = layout == nil ? -1 : 0
        guard top.pointee.isContainer else { return try planScalar(top, notedAt: topPosition) }
        // An empty frame below the top container's, so that entering a container always has one
        // to suspend; the stack's height is then the depth of the innermost container's children.
        var frame = Frame(values: top, count: 0, firstReference: 0, position: 0, end: 0)
        var stack = MovingStack<Frame>(capacity: 16)
        let topOrder = try planContainer(top, notedAt: topPosition, depth: 0, frame: &frame, stack: &stack)
        while true {
            let i = frame.next
            guard i < frame.count else {
                guard stack.count > 0 else { break }
                frame = stack.popLast()
                continue
            }
            frame.next = i &+ 1
            let position: Int
            if frame.position < frame.end {
                position = frame.position
                frame.position &+= Int(extents[position])
            } else if frame.end >= 0 {
                position = -1
            } else {
                position = matchedPositions[frame.position &+ i]
            }
            let child = frame.values + i
            let reference = frame.firstReference &+ i
            let order: Int
            if child.pointee.isContainer {
                order = try planContainer(child, notedAt: position, depth: stack.count, frame: &frame, stack: &stack)
            } else if position >= 0, let held = heldShortScalar(child, notedAt: position) {
                order = held
            } else {
                order = try planScalar(child, notedAt: position)
            }
            children.store(UInt32(truncatingIfNeeded: order), at: reference)
        }
        return topOrder
    }

    /// Plans a container noted at walk entry `position` (-1 for none): the noted object when it
    /// is free, the noted object's holder when that holds an equal value, else a new object that
    /// still follows the noted object's children. Returns the order references to it name. A new
    /// container with values to plan makes their frame `frame`, the one it replaces going on
    /// `stack` (a dictionary's keys are planned here).
    @inline(__always)
    private mutating func planContainer(
        _ value: UnsafePointer<PlistValue>, notedAt position: Int, depth: Int, frame: inout Frame,
        stack: inout MovingStack<Frame>
    ) throws(PlistError) -> Int {
        let node = ContainerNode(value)
        var subtree = -1
        var order = -1
        if position >= 0 {
            let object = Int(walk[position])
            let type = encodings[object].type
            if node.isDictionary ? type == 0xD : type == 0xA || type == 0xC {
                if objects.isClaimed(object) {
                    if Self.sameContainer(objects[object], node, value) { return object }
                } else {
                    order = object
                }
                subtree = firstVisit(of: object, at: position)
            }
        }
        if order < 0 { order = newOrder() }
        try add(value, node, order: order, subtree: subtree, depth: depth, frame: &frame, stack: &stack)
        return order
    }

    /// Whether container object `held` holds a value equal to `node` (at `value`): at once when
    /// both are one storage (a shared object decoded once), else compared whole.
    @inline(__always)
    private static func sameContainer(_ held: Object, _ node: ContainerNode, _ value: UnsafePointer<PlistValue>) -> Bool {
        guard held.isContainer, let heldValue = UnsafePointer<PlistValue>(bitPattern: held.extra) else { return false }
        if heldValue == value { return true }
        let heldNode = ContainerNode(heldValue)
        guard heldNode.isDictionary == node.isDictionary && heldNode.count == node.count else { return false }
        if heldNode.values == node.values && heldNode.keys == node.keys { return true }
        return equalValues(heldValue, value)
    }

    @inline(never)
    private static func equalValues(_ a: UnsafePointer<PlistValue>, _ b: UnsafePointer<PlistValue>) -> Bool {
        a.pointee == b.pointee
    }

    /// Fills in order `order` with the container `node` (at `value`), reserves its child slots
    /// and plans a dictionary's keys; unless it is empty, enters the frame that plans its values,
    /// following the notes of walk entry `subtree` (-1 for none).
    @inline(__always)
    private mutating func add(
        _ value: UnsafePointer<PlistValue>, _ node: ContainerNode, order: Int, subtree: Int, depth: Int,
        frame: inout Frame, stack: inout MovingStack<Frame>
    ) throws(PlistError) {
        let claimed = order < notedObjectCount
        if let exceeded = meter.countValues(depth == 0 ? node.count + 1 : node.count) {
            throw meter.limits.error(exceeding: exceeded, format: .binary)
        }
        guard depth < maxDepth else { throw Self.depthError(maxDepth) }
        if claimed { filledNotedCount &+= 1 }
        let note: BinaryLayout.EncodingNote? = claimed ? encodings[order] : nil
        let address = Int(bitPattern: value)
        let count = node.count
        var position = 0
        var end = 0
        if subtree >= 0 {
            position = subtree &+ 1
            end = subtree &+ Int(extents[subtree])
        }
        guard node.isDictionary else {
            let first = reserveChildren(count)
            let isSet = note?.type == 0xC
            let type: UInt8 = isSet ? 0xC : 0xA
            let length = Self.markerLength(type: type, count: count, note: note)
            objects[order] = Object(
                container: isSet ? Object.set : Object.array, first: first, count: count, node: address, markerLength: length,
                shortMarker: type << 4 | UInt8(truncatingIfNeeded: count))
            containerMarkerBytes &+= length
            guard let elements = node.values else { return }
            stack.push(frame)
            frame = Frame(values: elements, count: count, firstReference: first, position: position, end: end)
            return
        }
        var notedEntries = 0
        if subtree >= 0 {
            // A count below 15 is in the noted marker; a longer one is counted from the walk.
            let marker = encodings[Int(walk[subtree])].marker
            notedEntries = marker & 0x0F < 0x0F
                ? Int(marker & 0x0F) : NoteCursor(extents: extents, container: subtree).remainingCount() / 2
            if !repeatedKeys.isEmpty, let restored = try addRestored(value, order: order, note: note, subtree: subtree, notedEntries: notedEntries) {
                stack.push(frame)
                frame = restored
                return
            }
        }
        let first = reserveChildren(2 &* count)
        let length = Self.markerLength(type: 0xD, count: count, note: note)
        objects[order] = Object(
            container: Object.dictionary, first: first, count: 2 &* count, node: address, markerLength: length,
            shortMarker: 0xD0 | UInt8(truncatingIfNeeded: count))
        containerMarkerBytes &+= length
        guard let keys = node.keys, let values = node.values else { return }
        // The values' notes follow the keys', which span one walk entry each.
        let valuePosition = Swift.min(position &+ notedEntries, end)
        var inner = Frame(values: values, count: count, firstReference: first &+ count, position: valuePosition, end: end)
        defer {
            stack.push(frame)
            frame = inner
        }
        guard subtree >= 0 else {
            for i in 0..<count { children[first + i] = UInt32(truncatingIfNeeded: try planKey(keys + i, notedAt: -1)) }
            return
        }
        // The noted keys in the noted order (the common case): each key takes its noted entry.
        // Keys past the noted ones have no counterpart, and nor do their values.
        // A key met again whose holder took its object over with the same text names it at once.
        let matchable = Swift.min(count, notedEntries)
        var i = 0
        while i < matchable {
            let object = walk[position &+ i]
            guard keyMatches(object, keys + i) else { break }
            if objects.state(Int(object)) == PlannedObjects.holdsNotedKeyText {
                children.store(object, at: first &+ i)
            } else {
                children.store(UInt32(truncatingIfNeeded: try planKey(keys + i, notedAt: position &+ i, textMatched: true)), at: first &+ i)
            }
            i &+= 1
        }
        if i < matchable {
            inner.position = try planKeysByText(
                keys, count: count, from: i, firstKey: position, notedEntries: notedEntries,
                values: valuePosition, end: end, references: first)
            inner.end = -1
        } else {
            for j in i..<count { children[first + j] = UInt32(truncatingIfNeeded: try planKey(keys + j, notedAt: -1)) }
        }
    }

    /// Fills in the dictionary at `value` with the repeated keys its notes recorded, when it
    /// still has exactly the noted keys, plans its keys and returns the frame of its values; nil
    /// when the notes record no repeated keys for it.
    @inline(never)
    private mutating func addRestored(
        _ value: UnsafePointer<PlistValue>, order: Int, note: BinaryLayout.EncodingNote?, subtree: Int, notedEntries: Int
    ) throws(PlistError) -> Frame? {
        guard case .dictionary(let entries) = value.pointee, let restored = restoredEntries(of: entries, subtree: subtree) else {
            return nil
        }
        let keys = restored.map(\.0)
        let values = restored.map(\.1)
        restoredKeys.append(keys)
        restoredValues.append(values)
        let count = keys.count
        let first = reserveChildren(2 * count)
        let length = Self.markerLength(type: 0xD, count: count, note: note)
        objects[order] = Object(
            container: Object.dictionary, first: first, count: 2 * count, node: Int(bitPattern: value), markerLength: length,
            shortMarker: 0xD0 | UInt8(truncatingIfNeeded: count))
        containerMarkerBytes += length
        let end = subtree + Int(extents[subtree])
        guard count > 0 else { return Frame(values: value, count: 0, firstReference: first, position: end, end: end) }
        var keyCursor = NoteCursor(extents: extents, container: subtree)
        for i in 0..<count {
            let position = keyCursor.next() ?? -1
            children[first + i] = UInt32(truncatingIfNeeded: try planKey(Self.storage(of: keys) + i, notedAt: position))
        }
        return Frame(
            values: Self.storage(of: values), count: count, firstReference: first + count,
            position: Swift.min(subtree + 1 + notedEntries, end), end: end)
    }

    /// Reserves `count` child slots, filled in as the children are planned; returns the first.
    @inline(__always)
    private mutating func reserveChildren(_ count: Int) -> Int {
        let first = children.count
        children.pushUninitialized(count: count)
        return first
    }

    /// The bytes of a container's marker: its count spelled as `note` spelled it while it fits,
    /// else inline below 15 and as the smallest integer object from 15 on.
    @inline(__always)
    static func markerLength(type: UInt8, count: Int, note: BinaryLayout.EncodingNote?) -> Int {
        if count < 15 && (note?.raw ?? 0) & 0x7F00 == 0 { return 1 }
        return longMarkerLength(type: type, count: count, note: note)
    }

    @inline(never)
    static func longMarkerLength(type: UInt8, count: Int, note: BinaryLayout.EncodingNote?) -> Int {
        BinaryExtendedMarker(type: type, count: count, note: note).length
    }

    /// Adds the kept orphans whose index nothing claimed, as scalars of their own bytes. They are
    /// not uniqued: planning is over, and no new value can come to reference one.
    private mutating func addKeptOrphans(_ orphans: [BinaryLayout.KeptOrphan]) {
        for orphan in orphans {
            let object = Int(orphan.object)
            guard !objects.isClaimed(object) else { continue }
            let length = orphan.length
            let first = encoded.count
            encoded.append(UInt64(orphan.bytes), 0, count: length)
            objects[object] = Object(kind: Object.scalar, first: first, count: length)
            filledNotedCount += 1
            scalarBytes += length
        }
    }

    /// Adds the orphan copies the notes list whose original a node took over and whose own
    /// index nothing claimed.
    private mutating func addCopies(_ copies: [BinaryLayout.OrphanCopy]) {
        for copy in copies {
            let object = Int(copy.object)
            let original = Int(copy.original)
            guard !objects.isClaimed(object), objects.isClaimed(original), objects[original].kind != Object.copy else { continue }
            let held = objects[original]
            objects[object] = Object(kind: Object.copy, extra: original)
            filledNotedCount += 1
            switch held.kind {
            case Object.scalar, Object.spelledScalar:
                scalarBytes += held.count
            case Object.largeData:
                scalarBytes += held.count + largePayloads[held.extra].count
            default:
                let type: UInt8 = held.kind == Object.array ? 0xA : held.kind == Object.set ? 0xC : 0xD
                let entries = held.kind == Object.dictionary ? held.count / 2 : held.count
                containerMarkerBytes += Self.markerLength(type: type, count: entries, note: encodings[original])
                copiedReferences += held.count
            }
        }
    }

    @inline(never)
    private static func depthError(_ maxDepth: Int) -> PlistError {
        PlistError(
            .depthLimit, format: .binary,
            "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth); Apple's readers would refuse the file")
    }
}
