import Foundation
import Testing
import Trove
import TroveTestSupport

/// Hostile archives: each fails with a typed error naming what is wrong, never a crash or a hang.
@Suite("Hostile archives and limits")
struct ArchiveLimitsTests {
    static func archive(objects: [PlistValue], top: PlistDictionary = ["root": .uid(1)], archiver: PlistValue = "NSKeyedArchiver", version: PlistValue = 100000) -> PlistValue {
        ["$archiver": archiver, "$version": version, "$top": .dictionary(top), "$objects": .array(objects)]
    }

    static let nodeClass: PlistValue = ["$classname": "Node", "$classes": ["Node", "NSObject"]]

    static func code(_ value: PlistValue, limits: KeyedArchiveLimits = .default) -> PlistError.Code? {
        do {
            let archive = try KeyedArchive(value: value, limits: limits)
            _ = try KeyedUnarchiver(limits: limits).decodeGraph(from: archive)
            _ = try KeyedUnarchiver(limits: limits).plainValue(of: archive)
            _ = try KeyedUnarchiver(limits: limits).describe(archive)
            return nil
        } catch let error as PlistError {
            return error.code
        } catch {
            return PlistError.Code("not a PlistError: \(error)")
        }
    }

    @Test("the archive's frame: wrong $archiver, wrong $version, missing $top or $objects, a $top that is not a dictionary")
    func frame() {
        #expect(Self.code(Self.archive(objects: ["$null", "x"], archiver: "GNUArchiver")) == .archiveInvalid)
        #expect(Self.code(Self.archive(objects: ["$null", "x"], version: 10000)) == .archiveInvalid)
        #expect(Self.code(["$archiver": "NSKeyedArchiver", "$version": 100000, "$objects": ["$null"]]) == .archiveInvalid)
        #expect(Self.code(["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(0)]]) == .archiveInvalid)
        #expect(Self.code(["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": "root", "$objects": ["$null"]]) == .archiveInvalid)
        #expect(Self.code(["$archiver": "NSKeyedArchiver"]) == .archiveInvalid)
        #expect(Self.code(.array([])) == .archiveInvalid)
    }

    @Test("references out of range: in $top, in $class, inside an object")
    func badReferences() {
        #expect(Self.code(Self.archive(objects: ["$null"], top: ["root": .uid(5)])) == .archiveBadReference)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(99)]])) == .archiveBadReference)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2), "next": .uid(1_000_000)], Self.nodeClass])) == .archiveBadReference)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2), "list": [.uid(1), .uid(77)]], Self.nodeClass])) == .archiveBadReference)
    }

    @Test("class records: an object that is its own class, a class record with a $class of its own, a non-record, no $classname")
    func badClasses() {
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(1)]])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2)], ["$classname": "A", "$class": .uid(1)]])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2)], ["$class": .uid(1)]])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2)], "blam"])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2)], ["$classes": ["A"]]])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$class": .uid(2)], ["$classname": "A", "$classes": "A"]])) == .archiveBadClass)
        #expect(Self.code(Self.archive(objects: ["$null", ["$classy": .uid(2)], Self.nodeClass])) == .archiveBadClass)
    }

    @Test("too many objects and too deep are limit errors")
    func limits() async {
        var many: [PlistValue] = ["$null"]
        for index in 0..<1_000 { many.append(.string("s\(index)")) }
        var limits = KeyedArchiveLimits.default
        limits.maxObjects = 500
        #expect(Self.code(Self.archive(objects: many), limits: limits) == .sizeLimit)

        // A chain of 5,000 objects, each holding the next: deeper than maxDepth for every
        // recursive walk (plain conversion, printing, typed decoding), while the generic graph
        // is built without recursion.
        var chain: [PlistValue] = ["$null"]
        let count = 5_000
        for index in 1...count {
            chain.append(["$class": .uid(UInt64(count + 1)), "next": .uid(index < count ? UInt64(index + 1) : 0)])
        }
        chain.append(Self.nodeClass)
        let deep = Self.archive(objects: chain)
        let result = await HangGuard.run(seconds: 120) { () -> [PlistError.Code?] in
            guard let archive = try? KeyedArchive(value: deep) else { return [] }
            var codes: [PlistError.Code?] = []
            for attempt in 0..<3 {
                do {
                    switch attempt {
                    case 0: _ = try KeyedUnarchiver().plainValue(of: archive)
                    case 1: _ = try KeyedUnarchiver().describe(archive)
                    default: _ = try KeyedUnarchiver().decode(PlistValue.self, from: archive)
                    }
                    codes.append(nil)
                } catch let error as PlistError {
                    codes.append(error.code)
                } catch {
                    codes.append(PlistError.Code("other"))
                }
            }
            let graph = try? KeyedUnarchiver().decodeGraph(from: archive)
            codes.append(graph?.objects.count == count ? nil : .sizeLimit)
            return codes
        }
        #expect(result == [.depthLimit, .depthLimit, .depthLimit, nil])
    }

    @Test("a cycle through plain arrays converts with a $ref mark and prints with (cycle)")
    func cycles() throws {
        let cyclic = Self.archive(objects: ["$null", ["$class": .uid(2), "NS.objects": [.uid(1), .uid(3)]], ["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]], "leaf"])
        let archive = try KeyedArchive(value: cyclic)
        #expect(try KeyedUnarchiver().plainValue(of: archive) == [["$ref": 1], "leaf"])
        #expect(try KeyedUnarchiver().describe(archive).contains("-> #1 NSMutableArray (cycle)"))
        let graph = try KeyedUnarchiver().decodeGraph(from: archive)
        guard case .object(let array)? = graph.root, case .array(let elements)? = array["NS.objects"], case .object(let first) = elements[0] else {
            Issue.record("not the expected graph")
            return
        }
        #expect(first === array)
    }
}

/// A singly linked list: decoding it nests one `init(from:)` per node.
final class ChainNode: KeyedArchivable {
    static let archiveClassName = "Node"
    var next: ChainNode?
    init(next: ChainNode?) { self.next = next }
    init(from decoder: ArchiveDecoder) throws { next = try decoder.decodeIfPresent(ChainNode.self, forKey: "next") }
    func encode(to encoder: ArchiveEncoder) throws { try encoder.encode(next, forKey: "next") }

    static func chain(_ length: Int) -> ChainNode {
        var head = ChainNode(next: nil)
        for _ in 1..<length { head = ChainNode(next: head) }
        return head
    }
}

@Suite("Nesting of typed objects")
struct ArchiveNestingTests {
    @Test("a chain as deep as maxDepth allows encodes and decodes on a test thread; one deeper is depth-limit both ways")
    func typedDepth() throws {
        var limits = KeyedArchiveLimits.default
        limits.maxDepth = 200
        var archiver = KeyedArchiver()
        archiver.limits = limits
        let data = try archiver.archive(ChainNode.chain(90))  // each node is two levels of key path (next, and the node)
        var depth = 0
        var node: ChainNode? = try KeyedUnarchiver(registry: ArchiveClassRegistry([ChainNode.self]), limits: limits).decode(ChainNode.self, from: data)
        while let current = node {
            depth += 1
            node = current.next
        }
        #expect(depth == 90)
        let tooDeep = #expect(throws: PlistError.self) { try archiver.archive(ChainNode.chain(300)) }
        #expect(tooDeep?.code == .depthLimit)
        let deepData = try KeyedArchiver().archive(ChainNode.chain(300))
        let refused = #expect(throws: PlistError.self) {
            try KeyedUnarchiver(registry: ArchiveClassRegistry([ChainNode.self]), limits: limits).decode(ChainNode.self, from: deepData)
        }
        #expect(refused?.code == .depthLimit)
        // The default limit (512) on this thread, in a debug build.
        let full = try KeyedArchiver().archive(ChainNode.chain(250))
        #expect(try KeyedUnarchiver(registry: ArchiveClassRegistry([ChainNode.self])).decode(ChainNode.self, from: full).next != nil)
    }
}
