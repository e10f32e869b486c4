import Foundation

/// The pieces both literal writers spell the same way `plutil` spells them, including its quirks:
/// they are what make our output byte-identical to `plutil -convert swift|objc`.
enum SourceLiteralSpelling {
    /// One level of indentation: four spaces.
    static func indentation(_ depth: Int) -> String {
        String(repeating: "    ", count: depth)
    }

    /// The text between a string literal's quotes.
    ///
    /// plutil does not escape strings for either language. It backslashes only `"` and a fixed
    /// list of two-character sequences it found common in regular expressions (`\b`, `\s`, `\w`,
    /// `\.`, `\|`, `\*`, `\)`, `\(`), one after another in that order, so a lone `\` or a `\n`
    /// typed as two characters passes through unchanged. Foundation's replacement is used
    /// because it matches whole characters: a `"` carrying a combining mark is left alone, as in
    /// plutil.
    static func escapedText(_ text: String) -> String {
        var result = text
        for sequence in escapedSequences {
            result = result.replacingOccurrences(of: sequence, with: "\\" + sequence)
        }
        return result
    }

    private static let escapedSequences = ["\\b", "\\s", "\"", "\\w", "\\.", "\\|", "\\*", "\\)", "\\("]

    /// A real as C's `%f` prints it: six decimals and no exponent (`0.100000`, `nan`, `-inf`,
    /// and every digit of `1e300`), whatever the real's width.
    static func real(_ real: PlistReal) -> String {
        String(format: "%f", real.value)
    }

    /// True when the values are not all of one kind (as plutil groups them: integers of either
    /// sign are one kind, reals of either width another), so a Swift collection literal needs an
    /// explicit `Any` element type.
    static func isHeterogeneous<C: Collection>(_ values: C) -> Bool where C.Element == PlistValue {
        guard let first = values.first?.kind else { return false }
        return values.contains { $0.kind != first }
    }

    /// Checks `value` before anything is written, in plutil's order, and throws the error plutil
    /// reports for the first value (in the order the literal would list them) that cannot be
    /// written. `rejects` names the kinds the language has no literal for; UIDs and null are
    /// always refused, with plutil's message for them. Nesting deeper than `maxDepth` throws
    /// ``PlistError/Code/depthLimit``, the bound every writer promises.
    static func validate(
        _ value: PlistValue, rejecting rejects: Set<PlistValue.Kind>, message: String, maxDepth: Int
    ) throws(PlistError) {
        // plutil checks the whole tree for values outside the property-list types first, and only
        // then for kinds the language lacks; a file with both gets the first message.
        if let path = try firstPath(in: value, where: { $0 == .uid || $0 == .null }, maxDepth: maxDepth) {
            throw PlistError(
                .unsupportedValue, keyPath: path,
                "Dictionaries are required to have string keys in property lists")
        }
        if !rejects.isEmpty, let path = try firstPath(in: value, where: { rejects.contains($0) }, maxDepth: maxDepth) {
            throw PlistError(.unsupportedValue, keyPath: path, message)
        }
    }

    /// The key path of the first value whose kind satisfies `matches`, visiting dictionaries in
    /// written key order (``SourceLiteralLayout``'s), with an explicit stack of open containers.
    private static func firstPath(
        in root: PlistValue, where matches: (PlistValue.Kind) -> Bool, maxDepth: Int
    ) throws(PlistError) -> PlistKeyPath? {
        var open: [PlistContainerCursor] = []
        var pending: PlistValue? = root
        while true {
            if let value = pending {
                pending = nil
                if matches(value.kind) { return PlistContainerCursor.keyPath(open) }
                switch value {
                case .array(let items):
                    try checkDepth(open.count, maxDepth)
                    open.append(PlistContainerCursor(array: items))
                case .dictionary(let dictionary):
                    try checkDepth(open.count, maxDepth)
                    open.append(PlistContainerCursor(dictionary: dictionary, sortedBy: JSONKeyOrder.self))
                default:
                    break
                }
            }
            guard let top = open.indices.last else { return nil }
            if let position = open[top].advance() {
                pending = open[top].values[position]
            } else {
                open.removeLast()
            }
        }
    }

    private static func checkDepth(_ depth: Int, _ maxDepth: Int) throws(PlistError) {
        if depth >= maxDepth {
            throw PlistError(.depthLimit, "nesting is deeper than \(maxDepth) levels")
        }
    }
}
