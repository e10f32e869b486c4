/// Growing the raw storage of the non-copyable containers (``MovingStack``, the binary reader's
/// key classes), which keep their elements behind a pointer so that the hot loops pay no
/// uniqueness or bounds checks. (``ByteBuffer`` grows its `malloc` block itself.)
extension UnsafeMutablePointer {
    /// Moves the first `count` elements into a new allocation of at least `wanted` elements,
    /// doubling `capacity` until it fits, frees this allocation, and returns the new one with
    /// its capacity.
    func movedToLarger(count: Int, capacity: Int, toHold wanted: Int) -> (pointer: UnsafeMutablePointer, capacity: Int) {
        var larger = Swift.max(capacity, 1) * 2
        while larger < wanted { larger *= 2 }
        let moved = UnsafeMutablePointer.allocate(capacity: larger)
        moved.moveInitialize(from: self, count: count)
        deallocate()
        return (moved, larger)
    }
}
