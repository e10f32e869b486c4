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
        isDictionary = false
        count = elements.count
    }

    /// A cursor over a dictionary's entries, in the dictionary's own order.
    init(dictionary: PlistDictionary) {
        values = dictionary.values
        keys = dictionary.keys
        order = []
        isDictionary = true
        count = keys.count
    }

    /// A cursor over a dictionary's entries with the keys in `Order`; sorting positions leaves
    /// the dictionary uncopied and unhashed. Generic rather than taking a comparison closure so
    /// that each writer's comparison is specialized into the sort.
    init<Order: PlistKeySortOrder>(dictionary: PlistDictionary, sortedBy _: Order.Type) {
        values = dictionary.values
        keys = dictionary.keys
        order = keys.withUnsafeBufferPointer { keys in
            // A dictionary read from a file that a sorting writer wrote is in order already: one
            // pass of neighbour comparisons finds that, and the walk then needs no positions.
            var sorted = 1
            while sorted < keys.count && Order.precedes(keys[sorted - 1], keys[sorted]) { sorted += 1 }
            return sorted >= keys.count ? [] : Order.sortedPositions(of: keys)
        }
        isDictionary = true
        count = keys.count
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
    /// The positions of `keys` in this order: `result[i]` is the position of the `i`th key.
    static func sortedPositions(of keys: UnsafeBufferPointer<String>) -> [Int]
}

extension PlistKeySortOrder {
    static func sortedPositions(of keys: UnsafeBufferPointer<String>) -> [Int] {
        // Compared through a buffer pointer, which lends its keys: through an array, the sort
        // retains and releases both keys of every comparison.
        keys.indices.sorted { precedes(keys[$0], keys[$1]) }
    }
}

extension PlistKeyOrder: PlistKeySortOrder {}
extension JSONKeyOrder: PlistKeySortOrder {}
