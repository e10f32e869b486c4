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
    private let objects: BinaryObjectSlots
    private var depth = 0
    private var valueCount = 0
    /// The expanded size of the value `begin` or `finish` delivered last.
    private var deliveredSize = ExpandedSize()

    /// Encodings, the reference walk and the keys, when the layout is kept.
    private var recorder: BinaryLayoutRecorder
    /// True while a container met for the second time is decoded again to be kept: the walk
    /// notes it as one leaf and nothing beneath it.
    private var walkMuted = false
    /// How many distinct objects the decode has reached; when it is the object count, the file
    /// has no unreferenced objects to look for.
    private(set) var reachedCount = 0
    private(set) var int128HighWords: [UInt32: UInt64] = [:]
    /// Dictionaries with repeated keys, by walk position.
    private(set) var repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys] = [:]

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
        // the walk; a file's walk is one to three times its object count, and reserved pages
        // that are never written cost no memory, so growing (and copying) is rare.
        let references = (trailer.offsetTableOffset - BinaryTrailer.headerLength) / trailer.objectRefSize
        recorder = BinaryLayoutRecorder(
            objectCount: keepsLayout ? trailer.objectCount : 0,
            expectedWalk: Swift.min(references + 1, 4 * trailer.objectCount))
    }

    /// The encodings, walk and key texts recorded by a successful ``decodeTop()`` that kept
    /// the layout; called once, after ``BinaryOrphanCopies`` has read the notes.
    mutating func layoutNotes() -> (
        encodings: [BinaryLayout.EncodingNote], walkObjects: [UInt32], walkExtents: [UInt32], keyTexts: BinaryLayout.KeyTexts
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
    private struct Frame {
        var index: Int
        var walkIndex: Int
        var refs: Int
        var count: Int
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
    private static let reservedDepth = 1024
    private static let reservedValues = 2048

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
        var ancestors = MovingStack<Frame>(capacity: Swift.min(limits.maxDepth, trailer.objectCount, Self.reservedDepth))
        var values = PlistValueStack(capacity: Swift.min(trailer.objectCount, Self.reservedValues))
        var keyClasses = BinaryKeyClasses(objectCount: trailer.objectCount)
        let lookup = self.lookup
        var current = Frame(index: 0, walkIndex: 0, refs: 0, count: 0, base: 0, isDictionary: false)
        if let value = try begin(trailer.topObject, referencedAt: trailer.offsetTableOffset, values: &values, opening: &current) {
            try checkExpansion(deliveredSize, at: trailer.offsetTableOffset)
            return value
        }
        var opened = current
        values.reserve(current.count)
        while true {
            let next = current.next
            if next < current.count {
                let slot = current.isDictionary ? current.count + next : next
                let position = current.refs + slot * lookup.objectRefSize
                current.next = next + 1
                let child = try lookup.reference(at: position)
                if let value = try begin(child, referencedAt: position, values: &values, opening: &opened) {
                    current.expanded.add(deliveredSize)
                    values.push(value)
                } else {
                    ancestors.push(current)
                    current = opened
                    values.reserve(current.count)
                }
            } else {
                let value = try finish(current, values: &values, keyClasses: &keyClasses)
                guard ancestors.count > 0 else {
                    try checkExpansion(deliveredSize, at: trailer.offsetTableOffset)
                    return value
                }
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
    private mutating func begin(
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
            frame = Frame(index: index, walkIndex: walkIndex, refs: refs, count: count, base: valueBase, isDictionary: false, unmutesWalk: mutes)
            return nil
        case 0xD:
            let (count, refs) = try containerCount(index, marker: marker, at: start)
            if !again { try countValues(count, at: refs) }
            try enterContainer(index, at: refs, again: again)
            // Keys first, in file order, so the layout walk matches the file's reference order;
            // they are strings, so decoding them never descends.
            frame = Frame(index: index, walkIndex: walkIndex, refs: refs, count: count, base: valueBase, isDictionary: true, unmutesWalk: mutes)
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
    private mutating func firstScalar(_ index: Int, at start: Int) throws(PlistError) -> PlistValue {
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
    private mutating func keptScalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
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
    private mutating func scalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
        let marker = bytes[start]
        guard marker >> 4 == 0x1 else { return try decodeScalar(index, at: start, noting: noting) }
        if noting { note(index, marker: marker) }
        return .integer(try integer(index, marker: marker, at: start))
    }

    @inline(__always)
    private mutating func noteWalkLeaf(_ index: Int) {
        if keepsLayout && !walkMuted { recorder.appendWalk(index) }
    }

    /// Completes a container whose children are all decoded: moves them off the value stack
    /// into the container's value.
    private mutating func finish(
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

    /// Whether the key objects of a dictionary of `count` entries are kept in their slots at
    /// their first use (see ``decodeUnkeptKey(referencedAt:onto:)``).
    @inline(__always)
    private func keepsKeys(ofDictionaryWith count: Int) -> Bool {
        count <= BinaryKeyClasses.largestAlwaysClassified
    }

    /// Moves the keys of the dictionary `frame` describes, whose key objects are not kept, from
    /// below its values on the value stack into `keys`, leaving their places empty for the
    /// caller to drop once the values are taken; returns whether the key classes prove the keys
    /// distinct. A lossless read notes the texts of keys it has not noted yet, as their objects
    /// are not kept.
    @inline(never)
    private mutating func stackedKeys(
        of frame: Frame, values: inout PlistValueStack, into keys: inout [String], keyClasses: inout BinaryKeyClasses
    ) -> Bool {
        let keyBase = frame.base - frame.count
        for i in 0..<frame.count {
            guard case .string(let text) = values.take(at: keyBase + i) else { preconditionFailure("a dictionary key that is not a string") }
            keys.append(text)
        }
        if keepsLayout {
            for i in 0..<frame.count {
                let object = key(i, of: frame)
                if !recorder.isKey(object) { recorder.noteKey(object, text: keys[i]) }
            }
        }
        guard keyClasses.classifies(count: frame.count, firstKey: frame.count > 0 ? key(0, of: frame) : 0) else {
            for i in 0..<frame.count { keyClasses.markUsedUnclassified(key(i, of: frame)) }
            return false
        }
        keyClasses.beginDictionary(count: frame.count)
        for i in 0..<frame.count where !keyClasses.admit(key(i, of: frame), text: keys[i]) { return false }
        return true
    }

    /// The object number of the `i`th key of the dictionary `frame` describes.
    @inline(__always)
    private func key(_ i: Int, of frame: Frame) -> Int {
        Int(bytes.loadBigEndian(at: frame.refs + i * trailer.objectRefSize, width: trailer.objectRefSize))
    }

    /// The `i`th key of the dictionary `frame` describes, with its text.
    @inline(__always)
    private func keyText(_ i: Int, of frame: Frame) -> (key: Int, text: String) {
        let key = key(i, of: frame)
        // `decodeKey` has proven every key object a cached string when the frame opened.
        guard case .string(let text) = objects.value(key) else { preconditionFailure("key object \(key) is not a decoded string") }
        return (key, text)
    }

    // MARK: - Offsets and references

    @inline(never)
    private static func cycleError(_ index: Int, at position: Int) -> PlistError {
        BinaryTrailer.error(.referenceCycle, at: position, "object \(index) contains itself through this reference")
    }

    // MARK: - Objects

    /// The first byte past the object area: no object may extend into the offset table.
    private var areaEnd: Int { trailer.offsetTableOffset }

    private var area: BinaryObjectArea { BinaryObjectArea(bytes: bytes, trailer: trailer) }

    @inline(__always)
    private func note(_ index: Int, marker: UInt8, extendedCount: UInt8? = nil, holdsLatin1: Bool = false) {
        if keepsLayout {
            recorder.note(index, BinaryLayout.EncodingNote(marker: marker, extendedCountMarker: extendedCount, holdsLatin1: holdsLatin1))
        }
    }

    /// Every scalar but integers, which ``scalar(_:at:noting:)`` reads before calling this.
    @inline(never)
    private mutating func decodeScalar(_ index: Int, at start: Int, noting: Bool) throws(PlistError) -> PlistValue {
        let (object, extendedCountMarker, decoded) = try area.scalar(ofObject: index, at: start, naming: .byEncoding)
        // Callers send containers to `begin`'s own cases, never here.
        guard let value = decoded else { preconditionFailure("object \(index) is a container") }
        if noting && keepsLayout {
            if extendedCountMarker == nil && object.byte >> 4 != 0x5 {
                // Most scalars: the note is the marker alone.
                recorder.note(index, BinaryLayout.EncodingNote(marker: object.byte))
            } else {
                // An "ASCII" object holding Latin-1 bytes, each two bytes of UTF-8: the layout records it.
                var holdsLatin1 = false
                if object.byte >> 4 == 0x5, case .string(let text) = value, text.utf8.count != object.count { holdsLatin1 = true }
                note(index, marker: object.byte, extendedCount: extendedCountMarker, holdsLatin1: holdsLatin1)
            }
        }
        return value
    }

    /// An integer object (`0x1n`), whose 16-byte form the layout keeps whole.
    @inline(__always)
    private mutating func integer(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> PlistInteger {
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
    private mutating func containerCount(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> (Int, Int) {
        let field = try area.containerCount(index, marker: marker, at: start)
        note(index, marker: marker, extendedCount: field.extendedMarker)
        return (field.count, field.payload)
    }

    @inline(never)
    private mutating func enterContainer(_ index: Int, at position: Int, again: Bool) throws(PlistError) {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw BinaryTrailer.error(
                .depthLimit, at: position, limits.message(exceeding: .depth))
        }
        objects.setState(index, again ? .reopened : .open)
    }

    /// Records the file's key order and the values a repeated key hid, so the writer can bring
    /// them back: `keys` and `values` are the dictionary's entries in file order.
    @inline(never)
    private mutating func noteRepeatedKeys(keys: [String], values: [PlistValue], walkPosition: Int) {
        var firstOccurrence: [String: Int] = [:]
        for (i, key) in keys.enumerated() where firstOccurrence[key] == nil { firstOccurrence[key] = i }
        var hidden: [Int: PlistValue] = [:]
        for (i, key) in keys.enumerated() where firstOccurrence[key] != i { hidden[i] = values[i] }
        repeatedKeys[UInt32(truncatingIfNeeded: walkPosition)] = BinaryLayout.RepeatedKeys(keys: keys, hiddenValues: hidden)
    }

    /// Decodes the key the reference at `position` names, refusing anything but a string before
    /// decoding it, so a container used as a key is never descended into. Returns the key's
    /// length in UTF-8 bytes, which counts toward the dictionary's expanded size.
    @inline(never)
    private mutating func decodeKey(referencedAt position: Int) throws(PlistError) -> Int {
        let key = try lookup.reference(at: position)
        let state = objects.state(key)
        guard state == .cached else {
            // Only an unseen object, or a string met before as a value (`decodedOnce`, counted
            // then), can be a string here; the others fail the check.
            let keyStart = try lookup.offset(ofObject: key)
            try area.requireStringKey(key, at: keyStart, referencedAt: position)
            if state != .decodedOnce {
                try countValues(1, at: keyStart)
                reachedCount &+= 1
            }
            noteWalkLeaf(key)
            guard case .string(let text) = try keptScalar(key, at: keyStart, noting: state != .decodedOnce) else {
                throw BinaryObjectArea.notAStringKey(key, referencedAt: position)
            }
            // A string met as a large dictionary's key (`decodedOnce` too) was noted then.
            if keepsLayout && !recorder.isKey(key) { recorder.noteKey(key, text: text) }
            return text.utf8.count
        }
        // A key met before: its length is in its slot's size, so the cached string is only
        // looked at, not copied (a retain and a release per entry otherwise).
        noteWalkLeaf(key)
        guard objects.isCachedString(key) else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
        if keepsLayout && !recorder.isKey(key) { noteCachedKey(key) }
        return objects.size(key).bytes
    }

    /// Notes the text of `key`, a cached string first used as a key now (it was kept as a value).
    @inline(never)
    private mutating func noteCachedKey(_ key: Int) {
        guard case .string(let text) = objects.value(key) else { preconditionFailure("key object \(key) is not a kept string") }
        recorder.noteKey(key, text: text)
    }

    /// Decodes a key as ``decodeKey(referencedAt:)`` does, for a dictionary of more than
    /// ``BinaryKeyClasses/largestAlwaysClassified`` entries, and pushes its text
    /// on `values`, below the dictionary's values. The key object is kept from its second use on,
    /// as a value string is: the keys of a dictionary of thousands are mostly its own, used once,
    /// and keeping each cost a retain, a release and a slot.
    @inline(never)
    private mutating func decodeUnkeptKey(referencedAt position: Int, onto values: inout PlistValueStack) throws(PlistError) -> Int {
        let key = try lookup.reference(at: position)
        noteWalkLeaf(key)
        let state = objects.state(key)
        if state == .cached {
            guard objects.isCachedString(key) else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
            values.push(objects.value(key))
            return objects.size(key).bytes
        }
        let keyStart = try lookup.offset(ofObject: key)
        try area.requireStringKey(key, at: keyStart, referencedAt: position)
        let decoded: PlistValue
        if state == .decodedOnce {
            decoded = try keptScalar(key, at: keyStart, noting: false)
        } else {
            try countValues(1, at: keyStart)
            reachedCount &+= 1
            decoded = try scalar(key, at: keyStart, noting: true)
            objects.setState(key, .decodedOnce)
        }
        guard case .string(let text) = decoded else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
        values.push(decoded)
        return text.utf8.count
    }

    /// Throws when a subtree expands past ``PlistLimits/maxExpandedValues`` or
    /// ``PlistLimits/maxDecodedBytes``; checked as each container completes, so a file of shared
    /// references fails as soon as the expansion it describes passes a limit.
    @inline(__always)
    private func checkExpansion(_ size: ExpandedSize, at position: Int) throws(PlistError) {
        if let exceeded = size.exceeded(limits) { throw Self.limitError(exceeded, limits, at: position) }
    }

    @inline(__always)
    private mutating func countValues(_ count: Int, at position: Int) throws(PlistError) {
        valueCount += count
        guard valueCount <= limits.maxValues else { throw Self.limitError(.values, limits, at: position) }
    }

    @inline(never)
    private static func limitError(_ limit: PlistLimit, _ limits: PlistLimits, at position: Int) -> PlistError {
        BinaryTrailer.error(limit.code, at: position, limits.message(exceeding: limit))
    }
}
