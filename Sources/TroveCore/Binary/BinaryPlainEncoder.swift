import Foundation

/// Writes a value that has no layout notes, as CoreFoundation's writer does, in one walk over the
/// value and one pass over a compact list of its objects, rather than through the planner's slots.
///
/// CoreFoundation's flatten order is a depth-first pre-order walk in which a dictionary is followed
/// by all its keys and then by each value's subtree. Numbering objects in that walk gives every node
/// its object number at the moment it is visited, so a container's references are filled in one by
/// one as its children are visited:
/// 1. ``number(_:)`` walks the value, uniques scalars, lists every object (a container's reference
///    range, or the distinct scalar it writes) and records the references in one flat array,
///    reserved when the container is visited;
/// 2. ``emit()`` writes the listed objects in order, then the offset table and trailer.
/// Booleans and UIDs are listed once per occurrence, as CoreFoundation appends them, while every
/// reference names the first.
///
/// The planner path (``BinaryObjectPlanner``, ``BinaryObjectEncoder``) writes the same bytes for a
/// value without notes; it copied every value into a slot of about a hundred bytes and sorted
/// slots into output order, most of a plain write's time.
///
/// Invariants: `objects[n]` describes object `n`; a container's references are
/// `references[first ..< first + count]` (a dictionary's keys, then its values), a scalar's value
/// is `scalars[first]`; `objects.count` never exceeds `UInt32.max` (``number(_:)`` refuses such a
/// value), so every reference fits a `UInt32`.
struct BinaryPlainEncoder: ~Copyable {
    /// One object of the output.
    private struct Object {
        enum Kind: UInt8 { case scalar, array, dictionary }
        var kind: Kind
        /// A container's reference count (twice its entries for a dictionary).
        var count: UInt32
        /// A container's first reference, or a scalar's index in `scalars`.
        var first: Int
    }

    private let maxDepth: Int
    private var meter: LimitMeter
    private var objects = MovingStack<Object>(capacity: 256)
    /// The references of every container, in visit order.
    private var references = MovingStack<UInt32>(capacity: 256)
    /// About how many bytes the scalar objects take, so that the output is allocated once.
    private var scalarBytes = 0
    /// One entry per distinct scalar, in the order met.
    private var scalars = MovingStack<UniqueScalar>(capacity: 256)
    private var uniqued = ScalarUniquingTable()
    /// The last string met in each of 512 slots, by representation (see ``stringObject(_:)``).
    private var recentStrings = [RecentString](repeating: RecentString(), count: 512)

    private struct UniqueScalar {
        var value: PlistValue
        var object: UInt32
    }

    private struct RecentString {
        var representation = StringRepresentation.placeholder
        var object: UInt32 = 0
        var isFilled = false
    }

    init(limits: PlistLimits) {
        maxDepth = limits.maxDepth
        meter = LimitMeter(limits: limits)
    }

    /// Writes `value` as a complete `bplist00` document.
    consuming func encode(_ value: PlistValue) throws(PlistError) -> ByteBuffer {
        // A table sized for the root's own children: doubling from 16 rehashed a 200,000-key
        // dictionary's scalars fifteen times, 5% of its write. Capped, because a large array of
        // one repeated value would otherwise reserve a table it never fills.
        let rootChildren = min(value.arrayValue?.count ?? 2 * (value.dictionaryValue?.count ?? 0), 1 << 20)
        if rootChildren > 8 { uniqued = ScalarUniquingTable(minimumCapacity: rootChildren) }
        try number(value)
        return emit()
    }

    // MARK: - Numbering

    /// A container whose children are being visited: an array's elements or a dictionary's values
    /// (its keys are visited with the dictionary itself).
    private struct Frame {
        var children: [PlistValue]
        var next = 0
        /// Where the references to `children` start in `references`.
        var firstReference: Int
        /// Containers above this one.
        var depth: Int
    }

    /// Numbers the objects, lists them and records the references.
    ///
    /// The innermost container's frame is a local and only its suspended ancestors are on the
    /// stack: reading and advancing `stack[last]` for every child cost a bounds and a uniqueness
    /// check each time.
    private mutating func number(_ top: PlistValue) throws(PlistError) {
        guard var frame = try visit(top, depth: 0).children else { return }
        var stack: [Frame] = []
        while true {
            let i = frame.next
            guard i < frame.children.count else {
                guard let parent = stack.popLast() else { return }
                frame = parent
                continue
            }
            frame.next = i + 1
            let (object, children) = try visit(frame.children[i], depth: frame.depth + 1)
            references[frame.firstReference + i] = object
            if let children {
                stack.append(frame)
                frame = children
            }
        }
    }

    /// Numbers `value` and, for a container, its keys; returns the object number references to
    /// `value` name and, for a non-empty container, the frame of its other children.
    @inline(__always)
    private mutating func visit(_ value: PlistValue, depth: Int) throws(PlistError) -> (object: UInt32, children: Frame?) {
        switch value {
        case .array(let elements):
            let count = elements.count
            let first = references.count
            let object = try newObject(Object(kind: .array, count: UInt32(truncatingIfNeeded: count), first: first))
            try enter(depth: depth, holding: count)
            guard count > 0 else { return (object, nil) }
            references.push(repeating: 0, count: count)
            return (object, Frame(children: elements, firstReference: first, depth: depth))
        case .dictionary(let entries):
            let count = entries.count
            let first = references.count
            let object = try newObject(Object(kind: .dictionary, count: UInt32(truncatingIfNeeded: 2 * count), first: first))
            try enter(depth: depth, holding: count)
            guard count > 0 else { return (object, nil) }
            references.push(repeating: 0, count: 2 * count)
            for (i, key) in entries.keys.enumerated() {
                references[first + i] = try stringObject(key)
            }
            return (object, Frame(children: entries.values, firstReference: first + count, depth: depth))
        case .string(let string):
            return (try stringObject(string), nil)
        default:
            return (try uniquedObject(for: value), nil)
        }
    }

    /// The object of a string, looked up first by the string's representation: a dictionary key
    /// repeated across many records is usually one shared storage object (the binary reader
    /// decodes a key object once) or a small string held inline, and two `String` values with the
    /// same sixteen bytes have the same contents, so a repeat costs one compare instead of a hash,
    /// a probe and a comparison of code units. A miss goes to the uniquing table, which decides
    /// exactly; the cache only remembers its answers.
    @inline(__always)
    private mutating func stringObject(_ string: String) throws(PlistError) -> UInt32 {
        let representation = StringRepresentation(string)
        let slot = Int(truncatingIfNeeded: SeededByteHash.mix(representation.low ^ (representation.high &* 0x9E37_79B9_7F4A_7C15)) >> 55)
        if recentStrings[slot].representation == representation && recentStrings[slot].isFilled {
            return recentStrings[slot].object
        }
        let object = try uniquedObject(for: .string(string))
        recentStrings[slot] = RecentString(representation: representation, object: object, isFilled: true)
        return object
    }

    /// The object of a scalar: the one an identical scalar already has, or a new one.
    @inline(__always)
    private mutating func uniquedObject(for value: PlistValue) throws(PlistError) -> UInt32 {
        switch uniqued.lookup(value, scalarAt: { scalars[$0].value }) {
        case .found(let index):
            switch value {
            case .bool, .uid:
                // CoreFoundation appends every occurrence as an object of its own, but every
                // reference names the first.
                _ = try newObject(Object(kind: .scalar, count: 0, first: index))
                scalarBytes += value.estimatedBinaryObjectSize
            default: break
            }
            return scalars[index].object
        case .absent(let insertion):
            let index = scalars.count
            let object = try newObject(Object(kind: .scalar, count: 0, first: index))
            scalarBytes += value.estimatedBinaryObjectSize
            uniqued.insert(index, at: insertion)
            scalars.push(UniqueScalar(value: value, object: object))
            return object
        case nil:
            preconditionFailure("a scalar always has a uniquing hash")
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

    // MARK: - Writing

    /// Writes the listed objects in order, then the offset table and trailer.
    private consuming func emit() -> ByteBuffer {
        let refSize = BinaryTrailer.powerOfTwoWidth(for: objects.count)
        // Header, objects (a container's marker, count and references), offset table, trailer.
        let containers = objects.count - scalars.count
        var out = ByteBuffer(
            capacity: 8 + scalarBytes + containers * 5 + references.count * refSize + objects.count * 8 + 32)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(UInt8(ascii: "0"))
        // The scalars are read in place: copying one out of the stack cost a retain and a release.
        scalars.withUnsafeBufferPointer { scalars in
            references.withUnsafeBufferPointer { references in
                for position in 0..<objects.count {
                    let object = objects[position]
                    offsets.append(out.count)
                    switch object.kind {
                    case .scalar:
                        out.appendBinaryScalar(scalars[object.first].value, note: nil, int128HighWord: { 0 })
                    case .array, .dictionary:
                        let count = Int(object.count)
                        if object.kind == .array {
                            out.appendBinaryMarker(0xA, count: count, note: nil)
                        } else {
                            out.appendBinaryMarker(0xD, count: count / 2, note: nil)
                        }
                        out.appendBigEndian(
                            UnsafeBufferPointer(rebasing: references[object.first..<object.first + count]), width: refSize
                        ) { UInt64($0) }
                    }
                }
            }
        }
        out.appendBinaryOffsetTableAndTrailer(offsets: offsets, refSize: refSize, topObject: 0, notedOffsetSize: nil)
        return out
    }
}
