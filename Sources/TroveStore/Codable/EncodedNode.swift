import Foundation
import TroveCore

/// What the encoder builds: a property-list tree that still knows the Swift type each number
/// came from.
///
/// ``PlistValue`` cannot be the encoder's tree because Foundation's binary writer spells numbers
/// by their Swift type, not their value: a `UInt` or `UInt64` is always a 16-byte integer (`5` as
/// `UInt64` and `5` as `Int` are two different objects), a `Float` a 32-bit real. Containers are
/// classes because Codable hands out a nested container before it is filled.
enum EncodedNode {
    case string(String)
    /// Any signed integer, and unsigned integers narrower than 64 bits.
    case signed(Int64)
    /// `UInt` and `UInt64`.
    case unsigned(UInt64)
    case float(Float)
    case double(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01.
    case date(Double)
    case data(Data)
    /// `encodeNil()`: written as the string `"$null"`, as Foundation does.
    case null
    case array(EncodedArray)
    case dictionary(EncodedDictionary)
    /// A scalar encoded by a `superEncoder()` straight into its parent's container; see
    /// ``EncodingDomain``.
    case foreign(ForeignScalar)

    /// True for the kinds Foundation refuses at the top level of a document.
    var isTopLevelFragment: Bool {
        switch self {
        case .array, .dictionary, .data: return false
        case .foreign(let foreign): return foreign.node.isTopLevelFragment
        default: return true
        }
    }

    /// The name Foundation's top-level refusal uses for this kind ("number", "string", ...).
    var fragmentName: String {
        switch self {
        case .bool: return "boolean"
        case .signed, .unsigned, .float, .double: return "number"
        case .string, .null: return "string"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .foreign(let foreign): return foreign.node.fragmentName
        }
    }

    /// The spelling Foundation's coders give `nil`.
    static let nullString = "$null"
}

/// Which encoder made a node, for the binary writer's uniquing.
///
/// Foundation's `superEncoder()` is an encoder of its own with its own uniquing table, so a
/// string or number encoded through it is a separate object from an equal one encoded
/// elsewhere (a class's `name` key is stored again under `super`). Containers carry the domain
/// of the encoder that made them, which is the domain of their keys and of the scalars put in
/// them; a scalar a `superEncoder()` hands straight to its parent is ``EncodedNode/foreign(_:)``.
typealias EncodingDomain = Int

/// A scalar of another ``EncodingDomain`` than the container holding it.
final class ForeignScalar {
    let node: EncodedNode
    let domain: EncodingDomain

    init(node: EncodedNode, domain: EncodingDomain) {
        self.node = node
        self.domain = domain
    }
}

/// An array being encoded.
final class EncodedArray {
    // Unchecked: the encoder touches it from one thread, never in overlapping accesses, and the
    // dynamic exclusivity checks cost about a tenth of encoding.
    @exclusivity(unchecked) var elements: [EncodedNode]
    let domain: EncodingDomain

    init(domain: EncodingDomain, _ elements: [EncodedNode] = []) {
        self.domain = domain
        self.elements = elements
    }
}

/// A dictionary being encoded: every key in the order it was encoded, repeats included.
///
/// Encoding a key again replaces its value in place in Foundation's ordered dictionary: the
/// entry keeps the first position and takes the last value. Two keys are the same there when
/// Swift calls them equal and both or neither are ASCII: the rule of Foundation's binary
/// writer, whose uniquing never merges an ASCII string with a non-ASCII one (the Kelvin sign and
/// `K` stay two keys). The XML writer merges those too (see ``mergedEntries``).
///
/// Repeats are rare, and looking for one at every insert cost a tenth of encoding, so keys are
/// only appended here and the writers merge repeats as they write: the binary writer when a key
/// object comes back that the dictionary already holds, the XML writer when sorting finds two
/// keys equal (see ``mergedEntries``).
final class EncodedDictionary {
    // Unchecked exclusivity, as for ``EncodedArray/elements``.
    @exclusivity(unchecked) private(set) var keys: [String]
    @exclusivity(unchecked) private(set) var values: [EncodedNode]
    let domain: EncodingDomain
    /// True when the keys cannot repeat (a Swift dictionary's).
    let keysAreDistinct: Bool
    /// Latest positions by key, built by ``subscript(_:)`` once a lookup would scan more than
    /// ``linearLimit`` keys, and kept up to date from then on.
    @exclusivity(unchecked) private var index: [UniquingKey: Int]?

    private static let linearLimit = 16

    init(domain: EncodingDomain) {
        self.domain = domain
        keys = []
        values = []
        keysAreDistinct = false
    }

    /// Keys the caller knows to be distinct (a Swift dictionary's), in their final order.
    init(domain: EncodingDomain, distinctKeys keys: [String], values: [EncodedNode]) {
        self.domain = domain
        self.keys = keys
        self.values = values
        keysAreDistinct = true
    }

    /// True when nothing was encoded into it.
    var isEmpty: Bool { keys.isEmpty }

    /// The latest value for `key`, if any (a nested container asked for a second time).
    subscript(key: String) -> EncodedNode? {
        if index == nil, keys.count > Self.linearLimit {
            var table = [UniquingKey: Int](minimumCapacity: keys.count * 2)
            for (i, key) in keys.enumerated() { table[UniquingKey(key)] = i }
            index = table
        }
        if let index { return index[UniquingKey(key)].map { values[$0] } }
        let probe = UniquingKey(key)
        for i in keys.indices.reversed() where UniquingKey(keys[i]) == probe { return values[i] }
        return nil
    }

    /// Encodes `value` under `key`; a repeated key is merged when the dictionary is written.
    @inline(__always)
    func insert(_ value: EncodedNode, forKey key: String) {
        if keys.isEmpty {
            keys.reserveCapacity(8)
            values.reserveCapacity(8)
        }
        keys.append(key)
        values.append(value)
        if index != nil { index![UniquingKey(key)] = keys.count - 1 }
    }
}

/// A string under the equality of Foundation's binary uniquing: Swift's `==`, except that an
/// ASCII string never equals a non-ASCII one.
struct UniquingKey: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (a: UniquingKey, b: UniquingKey) -> Bool {
        a.string == b.string && a.string.isASCII == b.string.isASCII
    }

    func hash(into hasher: inout Hasher) { string.hash(into: &hasher) }
}

extension String {
    /// True when every code unit is ASCII.
    var isASCII: Bool {
        if let answer = utf8.withContiguousStorageIfAvailable({ bytes in Self.allASCII(bytes) }) {
            return answer
        }
        return utf8.allSatisfy { $0 < 0x80 }
    }

    static func allASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        let count = bytes.count
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }
}

extension EncodedNode {
    /// How many nodes the tree holds (dictionary keys included), and how many references its
    /// containers hold: what the writers size their buffers by.
    var treeSize: (nodes: Int, references: Int) {
        switch self {
        case .foreign(let foreign): return foreign.node.treeSize
        case .array(let array):
            var total = (nodes: 1, references: array.elements.count)
            for element in array.elements {
                let inner = element.treeSize
                total.nodes += inner.nodes
                total.references += inner.references
            }
            return total
        case .dictionary(let dictionary):
            var total = (nodes: 1 + dictionary.keys.count, references: 2 * dictionary.keys.count)
            for value in dictionary.values {
                let inner = value.treeSize
                total.nodes += inner.nodes
                total.references += inner.references
            }
            return total
        default:
            return (1, 0)
        }
    }

    /// The tree as a ``PlistValue``: integers lose the Swift type they came from, and `nil` is
    /// the string `"$null"`, as in every document Foundation writes.
    var plistValue: PlistValue {
        switch self {
        case .string(let s): return .string(s)
        case .signed(let v): return .integer(PlistInteger(v))
        case .unsigned(let v): return .integer(PlistInteger(v))
        case .float(let v): return .real(PlistReal(v))
        case .double(let v): return .real(PlistReal(v))
        case .bool(let v): return .bool(v)
        case .date(let v): return .date(PlistDate(secondsSinceReferenceDate: v))
        case .data(let v): return .data(v)
        case .null: return .string(Self.nullString)
        case .foreign(let foreign): return foreign.node.plistValue
        case .array(let array): return .array(array.elements.map(\.plistValue))
        case .dictionary(let dictionary):
            let entries = dictionary.mergedEntries
            return .dictionary(PlistDictionary(
                distinctKeys: entries.map { dictionary.keys[$0.key] },
                values: entries.map { dictionary.values[$0.value].plistValue }))
        }
    }
}

extension EncodedDictionary {
    /// The entries as Foundation's XML writer and the value model hold them, by position in
    /// ``keys`` and ``values``, in first-seen order: repeats under the binary writer's equality
    /// merged (the first position, the last value), then keys Swift calls equal merged (the
    /// first spelling, and the value of the one placed last).
    var mergedEntries: [(key: Int, value: Int)] {
        if keysAreDistinct && !keys.contains(where: { !$0.isASCII }) {
            return keys.indices.map { ($0, $0) }
        }
        // Keys Swift calls equal, by first position; within a group, the ASCII and the
        // non-ASCII spellings are the binary writer's two distinct keys (at most one each).
        struct Group {
            var first: Int
            var ascii: (first: Int, last: Int)?
            var other: (first: Int, last: Int)?
        }
        var groups: [Group] = []
        var position: [String: Int] = [:]
        for (i, key) in keys.enumerated() {
            let ascii = key.isASCII
            if let at = position[key] {
                if ascii {
                    groups[at].ascii = (groups[at].ascii?.first ?? i, i)
                } else {
                    groups[at].other = (groups[at].other?.first ?? i, i)
                }
            } else {
                position[key] = groups.count
                groups.append(Group(first: i, ascii: ascii ? (i, i) : nil, other: ascii ? nil : (i, i)))
            }
        }
        return groups.map { group in
            // The one of the two distinct keys first encoded later stands later in Foundation's
            // dictionary, so its last value is the one kept.
            switch (group.ascii, group.other) {
            case let (a?, o?): return (group.first, a.first > o.first ? a.last : o.last)
            case let (a?, nil): return (group.first, a.last)
            case let (nil, o?): return (group.first, o.last)
            case (nil, nil): return (group.first, group.first)
            }
        }
    }
}
