/// What a binary decode knows of each object of the file, by object index: how far it got with
/// the object, and for a kept object its value and expanded size.
///
/// Plain pointers rather than arrays: the decode reads or writes a state for every reference it
/// follows, and each array write paid a uniqueness check and a bounds check. States are a byte
/// an object, apart from the values: every reference reads a state, but only kept objects have a
/// value, so a large file's states stay in cache. (With states inside the slots, a 200,000-key
/// dictionary's decode cleared 19 MB of slots and spent a third of its scanner's own time waiting
/// on the state loads.)
///
/// The kept values' slots (40 bytes each) lie together, in the order they were kept, and each
/// kept object's index names its slot (4 bytes an object, written only for kept objects): kept
/// objects are scattered over the file, the keys of small dictionaries above all, and slots by
/// object index touched nearly every page of 40 bytes an object (2.9 times the input for a file
/// of small dictionaries) to keep a fifth of them.
///
/// The state setters write through the pointer and so are not `mutating`: the type is
/// non-copyable, so its one owner is the only code that can reach the states.
///
/// Invariant: every index passed in is below `count`. The scanner only uses indices that
/// ``BinaryObjectLookup/reference(at:)`` or the trailer validated against the object count, so
/// the accessors do not check again.
struct BinaryObjectSlots: ~Copyable {
    /// How far the decode has got with one object.
    ///
    /// Containers, strings and data own storage that further references should share, but most
    /// objects are referenced once, and keeping one costs a retain, a slot and a release: they
    /// are kept from their second reference on, which decodes them again (for a container, with
    /// its children kept by then, so no object is decoded more than twice and a file of shared
    /// references cannot expand exponentially). Numbers, booleans, dates, UIDs and null are
    /// decoded again at each further reference, which costs less than keeping them. The keys of
    /// dictionaries up to ``BinaryKeyClasses/largestAlwaysClassified`` entries are kept at once
    /// (see ``BinaryObjectScanner``).
    enum State: UInt8 {
        /// Not reached from the top object (yet).
        case unseen
        /// A container on the current path, being decoded: meeting it again is a cycle.
        case open
        /// A container on the current path, being decoded for the second time, to be kept: meeting
        /// it again is a cycle.
        case reopened
        /// Decoded, its value kept in the slot.
        case cached
        /// A scalar that was decoded and validated once and is not kept.
        case scalar
        /// A string or data object decoded once, as a value or key, and not kept: the next
        /// reference decodes it again and keeps it.
        case decodedOnce
        /// A container decoded once and not kept: the next reference decodes it again and keeps it.
        case builtOnce
    }

    private struct Slot {
        var value: PlistValue
        var size: ExpandedSize
    }

    /// Invariants: `slotOf[i]` is written exactly when `states[i]` is `.cached`, and is then below
    /// `slotCount`; the first `slotCount` slots are initialized, each named by one object.
    private let states: UnsafeMutablePointer<State>
    private let slotOf: UnsafeMutablePointer<UInt32>
    private var slots: UnsafeMutablePointer<Slot>
    private var slotCount = 0
    private var slotCapacity: Int
    let count: Int

    /// `count` objects, every one unseen.
    init(count: Int) {
        self.count = count
        // One allocation for both: the states, then each object's slot number.
        let stateBytes = (max(count, 1) + 3) & ~3
        let storage = UnsafeMutableRawPointer.allocate(byteCount: stateBytes + 4 * max(count, 1), alignment: 4)
        states = storage.bindMemory(to: State.self, capacity: max(count, 1))
        states.initialize(repeating: .unseen, count: count)
        slotOf = (storage + stateBytes).bindMemory(to: UInt32.self, capacity: max(count, 1))
        slotCapacity = Swift.min(max(count, 1), 64)
        slots = .allocate(capacity: slotCapacity)
    }

    deinit {
        // One slot at a time: a count of them goes through the runtime's generic array destroy.
        for slot in 0..<slotCount { (slots + slot).deinitialize(count: 1) }
        slots.deallocate()
        UnsafeMutableRawPointer(states).deallocate()
    }

    /// Checks the invariants that can be checked (debug builds only).
    func _checkInvariants() {
        #if DEBUG
        precondition(slotCount <= slotCapacity, "\(slotCount) slots, room for \(slotCapacity)")
        var cached = 0
        for index in 0..<count where states[index] == .cached {
            precondition(Int(slotOf[index]) < slotCount, "object \(index) names slot \(slotOf[index]) of \(slotCount)")
            cached += 1
        }
        precondition(cached == slotCount, "\(cached) kept objects, \(slotCount) slots")
        #endif
    }

    @inline(__always)
    func state(_ index: Int) -> State { states[index] }

    /// Every object's state, by index, for a reader that keeps the slots alive while it reads.
    var statesStorage: UnsafePointer<State> { UnsafePointer(states) }

    /// Sets a state other than `.cached`, which only ``cache(_:_:size:)`` sets; a cached object
    /// never changes state again.
    @inline(__always)
    func setState(_ index: Int, _ state: State) {
        assert(state != .cached && states[index] != .cached, "a kept value's state changed")
        states[index] = state
    }

    /// The kept value of object `index`, which the caller has seen to be `.cached` (every
    /// caller checks the state first, or decoded the object itself just before).
    @inline(__always)
    func value(_ index: Int) -> PlistValue {
        assert(states[index] == .cached, "the value of an object that was not kept")
        return slots[Int(slotOf[index])].value
    }

    /// The expanded size of object `index`, which the caller has seen to be `.cached`.
    @inline(__always)
    func size(_ index: Int) -> ExpandedSize {
        assert(states[index] == .cached, "the size of an object that was not kept")
        return slots[Int(slotOf[index])].size
    }

    /// Keeps `value` as object `index`'s decoded value.
    @inline(__always)
    mutating func cache(_ index: Int, _ value: PlistValue, size: ExpandedSize) {
        if states[index] == .cached {
            slots[Int(slotOf[index])] = Slot(value: value, size: size)
            return
        }
        if slotCount == slotCapacity { growSlots() }
        (slots + slotCount).initialize(to: Slot(value: value, size: size))
        slotOf[index] = UInt32(truncatingIfNeeded: slotCount)
        slotCount &+= 1
        states[index] = .cached
    }

    @inline(never)
    private mutating func growSlots() {
        // Slot numbers are 32 bits: 2^32 kept values' slots alone would take 160 GB.
        precondition(slotCount < Int(UInt32.max), "more kept values than slot numbers")
        (slots, slotCapacity) = slots.movedToLarger(count: slotCount, capacity: slotCapacity, toHold: slotCount + 1)
    }

    /// True when object `index` is cached as a string; the text is looked at, not copied (a copy
    /// is a retain and a release).
    @inline(__always)
    func isCachedString(_ index: Int) -> Bool {
        guard states[index] == .cached else { return false }
        if case .string = slots[Int(slotOf[index])].value { return true }
        return false
    }
}
