/// Decodes one subtree of a ``LazyBinaryPlist`` into a ``PlistValue`` with the full reader's
/// rules, reading only the subtree's objects.
///
/// Like ``BinaryObjectScanner`` it follows nesting with an explicit stack (no input can exhaust
/// the thread's stack), decodes a shared object once and reuses its copy-on-write value (so
/// exponential sharing stays linear), and finds cycles per path. Its bookkeeping is keyed by the
/// objects it meets rather than sized by the file's object count, so decoding a small value of a
/// large file costs memory in proportion to the value.
struct LazySubtreeDecoder {
    let table: LazyObjectTable
    private var decoded: [Int: PlistValue] = [:]
    /// Containers on the current path, including those above the subtree's root.
    private var onPath: Set<Int>
    private var depth: Int
    private var valueCount = 0
    /// The expanded size of every decoded object (shared objects counted once per reference),
    /// checked against `maxExpandedValues` and `maxDecodedBytes` as the full reader checks it.
    private var expandedSizes: [Int: ExpandedSize] = [:]
    /// The object whose value was delivered last.
    private var lastDelivered = 0

    /// A decoder for a subtree whose root lies below the containers of `outerPath`.
    init(table: LazyObjectTable, outerPath: LazyAncestry?) {
        self.table = table
        onPath = Set(outerPath?.objects ?? [])
        depth = outerPath?.depth ?? 0
    }

    private struct Frame {
        var index: Int
        var refs: Int
        var count: Int
        var next = 0
        var isDictionary: Bool
        var elements: [PlistValue] = []
        var keys: [String] = []
        var entries = PlistDictionary()
        var expanded = ExpandedSize()
    }

    /// Decodes the subtree whose root has the (validated) header `top`.
    mutating func decode(_ top: BinaryObjectMarker) throws(PlistError) -> PlistValue {
        var stack: [Frame] = []
        lastDelivered = top.index
        var delivered = try begin(top, stack: &stack)
        while true {
            if let value = delivered {
                let size = expandedSizes[lastDelivered] ?? ExpandedSize()
                guard !stack.isEmpty else {
                    try checkExpansion(size, at: table.areaEnd)
                    return value
                }
                let last = stack.count - 1
                stack[last].expanded.add(size)
                if stack[last].isDictionary {
                    let key = stack[last].keys[stack[last].next - 1]
                    stack[last].expanded.bytes = stack[last].expanded.bytes.saturatingAdd(key.utf8.count)
                    // A repeated key keeps its first position and its first value.
                    if stack[last].entries.index(forKey: key) == nil { stack[last].entries[key] = value }
                } else {
                    stack[last].elements.append(value)
                }
            }
            let last = stack.count - 1
            if stack[last].next < stack[last].count {
                let frame = stack[last]
                let slot = frame.isDictionary ? frame.count + frame.next : frame.next
                stack[last].next += 1
                delivered = try begin(referencedAt: table.referencePosition(frame.refs, slot: slot), stack: &stack)
            } else {
                let frame = stack.removeLast()
                try checkExpansion(frame.expanded, at: frame.refs)
                expandedSizes[frame.index] = frame.expanded
                lastDelivered = frame.index
                depth -= 1
                onPath.remove(frame.index)
                let value: PlistValue = frame.isDictionary ? .dictionary(frame.entries) : .array(frame.elements)
                decoded[frame.index] = value
                delivered = value
            }
        }
    }

    /// Starts on the object the reference at `position` names.
    private mutating func begin(referencedAt position: Int, stack: inout [Frame]) throws(PlistError) -> PlistValue? {
        let index = try table.reference(at: position)
        lastDelivered = index
        if let known = decoded[index] { return known }
        if onPath.contains(index) {
            throw BinaryTrailer.error(.referenceCycle, at: position, "object \(index) contains itself through this reference")
        }
        return try begin(table.header(ofObject: index), stack: &stack)
    }

    /// Returns a scalar's value, or pushes a frame for a container and returns nil.
    private mutating func begin(_ header: BinaryObjectMarker, stack: inout [Frame]) throws(PlistError) -> PlistValue? {
        try countValues(1, at: header.start)
        switch header.kind {
        case .array, .dictionary:
            let isDictionary = header.kind == .dictionary
            try countValues(header.count, at: header.payload)
            depth += 1
            guard depth <= table.limits.maxDepth else {
                throw BinaryTrailer.error(
                    .depthLimit, at: header.payload, table.limits.message(exceeding: .depth))
            }
            onPath.insert(header.index)
            var frame = Frame(index: header.index, refs: header.payload, count: header.count, isDictionary: isDictionary)
            if isDictionary {
                // Keys first, as the full reader does; they are strings, so they never descend.
                frame.keys.reserveCapacity(header.count)
                for slot in 0..<header.count {
                    frame.keys.append(try key(referencedAt: table.referencePosition(header.payload, slot: slot)))
                }
                frame.entries = PlistDictionary(minimumCapacity: header.count)
            } else {
                frame.elements.reserveCapacity(header.count)
            }
            stack.append(frame)
            return nil
        default:
            let value = try table.scalar(header)
            decoded[header.index] = value
            expandedSizes[header.index] = ExpandedSize(scalar: value)
            return value
        }
    }

    /// The text of the key the reference at `position` names, refusing anything but a string
    /// before reading more of it.
    private mutating func key(referencedAt position: Int) throws(PlistError) -> String {
        let index = try table.reference(at: position)
        if let known = decoded[index] {
            guard case .string(let text) = known else { throw BinaryObjectArea.notAStringKey(index, referencedAt: position) }
            return text
        }
        let header = try table.keyHeader(of: index, referencedAt: position)
        try countValues(1, at: header.start)
        let text = try table.string(header)
        decoded[index] = .string(text)
        return text
    }

    private mutating func countValues(_ count: Int, at position: Int) throws(PlistError) {
        // count is bounded by the file size and valueCount by maxValues, so this cannot overflow.
        valueCount += count
        guard valueCount <= table.limits.maxValues else {
            throw BinaryTrailer.error(.sizeLimit, at: position, table.limits.message(exceeding: .values))
        }
    }

    /// Throws when a subtree expands past `maxExpandedValues` or `maxDecodedBytes`; checked as
    /// each container completes, as in the full reader.
    private func checkExpansion(_ size: ExpandedSize, at position: Int) throws(PlistError) {
        if let exceeded = size.exceeded(table.limits) {
            throw BinaryTrailer.error(exceeded.code, at: position, table.limits.message(exceeding: exceeded))
        }
    }
}
