/// Something recorded for one node of a document, by its pre-order node number.
protocol XMLNodeNumbered {
    var node: Int { get }
}

extension Array where Element: XMLNodeNumbered {
    /// The first position in `0..<end` whose record's node is not below `node`, by binary
    /// search in records sorted by node number (`end` when there is none).
    func firstPosition(atOrAfter node: Int, before end: Int) -> Int {
        var low = 0, high = end
        while low < high {
            let middle = (low + high) / 2
            if self[middle].node < node { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A lookup by node number in records sorted by node number, for a walk that asks in
/// increasing order, as ``XMLEmitter`` does (the original node numbers it follows only grow).
///
/// Records are sparse next to the nodes asked about, so the common answer is "none": the cursor
/// keeps the node numbers on either side of its place, and a node strictly between them has no
/// record, which is two comparisons instead of a hash or a binary search per node. Anything else
/// moves the place forward; a node asked for out of order is found by binary search, so the
/// answer never depends on the order of the questions. With several records for one node, the
/// first is found.
struct XMLNodeOrderCursor<Record: XMLNodeNumbered> {
    private let records: [Record]
    /// The first record whose node is not below the node asked last.
    private var place = 0
    /// The node of the record before `place`, or `Int.min` when there is none.
    private var below = Int.min
    /// The node of the record at `place`, or `Int.max` past the end.
    private var next: Int

    init(_ records: [Record]) {
        self.records = records
        next = records.first?.node ?? Int.max
    }

    /// The record for `node`, if there is one.
    @inline(__always)
    mutating func record(at node: Int) -> Record? {
        if node > below && node < next { return nil }
        return seek(node)
    }

    /// Whether some record is for `node`.
    @inline(__always)
    mutating func hasRecord(at node: Int) -> Bool {
        if node > below && node < next { return false }
        return seek(node) != nil
    }

    private mutating func seek(_ node: Int) -> Record? {
        if node <= below { place = records.firstPosition(atOrAfter: node, before: place) }
        while place < records.count && records[place].node < node { place += 1 }
        below = place > 0 ? records[place - 1].node : Int.min
        next = place < records.count ? records[place].node : Int.max
        return next == node ? records[place] : nil
    }
}

/// The number of a node that has a note, for a ``XMLNodeOrderCursor`` over a layout's notes.
struct XMLNotedNode: XMLNodeNumbered {
    let node: Int

    /// The noted node numbers of `notes`, in order.
    static func sorted(_ notes: [Int: XMLNodeNote]) -> [XMLNotedNode] {
        notes.isEmpty ? [] : notes.keys.sorted().map(XMLNotedNode.init)
    }
}
