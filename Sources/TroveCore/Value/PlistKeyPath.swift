/// A path to a value inside a property list, written the way `plutil` takes it: components
/// separated by `.`, numeric components indexing arrays. A backslash escapes the next character,
/// so `a\.b` is the single key `a.b`.
public struct PlistKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, unescaped.
    public var components: [String]

    /// A key path from components that are already unescaped.
    public init(components: [String]) { self.components = components }

    /// Parses `plutil` key-path text. An empty string is the path with one empty key, as in plutil.
    public init(_ text: String) {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for ch in text {
            if escaping {
                current.append(ch)
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else if ch == "." {
                parts.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        if escaping { current.append("\\") }
        parts.append(current)
        components = parts
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The path in `plutil` syntax, with dots and backslashes inside keys escaped.
    public var description: String {
        components.map { c in
            var out = ""
            for ch in c {
                if ch == "." || ch == "\\" { out.append("\\") }
                out.append(ch)
            }
            return out
        }.joined(separator: ".")
    }

    /// The path with one more component.
    public func appending(_ component: String) -> PlistKeyPath {
        PlistKeyPath(components: components + [component])
    }
}

extension PlistValue {
    /// The value at `path`, or nil when a component does not resolve: a missing key, an index out
    /// of range or not a number, or a scalar in the middle of the path.
    public subscript(keyPath path: PlistKeyPath) -> PlistValue? {
        var current = self
        for component in path.components {
            switch current {
            case .dictionary(let d):
                guard let next = d[component] else { return nil }
                current = next
            case .array(let a):
                guard let i = Int(component), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}
