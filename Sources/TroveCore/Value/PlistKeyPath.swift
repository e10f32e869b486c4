/// A path to a value inside a property list: dictionary keys and array indices from the root.
///
/// A component is a ``Component/key(_:)`` or an ``Component/index(_:)``, so the path to element 0
/// of an array and the path to the key `"0"` of a dictionary are different paths. Readers,
/// writers and the Codable layer build exact paths like these for their errors.
///
/// Paths are also written as text the way `plutil` takes them: components separated by `.`, a
/// backslash escaping the next character (`a\.b` is the single key `a.b`). Text cannot say which
/// of a key or an index a number is, so ``init(_:)`` makes every component a key, and a lookup
/// reads a key of decimal digits applied to an array as an index, as plutil does:
///
/// ```swift
/// let path = PlistKeyPath("Books.0.Title")      // [.key("Books"), .key("0"), .key("Title")]
/// value[keyPath: path]                           // the first book's title
/// PlistKeyPath(components: ["Books", 0, "Title"]) // [.key("Books"), .index(0), .key("Title")]
/// ```
public struct PlistKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    /// One step of a path: a dictionary key or an array index.
    public enum Component: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
        ExpressibleByIntegerLiteral
    {
        /// A dictionary key (or, from path text, a decimal index into an array).
        case key(String)
        /// A position in an array, from 0.
        case index(Int)

        public init(stringLiteral value: String) { self = .key(value) }
        public init(integerLiteral value: Int) { self = .index(value) }

        /// The key, or the index in decimal, unescaped.
        public var text: String {
            switch self {
            case .key(let key): return key
            case .index(let index): return String(index)
            }
        }

        /// The key this component names in a dictionary: its text, as plutil reads a path.
        public var key: String { text }

        /// The array position this component names: an index, or a key that is a decimal number
        /// (plutil's reading of path text); nil otherwise.
        public var arrayIndex: Int? {
            switch self {
            case .index(let index): return index
            case .key(let key): return Int(key)
            }
        }

        /// The component in `plutil` syntax, with dots and backslashes inside a key escaped.
        public var description: String {
            switch self {
            case .index(let index): return String(index)
            case .key(let key):
                var out = ""
                for ch in key {
                    if ch == "." || ch == "\\" { out.append("\\") }
                    out.append(ch)
                }
                return out
            }
        }
    }

    /// The components, root first.
    public var components: [Component]

    /// A path of the given components.
    public init(components: [Component]) { self.components = components }

    /// A path of dictionary keys, already unescaped.
    public init(keys: [String]) { self.components = keys.map(Component.key) }

    /// The path to the root.
    public static var root: PlistKeyPath { PlistKeyPath(components: []) }

    public init(arrayLiteral elements: Component...) { self.components = elements }

    /// Parses `plutil` key-path text; every component is a key. An empty string is the path with
    /// one empty key, as in plutil.
    public init(_ text: String) {
        var parts: [Component] = []
        var current = ""
        var escaping = false
        for ch in text {
            if escaping {
                current.append(ch)
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else if ch == "." {
                parts.append(.key(current))
                current = ""
            } else {
                current.append(ch)
            }
        }
        if escaping { current.append("\\") }
        parts.append(.key(current))
        components = parts
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The path in `plutil` syntax, with dots and backslashes inside keys escaped.
    public var description: String {
        components.map(\.description).joined(separator: ".")
    }

    /// True for the path to the root.
    public var isEmpty: Bool { components.isEmpty }

    /// The path with one more component.
    public func appending(_ component: Component) -> PlistKeyPath {
        PlistKeyPath(components: components + [component])
    }

    /// The path with a dictionary key added.
    public func appending(key: String) -> PlistKeyPath { appending(.key(key)) }

    /// The path with an array index added.
    public func appending(index: Int) -> PlistKeyPath { appending(.index(index)) }

    /// The path without its last component; the root's parent is the root.
    public var parent: PlistKeyPath { PlistKeyPath(components: Array(components.dropLast())) }
}

extension PlistValue {
    /// The value at `path`, or nil when a component does not resolve: a missing key, an index out
    /// of range, a key that is not a number applied to an array, an index applied to a dictionary,
    /// or a scalar in the middle of the path.
    public subscript(keyPath path: PlistKeyPath) -> PlistValue? {
        var current = self
        for component in path.components {
            switch current {
            case .dictionary(let d):
                guard case .key(let key) = component, let next = d[key] else { return nil }
                current = next
            case .array(let a):
                guard let i = component.arrayIndex, a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}
