/// The key a coding path takes at one step: a container's own key, an array index, or the
/// `super` key of `superEncoder()`/`superDecoder()`.
///
/// Indexes and `super` are kept apart from `any CodingKey` so that the common steps cost no
/// existential box; ``codingKey`` makes the public key only when a path is asked for.
enum CodingPathStep {
    case key(any CodingKey)
    case index(Int)
    case superKey

    /// The step as Foundation reports it: indexes as `"Index N"` with an integer value, `super`
    /// as the string `"super"`.
    var codingKey: any CodingKey {
        switch self {
        case .key(let key): return key
        case .index(let index): return PlistCodingKey(index: index)
        case .superKey: return PlistCodingKey.superKey
        }
    }
}

/// One step of a coding path, linked to its parent.
///
/// Encoders and decoders hand out paths on request only (`codingPath`, errors), so a step is a
/// node that points up; nothing walks or copies the path while values are coded. The root path
/// is `nil`.
final class CodingPathNode {
    let parent: CodingPathNode?
    let step: CodingPathStep
    /// The number of steps from the root, this one included.
    let depth: Int

    init(parent: CodingPathNode?, step: CodingPathStep) {
        self.parent = parent
        self.step = step
        self.depth = (parent?.depth ?? 0) + 1
    }

    /// The path from the root to this node.
    static func path(_ node: CodingPathNode?) -> [any CodingKey] {
        guard let node else { return [] }
        var keys = [any CodingKey]()
        keys.reserveCapacity(node.depth)
        var current: CodingPathNode? = node
        while let step = current {
            keys.append(step.step.codingKey)
            current = step.parent
        }
        keys.reverse()
        return keys
    }

    /// The path of `node` with `step` appended, for an error about a value not yet entered.
    static func path(_ node: CodingPathNode?, appending step: CodingPathStep?) -> [any CodingKey] {
        var keys = path(node)
        if let step { keys.append(step.codingKey) }
        return keys
    }

    /// `node` with `step` appended; `nil` adds nothing.
    @inline(__always)
    static func appending(_ node: CodingPathNode?, _ step: CodingPathStep?) -> CodingPathNode? {
        guard let step else { return node }
        return CodingPathNode(parent: node, step: step)
    }
}

/// The coding key Foundation's property-list coders use for array positions (`"Index 3"`, 3),
/// for `super` and for the string keys of `[String: T]` dictionaries.
struct PlistCodingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    init(index: Int) {
        self.stringValue = "Index \(index)"
        self.intValue = index
    }

    static let superKey = PlistCodingKey(stringValue: "super")
}
