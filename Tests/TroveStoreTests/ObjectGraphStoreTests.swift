import Foundation
import Testing
import Trove

/// A tree with parent pointers and a shared reference, for the object-graph round trips.
final class Node: KeyedArchivable, @unchecked Sendable {
    var name: String
    var size: Int
    var children: [Node] = []
    weak var parent: Node?
    /// Another node of the graph, shared (and, for the root's first child, a cycle back up).
    var link: Node?

    init(_ name: String, size: Int) {
        self.name = name
        self.size = size
    }

    func adopt(_ child: Node) {
        child.parent = self
        children.append(child)
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        size = try decoder.decode(Int.self, forKey: "size")
        children = try decoder.decode([Node].self, forKey: "children")
        try decoder.decodeDeferred(Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
        try decoder.decodeDeferred(Node.self, forKey: "link") { [unowned self] in self.link = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(size, forKey: "size")
        try encoder.encode(children, forKey: "children")
        try encoder.encode(parent, forKey: "parent")
        try encoder.encode(link, forKey: "link")
    }

    /// root -> a, b; a -> c; a.link = root (a cycle); b.link = c and c.link = c's sibling-free self-share.
    static func sample() -> Node {
        let root = Node("root", size: 1)
        let a = Node("a", size: 2)
        let b = Node("b", size: 3)
        let c = Node("c", size: 4)
        root.adopt(a)
        root.adopt(b)
        a.adopt(c)
        a.link = root
        b.link = c
        return root
    }

    /// The sample's shape, identities included.
    static func check(_ root: Node?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let root else {
            Issue.record("no graph", sourceLocation: sourceLocation)
            return
        }
        #expect(root.name == "root" && root.size == 1 && root.parent == nil, sourceLocation: sourceLocation)
        #expect(root.children.map(\.name) == ["a", "b"], sourceLocation: sourceLocation)
        guard root.children.count == 2, let c = root.children[0].children.first else { return }
        let (a, b) = (root.children[0], root.children[1])
        #expect(a.parent === root && b.parent === root && c.parent === a, sourceLocation: sourceLocation)
        #expect(a.link === root, "the cycle closes on the same instance", sourceLocation: sourceLocation)
        #expect(b.link === c, "the shared node is one instance", sourceLocation: sourceLocation)
        #expect(c.size == 4 && b.size == 3, sourceLocation: sourceLocation)
    }
}

@Suite("Stores: object graphs in every store type")
struct ObjectGraphStoreTests {
    static let registry = ArchiveClassRegistry([Node.self])

    @Test("one graph with shared references and a cycle comes back equal from every store type",
          arguments: ["keyed-archive", "keyed-archive-xml", "xml1", "binary1", "openstep", "json", "memory"])
    func everyStoreType(typeName: String) throws {
        let directory = try PlistStoreTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("graph").path
        let type: any PlistStoreType = switch typeName {
        case "keyed-archive-xml": KeyedArchiveStoreType.xml
        case "memory": MemoryStoreType()
        default: try #require(PlistStoreRegistry.shared.type(named: typeName))
        }
        let store = PlistStore(path: path, type: type)
        var keep: Node? = Node.sample()
        try store.saveObject(try #require(keep))
        keep = nil
        let unarchiver = KeyedUnarchiver(registry: Self.registry)
        Node.check(try store.loadObject(Node.self, unarchiver: unarchiver))
        // A new store on the same file, without a type, finds the same graph.
        if typeName != "memory" {
            let reopened = PlistStore(path: path)
            Node.check(try reopened.loadObject(Node.self, unarchiver: unarchiver))
            let expected = typeName.hasPrefix("keyed-archive") ? "keyed-archive" : typeName
            #expect(reopened.type.name == expected)
        }
    }

    @Test("a keyed-archive store writes what Foundation's NSKeyedUnarchiver reads, and keeps an unchanged archive byte for byte")
    func archiveStoreFile() throws {
        let directory = try PlistStoreTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("list.archive").path
        let store = PlistStore(path: path, type: KeyedArchiveStoreType.binary)
        try store.saveObject(["a", "b", "a"] as [String])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, NSString.self], from: bytes)
        #expect((foundation as? [String]) == ["a", "b", "a"])
        #expect(try Plist.read(bytes).format == .binary)
        // Reopened by content and saved unchanged: the same bytes.
        let reopened = PlistStore(path: path)
        let value = try #require(try reopened.load())
        #expect(reopened.type.name == "keyed-archive")
        try reopened.save(value)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        // A value that is not an archive is refused and the file kept.
        #expect(throws: PlistError.self) { try reopened.save(["not": "an archive"]) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
