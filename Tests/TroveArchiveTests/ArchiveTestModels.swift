import Foundation
import Trove

/// A tree node with a pointer back to its parent: the cycle every tree of documents has.
final class TreeNode: KeyedArchivable {
    static let archiveClassName = "TreeNode"
    var name: String
    weak var parent: TreeNode?
    var children: [TreeNode] = []

    init(_ name: String, children: [TreeNode] = []) {
        self.name = name
        self.children = children
        for child in children { child.parent = self }
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decode([TreeNode].self, forKey: "children")
        try decoder.decodeDeferred(TreeNode.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(parent, forKey: "parent")
        try encoder.encode(children, forKey: "children")
    }
}

/// A node of a general graph: edges may form any cycle, so they are decoded deferred.
final class GraphNode: KeyedArchivable {
    static let archiveClassName = "GraphNode"
    var label: String
    var weight: Double
    var edges: [GraphNode] = []

    init(_ label: String, weight: Double = 1) {
        self.label = label
        self.weight = weight
    }

    init(from decoder: ArchiveDecoder) throws {
        label = try decoder.decode(String.self, forKey: "label")
        weight = try decoder.decode(Double.self, forKey: "weight")
        try decoder.decodeDeferred([GraphNode].self, forKey: "edges") { [unowned self] in self.edges = $0 ?? [] }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(label, forKey: "label")
        try encoder.encode(weight, forKey: "weight")
        try encoder.encode(edges, forKey: "edges")
    }
}

/// A value type with every kind of field.
struct Sample: KeyedArchivable, Equatable {
    static let archiveClassName = "Sample"
    var text: String
    var count: Int
    var small: Int8
    var big: UInt64
    var ratio: Double
    var single: Float
    var flag: Bool
    var when: Date
    var bytes: Data
    var link: URL
    var id: UUID
    var tags: [String]
    var scores: [String: Int]
    var unique: Set<Int>
    var note: String?
    var missing: String?
    var range: NSRange
    var plist: PlistValue
    var dollarKey: String

    init(from decoder: ArchiveDecoder) throws {
        text = try decoder.decode(String.self, forKey: "text")
        count = try decoder.decode(Int.self, forKey: "count")
        small = try decoder.decode(Int8.self, forKey: "small")
        big = try decoder.decode(UInt64.self, forKey: "big")
        ratio = try decoder.decode(Double.self, forKey: "ratio")
        single = try decoder.decode(Float.self, forKey: "single")
        flag = try decoder.decode(Bool.self, forKey: "flag")
        when = try decoder.decode(Date.self, forKey: "when")
        bytes = try decoder.decode(Data.self, forKey: "bytes")
        link = try decoder.decode(URL.self, forKey: "link")
        id = try decoder.decode(UUID.self, forKey: "id")
        tags = try decoder.decode([String].self, forKey: "tags")
        scores = try decoder.decode([String: Int].self, forKey: "scores")
        unique = try decoder.decode(Set<Int>.self, forKey: "unique")
        note = try decoder.decodeIfPresent(String.self, forKey: "note")
        missing = try decoder.decodeIfPresent(String.self, forKey: "missing")
        range = try decoder.decode(NSRange.self, forKey: "range")
        plist = try decoder.decode(PlistValue.self, forKey: "plist")
        dollarKey = try decoder.decode(String.self, forKey: "$dollar")
    }

    init() {
        text = "héllo"
        count = -42
        small = -8
        big = UInt64.max
        ratio = 0.1
        single = 1.5
        flag = true
        when = Date(timeIntervalSinceReferenceDate: 123.456)
        bytes = Data([0, 1, 2, 255])
        link = URL(string: "index.html", relativeTo: URL(string: "https://example.com/docs/"))!
        id = UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22")!
        tags = ["a", "b", "a"]
        scores = ["x": 1, "y": 2]
        unique = [3, 5, 7]
        note = "present"
        missing = nil
        range = NSRange(location: 97345, length: 98345)
        plist = ["k": ["v", 7, 2.5, false, .date(PlistDate(secondsSinceReferenceDate: 5)), .data(Data([9]))]]
        dollarKey = "escaped"
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(text, forKey: "text")
        try encoder.encode(count, forKey: "count")
        try encoder.encode(small, forKey: "small")
        try encoder.encode(big, forKey: "big")
        try encoder.encode(ratio, forKey: "ratio")
        try encoder.encode(single, forKey: "single")
        try encoder.encode(flag, forKey: "flag")
        try encoder.encode(when, forKey: "when")
        try encoder.encode(bytes, forKey: "bytes")
        try encoder.encode(link, forKey: "link")
        try encoder.encode(id, forKey: "id")
        try encoder.encode(tags, forKey: "tags")
        try encoder.encode(scores, forKey: "scores")
        try encoder.encode(unique, forKey: "unique")
        try encoder.encode(note, forKey: "note")
        try encoder.encode(missing, forKey: "missing")
        try encoder.encode(range, forKey: "range")
        try encoder.encode(plist, forKey: "plist")
        try encoder.encode(dollarKey, forKey: "$dollar")
    }
}

/// A Codable model with nested values, archived without hand-written methods.
struct Library: Codable, Equatable {
    struct Book: Codable, Equatable {
        var title: String
        var year: Int
        var tags: [String]
        var rating: Double?
    }
    var name: String
    var books: [Book]
    var byTitle: [String: Book]
    var opened: Date
    var kind: Kind

    enum Kind: String, Codable { case publicLibrary, privateLibrary }

    static let sample = Library(
        name: "Stacks",
        books: [Book(title: "Dune", year: 1965, tags: ["sf"], rating: 4.5), Book(title: "Emma", year: 1815, tags: [], rating: nil)],
        byTitle: ["Dune": Book(title: "Dune", year: 1965, tags: ["sf"], rating: 4.5)],
        opened: Date(timeIntervalSinceReferenceDate: 1000.25),
        kind: .publicLibrary)
}
