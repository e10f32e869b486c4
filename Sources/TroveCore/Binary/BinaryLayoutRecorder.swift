/// The per-object and per-step notes of a ``BinaryLayout`` while a lossless binary read records
/// them: each object's encoding, the reference walk, and the text of each object used as a key.
///
/// Written through plain pointers rather than by array appends and subscripts: the scanner notes
/// every object and every walk step, and each array append or subscript write paid a uniqueness
/// check (a runtime call) and a bounds check. The notes are written straight into the storage the
/// layout keeps, which this recorder alone holds until ``finish()`` hands it over, so it is never
/// copied. The walk's length is only known at the end: its two columns (``WalkColumn``) are
/// reserved as long as the walk can get, and handed over shrunk to the walk where they lie.
///
/// A plain read makes a recorder for no objects, which allocates nothing; the scanner never
/// notes anything into it.
///
/// Invariants: `walkCount <= walkCapacity`, the capacity of both walk columns; their first
/// `walkCount` entries are written; `keyIndex[k]` is 0 when object `k` was never noted as a key,
/// else it names the text as ``BinaryLayout/KeyTexts`` describes: one more than its position
/// among the first `textCount` (initialized) entries of `texts`, or its segment and position in
/// `segments`.
struct BinaryLayoutRecorder: ~Copyable {
    let objectCount: Int
    /// The arrays the layout keeps, and pointers to their storage for the writes: nothing else
    /// refers to the arrays before ``finish()``, so the storage neither moves nor is shared.
    private let encodingArray: [BinaryLayout.EncodingNote]
    private let encodings: UnsafeMutablePointer<BinaryLayout.EncodingNote>
    private let keyIndexArray: [UInt32]
    private let keyIndex: UnsafeMutablePointer<UInt32>
    /// Key texts in the order objects were first noted as keys; moved into an array at the end.
    private var texts: UnsafeMutablePointer<String>
    private(set) var textCount = 0
    private var textCapacity: Int
    /// Large dictionaries' key arrays, kept whole (see ``addSegment(_:)``).
    private var segments: [[String]] = []
    /// How many segments this recorder makes of its own: half the index's room, so that a
    /// split read's calling thread can take over its worker's as well.
    private var segmentLimit = BinaryLayout.KeyTexts.maxSegments / 2
    /// The walk's two columns, and pointers to their entries.
    private var objectColumn: WalkColumn
    private var extentColumn: WalkColumn
    private var walkObjects: UnsafeMutablePointer<UInt32>
    private var walkExtents: UnsafeMutablePointer<UInt32>
    private var walkCapacity: Int
    /// The number of walk steps noted so far: the walk position of the next one.
    private(set) var walkCount = 0

    /// A recorder for a file of `objectCount` objects, whose walk is expected to make at most
    /// `expectedWalk` steps (more are room for); nothing is allocated for 0 objects.
    init(objectCount: Int, expectedWalk: Int) {
        self.objectCount = objectCount
        guard objectCount > 0 else {
            encodingArray = []
            encodings = Self.unallocated()
            keyIndexArray = []
            keyIndex = Self.unallocated()
            texts = Self.unallocated()
            textCapacity = 0
            objectColumn = WalkColumn(capacity: 0)
            extentColumn = WalkColumn(capacity: 0)
            walkObjects = objectColumn.entries
            walkExtents = extentColumn.entries
            walkCapacity = 0
            return
        }
        // An object the walk never reaches keeps the empty note (raw 0), as the layout's readers
        // expect.
        var encodingArray = [BinaryLayout.EncodingNote](zeroedCount: objectCount)
        encodings = encodingArray.withUnsafeMutableBufferPointer { $0.baseAddress! }
        self.encodingArray = encodingArray
        var keyIndexArray = [UInt32](zeroedCount: objectCount)
        keyIndex = keyIndexArray.withUnsafeMutableBufferPointer { $0.baseAddress! }
        self.keyIndexArray = keyIndexArray
        textCapacity = Swift.min(objectCount, 64)
        texts = .allocate(capacity: textCapacity)
        walkCapacity = Swift.max(expectedWalk, 16)
        objectColumn = WalkColumn(capacity: walkCapacity)
        extentColumn = WalkColumn(capacity: walkCapacity)
        walkObjects = objectColumn.entries
        walkExtents = extentColumn.entries
    }

    deinit {
        guard objectCount > 0 else { return }
        texts.deinitialize(count: textCount)
        texts.deallocate()
    }

    /// A pointer nothing reads or writes through, for a recorder that allocates nothing.
    private static func unallocated<T>() -> UnsafeMutablePointer<T> {
        UnsafeMutablePointer(bitPattern: MemoryLayout<T>.alignment)!
    }

    /// Checks the invariants that can be checked (debug builds only).
    func _checkInvariants() {
        #if DEBUG
        precondition(walkCount >= 0 && walkCount <= walkCapacity, "walk count \(walkCount), capacity \(walkCapacity)")
        precondition(
            objectColumn.capacity == walkCapacity && extentColumn.capacity == walkCapacity,
            "walk columns of \(objectColumn.capacity) and \(extentColumn.capacity) entries, capacity \(walkCapacity)")
        for position in 0..<walkCount {
            precondition(Int(walkObjects[position]) < objectCount, "walk step \(position) names no object")
            precondition(walkExtents[position] >= 1 && position + Int(walkExtents[position]) <= walkCount, "walk step \(position) overruns the walk")
        }
        let segmentCounts = segments.map(\.count)
        for object in 0..<objectCount where keyIndex[object] != 0 {
            precondition(
                BinaryLayout.KeyTexts.names(keyIndex[object], textCount: textCount, segmentCounts: segmentCounts),
                "object \(object)'s key text is past the texts or its segment")
        }
        #endif
    }

    /// The encoding notes by object index, valid while the recorder lives: what has been noted
    /// so far, the empty note elsewhere.
    var encodingStorage: UnsafePointer<BinaryLayout.EncodingNote> { UnsafePointer(encodings) }

    /// Notes how object `index` (below `objectCount`) was encoded.
    @inline(__always)
    func note(_ index: Int, _ note: BinaryLayout.EncodingNote) {
        encodings[index] = note
    }

    /// Whether object `index` (below `objectCount`) was noted as a key.
    @inline(__always)
    func isKey(_ index: Int) -> Bool { keyIndex[index] != 0 }

    /// Notes that object `index` (below `objectCount`), not yet noted as a key (see
    /// ``isKey(_:)``), was used as one with `text`. Past 2²⁸ − 1 texts, which no file within the
    /// size limits reaches, further keys are not noted: their dictionaries' entries then follow
    /// their notes by position only.
    @inline(__always)
    mutating func noteKey(_ index: Int, text: String) {
        assert(!isKey(index), "a key noted twice")
        guard textCount < Int(BinaryLayout.KeyTexts.positionMask) else { return }
        if textCount == textCapacity { growTexts() }
        (texts + textCount).initialize(to: text)
        textCount &+= 1
        keyIndex[index] = UInt32(truncatingIfNeeded: textCount)
    }

    /// Keeps `keys`, a large dictionary's keys in entry order, as a segment, and returns the
    /// index bits that name it, for ``noteKey(_:inSegment:at:)``; nil when the keys are too few
    /// to be worth a segment or too many for an index entry, or no segment is left: the caller
    /// then notes them one by one.
    mutating func addSegment(_ keys: [String]) -> UInt32? {
        guard keys.count >= BinaryLayout.KeyTexts.smallestSegment, keys.count <= Int(BinaryLayout.KeyTexts.positionMask) + 1,
              segments.count < segmentLimit
        else { return nil }
        segments.append(keys)
        return UInt32(segments.count) << BinaryLayout.KeyTexts.segmentShift
    }

    /// Notes that object `index` (below `objectCount`), not yet noted as a key, was used as one
    /// with the text at `position` of the segment ``addSegment(_:)`` named `segment`.
    @inline(__always)
    func noteKey(_ index: Int, inSegment segment: UInt32, at position: Int) {
        assert(!isKey(index), "a key noted twice")
        keyIndex[index] = segment | UInt32(truncatingIfNeeded: position)
    }

    /// Makes room for `additional` more key texts at once, for a caller about to note the keys
    /// of a large dictionary: growing by doubling moves every text noted so far each time.
    mutating func reserveKeys(_ additional: Int) {
        let wanted = textCount + Swift.min(additional, objectCount - textCount)
        guard wanted > textCapacity else { return }
        (texts, textCapacity) = texts.movedToLarger(count: textCount, capacity: textCapacity, toHold: wanted)
    }

    /// Where ``takeKeyTexts(of:)`` put another recorder's key texts: its first text (nil when
    /// the loose texts stayed behind, more than an index entry can name) and its first segment.
    struct MovedKeyTexts {
        var textStart: Int?
        var segmentStart: Int
    }

    /// Moves every key text and segment of `other`, a recorder of the same file, behind this
    /// one's, and returns where they landed, for ``adoptKey(_:from:movedTo:)``. `other` keeps its
    /// notes of which objects were keys but no texts; a text of an object both noted stays
    /// among the texts, named by no object. Called once, as a split read's calling thread joins
    /// its worker.
    mutating func takeKeyTexts(of other: inout BinaryLayoutRecorder) -> MovedKeyTexts {
        precondition(objectCount == other.objectCount, "key texts of another file")
        precondition(segments.count + other.segments.count <= BinaryLayout.KeyTexts.maxSegments, "more key segments than an index names")
        let segmentStart = segments.count
        segments += other.segments
        other.segments = []
        segmentLimit = BinaryLayout.KeyTexts.maxSegments
        guard textCount + other.textCount < Int(BinaryLayout.KeyTexts.positionMask) else {
            // Past what an index entry can name (see `noteKey(_:text:)`): the loose texts stay.
            return MovedKeyTexts(textStart: nil, segmentStart: segmentStart)
        }
        let moved = MovedKeyTexts(textStart: textCount, segmentStart: segmentStart)
        reserveKeys(other.textCount)
        if textCount + other.textCount > textCapacity {
            // More texts than objects: `reserveKeys` stops at the object count.
            (texts, textCapacity) = texts.movedToLarger(count: textCount, capacity: textCapacity, toHold: textCount + other.textCount)
        }
        (texts + textCount).moveInitialize(from: other.texts, count: other.textCount)
        textCount += other.textCount
        other.textCount = 0
        return moved
    }

    /// Notes that object `index`, not noted as a key here, was one with the text `other` noted
    /// for it, which ``takeKeyTexts(of:)`` moved here as `moved` says.
    @inline(__always)
    func adoptKey(_ index: Int, from other: borrowing BinaryLayoutRecorder, movedTo moved: MovedKeyTexts) {
        assert(!isKey(index) && other.isKey(index), "adopting a key text this recorder has, or the other lacks")
        let entry = other.keyIndex[index]
        if entry >> BinaryLayout.KeyTexts.segmentShift != 0 {
            keyIndex[index] = entry &+ UInt32(truncatingIfNeeded: moved.segmentStart) << BinaryLayout.KeyTexts.segmentShift
        } else if let textStart = moved.textStart {
            keyIndex[index] = entry &+ UInt32(truncatingIfNeeded: textStart)
        }
    }

    @inline(never)
    private mutating func growTexts() {
        (texts, textCapacity) = texts.movedToLarger(count: textCount, capacity: textCapacity, toHold: textCount + 1)
    }

    /// Appends a walk step naming object `index`, as a leaf until ``closeWalk(at:)`` gives it
    /// its subtree.
    @inline(__always)
    mutating func appendWalk(_ index: Int) {
        if walkCount == walkCapacity { growWalk() }
        walkObjects[walkCount] = UInt32(truncatingIfNeeded: index)
        walkExtents[walkCount] = 1
        walkCount &+= 1
    }

    /// Sets the extent of the container whose walk step is at `position`: every step noted
    /// since it belongs to its subtree.
    @inline(__always)
    func closeWalk(at position: Int) {
        assert(position >= 0 && position < walkCount, "closing a walk step that was never noted")
        walkExtents[position] = UInt32(truncatingIfNeeded: walkCount &- position)
    }

    @inline(never)
    private mutating func growWalk() {
        moveWalk(toCapacity: 2 * walkCapacity, copying: [walkPiece(0..<walkCount)])
    }

    /// Moves the walk into new columns of `capacity` entries that hold `pieces` in order, and
    /// releases the old ones (which the pieces may lie in).
    private mutating func moveWalk(toCapacity capacity: Int, copying pieces: [WalkPiece]) {
        let objects = WalkColumn(capacity: capacity)
        let extents = WalkColumn(capacity: capacity)
        var end = 0
        for piece in pieces {
            piece.copy(to: objects.entries, extents.entries, at: end)
            end += piece.range.count
        }
        (walkObjects, walkExtents, walkCapacity, walkCount) = (objects.entries, extents.entries, capacity, end)
        objectColumn = objects
        extentColumn = extents
    }

    /// A stretch of some recorder's walk, for ``replaceWalk(from:with:)``.
    struct WalkPiece {
        var objects: UnsafePointer<UInt32>
        var extents: UnsafePointer<UInt32>
        var range: Range<Int>

        /// Copies the piece's steps to `objects` and `extents` from `destination` on (the
        /// regions may overlap).
        func copy(to objects: UnsafeMutablePointer<UInt32>, _ extents: UnsafeMutablePointer<UInt32>, at destination: Int) {
            guard !range.isEmpty else { return }
            (objects + destination).update(from: self.objects + range.lowerBound, count: range.count)
            (extents + destination).update(from: self.extents + range.lowerBound, count: range.count)
        }
    }

    /// A piece of this recorder's own walk, valid until the walk next changes.
    func walkPiece(_ range: Range<Int>) -> WalkPiece {
        assert(range.lowerBound >= 0 && range.upperBound <= walkCount, "a walk piece past the walk")
        return WalkPiece(objects: UnsafePointer(walkObjects), extents: UnsafePointer(walkExtents), range: range)
    }

    /// Replaces the walk from `start` on with `pieces`, in order: how a split container's walk
    /// is put together from its parts, which the threads recorded apart and in another order
    /// (see ``BinaryObjectScanner/decodeSplit(_:values:keyClasses:)``). Extents count steps, so
    /// a subtree moved whole keeps its extents. Pieces may lie in this recorder's own walk past
    /// `start`. The walk is put together in its own storage, or, when that is too small, in new
    /// columns of the walk's length so far, which the steps still to come grow.
    mutating func replaceWalk(from start: Int, with pieces: [WalkPiece]) {
        precondition(objectCount > 0, "replacing the walk of a recorder that records nothing")
        assert(start >= 0 && start <= walkCount, "replacing a walk from past its end")
        if replaceWalkInPlace(from: start, with: pieces) { return }
        let total = start + pieces.reduce(0) { $0 + $1.range.count }
        // The steps after the split container are few: a split container holds most of the file.
        moveWalk(toCapacity: Swift.max(total + total / 16, 16), copying: [walkPiece(0..<start)] + pieces)
    }

    /// ``replaceWalk(from:with:)`` within this walk's own storage, which is reserved for the
    /// whole file; false, having changed nothing, when the storage is too small.
    ///
    /// The pieces of this walk that move towards the end (a split container's values: the
    /// calling thread's part, with the worker's parts put before or after it) are moved where
    /// they lie, the one bound furthest first: its destination starts past the destination, and
    /// so past the source, of every piece with an earlier destination that also moves towards
    /// the end, so it overwrites none not yet moved. Those that move back (the keys of the
    /// dictionary parts the calling thread decoded after its first, behind its values) are few,
    /// one step a key, and are set aside first, then copied in with the other recorders' pieces.
    private mutating func replaceWalkInPlace(from start: Int, with pieces: [WalkPiece]) -> Bool {
        var destinations: [Int] = []
        destinations.reserveCapacity(pieces.count)
        var end = start
        for piece in pieces {
            destinations.append(end)
            end += piece.range.count
        }
        guard end <= walkCapacity else { return false }
        let own = UnsafePointer(walkObjects)
        let movesBack = pieces.indices.filter { pieces[$0].objects == own && destinations[$0] < pieces[$0].range.lowerBound }
        // The pieces that move back, copied into columns of their own, which stand in for them.
        var pieces = pieces
        let aside = movesBack.reduce(0) { $0 + pieces[$1].range.count }
        let asideObjects = WalkColumn(capacity: aside)
        let asideExtents = WalkColumn(capacity: aside)
        var asideEnd = 0
        for i in movesBack {
            let count = pieces[i].range.count
            pieces[i].copy(to: asideObjects.entries, asideExtents.entries, at: asideEnd)
            pieces[i] = WalkPiece(objects: asideObjects.entries, extents: asideExtents.entries, range: asideEnd..<asideEnd + count)
            asideEnd += count
        }
        for i in pieces.indices.reversed() where pieces[i].objects == own && destinations[i] > pieces[i].range.lowerBound {
            pieces[i].copy(to: walkObjects, walkExtents, at: destinations[i])
        }
        for (piece, destination) in zip(pieces, destinations) where piece.objects != own {
            piece.copy(to: walkObjects, walkExtents, at: destination)
        }
        walkCount = end
        return true
    }

    /// The layout's arrays, handed over: the recorder keeps no texts after this.
    mutating func finish() -> (
        encodings: [BinaryLayout.EncodingNote], walkObjects: BinaryLayout.WalkSteps, walkExtents: BinaryLayout.WalkSteps,
        keyTexts: BinaryLayout.KeyTexts
    ) {
        _checkInvariants()
        let count = textCount
        // Not made with a capacity of 0, which writes a count into the standard library's one
        // shared empty array (a data race between two reads on two threads, if a harmless one).
        let keyTexts = count == 0 ? [] : [String](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: texts, count: count)
            initialized = count
        }
        textCount = 0
        return (encodingArray, objectColumn.takeEntries(count: walkCount), extentColumn.takeEntries(count: walkCount),
                BinaryLayout.KeyTexts(index: keyIndexArray, texts: keyTexts, segments: segments))
    }
}

/// The entries of one column of a recorder's walk (the objects or the extents), written through
/// ``entries`` and handed over as the layout's ``BinaryLayout/WalkSteps`` at the end, shrunk to
/// the walk where they lie. A column of no entries allocates nothing.
private struct WalkColumn: ~Copyable {
    let entries: UnsafeMutablePointer<UInt32>
    let capacity: Int
    /// Whether the column still holds its block: until ``takeEntries(count:)``.
    private var holdsEntries: Bool

    init(capacity: Int) {
        self.capacity = capacity
        holdsEntries = capacity > 0
        // The entries are written through the pointer before anything reads them; UInt32 holds
        // no references, so the unwritten ones need no initializing.
        entries = capacity > 0 ? BinaryLayout.WalkSteps.allocate(capacity: capacity) : UnsafeMutablePointer(bitPattern: MemoryLayout<UInt32>.alignment)!
    }

    deinit {
        if holdsEntries { BinaryLayout.WalkSteps.deallocate(entries) }
    }

    /// The first `count` entries, handed over; nothing may be written through ``entries``
    /// afterwards.
    mutating func takeEntries(count: Int) -> BinaryLayout.WalkSteps {
        guard holdsEntries else { return BinaryLayout.WalkSteps([]) }
        holdsEntries = false
        return BinaryLayout.WalkSteps(takingMalloced: entries, count: count, capacity: capacity)
    }
}
