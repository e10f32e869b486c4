/// The identity of a container's storage while a traversal holds the value: the addresses of
/// an array's element buffer, or of a dictionary's key and value buffers.
///
/// A binary plist's shared object decodes once and every reference shares that storage, so a
/// traversal that remembers what it finished per storage visits each shared object once instead
/// of once per path to it (2^40 times for a 1 KB file of doubly referenced arrays). The
/// addresses stay valid because the value being traversed keeps every buffer alive.
struct ContainerIdentity: Hashable {
    let first: UnsafeRawPointer?
    let second: UnsafeRawPointer?

    /// The identity of an array's storage; nil for an empty array, which has nothing to share.
    init?(_ elements: [PlistValue]) {
        guard !elements.isEmpty else { return nil }
        first = elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        second = nil
    }

    /// The identity of a dictionary's storage; nil for an empty dictionary.
    init?(_ dictionary: PlistDictionary) {
        guard !dictionary.isEmpty else { return nil }
        first = dictionary.keys.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        second = dictionary.values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
}

/// Structural equality of two values with an explicit stack, so that no nesting depth can
/// exhaust the call stack, and with container pairs already proven equal remembered, so that
/// shared objects are compared once.
enum PlistValueEquality {
    private struct PairIdentity: Hashable {
        let lhs: ContainerIdentity
        let rhs: ContainerIdentity
    }

    /// A pair of containers whose children are being compared.
    private struct Frame {
        enum Children {
            case arrays([PlistValue], [PlistValue])
            /// `sameOrder` when both have the same keys in the same order, so values pair up by
            /// position; otherwise each left key is looked up on the right.
            case dictionaries(PlistDictionary, PlistDictionary, sameOrder: Bool)
        }
        var children: Children
        var count: Int
        var next = 0
        var identity: PairIdentity?
    }

    static func equal(_ lhs: PlistValue, _ rhs: PlistValue) -> Bool {
        var stack: [Frame] = []
        var proven = Set<PairIdentity>()
        var pair: (PlistValue, PlistValue)? = (lhs, rhs)
        while true {
            if let (a, b) = pair {
                pair = nil
                switch compareOrOpen(a, b, proven: proven) {
                case .unequal: return false
                case .equal: break
                case .open(let frame): stack.append(frame)
                }
            }
            guard let top = stack.indices.last else { return true }
            if stack[top].next < stack[top].count {
                let i = stack[top].next
                stack[top].next += 1
                switch stack[top].children {
                case let .arrays(a, b):
                    pair = (a[i], b[i])
                case let .dictionaries(a, b, sameOrder):
                    if sameOrder {
                        pair = (a.values[i], b.values[i])
                    } else {
                        guard let other = b[a.keys[i]] else { return false }
                        pair = (a.values[i], other)
                    }
                }
            } else if let finished = stack.removeLast().identity {
                proven.insert(finished)
            }
        }
    }

    private enum Outcome {
        case equal, unequal
        case open(Frame)
    }

    /// Compares scalars outright; for containers, settles what needs no descent (counts, shared
    /// storage, pairs already proven) or returns the frame that compares their children.
    private static func compareOrOpen(_ a: PlistValue, _ b: PlistValue, proven: Set<PairIdentity>) -> Outcome {
        switch (a, b) {
        case let (.array(x), .array(y)):
            guard x.count == y.count else { return .unequal }
            guard let left = ContainerIdentity(x), let right = ContainerIdentity(y) else { return .equal }
            if left == right { return .equal }
            let identity = PairIdentity(lhs: left, rhs: right)
            if proven.contains(identity) { return .equal }
            return .open(Frame(children: .arrays(x, y), count: x.count, identity: identity))
        case let (.dictionary(x), .dictionary(y)):
            guard x.count == y.count else { return .unequal }
            guard let left = ContainerIdentity(x), let right = ContainerIdentity(y) else { return .equal }
            if left == right { return .equal }
            let identity = PairIdentity(lhs: left, rhs: right)
            if proven.contains(identity) { return .equal }
            let sameOrder = left.first == right.first || x.keys.elementsEqual(y.keys, by: { $0.hasSameUTF8(as: $1) })
            return .open(Frame(
                children: .dictionaries(x, y, sameOrder: sameOrder), count: x.count, identity: identity))
        case let (.string(x), .string(y)): return x == y ? .equal : .unequal
        case let (.integer(x), .integer(y)): return x == y ? .equal : .unequal
        case let (.real(x), .real(y)): return x == y ? .equal : .unequal
        case let (.bool(x), .bool(y)): return x == y ? .equal : .unequal
        case let (.date(x), .date(y)): return x == y ? .equal : .unequal
        case let (.data(x), .data(y)): return x == y ? .equal : .unequal
        case let (.uid(x), .uid(y)): return x == y ? .equal : .unequal
        case (.null, .null): return .equal
        default: return .unequal
        }
    }
}

/// A hash of a whole value computed with an explicit stack, each shared container hashed once.
///
/// Equal values get equal digests: a scalar's digest hashes its kind and payload, an array's its
/// elements' digests in order, and a dictionary's the sum of its entries' digests, so that key
/// order does not matter, as it does not for equality.
enum PlistValueDigest {
    private struct Frame {
        enum Children {
            case array([PlistValue])
            case dictionary(PlistDictionary)
        }
        var children: Children
        var count: Int
        var next = 0
        var identity: ContainerIdentity?
        var hasher = Hasher()
        /// The commutative sum of a dictionary's entry digests.
        var entrySum = 0
    }

    static func digest(_ value: PlistValue) -> Int {
        var stack: [Frame] = []
        var memo: [ContainerIdentity: Int] = [:]
        var pending: PlistValue? = value
        var finished: Int?
        while true {
            if let value = pending {
                pending = nil
                switch open(value, memo: memo) {
                case .digest(let d): finished = d
                case .frame(let frame): stack.append(frame)
                }
            }
            if let d = finished {
                finished = nil
                guard let top = stack.indices.last else { return d }
                switch stack[top].children {
                case .array:
                    stack[top].hasher.combine(d)
                case .dictionary(let entries):
                    var entry = Hasher()
                    entry.combine(entries.keys[stack[top].next - 1])
                    entry.combine(d)
                    stack[top].entrySum = stack[top].entrySum &+ entry.finalize()
                }
            }
            guard let top = stack.indices.last else { continue }
            if stack[top].next < stack[top].count {
                let i = stack[top].next
                stack[top].next += 1
                switch stack[top].children {
                case .array(let elements): pending = elements[i]
                case .dictionary(let entries): pending = entries.values[i]
                }
            } else {
                var frame = stack.removeLast()
                if case .dictionary = frame.children { frame.hasher.combine(frame.entrySum) }
                let d = frame.hasher.finalize()
                if let identity = frame.identity { memo[identity] = d }
                finished = d
            }
        }
    }

    private enum Opened {
        case digest(Int)
        case frame(Frame)
    }

    private static func open(_ value: PlistValue, memo: [ContainerIdentity: Int]) -> Opened {
        var hasher = Hasher()
        hasher.combine(value.kind)
        switch value {
        case .array(let elements):
            hasher.combine(elements.count)
            let identity = ContainerIdentity(elements)
            if let identity, let known = memo[identity] { return .digest(known) }
            return .frame(Frame(children: .array(elements), count: elements.count, identity: identity, hasher: hasher))
        case .dictionary(let entries):
            hasher.combine(entries.count)
            let identity = ContainerIdentity(entries)
            if let identity, let known = memo[identity] { return .digest(known) }
            return .frame(Frame(children: .dictionary(entries), count: entries.count, identity: identity, hasher: hasher))
        case .string(let s): hasher.combine(s)
        case .integer(let i): hasher.combine(i)
        case .real(let r): hasher.combine(r)
        case .bool(let b): hasher.combine(b)
        case .date(let d): hasher.combine(d)
        case .data(let d): hasher.combine(d)
        case .uid(let u): hasher.combine(u)
        case .null: break
        }
        return .digest(hasher.finalize())
    }
}
