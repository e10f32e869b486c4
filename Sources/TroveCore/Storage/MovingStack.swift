/// The values (or dictionary keys) a reader has finished but not yet placed in their container:
/// the children of every open container, innermost last. The binary and the XML reader both
/// build values on one, and the XML reader keeps its pending keys on another. The binary plain
/// encoder keeps its lists of objects and references on them too, for the same reason: appends
/// and stores without a uniqueness check.
///
/// A reader pushes each finished child here and, when a container closes, moves its children out
/// in one step. Moving (rather than copying a slice and then truncating) leaves every child's
/// reference count untouched, and one buffer shared by all open containers means no container
/// grows an array of its own element by element.
///
/// Invariant: the first `count` slots of `base` are initialized and nothing past them is. The
/// type is non-copyable, so exactly one owner deinitializes them, also when a read throws midway.
struct MovingStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// The number of elements on the stack.
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Checks the invariant that can be checked (debug builds only): the count lies within the
    /// allocation. (That exactly the first `count` slots are initialized is what the type's
    /// operations keep; memory cannot be asked.)
    @inline(__always)
    func _checkInvariants() {
        #if DEBUG
        precondition(count >= 0 && count <= capacity && capacity >= 16, "count \(count), capacity \(capacity)")
        #endif
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        (base, capacity) = base.movedToLarger(count: count, capacity: capacity, toHold: count + 1)
    }

    /// Makes room for `n` more elements at once, so that pushing a large container's children
    /// moves the stack at most once instead of at every doubling.
    @inline(__always)
    mutating func reserve(_ n: Int) {
        if n > capacity - count { (base, capacity) = base.movedToLarger(count: count, capacity: capacity, toHold: count + n) }
    }

    /// Pushes `count` copies of `element`.
    @inline(__always)
    mutating func push(repeating element: Element, count n: Int) {
        reserve(n)
        (base + count).initialize(repeating: element, count: n)
        count += n
    }

    /// Pushes `n` elements left uninitialized, for a type with no references (checked), whose
    /// caller stores every one of them before it is read.
    @inline(__always)
    mutating func pushUninitialized(count n: Int) {
        precondition(_isPOD(Element.self), "only trivial elements may be left uninitialized")
        reserve(n)
        count &+= n
    }

    /// Stores `element` at `position`, below `count` (checked in debug builds only), for a hot
    /// loop whose positions are below `count` by construction.
    @inline(__always)
    func store(_ element: Element, at position: Int) where Element: BitwiseCopyable {
        assert(position >= 0 && position < count, "moving stack index out of range")
        base[position] = element
    }

    /// The element at `position`, counted from the bottom; it must be below `count`.
    subscript(position: Int) -> Element {
        @inline(__always)
        get {
            precondition(position >= 0 && position < count, "moving stack index out of range")
            return base[position]
        }
        @inline(__always)
        set {
            precondition(position >= 0 && position < count, "moving stack index out of range")
            base[position] = newValue
        }
    }

    /// Moves the element at `position` out, leaving its place uninitialized until
    /// ``dropLast(_:)`` removes it with the places above it; nothing else may touch it before.
    @inline(__always)
    mutating func take(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "moving stack index out of range")
        return (base + position).move()
    }

    /// Removes the top `n` places, which ``take(at:)`` emptied, without deinitializing them.
    @inline(__always)
    mutating func dropLast(_ n: Int) {
        precondition(n >= 0 && n <= count, "moving stack drop out of range")
        count -= n
    }

    /// Calls `body` with the elements, bottom first.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Moves the elements of `other` from position `start` up onto this stack, in order, and
    /// removes them from `other`: one copy of their bytes, no reference counting.
    mutating func push(movingFrom other: inout MovingStack<Element>, from start: Int) {
        let n = other.count - start
        reserve(n)
        (base + count).moveInitialize(from: other.base + start, count: n)
        count += n
        other.count = start
    }

    /// Removes and returns the top element; the stack must not be empty.
    mutating func popLast() -> Element {
        precondition(count > 0, "popLast on an empty moving stack")
        count -= 1
        return (base + count).move()
    }

    /// Moves the elements from position `start` to the top into a new array, in order, and
    /// removes them from the stack.
    mutating func popArray(from start: Int) -> [Element] {
        let n = count - start
        guard n > 0 else { return [] }
        // `reserveCapacity` and `append` are specialized for the element type; building the
        // array with `init(unsafeUninitializedCapacity:)` instead goes through the runtime's
        // generic path and its metadata lookups, which cost more than the appends.
        var array: [Element] = []
        array.reserveCapacity(n)
        count = start
        for i in 0..<n { array.append((base + start + i).move()) }
        return array
    }
}

extension MovingStack where Element: BitwiseCopyable {
    /// Pushes `n` elements left as the memory happens to hold them, for a caller that stores
    /// every one of them before it reads any: filling them first cost a `memset` call per
    /// container in the binary writer's list of references. Elements of a bitwise-copyable type
    /// need no deinitialization, so the stack's invariant holds whatever they contain.
    @inline(__always)
    mutating func pushUnfilled(count n: Int) {
        reserve(n)
        count += n
    }
}

/// The stack the readers build values on.
typealias PlistValueStack = MovingStack<PlistValue>
