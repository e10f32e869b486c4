import Foundation
import Testing

@testable import TroveCore

/// The XML writer following a layout with notes, checked against a model of the notes' rules:
/// documents in a file's own style (CRLF or spaces, comments, `&apos;`, hex integers,
/// `<true />`, `<string/>`, unsorted keys) are rendered from a tree, read, edited and written,
/// and the output must be the rendering of the edited tree. The model states the rules on its
/// own: a position keeps its leading trivia (a comment before it), a value keeps its spelling
/// only while it is unchanged, a container keeps the gap before its end tag while it stays the
/// same kind, and a replaced subtree is written as CF would, in the file's indentation.
@Suite("XML noted write")
struct XMLNotedWriteTests {
    // MARK: Model

    /// A node as the model renders it; the flags are spellings other than CF's.
    indirect enum Node {
        case integer(Int, hex: Bool)
        /// `apos`: each `'` written `&apos;`; an empty string with `apos` is `<string/>`.
        case string(String, apos: Bool)
        case bool(Bool, spaced: Bool)
        /// `commentBeforeEnd`: a comment in the gap before the end tag.
        case array([Item], commentBeforeEnd: Bool)
        case dictionary([Entry], commentBeforeEnd: Bool)

        var value: PlistValue {
            switch self {
            case .integer(let n, _): .integer(PlistInteger(n))
            case .string(let s, _): .string(s)
            case .bool(let b, _): .bool(b)
            case .array(let items, _): .array(items.map(\.node.value))
            case .dictionary(let entries, _):
                .dictionary(PlistDictionary(uniqueKeys: entries.map(\.key), values: entries.map(\.item.node.value)))
            }
        }
    }

    /// A child position: `comment` puts a comment in its leading trivia, which stays with the
    /// position whatever value it holds.
    struct Item {
        var node: Node
        var comment = false
    }

    struct Entry {
        var key: String
        /// The key written with `&apos;` for its `'`.
        var keyApos = false
        var item: Item
    }

    struct Style {
        var lineBreak: String
        var unit: String

        func indent(_ depth: Int) -> String { lineBreak + String(repeating: unit, count: depth) }

        func document(_ root: Node) -> String {
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + lineBreak + "<plist version=\"1.0\">" + lineBreak
                + render(root, depth: 0) + lineBreak + "</plist>" + lineBreak
        }

        func leading(_ item: Item, depth: Int) -> String {
            (item.comment ? indent(depth) + "<!-- note -->" : "") + indent(depth)
        }

        func render(_ node: Node, depth: Int) -> String {
            switch node {
            case .integer(let n, let hex):
                return "<integer>" + (hex ? "0x" + String(n, radix: 16) : String(n)) + "</integer>"
            case .string(let s, let apos):
                if apos && s.isEmpty { return "<string/>" }
                return "<string>" + (apos ? s.replacingOccurrences(of: "'", with: "&apos;") : s) + "</string>"
            case .bool(let b, let spaced):
                return "<" + (b ? "true" : "false") + (spaced ? " />" : "/>")
            case .array(let items, let comment):
                guard !items.isEmpty else { return "<array/>" }
                let children = items.map { leading($0, depth: depth + 1) + render($0.node, depth: depth + 1) }
                return "<array>" + children.joined() + closing(comment, depth: depth) + "</array>"
            case .dictionary(let entries, let comment):
                guard !entries.isEmpty else { return "<dict/>" }
                let children = entries.map { entry in
                    let key = entry.keyApos ? entry.key.replacingOccurrences(of: "'", with: "&apos;") : entry.key
                    return leading(entry.item, depth: depth + 1) + "<key>" + key + "</key>" + indent(depth + 1)
                        + render(entry.item.node, depth: depth + 1)
                }
                return "<dict>" + children.joined() + closing(comment, depth: depth) + "</dict>"
            }
        }

        private func closing(_ comment: Bool, depth: Int) -> String {
            (comment ? indent(depth + 1) + "<!-- end -->" : "") + indent(depth)
        }
    }

    /// Deterministic random numbers (SplitMix64), so that a failure repeats.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Builds trees, with every spelling drawn at random (`quirky`) or none (a fresh value, as
    /// an edit brings). Values are unique per generator, so a replacement never equals the
    /// value it replaces.
    struct Generator {
        var random: Random
        var counter = 0

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func scalar(quirky: Bool) -> Node {
            counter += 1
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .integer(1000 + counter, hex: quirky && chance(50))
            case 1: return .string("it's \(counter)", apos: quirky && chance(50))
            case 2: return .string("", apos: quirky && chance(70))
            default: return .bool(counter % 2 == 0, spaced: quirky && chance(40))
            }
        }

        mutating func node(depth: Int, quirky: Bool) -> Node {
            guard depth < 4, chance(depth == 0 ? 100 : 35) else { return scalar(quirky: quirky) }
            return container(isDictionary: chance(50), depth: depth, quirky: quirky)
        }

        mutating func container(isDictionary: Bool, depth: Int, quirky: Bool) -> Node {
            let count = Int.random(in: 1...6, using: &random)
            let comment = quirky && chance(30)
            if isDictionary {
                let entries = (0..<count).map { _ in entry(depth: depth + 1, quirky: quirky) }
                return .dictionary(entries, commentBeforeEnd: comment)
            }
            return .array((0..<count).map { _ in item(depth: depth + 1, quirky: quirky) }, commentBeforeEnd: comment)
        }

        mutating func item(depth: Int, quirky: Bool) -> Item {
            Item(node: node(depth: depth, quirky: quirky), comment: quirky && chance(20))
        }

        /// Keys are unique in the whole tree and out of sorted order (descending numbers).
        mutating func entry(depth: Int, quirky: Bool) -> Entry {
            counter += 1
            let apos = quirky && chance(30)
            return Entry(key: "k'\(100_000 - counter)", keyApos: apos, item: item(depth: depth, quirky: quirky))
        }
    }

    // MARK: Edits

    /// The paths of every node below the root, as child positions.
    static func paths(_ node: Node, prefix: [Int] = []) -> [[Int]] {
        let children: [Node] = switch node {
        case .array(let items, _): items.map(\.node)
        case .dictionary(let entries, _): entries.map(\.item.node)
        default: []
        }
        return children.indices.flatMap { [prefix + [$0]] + paths(children[$0], prefix: prefix + [$0]) }
    }

    /// Calls `body` on the node at `path`.
    static func modify(_ node: inout Node, at path: ArraySlice<Int>, _ body: (inout Node) -> Void) {
        guard let first = path.first else { return body(&node) }
        switch node {
        case .array(var items, let comment):
            modify(&items[first].node, at: path.dropFirst(), body)
            node = .array(items, commentBeforeEnd: comment)
        case .dictionary(var entries, let comment):
            modify(&entries[first].item.node, at: path.dropFirst(), body)
            node = .dictionary(entries, commentBeforeEnd: comment)
        default:
            Issue.record("no child \(first) in a scalar")
        }
    }

    /// One random edit of the node at a random path: replaced by a fresh scalar or a fresh
    /// container of the other kind, or a child appended or removed at the end of a container.
    /// The edits of one document touch disjoint subtrees (`edited` holds their paths): a second
    /// edit of one container would put fresh children at positions whose original notes the
    /// model does not follow (a child appended where one was removed takes that child's notes).
    static func edit(_ root: inout Node, with generator: inout Generator, edited: inout [[Int]]) {
        let free = paths(root).filter { path in
            !edited.contains { $0.starts(with: path) || path.starts(with: $0) }
        }
        guard !free.isEmpty else { return }
        let path = free[Int.random(in: 0..<free.count, using: &generator.random)]
        edited.append(path)
        let choice = Int.random(in: 0..<4, using: &generator.random)
        modify(&root, at: path[...]) { node in
            switch (choice, node) {
            case (0, _):
                // A different value: an equal one keeps its spelling, as it should.
                var fresh = generator.scalar(quirky: false)
                while fresh.value == node.value { fresh = generator.scalar(quirky: false) }
                node = fresh
            case (1, .array):
                node = generator.container(isDictionary: true, depth: path.count, quirky: false)
            case (1, _):
                node = generator.container(isDictionary: false, depth: path.count, quirky: false)
            case (2, .array(var items, let comment)):
                items.append(generator.item(depth: path.count + 1, quirky: false))
                node = .array(items, commentBeforeEnd: comment)
            case (2, .dictionary(var entries, let comment)):
                entries.append(generator.entry(depth: path.count + 1, quirky: false))
                node = .dictionary(entries, commentBeforeEnd: comment)
            case (_, .array(var items, let comment)):
                items.removeLast()
                node = .array(items, commentBeforeEnd: comment)
            case (_, .dictionary(var entries, let comment)):
                entries.removeLast()
                node = .dictionary(entries, commentBeforeEnd: comment)
            default:
                node = generator.container(isDictionary: true, depth: path.count, quirky: false)
            }
        }
    }

    static func write(_ value: PlistValue, layout: XMLLayout?) throws -> String {
        String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
    }

    // MARK: Tests

    static let styles = [
        Style(lineBreak: "\n", unit: "\t"), Style(lineBreak: "\r\n", unit: "  "), Style(lineBreak: "\n", unit: "    "),
    ]

    @Test("random noted documents come back byte for byte, and edited ones as the model writes them", arguments: 0..<3)
    func editedDocumentsFollowTheModel(styleIndex: Int) throws {
        let style = Self.styles[styleIndex]
        var generator = Generator(random: Random(state: UInt64(styleIndex) &* 7919 &+ 17))
        var matched = 0
        for trial in 0..<150 {
            let original = generator.container(isDictionary: trial % 2 == 0, depth: 0, quirky: true)
            let text = style.document(original)
            let (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
            try #require(value == original.value, "trial \(trial): the model's document reads as its value")
            let layout1 = try #require(layout)
            #expect(try Self.write(value, layout: layout1) == text, "trial \(trial): unedited")
            var changed = original
            var edited: [[Int]] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator.random) {
                Self.edit(&changed, with: &generator, edited: &edited)
            }
            let out = try Self.write(changed.value, layout: layout1)
            let expected = style.document(changed)
            #expect(out == expected, "trial \(trial):\n\(text)\n--- written ---\n\(out)\n--- expected ---\n\(expected)")
            if out == expected { matched += 1 }
        }
        #expect(matched == 150)
    }

    @Test("a replaced container's subtree is skipped: the notes after it stay on their nodes")
    func replacedContainerKeepsLaterNotes() throws {
        let text = XMLTestSupport.document(
            "<array>\n\t<array>\n\t\t<integer>0x1</integer>\n\t\t<dict>\n\t\t\t<key>a</key>\n\t\t\t<integer>0x2</integer>\n\t\t</dict>\n\t</array>\n\t<integer>0x3</integer>\n\t<true />\n</array>")
        var (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
        #expect(try Self.write(value, layout: layout) == text)
        value = [5, 3, true]
        #expect(try Self.write(value, layout: layout) == XMLTestSupport.document(
            "<array>\n\t<integer>5</integer>\n\t<integer>0x3</integer>\n\t<true />\n</array>"))
        // And a scalar grown into a container: its children have no notes, the later ones keep theirs.
        value = [[1, [:] as PlistValue], ["x": 3] as PlistValue, true]
        #expect(try Self.write(value, layout: layout) == XMLTestSupport.document(
            "<array>\n\t<array>\n\t\t<integer>0x1</integer>\n\t\t<dict/>\n\t</array>\n\t<dict>\n\t\t<key>x</key>\n\t\t<integer>3</integer>\n\t</dict>\n\t<true />\n</array>"))
    }

    @Test("the node-order cursor answers as a search of the records does, in any order of questions")
    func nodeOrderCursor() {
        struct Record: XMLNodeNumbered {
            let node: Int
            let tag: Int
        }
        var random = Random(state: 42)
        for round in 0..<200 {
            var nodes = (0..<Int.random(in: 0...30, using: &random)).map { _ in Int.random(in: 0..<80, using: &random) }
            nodes.sort()
            let records = nodes.enumerated().map { Record(node: $0.element, tag: $0.offset) }
            var cursor = XMLNodeOrderCursor(records)
            var asked = 0
            for _ in 0..<60 {
                // Mostly forward, as a writer asks; sometimes back, sometimes the same node again.
                let step = Int.random(in: 0..<10, using: &random)
                asked = step == 0 ? Int.random(in: 0..<85, using: &random) : step < 3 ? asked : asked + Int.random(in: 1...4, using: &random)
                let expected = records.first { $0.node == asked }
                #expect(cursor.record(at: asked)?.tag == expected?.tag, "round \(round), node \(asked)")
                #expect(cursor.hasRecord(at: asked) == (expected != nil), "round \(round), node \(asked)")
            }
        }
    }
}
