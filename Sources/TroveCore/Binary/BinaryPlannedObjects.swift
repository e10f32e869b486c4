/// The planner's objects by order: the noted ones first, each unclaimed until a node takes it
/// over, then the new ones as they are appended.
///
/// Whether a noted object is claimed is a byte of its own (``claimed``, or
/// ``holdsNotedKeyText`` as well), so that only those bytes are cleared up front, not the
/// objects, and a key met again learns all it needs from one byte. An unclaimed object's record
/// is never read. Orders are read and written without a bounds check (checked in debug builds):
/// every order is a noted object index, below the noted count by the notes' invariants, or one
/// the planner appended.
struct PlannedObjects: ~Copyable {
    private var base: UnsafeMutablePointer<BinaryObjectPlanner.Object>
    private var capacity: Int
    /// The state of each noted object: 0 while unclaimed.
    private let states: UnsafeMutablePointer<UInt8>
    let notedCount: Int
    /// The orders handed out.
    private(set) var count: Int

    /// A noted object a node took over or a copy filled.
    static let claimed: UInt8 = 1
    /// A string object taken over by a dictionary key whose text was the object's noted key
    /// text: it holds exactly that text.
    static let holdsNotedKeyText: UInt8 = 3

    /// `noted` unclaimed objects, with room for `capacity` in all.
    init(noted: Int, capacity: Int) {
        self.capacity = Swift.max(capacity, noted, 16)
        base = .allocate(capacity: self.capacity)
        states = .allocate(capacity: Swift.max(noted, 1))
        states.initialize(repeating: 0, count: noted)
        notedCount = noted
        count = noted
    }

    deinit {
        base.deallocate()
        states.deallocate()
    }

    /// The object at `order`, which must be claimed; setting it claims a noted one.
    subscript(order: Int) -> BinaryObjectPlanner.Object {
        @inline(__always)
        get {
            assert(order >= 0 && order < count && isClaimed(order), "order \(order) out of range or unclaimed")
            return base[order]
        }
        @inline(__always)
        set {
            assert(order >= 0 && order < count, "order \(order) out of range")
            base[order] = newValue
            if order < notedCount { states[order] |= Self.claimed }
        }
    }

    /// The state of noted object `order` (0 while unclaimed).
    @inline(__always)
    func state(_ order: Int) -> UInt8 {
        assert(order >= 0 && order < notedCount, "noted order \(order) out of range")
        return states[order]
    }

    /// Marks claimed noted object `order` as holding its noted key text.
    @inline(__always)
    func markHoldingNotedKeyText(_ order: Int) {
        assert(order >= 0 && order < notedCount, "noted order \(order) out of range")
        states[order] = Self.holdsNotedKeyText
    }

    /// Whether order `order` holds an object: every new one, and the noted ones claimed.
    @inline(__always)
    func isClaimed(_ order: Int) -> Bool { order >= notedCount || states[order] != 0 }

    /// Appends a new object's order, to be set by the caller.
    @inline(__always)
    mutating func append() -> Int {
        if count == capacity { grow() }
        base[count] = BinaryObjectPlanner.Object(kind: BinaryObjectPlanner.Object.unclaimed)
        count += 1
        return count - 1
    }

    @inline(never)
    private mutating func grow() {
        (base, capacity) = base.movedToLarger(count: count, capacity: capacity, toHold: count + 1)
    }

    /// Calls `body` with the objects in order (an unclaimed one's record is meaningless) and the
    /// noted objects' states.
    func withUnsafeBuffers<R>(
        _ body: (UnsafeBufferPointer<BinaryObjectPlanner.Object>, UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        body(UnsafeBufferPointer(start: base, count: count), UnsafeBufferPointer(start: states, count: notedCount))
    }
}
