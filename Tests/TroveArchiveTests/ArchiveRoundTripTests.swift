import Foundation
import Testing
import Trove

@Suite("Archiving and unarchiving Swift types")
struct ArchiveRoundTripTests {
    let registry = ArchiveClassRegistry([TreeNode.self, GraphNode.self, Sample.self])

    @Test("every field kind comes back equal, in binary and in XML")
    func everyFieldKind() throws {
        for format in [PlistFormat.binary, .xml] {
            let data = try KeyedArchiver(outputFormat: format).archive(Sample())
            #expect(data.withUnsafeBytes { PlistFormat.detect($0) } == format)
            let back = try KeyedUnarchiver(registry: registry).decode(Sample.self, from: data)
            #expect(back == Sample())
        }
    }

    @Test("the archive has the wire contract's frame: $archiver, $version, $top root, $null at 0, shared class records, escaped $ keys")
    func wireFrame() throws {
        let value = try KeyedArchiver().archivedValue(topLevel: [("root", Sample()), ("second", Sample())])
        let top = try #require(value.dictionaryValue)
        #expect(top["$archiver"] == "NSKeyedArchiver")
        #expect(top["$version"] == 100000)
        #expect(top["$top"]?["root"] == .uid(1))
        #expect(top["$top"]?["second"] != nil)
        let objects = try #require(top["$objects"]?.arrayValue)
        #expect(objects[0] == "$null")
        let classRecords = objects.filter { $0["$classname"] == "Sample" }
        #expect(classRecords.count == 1)
        #expect(classRecords.first?["$classes"] == ["Sample", "NSObject"])
        #expect(objects[1]["$$dollar"] != nil)
        #expect(objects[1]["$dollar"] == nil)
        #expect(objects[1]["count"] == -42)  // numbers in place
        #expect(objects[1]["missing"] == .uid(0))  // nil is $null
        // Equal strings are one entry: "a" twice in tags.
        #expect(objects.filter { $0 == "a" }.count == 1)
    }

    @Test("equal numbers are one NSNumber entry, as in Foundation: true and 1 in one archive come back as whichever came first")
    func numbersShareByValue() throws {
        let data = try KeyedArchiver().archive(PlistValue.array([1, true, 1.0, 2, false, 0]))
        let archive = try KeyedArchive(data: data)
        #expect(archive.objects.count == 1 + 1 + 2 + 1 + 1)  // $null, the array, 1, 2, 0... and NSArray's class
        let back = try KeyedUnarchiver().decode(PlistValue.self, from: data)
        #expect(back == [1, 1, 1, 2, false, false])  // the first spelling of each number wins
    }

    @Test("a tree with parent pointers: shared instances, parents resolved after the parent finishes")
    func treeWithParents() throws {
        let leafA = TreeNode("a"), leafB = TreeNode("b")
        let middle = TreeNode("middle", children: [leafA, leafB])
        let root = TreeNode("root", children: [middle, TreeNode("other")])
        let data = try KeyedArchiver().archive(root)
        let back = try KeyedUnarchiver(registry: registry).decode(TreeNode.self, from: data)
        #expect(back.name == "root")
        #expect(back.parent == nil)
        #expect(back.children.map(\.name) == ["middle", "other"])
        #expect(back.children[0].parent === back)
        #expect(back.children[0].children[1].parent === back.children[0])
        #expect(back.children[0].children.map(\.name) == ["a", "b"])
    }

    @Test("a graph with cycles and shared nodes decodes to the same shape, each node once")
    func generalCycles() throws {
        let a = GraphNode("a"), b = GraphNode("b", weight: 2), c = GraphNode("c", weight: 3)
        a.edges = [b, c]
        b.edges = [c, a]
        c.edges = [c, a]  // a self-loop and a cycle back to the root
        let data = try KeyedArchiver().archive(a)
        let back = try KeyedUnarchiver(registry: registry).decode(GraphNode.self, from: data)
        let backB = back.edges[0], backC = back.edges[1]
        #expect(back.label == "a" && backB.label == "b" && backC.label == "c")
        #expect(backB.weight == 2 && backC.weight == 3)
        #expect(backB.edges[0] === backC)
        #expect(backB.edges[1] === back)
        #expect(backC.edges[0] === backC)
        #expect(backC.edges[1] === back)
        // Three node objects in the archive, each written once.
        let objects = try KeyedArchive(data: data).objects
        #expect(objects.filter { $0["label"] != nil }.count == 3)
    }

    @Test("a plain decode of a reference that closes a cycle is a typed error, not a crash")
    func plainDecodeOfCycle() throws {
        struct Eager: KeyedArchivable {
            static let archiveClassName = "GraphNode"
            var edges: [Eager]
            init(from decoder: ArchiveDecoder) throws { edges = try decoder.decode([Eager].self, forKey: "edges") }
            func encode(to encoder: ArchiveEncoder) throws {}
        }
        let a = GraphNode("a")
        a.edges = [a]
        let data = try KeyedArchiver().archive(a)
        let error = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(Eager.self, from: data) }
        #expect(error?.code == .archiveCycle)
        #expect(error?.keyPath == PlistKeyPath(components: ["root", "edges", "NS.objects", 0]))
    }

    @Test("a missing key and a type mismatch name the class and the key path")
    func errorsNameClassAndPath() throws {
        struct Wants: KeyedArchivable {
            static let archiveClassName = "Sample"
            init(from decoder: ArchiveDecoder) throws { _ = try decoder.decode(String.self, forKey: "nope") }
            func encode(to encoder: ArchiveEncoder) throws {}
        }
        struct WrongType: KeyedArchivable {
            static let archiveClassName = "Sample"
            init(from decoder: ArchiveDecoder) throws { _ = try decoder.decode(Int.self, forKey: "text") }
            func encode(to encoder: ArchiveEncoder) throws {}
        }
        let data = try KeyedArchiver().archive(Sample())
        let missing = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(Wants.self, from: data) }
        #expect(missing?.code == .archiveMissingKey)
        #expect(missing?.message.contains("Sample") == true)
        #expect(missing?.keyPath?.description == "root.nope")
        let mismatch = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(WrongType.self, from: data) }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.keyPath?.description == "root.text")
        let overflow = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(NarrowSample.self, from: data) }
        #expect(overflow?.code == .typeMismatch)
    }

    @Test("secure decoding refuses a class outside the allowed set, naming it and where it was")
    func secureDecoding() throws {
        let root = TreeNode("root", children: [TreeNode("child")])
        let data = try KeyedArchiver().archive(root)
        var unarchiver = KeyedUnarchiver(registry: registry)
        unarchiver.allowedClasses = ["TreeNode"]
        let error = #expect(throws: PlistError.self) { try unarchiver.decode(TreeNode.self, from: data) }
        #expect(error?.code == .archiveClassNotAllowed)
        #expect(error?.message.contains("NSArray") == true)
        #expect(error?.keyPath?.description == "root.children")
        unarchiver.allow([TreeNode.self], classes: ["NSArray"])
        #expect(try unarchiver.decode(TreeNode.self, from: data).children.count == 1)
        // The generic graph is checked the same way.
        unarchiver.allowedClasses = ["NSArray"]
        #expect(throws: PlistError.self) { try unarchiver.decodeGraph(from: KeyedArchive(data: data)) }
    }

    @Test("the class name is configurable per archiver, and decoding finds a type through the class chain")
    func classNames() throws {
        var archiver = KeyedArchiver()
        archiver.setClassName("Renamed", for: TreeNode.self)
        let data = try archiver.archive(TreeNode("x"))
        let archive = try KeyedArchive(data: data)
        #expect(archive.objects.contains { $0["$classname"] == "Renamed" && $0["$classes"] == nil })
        var registry = ArchiveClassRegistry()
        registry.register(TreeNode.self, as: "Renamed")
        #expect(try KeyedUnarchiver(registry: registry).decode(TreeNode.self, from: data).name == "x")
        // Unregistered and not in the chain: a typed error.
        let error = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(TreeNode.self, from: data) }
        #expect(error?.code == .archiveUnknownClass)
    }

    @Test("an ArchivedObject graph re-archives with the same shape, sharing and cycles")
    func genericGraphRoundTrip() throws {
        let a = GraphNode("a"), b = GraphNode("b")
        a.edges = [b, b]
        b.edges = [a]
        let data = try KeyedArchiver().archive(a)
        let graph = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: data))
        guard case .object(let root)? = graph.root else {
            Issue.record("root is not an object")
            return
        }
        #expect(root.className == "GraphNode")
        let again = try KeyedArchiver().archive(root)
        #expect(try KeyedArchive(data: again).objects == KeyedArchive(data: data).objects)
        let typed = try KeyedUnarchiver(registry: registry).decode(GraphNode.self, from: again)
        #expect(typed.edges[0] === typed.edges[1])
        #expect(typed.edges[0].edges[0] === typed)
    }
}

/// Reads a negative count as a `UInt8`: an overflow.
struct NarrowSample: KeyedArchivable {
    static let archiveClassName = "Sample"
    init(from decoder: ArchiveDecoder) throws { _ = try decoder.decode(UInt8.self, forKey: "count") }
    func encode(to encoder: ArchiveEncoder) throws {}
}

/// Registers a deferred parent pointer, then decodes its owner eagerly: while the owner is still
/// being decoded the eager decode fails, so this `init(from:)` throws after its request was
/// parked; the decoder must drop that request rather than call it on a released instance.
final class EagerChild: KeyedArchivable {
    static let archiveClassName = "EagerChild"
    weak var parent: EagerOwner?
    var owner: EagerOwner?

    init() {}

    init(from decoder: ArchiveDecoder) throws {
        try decoder.decodeDeferred(EagerOwner.self, forKey: "parent") { [unowned self] in self.parent = $0 }
        owner = try decoder.decode(EagerOwner.self, forKey: "owner")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(parent, forKey: "parent")
        try encoder.encode(owner, forKey: "owner")
    }
}

final class EagerOwner: KeyedArchivable {
    static let archiveClassName = "EagerOwner"
    var children: [EagerChild] = []

    init() {}

    init(from decoder: ArchiveDecoder) throws {
        try decoder.decodeDeferred([EagerChild].self, forKey: "children") { [unowned self] in self.children = $0 ?? [] }
    }

    func encode(to encoder: ArchiveEncoder) throws { try encoder.encode(children, forKey: "children") }
}

@Suite("Deferred decoding when an init fails")
struct DeferredFailureTests {
    @Test("a request parked by an init that then fails is dropped; the retried decode succeeds")
    func droppedRequest() throws {
        let owner = EagerOwner()
        let child = EagerChild()
        child.parent = owner
        child.owner = owner
        owner.children = [child]
        let data = try KeyedArchiver().archive(owner)
        child.owner = nil  // break the test's own cycle
        let back = try KeyedUnarchiver(registry: ArchiveClassRegistry([EagerOwner.self, EagerChild.self])).decode(EagerOwner.self, from: data)
        #expect(back.children.count == 1)
        #expect(back.children[0].parent === back)
        #expect(back.children[0].owner === back)
        back.children[0].owner = nil
    }
}
