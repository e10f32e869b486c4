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

/// A dictionary being encoded: keys in the order they were first encoded.
///
/// Encoding a key again replaces its value in place, as Foundation's ordered dictionary does.
/// Two keys are the same when Swift calls them equal and both or neither are ASCII: the rule of
/// Foundation's binary writer, whose uniquing never merges an ASCII string with a non-ASCII one
/// (the Kelvin sign and `K` stay two keys). The XML writer merges those too (see
/// ``CodableXMLWriter``).
final class EncodedDictionary {
    // Unchecked exclusivity, as for ``EncodedArray/elements``.
    @exclusivity(unchecked) private(set) var keys: [String]
    @exclusivity(unchecked) private(set) var values: [EncodedNode]
    let domain: EncodingDomain
    /// Positions by key, kept once there are more than ``linearLimit`` keys.
    @exclusivity(unchecked) private var index: [UniquingKey: Int]?

    private static let linearLimit = 12

    init(domain: EncodingDomain) {
        self.domain = domain
        keys = []
        values = []
    }

    /// Keys the caller knows to be distinct (a Swift dictionary's), in their final order.
    init(domain: EncodingDomain, distinctKeys keys: [String], values: [EncodedNode]) {
        self.domain = domain
        self.keys = keys
        self.values = values
        if keys.count > Self.linearLimit { buildIndex() }
    }

    var count: Int { keys.count }

    /// The value for `key`, if any.
    subscript(key: String) -> EncodedNode? {
        position(of: key).map { values[$0] }
    }

    /// Sets the value for `key`: in place when the key is there, at the end otherwise.
    func insert(_ value: EncodedNode, forKey key: String) {
        if let position = position(of: key) {
            values[position] = value
            return
        }
        if keys.isEmpty {
            keys.reserveCapacity(8)
            values.reserveCapacity(8)
        }
        keys.append(key)
        values.append(value)
        if index != nil {
            index![UniquingKey(key)] = keys.count - 1
        } else if keys.count > Self.linearLimit {
            buildIndex()
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[UniquingKey(key)] }
        if key.isASCII {
            // An ASCII key equals only a key of the same bytes: a non-ASCII string that Swift
            // calls equal to it is longer, so comparing lengths first skips most keys.
            let length = key.utf8.count
            for i in keys.indices where keys[i].utf8.count == length && keys[i] == key { return i }
            return nil
        }
        for i in keys.indices where keys[i] == key && !keys[i].isASCII { return i }
        return nil
    }

    private func buildIndex() {
        var table = [UniquingKey: Int](minimumCapacity: keys.count * 2)
        for (i, key) in keys.enumerated() { table[UniquingKey(key)] = i }
        index = table
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
            let (keys, values) = dictionary.mergedEntries
            return .dictionary(PlistDictionary(distinctKeys: keys, values: values.map(\.plistValue)))
        }
    }
}

extension EncodedDictionary {
    /// The entries with keys that Swift calls equal merged (the first spelling, the last value),
    /// in first-seen order: what a dictionary of the value model, or Foundation's XML writer,
    /// holds. Only a non-ASCII key can equal a key it was kept apart from.
    var mergedEntries: (keys: [String], values: [EncodedNode]) {
        guard keys.contains(where: { !$0.isASCII }) else { return (keys, values) }
        var outKeys: [String] = []
        var outValues: [EncodedNode] = []
        var position: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            if let at = position[key] {
                outValues[at] = value
            } else {
                position[key] = outKeys.count
                outKeys.append(key)
                outValues.append(value)
            }
        }
        return (outKeys, outValues)
    }
}
