/// What a language writes around and for the values of a literal; ``SourceLiteralLayout`` does the
/// rest.
///
/// plutil lays out Swift and Objective-C literals identically (four-space indentation, one
/// element or entry per line, a `,` after each, keys in `plutil -r`'s order) and differs only in
/// these spellings, so the layout is written once and the languages are plain data.
struct SourceLiteralSyntax: Sendable {
    /// What starts an array, through the end of its line (`[` and a newline).
    let arrayOpen: String
    let arrayClose: String
    /// What starts a dictionary, through the end of its line.
    let dictionaryOpen: String
    let dictionaryClose: String
    /// Appends a dictionary key and what separates it from its value.
    let appendKey: @Sendable (String, inout String) -> Void
    /// Appends a scalar. Validation has refused the kinds the language has no literal for.
    let appendScalar: @Sendable (PlistValue, inout String) -> Void
}

/// The layout both literal writers share, walked with an explicit stack of open containers:
/// validation bounds the depth, and the stack keeps a value at the ceiling from needing more
/// than a small thread stack.
enum SourceLiteralLayout {
    /// Appends `root` where the text currently ends; its containers close at depth 0.
    static func append(_ root: PlistValue, spelledAs syntax: SourceLiteralSyntax, to out: inout String) {
        var open: [PlistContainerCursor] = []
        if let opened = appendNode(root, spelledAs: syntax, to: &out) { open.append(opened) }
        while let top = open.indices.last {
            guard let position = open[top].advance() else {
                let container = open.removeLast()
                out += SourceLiteralSpelling.indentation(top)
                out += container.isDictionary ? syntax.dictionaryClose : syntax.arrayClose
                if !open.isEmpty { out += ",\n" }
                continue
            }
            out += SourceLiteralSpelling.indentation(top + 1)
            if open[top].isDictionary { syntax.appendKey(open[top].keys[position], &out) }
            if let opened = appendNode(open[top].values[position], spelledAs: syntax, to: &out) {
                open.append(opened)
            } else {
                out += ",\n"
            }
        }
    }

    /// Appends a scalar, or a container's opening line and returns the container to be opened.
    private static func appendNode(
        _ value: PlistValue, spelledAs syntax: SourceLiteralSyntax, to out: inout String
    ) -> PlistContainerCursor? {
        switch value {
        case .array(let items):
            out += syntax.arrayOpen
            return PlistContainerCursor(array: items)
        case .dictionary(let dictionary):
            out += syntax.dictionaryOpen
            return PlistContainerCursor(dictionary: dictionary, sortedBy: JSONKeyOrder.self)
        default:
            syntax.appendScalar(value, &out)
            return nil
        }
    }
}
