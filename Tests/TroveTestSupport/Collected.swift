import Foundation

/// Values that callbacks or another task collect, read by the test afterwards or while it waits.
public final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []

    public init() {}

    public func append(_ item: T) { lock.withLock { items.append(item) } }

    /// Everything collected so far, in order.
    public var values: [T] { lock.withLock { items } }

    /// How many values were collected so far.
    public var count: Int { lock.withLock { items.count } }
}
