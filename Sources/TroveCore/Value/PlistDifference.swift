/// One place where two property-list values differ: the key path, and what is there on each side.
///
/// Produced by ``PlistValue/differences(from:limit:)`` and
/// ``PlistValue/differenceSequence(from:)``. The key path is the one `plutil` takes (see
/// ``PlistKeyPath``): dictionary keys, and array indices as decimal numbers. The empty path is the
/// root value itself.
public struct PlistDifference: Sendable, Hashable, CustomStringConvertible {
    /// What differs at a key path.
    public enum Change: Sendable, Hashable {
        /// The path exists only in the newer value; the payload is the value found there.
        case added(PlistValue)
        /// The path exists only in the older value; the payload is the value that was there.
        case removed(PlistValue)
        /// Both values have the path but hold different values there. A change of kind (an integer
        /// that became a string, an array that became a dictionary) is a change of the whole value.
        case changed(from: PlistValue, to: PlistValue)
    }

    /// Where the difference is; no components for the root.
    public var keyPath: PlistKeyPath
    /// What differs there.
    public var change: Change

    /// A difference at `keyPath`.
    public init(keyPath: PlistKeyPath, change: Change) {
        self.keyPath = keyPath
        self.change = change
    }

    /// The value on the older side, or nil when the path was added.
    public var oldValue: PlistValue? {
        switch change {
        case .added: return nil
        case .removed(let value), .changed(let value, _): return value
        }
    }

    /// The value on the newer side, or nil when the path was removed.
    public var newValue: PlistValue? {
        switch change {
        case .removed: return nil
        case .added(let value), .changed(_, let value): return value
        }
    }

    /// `+ path: value`, `- path: value` or `~ path: old -> new`, with the root shown as `(root)`
    /// and values in ``PlistValue``'s compact one-line description.
    public var description: String {
        let path = keyPath.components.isEmpty ? "(root)" : keyPath.description
        switch change {
        case .added(let value): return "+ \(path): \(value)"
        case .removed(let value): return "- \(path): \(value)"
        case .changed(let old, let new): return "~ \(path): \(old) -> \(new)"
        }
    }
}

extension PlistValue {
    /// The differences that turn `old` into this value, in a stable order.
    ///
    /// Dictionaries are compared key by key: key order is not a difference, just as it is not for
    /// `==`. Arrays are compared index by index, so an element inserted at the front shows as a
    /// change at every later index and an addition at the end; there is no attempt to find moved
    /// elements. Scalars compare as `==` compares them (reals and dates by exact value with NaN
    /// equal to NaN, the width of a real ignored), so the result is empty exactly when
    /// `self == old`.
    ///
    /// The result lists differences depth-first: within a dictionary in key order (UTF-16 code
    /// units, the order CoreFoundation's XML writer sorts keys into), within an array by index.
    /// It therefore does not depend on the order keys had in either file. A subtree that exists on
    /// one side only is reported once, at its root, not entry by entry.
    ///
    /// The walk uses an explicit stack rather than recursion, so nesting of any depth is safe.
    /// Containers that share storage (an unedited part of a copy) are equal without a walk, and a
    /// pair of shared binary-plist objects found equal once is not walked again, so a small file
    /// whose shared objects expand to billions of paths compares in time proportional to its
    /// objects (plus the differences returned).
    ///
    /// ```swift
    /// let old: PlistValue = ["Name": "Trove", "Size": 1]
    /// let new: PlistValue = ["Name": "Trove", "Size": 2, "Tags": ["a"]]
    /// for difference in new.differences(from: old) { print(difference) }
    /// // ~ Size: 1 -> 2
    /// // + Tags: ["a"]
    /// ```
    ///
    /// - Parameter limit: The most differences returned; the walk stops there. Ask for one more
    ///   than you will show to learn whether there are more.
    public func differences(from old: PlistValue, limit: Int = .max) -> [PlistDifference] {
        Array(differenceSequence(from: old).prefix(max(0, limit)))
    }

    /// The same differences as ``differences(from:limit:)``, in the same order, found one at a
    /// time as the sequence is iterated: nothing is collected, so a caller that prints each one
    /// needs memory for the current path only, however many there are.
    public func differenceSequence(from old: PlistValue) -> PlistDifferenceSequence {
        PlistDifferenceSequence(old: old, new: self)
    }
}

/// The differences between two values, found lazily; see
/// ``PlistValue/differenceSequence(from:)``.
public struct PlistDifferenceSequence: Sequence, Sendable {
    /// The older value.
    public let old: PlistValue
    /// The newer value.
    public let new: PlistValue

    /// A walk from the start.
    public func makeIterator() -> Iterator { Iterator(old: old, new: new) }

    /// One walk over the two values.
    public struct Iterator: IteratorProtocol {
        private var walk: DifferenceWalk

        init(old: PlistValue, new: PlistValue) { walk = DifferenceWalk(old: old, new: new) }

        /// The next difference, or nil when the walk is over.
        public mutating func next() -> PlistDifference? { walk.next() }
    }
}

/// The state of one walk of ``PlistValue/differenceSequence(from:)``.
struct DifferenceWalk {
    /// A pair of containers of the same kind whose children are being compared.
    struct Frame {
        enum Children {
            case arrays([PlistValue], [PlistValue])
            /// Both dictionaries, and every key of either once, sorted.
            case dictionaries(PlistDictionary, PlistDictionary, keys: [String])
        }
        var children: Children
        var count: Int
        var next = 0
        /// Whether entering this frame added a component to the path.
        var hasComponent: Bool
        var identity: StoragePair?
        /// How many differences had been produced when the frame was entered.
        var producedBefore: Int
    }

    private var frames: [Frame] = []
    private var path: [PlistKeyPath.Component] = []
    /// Container pairs already walked without finding a difference.
    private var proven = Set<StoragePair>()
    /// The difference found by the last step, waiting to be returned.
    private var ready: PlistDifference?
    private var produced = 0

    init(old: PlistValue, new: PlistValue) {
        visit(old, new, component: nil)
    }

    /// Steps through the values until a difference turns up or the walk ends.
    mutating func next() -> PlistDifference? {
        while ready == nil, let top = frames.indices.last {
            guard frames[top].next < frames[top].count else {
                let finished = frames.removeLast()
                if finished.hasComponent { path.removeLast() }
                if let identity = finished.identity, produced == finished.producedBefore { proven.insert(identity) }
                continue
            }
            let index = frames[top].next
            frames[top].next += 1
            switch frames[top].children {
            case let .arrays(oldElements, newElements):
                let component = PlistKeyPath.Component.index(index)
                if index >= newElements.count {
                    report(.removed(oldElements[index]), component: component)
                } else if index >= oldElements.count {
                    report(.added(newElements[index]), component: component)
                } else {
                    visit(oldElements[index], newElements[index], component: component)
                }
            case let .dictionaries(oldEntries, newEntries, keys):
                let key = keys[index]
                switch (oldEntries[key], newEntries[key]) {
                case let (oldChild?, newChild?): visit(oldChild, newChild, component: .key(key))
                case let (oldChild?, nil): report(.removed(oldChild), component: .key(key))
                case let (nil, newChild?): report(.added(newChild), component: .key(key))
                case (nil, nil): break
                }
            }
        }
        defer { ready = nil }
        return ready
    }

    /// Compares two values at the current path plus `component`: scalars outright, containers of
    /// the same kind by entering a frame for their children.
    private mutating func visit(_ old: PlistValue, _ new: PlistValue, component: PlistKeyPath.Component?) {
        let frame: Frame
        switch (old, new) {
        case let (.array(oldElements), .array(newElements)):
            let identity = StoragePair(oldElements, newElements)
            if let identity, identity.isSameStorage || proven.contains(identity) { return }
            frame = Frame(
                children: .arrays(oldElements, newElements), count: max(oldElements.count, newElements.count),
                hasComponent: component != nil, identity: identity, producedBefore: produced)
        case let (.dictionary(oldEntries), .dictionary(newEntries)):
            let identity = StoragePair(oldEntries, newEntries)
            if let identity, identity.isSameStorage || proven.contains(identity) { return }
            let keys = Self.unionOfKeys(oldEntries, newEntries)
            frame = Frame(
                children: .dictionaries(oldEntries, newEntries, keys: keys), count: keys.count,
                hasComponent: component != nil, identity: identity, producedBefore: produced)
        default:
            // A scalar on at least one side, or containers of different kinds: never a walk into
            // nested values, so `!=` here compares scalars only.
            if old.isContainer || new.isContainer || old != new {
                report(.changed(from: old, to: new), component: component)
            }
            return
        }
        if let component { path.append(component) }
        frames.append(frame)
    }

    private mutating func report(_ change: PlistDifference.Change, component: PlistKeyPath.Component?) {
        var components = path
        if let component { components.append(component) }
        ready = PlistDifference(keyPath: PlistKeyPath(components: components), change: change)
        produced += 1
    }

    /// Every key of either dictionary once, sorted by UTF-16 code units.
    private static func unionOfKeys(_ a: PlistDictionary, _ b: PlistDictionary) -> [String] {
        var keys = Array(a.keys)
        keys.reserveCapacity(a.count + b.count)
        for key in b.keys where a[key] == nil { keys.append(key) }
        keys.sort(by: PlistKeyOrder.precedes)
        return keys
    }
}

/// The storage addresses of two non-empty containers of the same kind, while the walk holds
/// them: equal addresses mean equal contents, and a pair proven equal once (a binary plist's
/// shared objects meet again on another path) need not be walked again.
struct StoragePair: Hashable {
    /// An array's element buffer, or a dictionary's key and value buffers.
    struct Storage: Hashable {
        let first: UnsafeRawPointer?
        let second: UnsafeRawPointer?
    }

    let old: Storage
    let new: Storage

    var isSameStorage: Bool { old == new }

    init?(_ old: [PlistValue], _ new: [PlistValue]) {
        guard !old.isEmpty, !new.isEmpty else { return nil }
        self.old = Storage(first: Self.address(old), second: nil)
        self.new = Storage(first: Self.address(new), second: nil)
    }

    init?(_ old: PlistDictionary, _ new: PlistDictionary) {
        guard !old.isEmpty, !new.isEmpty else { return nil }
        self.old = Self.storage(old)
        self.new = Self.storage(new)
    }

    // The buffers are read in place, never through a copy: a copy's address could be reused
    // by a later copy and make two different containers look shared.
    private static func address(_ elements: [PlistValue]) -> UnsafeRawPointer? {
        elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// The key and value buffers.
    private static func storage(_ dictionary: PlistDictionary) -> Storage {
        let keys = dictionary.keys.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let values = dictionary.values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        return Storage(first: keys, second: values)
    }
}
