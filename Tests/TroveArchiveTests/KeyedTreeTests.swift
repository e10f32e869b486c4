import Foundation
import Testing
import Trove

/// A document with typed fields only, so that it survives OpenStep (where every scalar is text).
final class Folder: KeyedArchivable {
    static let archiveClassName = "Folder"
    var title: String
    var created: Date
    var icon: Data
    var size: Int
    var ratio: Double
    var pinned: Bool
    var id: UUID
    var tags: [String]
    var children: [Folder] = []
    weak var parent: Folder?
    var alias: Folder?

    init(_ title: String, children: [Folder] = []) {
        self.title = title
        created = Date(timeIntervalSinceReferenceDate: 700_000_000.123456)
        icon = Data([0xCA, 0xFE, 0x00, 0x24])
        size = -3
        ratio = 0.3
        pinned = true
        id = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!
        tags = ["$dollar", "plain"]
        self.children = children
        for child in children { child.parent = self }
    }

    init(from decoder: ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        created = try decoder.decode(Date.self, forKey: "created")
        icon = try decoder.decode(Data.self, forKey: "icon")
        size = try decoder.decode(Int.self, forKey: "size")
        ratio = try decoder.decode(Double.self, forKey: "ratio")
        pinned = try decoder.decode(Bool.self, forKey: "pinned")
        id = try decoder.decode(UUID.self, forKey: "id")
        tags = try decoder.decode([String].self, forKey: "tags")
        children = try decoder.decode([Folder].self, forKey: "children")
        try decoder.decodeDeferred(Folder.self, forKey: "parent") { [unowned self] in self.parent = $0 }
        try decoder.decodeDeferred(Folder.self, forKey: "$alias") { [unowned self] in self.alias = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(created, forKey: "created")
        try encoder.encode(icon, forKey: "icon")
        try encoder.encode(size, forKey: "size")
        try encoder.encode(ratio, forKey: "ratio")
        try encoder.encode(pinned, forKey: "pinned")
        try encoder.encode(id, forKey: "id")
        try encoder.encode(tags, forKey: "tags")
        try encoder.encode(children, forKey: "children")
        try encoder.encode(parent, forKey: "parent")
        try encoder.encode(alias, forKey: "$alias")
    }

    /// A root with two children, a grandchild, a shared alias and a cycle through it.
    static func sampleGraph() -> Folder {
        let grandchild = Folder("grandchild")
        let a = Folder("a", children: [grandchild])
        let b = Folder("b")
        let root = Folder("root", children: [a, b])
        a.alias = b  // shared: b is a child of root and a's alias
        b.alias = root  // a cycle back to the root
        return root
    }

    /// Checks the shape of a decoded sample graph.
    static func checkSample(_ root: Folder) {
        #expect(root.title == "root")
        #expect(root.children.map(\.title) == ["a", "b"])
        let a = root.children[0], b = root.children[1]
        #expect(a.parent === root && b.parent === root)
        #expect(a.children[0].parent === a)
        #expect(a.alias === b)
        #expect(b.alias === root)
        #expect(root.created == Date(timeIntervalSinceReferenceDate: 700_000_000.123456))
        #expect(root.icon == Data([0xCA, 0xFE, 0x00, 0x24]))
        #expect(root.size == -3 && root.ratio == 0.3 && root.pinned)
        #expect(root.id == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
        #expect(a.children[0].tags == ["$dollar", "plain"])
    }
}

@Suite("Keyed dictionary trees: object graphs in plain property lists")
struct KeyedTreeTests {
    let registry = ArchiveClassRegistry([Folder.self])

    @Test("one graph with shared references and a cycle: archive (binary, XML) and tree (XML, binary, OpenStep, JSON) give equal graphs back")
    func everyStoreFormat() throws {
        let unarchiver = KeyedUnarchiver(registry: registry)
        for format in [PlistFormat.binary, .xml] {
            let data = try KeyedArchiver(outputFormat: format).archive(Folder.sampleGraph())
            Folder.checkSample(try unarchiver.decode(Folder.self, from: data))
        }
        for format in [PlistFormat.xml, .binary, .openStep, .json] {
            let tree = try KeyedArchiver().treeValue(Folder.sampleGraph(), for: format)
            let bytes = try Plist.write(tree, as: format)
            let document = try Plist.read(bytes)
            #expect(document.format == format)
            Folder.checkSample(try unarchiver.decode(Folder.self, fromTree: document.value))
        }
    }

    @Test("the tree's spelling: $class, $id on a shared object, $ref after, plain arrays and dictionaries, escaped keys")
    func spelling() throws {
        let tree = try KeyedArchiver().treeValue(Folder.sampleGraph(), for: .xml)
        #expect(tree["$class"] == "Folder")
        #expect(tree["$id"] == 1)  // the root is referenced again (b's alias, children's parents)
        #expect(tree["title"] == "root")
        #expect(tree["size"] == -3)
        let a = try #require(tree["children"]?[0])
        #expect(a["parent"] == ["$ref": 1])
        #expect(a["tags"] == ["$dollar", "plain"])  // strings in an array are values, not keys
        #expect(a["$$alias"]?["$class"] == "Folder")
        #expect(a["$id"] == 2)  // the grandchild's parent refers to it
        #expect(a["$$alias"]?["$id"] == 3)
        #expect(tree["children"]?[1] == ["$ref": 3])
        #expect(a["created"] == ["$class": "NSDate", "NS.time": .real(700_000_000.123456)])
        #expect(a["icon"] == .data(Data([0xCA, 0xFE, 0x00, 0x24])))
        #expect(a["parent"] != nil && tree["parent"] == nil)  // nil is a missing key
        let json = try KeyedArchiver().treeValue(Folder.sampleGraph(), for: .json)
        #expect(json["icon"] == ["$class": "NSData", "NS.data": "yv4AJA=="])
        #expect(try KeyedArchiver().treeValue(["$key": 1] as [String: Int], for: .json) == ["$$key": 1])
    }

    @Test("a tree and an archive convert into each other")
    func treeToArchive() throws {
        let tree = try KeyedArchiver().treeValue(Folder.sampleGraph(), for: .binary)
        let archive = try KeyedUnarchiver().archive(fromTree: tree)
        let data = try Plist.write(archive.document.value, as: .binary)
        Folder.checkSample(try KeyedUnarchiver(registry: registry).decode(Folder.self, from: data))
    }

    @Test("a $ref to no $id, and a tree nested past the depth limit, are typed errors")
    func badTrees() throws {
        let dangling: PlistValue = ["$class": "Folder", "title": "x", "parent": ["$ref": 9]]
        let error = #expect(throws: PlistError.self) { try KeyedUnarchiver(registry: registry).decode(Folder.self, fromTree: dangling) }
        #expect(error?.code == .archiveBadReference)
        var deep: PlistValue = "leaf"
        for _ in 0..<600 { deep = .array([deep]) }
        let tooDeep = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(PlistValue.self, fromTree: deep) }
        #expect(tooDeep?.code == .depthLimit)
    }
}
