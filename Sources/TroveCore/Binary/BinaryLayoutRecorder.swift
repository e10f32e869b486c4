/// The per-object and per-step notes of a ``BinaryLayout`` while a lossless binary read records
/// them: each object's encoding, the reference walk, and which objects were keys.
///
/// Raw storage rather than arrays: the scanner notes every object and every walk step, and each
/// array append or subscript write paid a uniqueness check (a runtime call) and a bounds check.
/// The arrays the layout keeps are copied out once, at the end, by ``finish(keyText:)``.
///
/// A plain read makes a recorder for no objects, which allocates nothing; the scanner never
/// notes anything into it.
///
/// Invariants: `walkCount <= walkCapacity`; the first `walkCount` entries of both walk buffers
/// are written; `encodings` and `keyMarks` hold `objectCount` written entries.
struct BinaryLayoutRecorder: ~Copyable {
    let objectCount: Int
    private let encodings: UnsafeMutablePointer<BinaryLayout.EncodingNote>
    /// For each object: 0 when it was never a dictionary key; 1 for a key whose text the scanner
    /// keeps; n + 2 for a key whose text is `recordedTexts[n]`. ``finish(keyText:)`` turns the
    /// marks into ``BinaryLayout/KeyTexts``'s index.
    private let keyMarks: UnsafeMutablePointer<UInt32>
    /// Texts of keys whose objects the scanner does not keep (those of very large dictionaries).
    private var recordedTexts: [String] = []
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
            encodings = Self.unallocated()
            keyMarks = Self.unallocated()
            walkObjects = Self.unallocated()
            walkExtents = Self.unallocated()
            walkCapacity = 0
            return
        }
        encodings = .allocate(capacity: objectCount)
        // An object the walk never reaches keeps the empty note, as the layout's readers expect.
        encodings.initialize(repeating: BinaryLayout.EncodingNote(marker: 0), count: objectCount)
        keyMarks = .allocate(capacity: objectCount)
        keyMarks.initialize(repeating: 0, count: objectCount)
        walkCapacity = Swift.max(expectedWalk, 16)
        walkObjects = .allocate(capacity: walkCapacity)
        walkExtents = .allocate(capacity: walkCapacity)
    }

    deinit {
        guard objectCount > 0 else { return }
        encodings.deallocate()
        keyMarks.deallocate()
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
        #endif
    }

    /// Notes how object `index` (below `objectCount`) was encoded.
    @inline(__always)
    func note(_ index: Int, _ note: BinaryLayout.EncodingNote) {
        encodings[index] = note
    }

    /// Notes that object `index` (below `objectCount`), which the scanner keeps, was used as a
    /// dictionary key.
    @inline(__always)
    func markKey(_ index: Int) {
        keyMarks[index] = 1
    }

    /// Whether object `index` was noted as a key.
    @inline(__always)
    func isKey(_ index: Int) -> Bool { keyMarks[index] != 0 }

    /// Notes that object `index`, which the scanner does not keep, was used as a key with `text`.
    @inline(__always)
    mutating func recordKey(_ index: Int, text: String) {
        recordedTexts.append(text)
        keyMarks[index] = UInt32(truncatingIfNeeded: recordedTexts.count + 1)
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

    /// The layout's arrays. `keyText` gives the text of an object that ``markKey(_:)`` marked (the
    /// scanner kept it). Texts are listed in object order.
    func finish(keyText: (Int) -> String) -> (
        encodings: [BinaryLayout.EncodingNote], walkObjects: [UInt32], walkExtents: [UInt32], keyTexts: BinaryLayout.KeyTexts
    ) {
        _checkInvariants()
        var texts: [String] = []
        for object in 0..<objectCount where keyMarks[object] != 0 {
            let mark = Int(keyMarks[object])
            texts.append(mark == 1 ? keyText(object) : recordedTexts[mark - 2])
            keyMarks[object] = UInt32(truncatingIfNeeded: texts.count)
        }
        let keyTexts = BinaryLayout.KeyTexts(index: Array(UnsafeBufferPointer(start: keyMarks, count: objectCount)), texts: texts)
        return (
            Array(UnsafeBufferPointer(start: encodings, count: objectCount)),
            Array(UnsafeBufferPointer(start: walkObjects, count: walkCount)),
            Array(UnsafeBufferPointer(start: walkExtents, count: walkCount)),
            keyTexts)
    }
}
