import Foundation
import Testing
import Trove

#if canImport(Glibc)
import Glibc
#endif

/// Live interop with the toolchain's Foundation, both ways.
@Suite("Interop with Foundation's NSKeyedArchiver and NSKeyedUnarchiver")
struct FoundationInteropTests {
    let registry = ArchiveClassRegistry([Person.self, Node.self])

    /// A graph of Foundation property-list objects with repeated strings, numbers that Foundation
    /// shares by value, equal arrays and dictionaries, dates, data and NSNull.
    static func foundationGraph() -> NSDictionary {
        let shared: NSArray = ["x", "y"]
        return [
            "title": "baa",
            "words": ["baa", "baa", "black", "sheep"] as NSArray,
            "numbers": [1, 1.0, true, 2, false, 0, 3.25, -7, Int64.max] as NSArray,
            "when": Date(timeIntervalSinceReferenceDate: 509_523_358.684097),
            "bytes": Data([0, 1, 2, 3]),
            "nested": ["inner": ["deep": shared] as NSDictionary, "again": shared, "same": ["x", "y"] as NSArray] as NSDictionary,
            "nulls": [NSNull(), NSNull()] as NSArray,
            "empty": NSArray(),
        ]
    }

    @Test("Foundation's archive of plist objects decodes here, and our archive of the decoded value has Foundation's $objects, entry for entry")
    func foundationValuesBothWays() throws {
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: Self.foundationGraph(), requiringSecureCoding: false)
        let value = try KeyedUnarchiver().decode(PlistValue.self, from: theirs)
        #expect(value["title"] == "baa")
        #expect(value["words"] == ["baa", "baa", "black", "sheep"])
        #expect(value["when"] == .date(PlistDate(secondsSinceReferenceDate: 509_523_358.684097)))
        #expect(value["bytes"] == .data(Data([0, 1, 2, 3])))
        #expect(value["nested"]?["inner"]?["deep"] == ["x", "y"])
        #expect(value["nulls"] == [["$class": "NSNull"], ["$class": "NSNull"]])

        // Re-archive the plain value: NSNull comes back as a dictionary here, so compare a graph
        // without it; the rest must be Foundation's object table exactly.
        var entries = Self.foundationGraph() as? [String: Any] ?? [:]
        entries["nulls"] = nil
        let graph = NSDictionary(dictionary: entries)
        let theirsWithoutNull = try NSKeyedArchiver.archivedData(withRootObject: graph, requiringSecureCoding: false)
        let plain = try KeyedUnarchiver().decode(PlistValue.self, from: theirsWithoutNull)
        let ours = try KeyedArchiver().archive(plain)
        let theirObjects = try KeyedArchive(data: theirsWithoutNull).objects
        let ourObjects = try KeyedArchive(data: ours).objects
        #expect(ourObjects.count == theirObjects.count)
        for (index, (mine, foundations)) in zip(ourObjects, theirObjects).enumerated() {
            #expect(mine == foundations, "entry \(index) of $objects")
        }

        // Foundation reads ours back to a graph equal to what it reads from its own archive
        // (both have one NSNumber for 1, 1.0 and true).
        let reference = try NSKeyedUnarchiver(forReadingFrom: theirsWithoutNull)
        reference.requiresSecureCoding = false
        let expected = try #require(reference.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: ours)
        unarchiver.requiresSecureCoding = false
        let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary
        #expect(decoded == expected)
        let words = decoded?["words"] as? [String]
        #expect(words == ["baa", "baa", "black", "sheep"])
        // XML output reads in Foundation too.
        let xml = try KeyedArchiver(outputFormat: .xml).archive(plain)
        let xmlUnarchiver = try NSKeyedUnarchiver(forReadingFrom: xml)
        xmlUnarchiver.requiresSecureCoding = false
        let fromXML = xmlUnarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary
        #expect(fromXML == expected)
    }

    @Test("Foundation's archive of NSCoding objects with shared references decodes to shared instances")
    func customClassesFromFoundation() throws {
        let ann = FPerson("Ann", age: 41)
        let bob = FPerson("Bob", age: 7, friend: ann)
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: [ann, bob, ann] as NSArray, requiringSecureCoding: false)
        let people = try KeyedUnarchiver(registry: registry).decode([Person].self, from: theirs)
        #expect(people.map(\.name) == ["Ann", "Bob", "Ann"])
        #expect(people[0] === people[2])
        #expect(people[1].friend === people[0])
        #expect(people[1].age == 7)

        // Ours of the same graph: the same object table, and Foundation decodes it to equal objects.
        let annHere = Person("Ann", age: 41)
        let ours = try KeyedArchiver().archive([annHere, Person("Bob", age: 7, friend: annHere), annHere])
        #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: theirs).objects)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: ours)
        unarchiver.requiresSecureCoding = false
        let decoded = try #require(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? [FPerson])
        #expect(decoded.map(\.name) == ["Ann", "Bob", "Ann"])
        #expect(decoded[0] === decoded[2])
        #expect(decoded[1].friend === decoded[0])
    }

    /// Foundation on Linux archives a Swift `URL` that has a base as its absolute string with no
    /// `NS.base` (the bridge to `NSURL` drops the base); Darwin keeps `NS.base`, as the corpus's
    /// URLTest archive shows, and so does Trove. The table comparison uses a URL without a base.
    @Test("NSUUID, NSURL, NSSet, NSDate, NSData, nil and numbers in place: Foundation's table, and each side reads the other's")
    func valueClasses() throws {
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: FHolder(), requiringSecureCoding: false)
        let ours = try KeyedArchiver().archive(Holder())
        let theirObjects = try KeyedArchive(data: theirs).objects
        let ourObjects = try KeyedArchive(data: ours).objects
        #expect(ourObjects.count == theirObjects.count)
        for (index, (mine, foundations)) in zip(ourObjects, theirObjects).enumerated() {
            #expect(mine == foundations, "entry \(index) of $objects")
        }
        let decoded = try KeyedUnarchiver().decode(Holder.self, from: theirs)
        #expect(decoded.id == Holder().id && decoded.link == Holder().link && decoded.numbers == [7])
        #expect(decoded.when == Holder().when && decoded.bytes == Holder().bytes && decoded.nothing == nil)
        #expect(decoded.count == 12 && decoded.ratio == 2.5 && decoded.flag)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: ours)
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) is FHolder)
        let fields = try #require(KeyedUnarchiver().plainValue(of: KeyedArchive(data: ours)).dictionaryValue)
        #expect(fields["link"] == "https://example.com/docs/index.html")
        // With a base, ours keeps it, as Darwin does.
        let based = URL(string: "docs/index.html", relativeTo: URL(string: "https://example.com/"))!
        let basedArchive = try KeyedArchive(data: KeyedArchiver().archive(based))
        #expect(basedArchive.objects.contains { $0["NS.relative"] != nil && $0["NS.base"] != .uid(0) })
        #expect(try KeyedUnarchiver().decode(URL.self, from: basedArchive).baseURL?.absoluteString == "https://example.com/")
    }

    @Test("Foundation archives a tree with parent pointers (a cycle); we decode it, with the cycle closed")
    func cycleFromFoundation() throws {
        let root = FNode("root", children: [FNode("a"), FNode("b", children: [FNode("b1")])])
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
        let tree = try KeyedUnarchiver(registry: registry).decode(Node.self, from: theirs)
        #expect(tree.children.map(\.name) == ["a", "b"])
        #expect(tree.children[1].children[0].parent === tree.children[1])
        #expect(tree.children[0].parent === tree)
        // Our archive of the same tree has Foundation's object table.
        let ours = try KeyedArchiver().archive(Node("root", children: [Node("a"), Node("b", children: [Node("b1")])]))
        #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: theirs).objects)
    }

    /// Foundation on Linux caches a decoded object only after its `init(coder:)` returns, so a
    /// cycle recurses until the stack overflows (SIGSEGV), and a class outside the allowed set
    /// calls `fatalError`. Both are run in a forked child so that the crash ends the child only;
    /// the child exits 0 if Foundation ever decodes correctly, and the test accepts either.
    @Test("Foundation on Linux crashes on a cyclic archive and on a disallowed class (child process); we decode and refuse cleanly")
    func foundationCrashesInChild() throws {
        let ours = try KeyedArchiver().archive(Node("root", children: [Node("leaf")]))
        let outcome = Self.inChild {
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: ours) else { return 2 }
            unarchiver.requiresSecureCoding = false
            let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? FNode
            return root?.children.first?.parent === root ? 0 : 1
        }
        #expect(outcome != .exited(1) && outcome != .exited(2), "Foundation decoded the cycle wrongly: \(outcome)")
        let tree = try KeyedUnarchiver(registry: registry).decode(Node.self, from: ours)
        #expect(tree.children[0].parent === tree)

        let people = try NSKeyedArchiver.archivedData(withRootObject: [FPerson("Ann", age: 1)] as NSArray, requiringSecureCoding: false)
        let secureOutcome = Self.inChild {
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: people) else { return 2 }
            let decoded = unarchiver.decodeObject(of: [NSArray.self], forKey: NSKeyedArchiveRootObjectKey)
            return decoded == nil ? 0 : 1
        }
        #expect(secureOutcome != .exited(2), "\(secureOutcome)")
        var secure = KeyedUnarchiver(registry: registry)
        secure.allowedClasses = ["NSArray"]
        let error = #expect(throws: PlistError.self) { try secure.decode([Person].self, from: people) }
        #expect(error?.code == .archiveClassNotAllowed)
        #expect(error?.message.contains("TroveArchiveTests.FPerson") == true)
    }

    enum ChildOutcome: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)
        case timedOut

        var description: String {
            switch self {
            case .exited(let code): return "child exited with \(code)"
            case .signaled(let signal): return "child killed by signal \(signal)"
            case .timedOut: return "child timed out"
            }
        }
    }

    /// Runs `body` in a forked child and reports how the child ended.
    static func inChild(_ body: () -> Int32) -> ChildOutcome {
        #if canImport(Glibc)
        let pid = fork()
        if pid == 0 {
            // Silence the crash report in the test log; the parent reports the outcome.
            let null = open("/dev/null", O_WRONLY)
            dup2(null, 2)
            _exit(body())
        }
        var status: Int32 = 0
        for _ in 0..<600 {
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7f
                return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return .timedOut
        #else
        return .exited(body())
        #endif
    }
}
