/// The per-object and per-step notes of a ``BinaryLayout`` while a lossless binary read records
/// them: each object's encoding, the reference walk, and the text of each object used as a key.
///
/// Written through plain pointers rather than by array appends and subscripts: the scanner notes
/// every object and every walk step, and each array append or subscript write paid a uniqueness
/// check (a runtime call) and a bounds check. The per-object notes are written straight into the
/// arrays the layout keeps, which this recorder alone holds until ``finish()`` hands them over, so
/// they are never copied; the walk, whose length is only known at the end, is copied out once.
///
/// A plain read makes a recorder for no objects, which allocates nothing; the scanner never
/// notes anything into it.
///
/// Invariants: `walkCount <= walkCapacity`; the first `walkCount` entries of both walk buffers
/// are written; `keyIndex[k]` is 0 when object `k` was never noted as a key, else one more than
/// the position of its text among the first `textCount` (initialized) entries of `texts`.
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
    private var textCount = 0
    private var textCapacity: Int
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
            walkObjects = Self.unallocated()
            walkExtents = Self.unallocated()
            walkCapacity = 0
            return
        }
        // An object the walk never reaches keeps the empty note, as the layout's readers expect.
        var encodingArray = [BinaryLayout.EncodingNote](repeating: BinaryLayout.EncodingNote(marker: 0), count: objectCount)
        encodings = encodingArray.withUnsafeMutableBufferPointer { $0.baseAddress! }
        self.encodingArray = encodingArray
        var keyIndexArray = [UInt32](repeating: 0, count: objectCount)
        keyIndex = keyIndexArray.withUnsafeMutableBufferPointer { $0.baseAddress! }
        self.keyIndexArray = keyIndexArray
        textCapacity = Swift.min(objectCount, 64)
        texts = .allocate(capacity: textCapacity)
        walkCapacity = Swift.max(expectedWalk, 16)
        walkObjects = .allocate(capacity: walkCapacity)
        walkExtents = .allocate(capacity: walkCapacity)
    }

    deinit {
        guard objectCount > 0 else { return }
        texts.deinitialize(count: textCount)
        texts.deallocate()
        walkObjects.deallocate()
        walkExtents.deallocate()
    }

    /// A pointer nothing reads or writes through, for a recorder that allocates nothing.
    private static func unallocated<T>() -> UnsafeMutablePointer<T> {
        UnsafeMutablePointer(bitPattern: MemoryLayout<T>.alignment)!
    }

    /// Checks the invariants that can be checked (debug builds only).
    func _checkInvariants() {
        #if DEBUG
        precondition(walkCount >= 0 && walkCount <= walkCapacity, "walk count \(walkCount), capacity \(walkCapacity)")
        for position in 0..<walkCount {
            precondition(Int(walkObjects[position]) < objectCount, "walk step \(position) names no object")
            precondition(walkExtents[position] >= 1 && position + Int(walkExtents[position]) <= walkCount, "walk step \(position) overruns the walk")
        }
        for object in 0..<objectCount {
            precondition(Int(keyIndex[object]) <= textCount, "object \(object)'s key text is past the texts")
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
    /// ``isKey(_:)``), was used as one with `text`.
    @inline(__always)
    mutating func noteKey(_ index: Int, text: String) {
        assert(!isKey(index), "a key noted twice")
        if textCount == textCapacity { growTexts() }
        (texts + textCount).initialize(to: text)
        textCount &+= 1
        keyIndex[index] = UInt32(truncatingIfNeeded: textCount)
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
        let capacity = walkCapacity
        (walkObjects, _) = walkObjects.movedToLarger(count: walkCount, capacity: capacity, toHold: walkCount + 1)
        (walkExtents, walkCapacity) = walkExtents.movedToLarger(count: walkCount, capacity: capacity, toHold: walkCount + 1)
    }

    /// The text of `index` (below `objectCount`) as a key, or nil when it was never noted as one.
    @inline(__always)
    func keyText(_ index: Int) -> String? {
        let position = keyIndex[index]
        return position == 0 ? nil : texts[Int(position) - 1]
    }

    /// A stretch of some recorder's walk, for ``replaceWalk(from:with:)``.
    struct WalkPiece {
        var objects: UnsafePointer<UInt32>
        var extents: UnsafePointer<UInt32>
        var range: Range<Int>
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
    /// `start`: the walk is built in new storage.
    mutating func replaceWalk(from start: Int, with pieces: [WalkPiece]) {
        precondition(objectCount > 0, "replacing the walk of a recorder that records nothing")
        assert(start >= 0 && start <= walkCount, "replacing a walk from past its end")
        if replaceWalkInPlace(from: start, with: pieces) { return }
        let total = start + pieces.reduce(0) { $0 + $1.range.count }
        let capacity = Swift.max(walkCapacity, total)
        let newObjects = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        let newExtents = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        newObjects.initialize(from: walkObjects, count: start)
        newExtents.initialize(from: walkExtents, count: start)
        var end = start
        for piece in pieces where !piece.range.isEmpty {
            (newObjects + end).initialize(from: piece.objects + piece.range.lowerBound, count: piece.range.count)
            (newExtents + end).initialize(from: piece.extents + piece.range.lowerBound, count: piece.range.count)
            end += piece.range.count
        }
        walkObjects.deallocate()
        walkExtents.deallocate()
        (walkObjects, walkExtents, walkCapacity, walkCount) = (newObjects, newExtents, capacity, end)
    }

    /// ``replaceWalk(from:with:)`` within this walk's own storage, which is reserved for the
    /// whole file, when every piece of it only moves towards the end (the calling thread's part
    /// of a split container, with the worker's parts put before or after it): each of its own
    /// pieces is moved, the last first, then the other recorders' pieces are copied in. False,
    /// having changed nothing, when that cannot be done (the calling thread also decoded some of
    /// a dictionary's later parts, whose keys move back, or the walk's storage is too small).
    private mutating func replaceWalkInPlace(from start: Int, with pieces: [WalkPiece]) -> Bool {
        var destinations: [Int] = []
        destinations.reserveCapacity(pieces.count)
        var end = start
        for piece in pieces {
            if piece.objects == UnsafePointer(walkObjects) && !piece.range.isEmpty && end < piece.range.lowerBound { return false }
            destinations.append(end)
            end += piece.range.count
        }
        guard end <= walkCapacity else { return false }
        for (piece, destination) in zip(pieces, destinations).reversed()
        where piece.objects == UnsafePointer(walkObjects) && !piece.range.isEmpty && destination != piece.range.lowerBound {
            (walkObjects + destination).update(from: walkObjects + piece.range.lowerBound, count: piece.range.count)
            (walkExtents + destination).update(from: walkExtents + piece.range.lowerBound, count: piece.range.count)
        }
        for (piece, destination) in zip(pieces, destinations) where piece.objects != UnsafePointer(walkObjects) && !piece.range.isEmpty {
            (walkObjects + destination).update(from: piece.objects + piece.range.lowerBound, count: piece.range.count)
            (walkExtents + destination).update(from: piece.extents + piece.range.lowerBound, count: piece.range.count)
        }
        walkCount = end
        return true
    }

    /// The layout's arrays, handed over: the recorder keeps no texts after this.
    mutating func finish() -> (
        encodings: [BinaryLayout.EncodingNote], walkObjects: [UInt32], walkExtents: [UInt32], keyTexts: BinaryLayout.KeyTexts
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
        return (
            encodingArray,
            Array(UnsafeBufferPointer(start: walkObjects, count: walkCount)),
            Array(UnsafeBufferPointer(start: walkExtents, count: walkCount)),
            BinaryLayout.KeyTexts(index: keyIndexArray, texts: keyTexts))
    }
}
