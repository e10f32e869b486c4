/// One open array or dictionary in an explicit-stack walk over a value: its children in the order
/// the walk lists them, and how many it has handed out.
///
/// Writers and the XML layout scanner keep one cursor per open container instead of recursing, so
/// nesting costs heap, not call stack (a recursive writer needed several KB of stack per level in
/// a debug build). The stack of cursors is also the key path: each cursor's current child is one
/// step, so a walk spells a ``PlistKeyPath`` only when it reports an error instead of building a
/// path per element.
///
/// A walk reads a child in place, as `stack[top].values[position]`, with the stack a local of its
/// driver loop: a child handed out by value would be retained and released once per node.
struct PlistContainerCursor {
    // Plain stored arrays rather than an enum of the two container kinds: reading an enum's
    // payload in place copies (retains and releases) every buffer it holds.
    /// The array's elements, or the dictionary's values, in the container's own order.
    let values: [PlistValue]
    /// The dictionary's keys, in its own order; empty for an array.
    let keys: [String]
    /// The walk's positions mapped to the container's, for a writer that sorts keys; empty for
    /// the container's own order.
    private let order: [Int]
    /// Whether the sort copied the keys' bytes (``SortedKeys/text``), which the writer then keeps
    /// beside its cursors: a reference here would cost every cursor a retain and release when
    /// copied, and most cursors have none.
    let hasKeyText: Bool
    let isDictionary: Bool
    /// Elements, or entries for a dictionary.
    let count: Int
    /// How many children have been handed out.
    private(set) var next = 0

    /// A cursor over an array's elements.
    init(array elements: [PlistValue]) {
        values = elements
        keys = []
        order = []
        hasKeyText = false
        isDictionary = false
        count = elements.count
    }

    /// A cursor over a dictionary's entries, in the dictionary's own order.
    init(dictionary: PlistDictionary) {
        values = dictionary.values
        keys = dictionary.keys
        order = []
        hasKeyText = false
        isDictionary = true
        count = keys.count
    }

    /// A cursor over a dictionary's entries with the keys in `Order`; sorting positions leaves
    /// the dictionary uncopied and unhashed. Generic rather than taking a comparison closure so
    /// that each writer's comparison is specialized into the sort.
    init<Order: PlistKeySortOrder>(dictionary: PlistDictionary, sortedBy order: Order.Type) {
        self.init(dictionary: dictionary, sortedKeys: Self.sortedKeys(of: dictionary, by: order))
    }

    /// A cursor over a dictionary's entries in the order ``sortedKeys(of:by:)`` gave.
    init(dictionary: PlistDictionary, sortedKeys sorted: SortedKeys) {
        values = dictionary.values
        keys = dictionary.keys
        order = sorted.positions
        hasKeyText = sorted.text != nil
        isDictionary = true
        count = keys.count
    }

    /// The dictionary's keys in `Order`: no positions when they are in order already (a
    /// dictionary read from a file that a sorting writer wrote is, and one pass of neighbour
    /// comparisons finds that).
    static func sortedKeys<Order: PlistKeySortOrder>(of dictionary: PlistDictionary, by _: Order.Type) -> SortedKeys {
        dictionary.keys.withUnsafeBufferPointer { keys in
            var sorted = 1
            while sorted < keys.count && Order.precedes(keys[sorted - 1], keys[sorted]) { sorted += 1 }
            return sorted >= keys.count ? SortedKeys(positions: []) : Order.sortedKeys(of: keys)
        }
    }

    /// Moves to the next child and returns its position in `values` (and `keys`); nil once
    /// all have been handed out.
    @inline(__always)
    mutating func advance() -> Int? {
        guard next < count else { return nil }
        let position = order.isEmpty ? next : order[next]
        next += 1
        return position
    }

    /// The key-path step of the child handed out last: its key, or its index in an array.
    var currentComponent: PlistKeyPath.Component {
        guard isDictionary else { return .index(next - 1) }
        return .key(keys[order.isEmpty ? next - 1 : order[next - 1]])
    }

    /// The path to the child the innermost of `cursors` handed out last; `cursors` run outermost
    /// first, so an empty sequence is the root.
    static func keyPath<Cursors: Sequence<PlistContainerCursor>>(_ cursors: Cursors) -> PlistKeyPath {
        PlistKeyPath(components: cursors.map(\.currentComponent))
    }
}

/// An order writers list dictionary keys in: a strict total order on distinct keys, so that any
/// sort gives the same result.
protocol PlistKeySortOrder {
    static func precedes(_ a: String, _ b: String) -> Bool
    /// The positions of `keys` in this order, with the keys' bytes when the sort copied them.
    static func sortedKeys(of keys: UnsafeBufferPointer<String>) -> SortedKeys
}

extension PlistKeySortOrder {
    static func sortedKeys(of keys: UnsafeBufferPointer<String>) -> SortedKeys {
        // Compared through a buffer pointer, which lends its keys: through an array, the sort
        // retains and releases both keys of every comparison.
        SortedKeys(positions: keys.indices.sorted { precedes(keys[$0], keys[$1]) })
    }
}

/// A dictionary's keys put in a writer's order.
struct SortedKeys {
    /// `positions[i]` is the position in the dictionary of the `i`th key in order.
    var positions: [Int]
    /// The keys' bytes, when the sort copied them.
    var text: SortedKeyText? = nil
}

/// Every key of a dictionary in UTF-8, in one buffer, as a sort copied them: a writer walking a
/// large dictionary in sorted order writes its keys from here rather than visiting the key
/// strings in random order over the heap. A class, so that handing it over copies no buffers.
final class SortedKeyText {
    /// The keys' bytes in the dictionary's order.
    private let bytes: [UInt8]
    /// Where the bytes of the key at each position start in `bytes`, and `bytes.count` last.
    private let starts: [UInt32]

    init(bytes: [UInt8], starts: [UInt32]) {
        precondition(starts.last.map { Int($0) == bytes.count } ?? false, "the starts end with the byte count")
        self.bytes = bytes
        self.starts = starts
    }

    /// Calls `body` with the UTF-8 bytes of the key at dictionary position `position`.
    @inline(__always)
    func withKey<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[Int(starts[position])..<Int(starts[position + 1])]))
        }
    }
}

extension PlistKeyOrder: PlistKeySortOrder {}
extension JSONKeyOrder: PlistKeySortOrder {}
