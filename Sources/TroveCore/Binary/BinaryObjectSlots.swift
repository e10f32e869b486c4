/// What a binary decode knows of each object of the file, by object index: how far it got with
/// the object, and for a kept object its value and expanded size.
///
/// Plain pointers rather than arrays: the decode reads or writes a slot for every reference it
/// follows, and each array write paid a uniqueness check and a bounds check. States are a byte
/// an object, apart from the values: every reference reads a state, but only kept objects have a
/// value, so a large file's states stay in cache while the value slots (40 bytes each) are
/// neither cleared up front nor torn down one by one at the end, except where a value was kept.
/// (With states inside the slots, a 200,000-key dictionary's decode cleared 19 MB of slots and
/// spent a third of its scanner's own time waiting on the state loads.)
///
/// The setters write through the pointer and so are not `mutating`: the type is non-copyable, so
/// its one owner is the only code that can reach the slots.
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

    /// Invariant: slot `i` is initialized exactly when `states[i]` is `.cached`.
    private let states: UnsafeMutablePointer<State>
    private let slots: UnsafeMutablePointer<Slot>
    let count: Int

    /// `count` slots, every object unseen.
    init(count: Int) {
        self.count = count
        states = .allocate(capacity: max(count, 1))
        states.initialize(repeating: .unseen, count: count)
        slots = .allocate(capacity: max(count, 1))
    }

    deinit {
        for index in 0..<count where states[index] == .cached { (slots + index).deinitialize(count: 1) }
        slots.deallocate()
        states.deallocate()
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
        return slots[index].value
    }

    /// The expanded size of object `index`, which the caller has seen to be `.cached`.
    @inline(__always)
    func size(_ index: Int) -> ExpandedSize {
        assert(states[index] == .cached, "the size of an object that was not kept")
        return slots[index].size
    }

    /// Keeps `value` as object `index`'s decoded value.
    @inline(__always)
    func cache(_ index: Int, _ value: PlistValue, size: ExpandedSize) {
        if states[index] == .cached {
            slots[index] = Slot(value: value, size: size)
        } else {
            (slots + index).initialize(to: Slot(value: value, size: size))
            states[index] = .cached
        }
    }

    /// True when object `index` is cached as a string; the text is looked at, not copied (a copy
    /// is a retain and a release).
    @inline(__always)
    func isCachedString(_ index: Int) -> Bool {
        guard states[index] == .cached else { return false }
        if case .string = slots[index].value { return true }
        return false
    }
}
