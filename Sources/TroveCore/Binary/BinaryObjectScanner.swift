import Foundation

/// Decodes the objects of a validated binary plist into ``PlistValue``s, and optionally records
/// the notes of a ``BinaryLayout``.
///
/// An object referenced more than once is decoded at most twice and its value then reused for
/// every further reference (see ``BinaryObjectSlots/State``), so a file whose shared references
/// would expand exponentially stays linear in time and memory (the values share copy-on-write
/// storage). Nesting is followed with an explicit stack, never recursion, and is cut
/// off at `limits.maxDepth`; cycles are found per path.
struct BinaryObjectScanner: ~Copyable {
    let bytes: UnsafeRawBufferPointer
    let trailer: BinaryTrailer
    let limits: PlistLimits
    let keepsLayout: Bool
    /// Offsets and references, validated; a copy of plain values for the hot loops.
    let lookup: BinaryObjectLookup

    /// What the decode knows of each object, by index, with the kept values.
    var objects: BinaryObjectSlots
    var depth = 0
    var valueCount = 0
    /// The expanded size of the value `begin` or `finish` delivered last.
    var deliveredSize = ExpandedSize()

    /// Encodings, the reference walk and the keys, when the layout is kept.
    var recorder: BinaryLayoutRecorder
    /// True while a container met for the second time is decoded again to be kept: the walk
    /// notes it as one leaf and nothing beneath it.
    var walkMuted = false
    /// How many distinct objects the decode has reached; when it is the object count, the file
    /// has no unreferenced objects to look for.
    var reachedCount = 0
    var int128HighWords: [UInt32: UInt64] = [:]
    /// Dictionaries with repeated keys, by walk position.
    var repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys] = [:]
    /// The container whose children a concurrent decode shares with a worker thread, or -1
    /// (see ``BinarySplitPlan``); reset once the container is met.
    var splitTarget = -1
    var splitPlan = BinarySplitPlan.none
    /// True once a split began: an error from then on may differ from the sequential decode's,
    /// so the caller decodes again on one thread to report the exact one.
    var splitBegan = false
    /// Who takes the split container's jobs, and how many the calling thread took.
    var splitSchedule = BinaryConcurrentDecode.SplitSchedule.shared
    var splitJobsTakenByCaller = 0

    init(bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, keepsLayout: Bool) {
        self.bytes = bytes
        self.trailer = trailer
        self.limits = limits
        self.keepsLayout = keepsLayout
        self.lookup = BinaryObjectLookup(bytes: bytes, trailer: trailer)
        // Slots also hold each cached object's expanded size, so that a reference to a shared
        // object adds its whole subtree to the expanded counts without walking it again.
        objects = BinaryObjectSlots(count: trailer.objectCount)
        // Each walk step but the first is a reference the file spells, so the object area bounds
        // the walk. Reserved pages that are never written cost no memory, and growing copies the
        // walk while both copies are alive, so the bound is reserved up to 16 steps an object: a
        // file of small dictionaries sharing their keys walks 4.5 steps an object (rust-plist's
        // fixture), and only blobs of data leave most of the bound unused.
        // A small file's walk is reserved near its usual length instead, two steps an object, so
        // that its columns come from the allocator's per-thread cache (a walk that outgrows them
        // is copied, which costs little at that size).
        let references = (trailer.offsetTableOffset - BinaryTrailer.headerLength) / trailer.objectRefSize
        let bound = Swift.min(references + 1, 16 * trailer.objectCount)
        let usual = 2 * trailer.objectCount + 16
        recorder = BinaryLayoutRecorder(
            objectCount: keepsLayout ? trailer.objectCount : 0,
            expectedWalk: usual <= Self.smallWalk ? Swift.min(bound, usual) : bound)
    }

    /// The encodings, walk and key texts recorded by a successful ``decodeTop()`` that kept
    /// the layout; called once, after ``BinaryOrphanCopies`` has read the notes.
    mutating func layoutNotes() -> (
        encodings: [BinaryLayout.EncodingNote], walkObjects: BinaryLayout.WalkSteps, walkExtents: BinaryLayout.WalkSteps,
        keyTexts: BinaryLayout.KeyTexts
    ) {
        recorder.finish()
    }

    /// Every object's encoding note, by index (the empty note for one the top object does not
    /// reach), valid while the scanner lives and ``layoutNotes()`` has not been called.
    var encodingNotes: UnsafePointer<BinaryLayout.EncodingNote> { recorder.encodingStorage }

    /// Every object's state, by index (`.unseen` for one the top object does not reach), valid
    /// while the scanner lives.
    var objectStates: UnsafePointer<BinaryObjectSlots.State> { objects.statesStorage }

    // MARK: - Entry point

    /// A container being decoded: where its references are and where its finished children
    /// start on the value stack. Plain data, so that pushing, reading and popping frames never
    /// retains or releases anything.
    struct Frame {
        var index: Int
        var walkIndex: Int
        var refs: Int
        var count: Int
        /// The children to decode are `next..<end`: all of them (`end == count`) but in the
        /// halves of a split container (see `decodeSplit`).
        var end: Int
        var next = 0
        /// The value stack's height when the container opened: its children lie above it.
        var base: Int
        var isDictionary: Bool
        /// True for the container whose decode muted the walk (see `walkMuted`).
        var unmutesWalk = false
        /// The container's expanded size so far: itself and the children accepted.
        var expanded = ExpandedSize()
    }

    /// The most ancestor frames and pending values ``decodeTop()`` reserves before it knows the
    /// file's shape: both stay below the size from which `malloc` maps memory for each request.
    static let reservedDepth = 1024
    static let reservedValues = 2048

    /// The longest walk reserved at its usual length rather than its bound: 256 steps, whose
    /// column is 1 KB, within the sizes the allocator caches per thread.
    static let smallWalk = 256

    /// Decodes the top object.
    ///
    /// Containers are decoded with an explicit stack rather than recursion, so no input, and no
    /// `maxDepth` however large, can exhaust the thread's stack. The innermost container's frame
    /// lives in a local; only its ancestors are on the stack, which therefore changes once per
    /// container rather than once per child.
    ///
    /// Both stacks are reserved up front for what the file can need, within bounds: growing by
    /// doubling holds the old and the new copy at once, which set the working-memory peak of
    /// small deep files, while reserved pages that are never written cost no memory.
    mutating func decodeTop() throws(PlistError) -> PlistValue {
        var ancestors = newAncestors()
        var values = PlistValueStack(capacity: Swift.min(trailer.objectCount, Self.reservedValues))
        var keyClasses = BinaryKeyClasses(objectCount: trailer.objectCount)
        var top = Frame(index: 0, walkIndex: 0, refs: 0, count: 0, end: 0, base: 0, isDictionary: false)
        let value: PlistValue
        if let scalar = try begin(trailer.topObject, referencedAt: trailer.offsetTableOffset, values: &values, opening: &top) {
            value = scalar
        } else if top.index == splitTarget {
            value = try decodeSplit(top, values: &values, keyClasses: &keyClasses)
        } else {
            try walk(&top, ancestors: &ancestors, values: &values, keyClasses: &keyClasses)
            value = try finish(top, values: &values, keyClasses: &keyClasses)
        }
        try checkExpansion(deliveredSize, at: trailer.offsetTableOffset)
        objects._checkInvariants()
        return value
    }

    /// A stack for the ancestors of the innermost open container.
    func newAncestors() -> MovingStack<Frame> {
        MovingStack(capacity: Swift.min(limits.maxDepth, trailer.objectCount, Self.reservedDepth))
    }

    /// Decodes the children `bottom.next..<bottom.end` of the open container `bottom`, and
    /// everything beneath them, pushing each child's value on `values`; returns with `bottom`
    /// advanced past them, for the caller to complete. `ancestors` is empty before and after.
    mutating func walk(
        _ bottom: inout Frame, ancestors: inout MovingStack<Frame>, values: inout PlistValueStack, keyClasses: inout BinaryKeyClasses
    ) throws(PlistError) {
        let lookup = self.lookup
        var current = bottom
        var opened = current
        values.reserve(current.end - current.next)
        while true {
            let next = current.next
            if next < current.end {
                let slot = current.isDictionary ? current.count + next : next
                let position = current.refs + slot * lookup.objectRefSize
                current.next = next + 1
                let child = try lookup.reference(at: position)
                if let value = try begin(child, referencedAt: position, values: &values, opening: &opened) {
                    current.expanded.add(deliveredSize)
                    values.push(value)
                } else if opened.index == splitTarget {
                    let value = try decodeSplit(opened, values: &values, keyClasses: &keyClasses)
                    current.expanded.add(deliveredSize)
                    values.push(value)
                } else {
                    ancestors.push(current)
                    current = opened
                    values.reserve(current.count)
                }
            } else {
                guard ancestors.count > 0 else {
                    bottom = current
                    return
                }
                let value = try finish(current, values: &values, keyClasses: &keyClasses)
                current = ancestors.popLast()
                current.expanded.add(deliveredSize)
                values.push(value)
            }
        }
    }

    /// Starts decoding object `index`: returns its value when it is cached or a scalar; for a
    /// container, fills `frame` with the container's frame and returns nil. `position` is where
    /// the reference was read, for errors; the container's children will start at the value
    /// stack's present height, or past its keys (see ``keepsKeys(ofDictionaryWith:)``).
    @inline(__always)
    mutating func begin(
        _ index: Int, referencedAt position: Int, values: inout PlistValueStack, opening frame: inout Frame
    ) throws(PlistError) -> PlistValue? {
        let valueBase = values.count
        let state = objects.state(index)
        switch state {
        case .cached:
            noteWalkLeaf(index)
            deliveredSize = objects.size(index)
            return objects.value(index)
        case .scalar:
            noteWalkLeaf(index)
            deliveredSize = ExpandedSize()
            return try scalar(index, at: try lookup.offset(ofObject: index), noting: false)
        case .decodedOnce:
            noteWalkLeaf(index)
            return try keptScalar(index, at: try lookup.offset(ofObject: index), noting: false)
        case .open, .reopened:
            throw Self.cycleError(index, at: position)
        case .unseen, .builtOnce:
            break
        }
        let start = try lookup.offset(ofObject: index)
        // A container decoded again was counted the first time.
        let again = state == .builtOnce
        if !again {
            try countValues(1, at: start)
            reachedCount &+= 1
        }
        // -1 when the walk does not follow this container: a plain read, or a muted walk.
        var walkIndex = -1
        var mutes = false
        if keepsLayout && !walkMuted {
            recorder.appendWalk(index)
            if again {
                // Met before, so decoded again to be kept, as a plain read does; the walk notes
                // it as a leaf, having followed it the first time.
                walkMuted = true
                mutes = true
            } else {
                walkIndex = recorder.walkCount - 1
            }
        }
        let marker = bytes[start]
        switch marker >> 4 {
        case 0xA, 0xC:
            let (count, refs) = try containerCount(index, marker: marker, at: start)
            if !again { try countValues(count, at: refs) }
            try enterContainer(index, at: refs, again: again)
            frame = Frame(
                index: index, walkIndex: walkIndex, refs: refs, count: count, end: count, base: valueBase, isDictionary: false,
                unmutesWalk: mutes)
            if index == splitTarget { confirmSplit(again: again) }
            return nil
        case 0xD:
            let (count, refs) = try containerCount(index, marker: marker, at: start)
            if !again { try countValues(count, at: refs) }
            try enterContainer(index, at: refs, again: again)
            // Keys first, in file order, so the layout walk matches the file's reference order;
            // they are strings, so decoding them never descends.
            frame = Frame(
                index: index, walkIndex: walkIndex, refs: refs, count: count, end: count, base: valueBase, isDictionary: true,
                unmutesWalk: mutes)
            if index == splitTarget {
                // A split dictionary's halves decode their own keys.
                confirmSplit(again: again)
                if index == splitTarget { return nil }
            }
            if keepsKeys(ofDictionaryWith: count) {
                for i in 0..<count {
                    let keyBytes = try decodeKey(referencedAt: refs + i * trailer.objectRefSize)
                    frame.expanded.bytes = frame.expanded.bytes.saturatingAdd(keyBytes)
                }
            } else {
                values.reserve(2 * count)
                for i in 0..<count {
                    let keyBytes = try decodeUnkeptKey(referencedAt: refs + i * trailer.objectRefSize, onto: &values)
                    frame.expanded.bytes = frame.expanded.bytes.saturatingAdd(keyBytes)
                }
                frame.base = values.count
            }
            return nil
        default:
            return try firstScalar(index, at: start)
        }
    }

    /// Decodes a scalar met for the first time; a string or data object is marked to be kept
    /// when it is met again.
    mutating func firstScalar(_ index: Int, at start: Int) throws(PlistError) -> PlistValue {
        let value = try scalar(index, at: start, noting: true)
        switch value {
        case .string, .data:
            objects.setState(index, .decodedOnce)
            deliveredSize = ExpandedSize(scalar: value)
        default:
            objects.setState(index, .scalar)
            deliveredSize = ExpandedSize()
        }
        return value
    }

    /// Decodes a string or data object (or any scalar) and keeps it.
    @inline(never)
    mutating func keptScalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
        let value = try scalar(index, at: start, noting: noting)
        let size = ExpandedSize(scalar: value)
        objects.cache(index, value, size: size)
        deliveredSize = size
        return value
    }

    /// Decodes a scalar. Integers, most of the objects in a typical file, are read inline;
    /// everything else goes through ``decodeScalar(_:at:noting:)``, which is not inlined.
    /// `noting` is false for an object decoded before, whose encoding is noted already.
    @inline(__always)
    mutating func scalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
        let marker = bytes[start]
        guard marker >> 4 == 0x1 else { return try decodeScalar(index, at: start, noting: noting) }
        if noting { note(index, marker: marker) }
        return .integer(try integer(index, marker: marker, at: start))
    }

    @inline(__always)
    mutating func noteWalkLeaf(_ index: Int) {
        if keepsLayout && !walkMuted { recorder.appendWalk(index) }
    }

    /// Completes a container whose children are all decoded: moves them off the value stack
    /// into the container's value.
    mutating func finish(
        _ frame: Frame, values: inout PlistValueStack, keyClasses: inout BinaryKeyClasses
    ) throws(PlistError) -> PlistValue {
        try checkExpansion(frame.expanded, at: frame.refs)
        let value: PlistValue
        if frame.isDictionary {
            keyClasses.prepare()
            var keys: [String] = []
            keys.reserveCapacity(frame.count)
            // Two loops rather than one with a branch per key, which every dictionary would pay.
            var distinct: Bool
            if !keepsKeys(ofDictionaryWith: frame.count) {
                distinct = stackedKeys(of: frame, values: &values, into: &keys, keyClasses: &keyClasses)
            } else if keyClasses.classifies(count: frame.count, firstKey: frame.count > 0 ? key(0, of: frame) : 0) {
                keyClasses.beginDictionary(count: frame.count)
                distinct = true
                for i in 0..<frame.count {
                    let (key, text) = keyText(i, of: frame)
                    if distinct { distinct = keyClasses.admit(key, text: text) }
                    keys.append(text)
                }
            } else {
                // A large dictionary whose keys no dictionary before it used: the assembler
                // checks them (see `BinaryKeyClasses.classifies(count:firstKey:)`).
                distinct = false
                for i in 0..<frame.count {
                    let (key, text) = keyText(i, of: frame)
                    keyClasses.markUsedUnclassified(key)
                    keys.append(text)
                }
            }
            let dictionary: PlistDictionary
            let repeated: Bool
            if distinct && frame.count > PlistDictionary.linearSearchLimit {
                // The key classes hashed every key text once for the file: the dictionary's table
                // takes those hashes instead of hashing its keys again.
                var hashes: [UInt64] = []
                hashes.reserveCapacity(frame.count)
                for i in 0..<frame.count { hashes.append(keyClasses.hash(ofAdmitted: key(i, of: frame))) }
                dictionary = hashes.withUnsafeBufferPointer {
                    PlistDictionary(
                        uncheckedUniqueKeys: keys, values: values.popArray(from: frame.base), hashes: $0, seed: keyClasses.seed)
                }
                repeated = false
            } else if distinct {
                dictionary = PlistDictionary(uncheckedUniqueKeys: keys, values: values.popArray(from: frame.base))
                repeated = false
            } else {
                // CoreFoundation's binary reader adds only absent keys: the first entry wins. An
                // assembler is made for the few dictionaries that come here (its scratch table is
                // an allocation every read would pay otherwise).
                let entries = values.popArray(from: frame.base)
                (dictionary, repeated) = PlistDictionaryAssembler().assemble(keys: keys, values: entries, keeping: .firstValue)
                if keepsLayout && repeated && frame.walkIndex >= 0 {
                    noteRepeatedKeys(keys: keys, values: entries, walkPosition: frame.walkIndex)
                }
            }
            if !keepsKeys(ofDictionaryWith: frame.count) { values.dropLast(frame.count) }
            value = .dictionary(dictionary)
        } else {
            value = .array(values.popArray(from: frame.base))
        }
        if keepsLayout {
            if frame.walkIndex >= 0 { recorder.closeWalk(at: frame.walkIndex) }
            if frame.unmutesWalk { walkMuted = false }
        }
        depth -= 1
        // A container is kept from its second reference on: most are referenced once, and
        // keeping one costs a retain, a release and a slot. Decoding a container again at its
        // second reference, whose own children are kept by then, costs at most one more decode
        // of each object, so shared references still cost linear time.
        if objects.state(frame.index) == .reopened {
            objects.cache(frame.index, value, size: frame.expanded)
        } else {
            objects.setState(frame.index, .builtOnce)
        }
        deliveredSize = frame.expanded
        return value
    }


    // MARK: - Offsets and references

    @inline(never)
    static func cycleError(_ index: Int, at position: Int) -> PlistError {
        BinaryTrailer.error(.referenceCycle, at: position, "object \(index) contains itself through this reference")
    }

    // MARK: - Objects

    /// The first byte past the object area: no object may extend into the offset table.
    var areaEnd: Int { trailer.offsetTableOffset }

    var area: BinaryObjectArea { BinaryObjectArea(bytes: bytes, trailer: trailer) }

    @inline(__always)
    func note(_ index: Int, marker: UInt8, extendedCount: UInt8? = nil, holdsLatin1: Bool = false) {
        if keepsLayout {
            recorder.note(index, BinaryLayout.EncodingNote(marker: marker, extendedCountMarker: extendedCount, holdsLatin1: holdsLatin1))
        }
    }

    /// Every scalar but integers, which ``scalar(_:at:noting:)`` reads before calling this.
    @inline(never)
    mutating func decodeScalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
        let (object, extendedCountMarker, decoded, holdsLatin1) = try area.scalar(ofObject: index, at: start, naming: .byEncoding)
        // Callers send containers to `begin`'s own cases, never here.
        guard let value = decoded else { preconditionFailure("object \(index) is a container") }
        if noting && keepsLayout {
            if extendedCountMarker == nil && object.byte >> 4 != 0x5 {
                // Most scalars: the note is the marker alone.
                recorder.note(index, BinaryLayout.EncodingNote(marker: object.byte))
            } else {
                // An "ASCII" object holding Latin-1 bytes: the layout records it.
                note(index, marker: object.byte, extendedCount: extendedCountMarker, holdsLatin1: holdsLatin1)
            }
        }
        return value
    }

    /// An integer object (`0x1n`), whose 16-byte form the layout keeps whole.
    @inline(__always)
    mutating func integer(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> PlistInteger {
        let area = self.area
        let width = try area.integerWidth(index, marker: marker, at: start)
        if keepsLayout && width == 16 {
            let high = bytes.loadBigEndianUInt64(at: start + 1)
            if high != 0 { int128HighWords[UInt32(truncatingIfNeeded: index)] = high }
        }
        return area.integer(at: start, width: width)
    }

    /// The element count of a container object and where its references start.
    @inline(never)
    mutating func containerCount(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> (Int, Int) {
        let field = try area.containerCount(index, marker: marker, at: start)
        note(index, marker: marker, extendedCount: field.extendedMarker)
        return (field.count, field.payload)
    }

    @inline(never)
    mutating func enterContainer(_ index: Int, at position: Int, again: Bool) throws(PlistError) {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw BinaryTrailer.error(
                .depthLimit, at: position, limits.message(exceeding: .depth))
        }
        objects.setState(index, again ? .reopened : .open)
    }

    /// Throws when a subtree expands past ``PlistLimits/maxExpandedValues`` or
    /// ``PlistLimits/maxDecodedBytes``; checked as each container completes, so a file of shared
    /// references fails as soon as the expansion it describes passes a limit.
    @inline(__always)
    func checkExpansion(_ size: ExpandedSize, at position: Int) throws(PlistError) {
        if let exceeded = size.exceeded(limits) { throw Self.limitError(exceeded, limits, at: position) }
    }

    @inline(__always)
    mutating func countValues(_ count: Int, at position: Int) throws(PlistError) {
        valueCount += count
        guard valueCount <= limits.maxValues else { throw Self.limitError(.values, limits, at: position) }
    }

    @inline(never)
    static func limitError(_ limit: PlistLimit, _ limits: PlistLimits, at position: Int) -> PlistError {
        BinaryTrailer.error(limit.code, at: position, limits.message(exceeding: limit))
    }
}
