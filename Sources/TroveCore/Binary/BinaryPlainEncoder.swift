import Foundation

/// Writes a value that has no layout notes, as CoreFoundation's writer does, in one walk over the
/// value and one pass over a compact list of its objects, without the planner's notes matching.
///
/// CoreFoundation's flatten order is a depth-first pre-order walk in which a dictionary is followed
/// by all its keys and then by each value's subtree. Numbering objects in that walk gives every node
/// its object number at the moment it is visited, so a container's references are filled in one by
/// one as its children are visited:
/// 1. ``number(_:)`` walks the value, lists every object and records the references in one flat
///    array, reserved when the container is visited. A scalar is encoded the moment it is met,
///    into `scalarBytes`, and uniqued by those bytes: a repeat takes the bytes back and names the
///    first object. The value is not looked at again.
/// 2. ``emit()`` knows the exact size of the file, so it writes every object, its offset and the
///    trailer straight into their places: the scalars between two containers in one copy, each
///    container's marker and references.
/// Booleans and UIDs are listed once per occurrence, as CoreFoundation appends them, while every
/// reference names the first.
///
/// Uniquing by encoded bytes is uniquing by exact value: without notes, the encoding of a scalar
/// is a function of its kind and its bits or code units (strings are ASCII or else UTF-16, whose
/// units are a function of the scalars), and two different scalars never encode alike, since the
/// marker byte tells the kinds and widths apart. Candidates are compared by length and bytes.
/// The fast hash is taken differently by kind (a short encoding's two words, a string's UTF-8,
/// anything else's encoding), which is sound because equal encodings are always of one kind.
///
/// The planner (``BinaryObjectPlanner``), which follows a document's layout notes, writes the
/// same bytes for a value without notes (tests compare the two); besides the objects it keeps
/// each noted object's claim and the notes' walk positions, which a write without notes does not
/// need. Both encode scalars through `appendBinaryScalar` and unique them by encoding through
/// ``ScalarUniquingTable``.
///
/// Invariants: `objects[n]` describes object `n`; a container's references are
/// `references[first ..< first + count]` (a dictionary's keys, then its values); a scalar's bytes
/// are `scalarBytes[first ..< first + count]`, and the scalars' bytes follow one another in object
/// order with nothing between them. `objects.count` never exceeds `UInt32.max` (``newObject(_:)``
/// refuses more), so every reference fits a `UInt32` and every object number a uniquing slot.
struct BinaryPlainEncoder: ~Copyable {
    /// One object of the output, in sixteen bytes.
    struct Object {
        /// A container's first reference in `references`, a scalar's first byte in
        /// `scalarBytes`, or a large data object's payload in `largeData`.
        var first: Int
        /// The kind in the low two bits; above them a container's reference count (twice its
        /// entries for a dictionary) or the length of a scalar's or large data object's encoding.
        private var packed: Int

        static let scalar = 0, array = 1, dictionary = 2, largeData = 3

        init(kind: Int, first: Int, count: Int) {
            self.first = first
            packed = count << 2 | kind
        }

        var kind: Int { packed & 3 }
        var count: Int { packed >> 2 }
    }

    private let maxDepth: Int
    private var meter: LimitMeter
    private(set) var objects = MovingStack<Object>(capacity: 256)
    /// The references of every container, in visit order.
    private(set) var references = MovingStack<UInt32>(capacity: 256)
    /// The encodings of the scalar objects, in object order.
    var scalarBytes = ByteBuffer(capacity: 1024)
    /// The bytes the containers' markers (type and count) take, for the exact size of the file.
    private(set) var containerMarkerBytes = 0
    /// Data objects of ``BinaryLargeDataTable/minimumCount`` bytes or more, which are copied from
    /// the values straight into the output rather than through `scalarBytes`; nil until the first
    /// (most documents have no large payload, and a small one's write would pay for an empty table).
    private(set) var largeData: BinaryLargeDataTable?
    /// Object numbers of the distinct scalars, keyed by their encodings.
    var uniqued: ScalarUniquingTable
    /// The objects of strings met recently, by representation (see ``stringObject(_:hash:text:)``).
    var recentStrings = BinaryRecentObjects(initialBits: 5, bits: 9)
    /// The objects of short scalars met recently, by encoding (see ``shortScalarObject(_:)``).
    private var recentScalars = BinaryRecentObjects(initialBits: 4, bits: 8)
    /// The encodings and hashes of the children ``prefetchUniquing(of:index:)`` looked at.
    private var lookedAhead = BinaryShortScalarLookahead()
    /// Whether small strings' words can be read as text (``StringRepresentation/smallASCII``).
    let readsSmallASCII = StringRepresentation.readsSmallASCII
    /// Whether large strings' bytes can be found from their words
    /// (``StringRepresentation/tailAllocatedUTF8``).
    let readsTailAllocatedUTF8 = StringRepresentation.readsTailAllocatedUTF8

    /// The distinct scalars the uniquing table holds before it first grows.
    static let initialScalars = 64

    /// An encoder for `value` (see ``encode(_:)``).
    init(limits: PlistLimits, for value: PlistValue) {
        maxDepth = limits.maxDepth
        meter = LimitMeter(limits: limits)
        // A table sized for the root's own children: doubling from 16 rehashed a 200,000-key
        // dictionary's scalars fifteen times, 5% of its write. Capped, because a large array of
        // one repeated value would otherwise reserve a table it never fills. Never below 64
        // scalars (a kilobyte of buckets): a small document then fills it without a rebuild,
        // each of which cost as much as setting up the table.
        let rootChildren = min(value.arrayValue?.count ?? 2 * (value.dictionaryValue?.count ?? 0), 1 << 20)
        uniqued = ScalarUniquingTable(minimumCapacity: max(rootChildren, Self.initialScalars))
    }

    /// Writes `value`, the one the encoder was made for, as a complete `bplist00` document.
    consuming func encode(_ value: PlistValue) throws(PlistError) -> ByteBuffer {
        try number(value)
        return emit()
    }

    // MARK: - Numbering

    /// A container whose children are being visited: an array's elements or a dictionary's values
    /// (its keys are visited with the dictionary itself).
    ///
    /// The children are read in place, through a pointer into the container's storage, so that
    /// visiting one neither retains nor releases it: the value being written is borrowed for the
    /// whole walk and never changes, so every array in it stays where it is (see ``number(_:)``).
    private struct Frame {
        var children: UnsafePointer<PlistValue>
        var count: Int
        var next = 0
        /// Where the references to `children` start in `references`.
        var firstReference: Int
        /// Whether the children's uniquing buckets are touched ahead of time.
        var prefetching: Bool
        /// Counts taken before a child, from which ``reserveForSiblings(in:)`` tells what the
        /// siblings after it will need: the objects listed before the first child, then the
        /// distinct scalars before the second, with their bytes in `sampleBytesMark` (negative
        /// until the first child has been sampled).
        var sampleMark: Int
        var sampleBytesMark = -1
    }

    /// How many keys ahead ``numberKeysLookingAhead(_:referencesAt:)`` touches the uniquing
    /// table: enough to cover a cache miss with the work of the keys in between.
    static let lookahead = 6

    /// The fewest children for which a container's first two are taken as a sample of the rest
    /// (see ``reserveForSiblings(in:)``).
    private static let sampledChildren = 16

    /// Numbers the objects, lists them and records the references.
    ///
    /// `top` is borrowed for the call, which keeps every container in it alive and unchanged, so
    /// the frames' pointers into their arrays stay valid until the walk ends. The innermost
    /// container's frame is a local and only its suspended ancestors are on the stack.
    private mutating func number(_ top: PlistValue) throws(PlistError) {
        let visited = try withUnsafePointer(to: top) { (top) throws(PlistError) in try visit(top, depth: 0) }
        guard var frame = visited.children else { return }
        var stack = MovingStack<Frame>(capacity: 16)
        while true {
            let i = frame.next
            guard i < frame.count else {
                guard stack.count > 0 else { return }
                frame = stack.popLast()
                // Back from a container child: sampled if it was the first or second child.
                if UInt(bitPattern: frame.next &- 1) < 2 && frame.count >= Self.sampledChildren { reserveForSiblings(in: &frame) }
                continue
            }
            frame.next = i + 1
            if frame.prefetching {
                if i + Self.lookahead < frame.count {
                    prefetchUniquing(of: frame.children + i + Self.lookahead, index: i + Self.lookahead)
                }
                if let ahead = lookedAhead.entry(of: frame.children + i, index: i) {
                    references.store(try uniquedShortScalarObject(ahead.pointee.encoding, hash: ahead.pointee.hash), at: frame.firstReference &+ i)
                    continue
                }
            }
            // The frames suspended on the stack are this container's ancestors.
            let (object, children) = try visit(frame.children + i, depth: stack.count &+ 1)
            // Within the run reserved when the container was visited.
            references.store(object, at: frame.firstReference &+ i)
            if let children {
                stack.push(frame)
                frame = children
            }
        }
    }

    /// The first element of a non-empty array, which stays where it is while the array is
    /// neither changed nor freed: the arrays of the value ``number(_:)`` walks.
    @inline(__always)
    private static func storage<Element>(of array: [Element]) -> UnsafePointer<Element> {
        // Never nil: only non-empty arrays are walked.
        array.withUnsafeBufferPointer { $0.baseAddress! }
    }

    /// What numbering a node needs of it, taken out of the value where it lies and holding no
    /// reference: reading the node whole would copy it (a retain and a release), since the
    /// encoder's own writes could, for all the compiler knows, change the memory it lies in.
    private enum Node {
        case array(elements: UnsafePointer<PlistValue>?, count: Int)
        case dictionary(keys: UnsafePointer<String>?, values: UnsafePointer<PlistValue>?, count: Int)
        case string(StringRepresentation)
        case short(BinaryShortEncoding)
        /// Data, and integers above `Int64.max`, which are read from the value again.
        case other

        @inline(__always)
        init(_ value: UnsafePointer<PlistValue>) {
            switch value.pointee {
            case .array(let elements):
                self = .array(elements: elements.isEmpty ? nil : storage(of: elements), count: elements.count)
            case .dictionary(let entries):
                self = entries.isEmpty
                    ? .dictionary(keys: nil, values: nil, count: 0)
                    : .dictionary(keys: storage(of: entries.keys), values: storage(of: entries.values), count: entries.count)
            case .string(let string):
                self = .string(StringRepresentation(string))
            case .data:
                self = .other
            default:
                if let encoding = BinaryShortEncoding(value.pointee) { self = .short(encoding) } else { self = .other }
            }
        }
    }

    /// Numbers the node at `value` and, for a container, its keys and leading scalar children;
    /// returns the object number references to the node name and, for a container with children
    /// left to number, their frame.
    @inline(__always)
    private mutating func visit(_ value: UnsafePointer<PlistValue>, depth: Int) throws(PlistError) -> (object: UInt32, children: Frame?) {
        let node = Node(value)
        switch node {
        case .array(let elements, let count):
            let first = references.count
            let object = try newObject(Object(kind: Object.array, first: first, count: count))
            try enter(depth: depth, holding: count)
            containerMarkerBytes += Self.markerSize(count: count)
            guard let elements else { return (object, nil) }
            references.pushUnfilled(count: count)
            let prefetching = count >= 64 && uniqued.isLarge
            if prefetching { lookedAhead.prepare() }
            let next = count < Self.sampledChildren ? try numberLeadingScalars(elements, count: count, referencesAt: first) : 0
            guard next < count else { return (object, nil) }
            return (object, Frame(
                children: elements, count: count, next: next, firstReference: first, prefetching: prefetching,
                sampleMark: objects.count))
        case .dictionary(let keys, let values, let count):
            let first = references.count
            let object = try newObject(Object(kind: Object.dictionary, first: first, count: 2 * count))
            try enter(depth: depth, holding: count)
            containerMarkerBytes += Self.markerSize(count: count)
            guard let keys, let values else { return (object, nil) }
            references.pushUnfilled(count: 2 * count)
            // A dictionary's keys are distinct, and mostly new objects when there are many.
            if count >= Self.sampledChildren {
                uniqued.reserve(capacity: uniqued.count + count)
                objects.reserve(count)
            }
            let prefetching = count >= 64 && uniqued.isLarge
            if prefetching {
                lookedAhead.prepare()
                try numberKeysLookingAhead(UnsafeBufferPointer(start: keys, count: count), referencesAt: first)
            } else {
                for i in 0..<count {
                    references.store(try stringObject(UnsafeRawPointer(keys + i).load(as: StringRepresentation.self)) { keys[i] }, at: first &+ i)
                }
            }
            let next = count < Self.sampledChildren ? try numberLeadingScalars(values, count: count, referencesAt: first &+ count) : 0
            guard next < count else { return (object, nil) }
            return (object, Frame(
                children: values, count: count, next: next, firstReference: first &+ count, prefetching: prefetching,
                sampleMark: objects.count))
        case .string, .short, .other:
            return (try scalarObject(value, node), nil)
        }
    }

    /// Numbers the children of a small container up to its first container child, as the walk
    /// would number them one by one, and returns that child's index (`count` when there is
    /// none): a container of scalars, the leaves of most documents, then needs no frame.
    /// Larger containers are left to the walk, which samples and looks ahead in them.
    @inline(__always)
    private mutating func numberLeadingScalars(
        _ children: UnsafePointer<PlistValue>, count: Int, referencesAt first: Int
    ) throws(PlistError) -> Int {
        if _slowPath(uniqued.isHuge) { return try numberLeadingScalarsLookingAhead(children, count: count, referencesAt: first) }
        var i = 0
        while i < count {
            let child = children + i
            guard !child.pointee.isContainer else { break }
            references.store(try scalarObject(child, Node(child)), at: first &+ i)
            i &+= 1
        }
        return i
    }

    /// ``numberLeadingScalars(_:count:referencesAt:)`` for a table past the last-level cache,
    /// where the probe of each new number is a miss to memory: the numbers' buckets are touched
    /// before the first probe, as a large container's are a few children ahead (see
    /// ``prefetchUniquing(of:index:)``), so that the container's misses overlap instead of
    /// following one another.
    @inline(never)
    private mutating func numberLeadingScalarsLookingAhead(
        _ children: UnsafePointer<PlistValue>, count: Int, referencesAt first: Int
    ) throws(PlistError) -> Int {
        lookedAhead.prepare()
        let distance = Swift.min(count, BinaryShortScalarLookahead.capacity - 1)
        for j in 0..<distance { prefetchUniquing(of: children + j, index: j) }
        var i = 0
        while i < count {
            let child = children + i
            guard !child.pointee.isContainer else { break }
            if let ahead = lookedAhead.entry(of: child, index: i) {
                references.store(try uniquedShortScalarObject(ahead.pointee.encoding, hash: ahead.pointee.hash), at: first &+ i)
            } else {
                references.store(try scalarObject(child, Node(child)), at: first &+ i)
            }
            if i &+ distance < count { prefetchUniquing(of: children + i + distance, index: i + distance) }
            i &+= 1
        }
        return i
    }

    /// The object of the scalar at `value`, whose node is `node` (not a container).
    @inline(__always)
    private mutating func scalarObject(_ value: UnsafePointer<PlistValue>, _ node: Node) throws(PlistError) -> UInt32 {
        switch node {
        case .string(let representation):
            return try stringObject(representation) {
                guard case .string(let string) = value.pointee else { preconditionFailure("a string node holds a string") }
                return string
            }
        case .short(let encoding):
            return try shortScalarObject(encoding)
        case .other:
            return try otherScalarObject(value.pointee)
        case .array, .dictionary:
            preconditionFailure("containers are numbered by visit(_:depth:)")
        }
    }

    /// The object of data, or of an integer above `Int64.max`: out of line, so that the walk,
    /// which inlines the other kinds' common cases, stays small.
    @inline(never)
    private mutating func otherScalarObject(_ scalar: PlistValue) throws(PlistError) -> UInt32 {
        if case .data(let payload) = scalar, payload.count >= BinaryLargeDataTable.minimumCount {
            return try largeDataObject(payload)
        }
        return try encodedScalarObject(scalar)
    }

    /// Touches the uniquing bucket of a number or date a few children ahead in a large container
    /// while the table is past the nearer caches: its probe is a cache miss as soon as most of
    /// them are distinct, as in long series of measurements. The encoding and hash are kept for
    /// the child's turn (see ``BinaryShortScalarLookahead``). Booleans and null are few and their
    /// buckets stay cached; strings would be hashed twice, which cost more than the touch saved.
    ///
    /// Mutating only so that the encoder is passed by reference: as a borrowing method it was
    /// called on a copy of the whole encoder, a `memcpy` per child.
    @inline(__always)
    private mutating func prefetchUniquing(of value: UnsafePointer<PlistValue>, index: Int) {
        if case .short(let encoding) = Node(value), encoding.length > 1 {
            let hash = encoding.hash(seed: uniqued.seed)
            uniqued.prefetch(hash: hash)
            lookedAhead.remember(encoding, hash: hash, of: value, index: index)
        }
    }

    /// Makes room for the siblings still to come in a container of many children whose first
    /// child (and then second) was a container just finished, taking them as a sample: the
    /// first child's objects and references for each sibling after it (every occurrence is
    /// listed), then the second's new distinct scalars and their bytes (the first child's are
    /// mostly keys and values the others repeat). The lists and the uniquing table then grow
    /// once per large container instead of at every doubling, which copied the lists and
    /// rehashed the table about once over (a tenth of writing a series of 300,000 numbers).
    /// Children that are scalars are not sampled: they add one object each at most. A sample
    /// that overstates the rest reserves room that stays unused; each reservation is capped so
    /// that this stays bounded.
    @inline(never)
    private mutating func reserveForSiblings(in frame: inout Frame) {
        let siblings = frame.count - frame.next
        if frame.next == 1 {
            objects.reserve(Self.extrapolated(objects.count - frame.sampleMark, times: siblings, cap: 1 << 20))
            // The container's own references end where its first child's begin.
            let referencesBefore = frame.firstReference + frame.count
            references.reserve(Self.extrapolated(references.count - referencesBefore, times: siblings, cap: 1 << 20))
            frame.sampleMark = uniqued.count
            frame.sampleBytesMark = scalarBytes.count
        } else if frame.sampleBytesMark >= 0 {
            // Only a sample promising many doublings is acted on: one or two cost about what a
            // reservation does, and the second child's new scalars may be ones the rest repeat.
            let newScalars = Self.extrapolated(uniqued.count - frame.sampleMark, times: siblings, cap: 1 << 20)
            if newScalars > 4 * uniqued.count { uniqued.reserve(capacity: uniqued.count + newScalars) }
            scalarBytes.reserve(Self.extrapolated(scalarBytes.count - frame.sampleBytesMark, times: siblings, cap: 1 << 24))
        }
    }

    /// `perChild` times `siblings`, but no more than `cap` or `siblings`, whichever is larger.
    private static func extrapolated(_ perChild: Int, times siblings: Int, cap: Int) -> Int {
        let limit = max(cap, siblings)
        return perChild > limit / max(siblings, 1) ? limit : perChild * siblings
    }

    /// The object of a scalar with a short encoding: first asked of the recent scalars, where a
    /// number repeated across records (a version, a flag, a small count) is found by its two
    /// words. Once the uniquing table holds many scalars, most scalars are distinct and the
    /// recent ones would nearly always miss, so only the table is asked.
    ///
    /// Only a repeat that adds no object is answered here, in the walk itself; everything else
    /// goes to ``listedShortScalarObject(_:)``, whose table lookup would make the walk's own
    /// frame larger and the common case slower.
    @inline(__always)
    private mutating func shortScalarObject(_ encoding: BinaryShortEncoding) throws(PlistError) -> UInt32 {
        if !uniqued.holdsMany && !encoding.listsRepeats {
            // Equal words are an equal encoding: a repeat takes the object the table gave the first.
            let slot = recentScalars.slot(encoding.low, encoding.high)
            if let object = recentScalars.object(at: slot, encoding.low, encoding.high) { return object }
        }
        return try listedShortScalarObject(encoding)
    }

    /// ``shortScalarObject(_:)`` for a scalar that is new, or a repeat that is listed again.
    @inline(never)
    private mutating func listedShortScalarObject(_ encoding: BinaryShortEncoding) throws(PlistError) -> UInt32 {
        guard !uniqued.holdsMany else { return try uniquedShortScalarObject(encoding) }
        let slot = recentScalars.slot(encoding.low, encoding.high)
        if let object = recentScalars.object(at: slot, encoding.low, encoding.high) {
            // Only booleans and UIDs come here: every occurrence is an object of its own.
            let start = scalarBytes.count
            scalarBytes.append(encoding.low, encoding.high, count: encoding.length)
            _ = try newObject(Object(kind: Object.scalar, first: start, count: encoding.length))
            return object
        }
        let object = try uniquedShortScalarObject(encoding)
        recentScalars.remember(object, at: slot, encoding.low, encoding.high)
        return object
    }

    /// The object of a scalar with a short encoding, from the uniquing table.
    @inline(__always)
    private mutating func uniquedShortScalarObject(_ encoding: BinaryShortEncoding) throws(PlistError) -> UInt32 {
        let start = scalarBytes.count
        scalarBytes.append(encoding.low, encoding.high, count: encoding.length)
        return try uniquedObject(
            encodedFrom: start, listingRepeats: encoding.listsRepeats, fastHash: { seed, _ in encoding.hash(seed: seed) })
    }

    /// The object of a scalar with a short encoding whose fast hash was taken ahead of time,
    /// from the uniquing table.
    private mutating func uniquedShortScalarObject(_ encoding: BinaryShortEncoding, hash: Int) throws(PlistError) -> UInt32 {
        let start = scalarBytes.count
        scalarBytes.append(encoding.low, encoding.high, count: encoding.length)
        return try uniquedObject(encodedFrom: start, listingRepeats: encoding.listsRepeats, fastHash: { _, _ in hash })
    }

    /// The object of a string or data value, or of an integer too large for a short encoding:
    /// written with the shared object encoding, hashed from its bytes.
    @inline(__always)
    private mutating func encodedScalarObject(_ value: PlistValue) throws(PlistError) -> UInt32 {
        let start = scalarBytes.count
        scalarBytes.appendBinaryScalar(value, note: nil, int128HighWord: { 0 })
        return try uniquedObject(encodedFrom: start) { seed, encoding in
            ScalarUniquingTable.fastHash(encoding: encoding, seed: seed)
        }
    }

    /// The object of a large data value: listed with its payload left where it is (see
    /// ``BinaryLargeDataTable``).
    private mutating func largeDataObject(_ payload: Data) throws(PlistError) -> UInt32 {
        var largeData = self.largeData.take() ?? BinaryLargeDataTable()
        defer { self.largeData = largeData }
        switch largeData.lookup(payload) {
        case .found(let object):
            return object
        case .absent(let insertion):
            let object = try newObject(Object(
                kind: Object.largeData, first: largeData.payloads.count,
                count: BinaryLargeDataTable.encodedLength(of: payload)))
            largeData.insert(payload, object: object, at: insertion)
            return object
        }
    }

    /// The object of the scalar just encoded at `scalarBytes[start...]`: the one an identical
    /// scalar already has, or a new one. A repeat's bytes are taken back, except for booleans and
    /// UIDs (`listingRepeats`), which CoreFoundation appends as objects of their own at every
    /// occurrence, while every reference names the first.
    ///
    /// `fastHash` hashes the encoding (given with the table's seed). Every
    /// kind of scalar is always hashed the same way, and two scalars of different kinds never
    /// encode alike, so equal encodings always have equal hashes. Under the `Hasher` hash every
    /// encoding is read from its bytes.
    @inline(__always)
    mutating func uniquedObject(
        encodedFrom start: Int, listingRepeats: Bool = false, fastHash: (UInt64, UnsafeRawBufferPointer) -> Int
    ) throws(PlistError) -> UInt32 {
        let length = scalarBytes.count - start
        let lookup = scalarBytes.withUnsafeBufferPointer { buffer in
            // Never nil: the scalar was just written.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return uniqued.lookup(
                encoding: UnsafeRawBufferPointer(start: base + start, count: length), in: base, fastHash: fastHash,
                encodingOf: { slot in (objects[slot].first, objects[slot].count) })
        }
        switch lookup {
        case .found(let slot):
            if listingRepeats {
                _ = try newObject(Object(kind: Object.scalar, first: start, count: length))
            } else {
                scalarBytes.truncate(to: start)
            }
            return UInt32(truncatingIfNeeded: slot)
        case .absent(let insertion):
            let object = try newObject(Object(kind: Object.scalar, first: start, count: length))
            uniqued.insert(Int(object), at: insertion)
            return object
        }
    }

    @inline(__always)
    private mutating func newObject(_ object: Object) throws(PlistError) -> UInt32 {
        guard objects.count < Int(UInt32.max) else {
            throw PlistError(
                .sizeLimit, format: .binary,
                "more than \(UInt32.max) objects; the value is too large for one binary plist")
        }
        objects.push(object)
        return UInt32(truncatingIfNeeded: objects.count - 1)
    }

    /// Checks the nesting of a new container and counts its elements (and the top value itself)
    /// against the limits, as the planner does.
    @inline(__always)
    private mutating func enter(depth: Int, holding elements: Int) throws(PlistError) {
        guard depth < maxDepth else {
            throw PlistError(
                .depthLimit, format: .binary,
                "more than \(maxDepth) levels of nesting (PlistLimits.maxDepth); Apple's readers would refuse the file")
        }
        if let exceeded = meter.countValues(objects.count == 1 ? elements + 1 : elements) {
            throw meter.limits.error(exceeding: exceeded, format: .binary)
        }
    }
}
