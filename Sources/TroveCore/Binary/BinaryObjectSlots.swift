/// What a binary decode knows of each object of the file, by object index: how far it got with
/// the object, and for a kept object its value and expanded size.
///
/// One allocation of plain slots rather than three arrays: the decode reads or writes a slot for
/// every reference it follows, and each array write paid a uniqueness check and a bounds check,
/// and touched three cache lines where one slot touches one.
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
    /// Only containers, strings and data are kept once decoded: they own storage that every
    /// reference should share, and a container must not be decoded twice (a file of shared
    /// references would expand exponentially). Numbers, booleans, dates, UIDs and null are
    /// decoded again at each further reference, which costs less than keeping them.
    enum State: UInt8 {
        /// Not reached from the top object (yet).
        case unseen
        /// A container on the current path, being decoded: meeting it again is a cycle.
        case open
        /// Decoded, its value kept in the slot.
        case cached
        /// A scalar that was decoded and validated once and is not kept.
        case scalar
    }

    private struct Slot {
        var value: PlistValue
        var size: ExpandedSize
        var state: State
    }

    private let slots: UnsafeMutablePointer<Slot>
    let count: Int

    /// `count` slots, every object unseen.
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(repeating: Slot(value: .null, size: ExpandedSize(), state: .unseen), count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    @inline(__always)
    func state(_ index: Int) -> State { slots[index].state }

    @inline(__always)
    func setState(_ index: Int, _ state: State) { slots[index].state = state }

    /// The kept value of a cached object; `.null` for any other.
    @inline(__always)
    func value(_ index: Int) -> PlistValue { slots[index].value }

    /// The expanded size of a cached object.
    @inline(__always)
    func size(_ index: Int) -> ExpandedSize { slots[index].size }

    /// Keeps `value` as object `index`'s decoded value.
    @inline(__always)
    func cache(_ index: Int, _ value: PlistValue, size: ExpandedSize) {
        let slot = slots + index
        slot.pointee.value = value
        slot.pointee.size = size
        slot.pointee.state = .cached
    }

    /// True when object `index` is cached as a string; the text is looked at, not copied (a copy
    /// is a retain and a release).
    @inline(__always)
    func isCachedString(_ index: Int) -> Bool {
        if case .string = slots[index].value { return true }
        return false
    }
}
