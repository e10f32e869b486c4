import Foundation
import Testing
import Trove

/// Ordered sets, index sets and attributed strings against the toolchain's `NSKeyedArchiver` and
/// `NSKeyedUnarchiver`, both ways.
@Suite("Ordered sets, index sets and attributed strings with Foundation's archiver")
struct FoundationTypeInteropTests {
    /// What Foundation's unarchiver makes of `data`'s root, and the error it reports. Foundation
    /// on Linux reports one for every attributed string with a single run, its own included
    /// (`init(coder:)` asks for `NSAttributeInfo`, which is only written for several runs, and a
    /// missing key is an error), and aborts the process under the default failure policy; the
    /// tests therefore ask for the error to be set instead.
    static func foundationRoot(_ data: Data) throws -> (Any?, (any Error)?) {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        defer { unarchiver.finishDecoding() }
        return (unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey), unarchiver.error)
    }

    /// Foundation's error for a single-run attributed string (see ``foundationRoot(_:)``).
    static func isMissingAttributeInfo(_ error: (any Error)?) -> Bool {
        guard let error else { return true }
        return "\(error)".contains("NSAttributeInfo")
    }

    static func foundationArchive(_ root: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
    }

    @Test("ordered sets: Foundation's decode here, ours decode in Foundation to an equal set of the same class, with Foundation's object table")
    func orderedSets() throws {
        for isMutable in [false, true] {
            let theirs = try Self.foundationArchive(
                isMutable ? NSMutableOrderedSet(array: ["a", "b", 1, "a"]) : NSOrderedSet(array: ["a", "b", 1, "a"]))
            let decoded = try KeyedUnarchiver().decode(ArchivedOrderedSet<PlistValue>.self, from: theirs)
            #expect(decoded.elements == ["a", "b", 1] && decoded.isMutable == isMutable)

            let ours = try KeyedArchiver().archive(ArchivedOrderedSet<PlistValue>(["a", "b", 1], isMutable: isMutable))
            #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: theirs).objects)
            let (root, error) = try Self.foundationRoot(ours)
            #expect(error == nil)
            let back = try #require(root as? NSOrderedSet)
            #expect(back.isEqual(to: NSOrderedSet(array: ["a", "b", 1])))
            #expect((back is NSMutableOrderedSet) == isMutable)
        }
        // Nested in an ordered set, each side reads the other's.
        let nested = try Self.foundationArchive(NSOrderedSet(array: [NSOrderedSet(array: [1, 2]), ["x"] as NSOrderedSet]))
        let decoded = try KeyedUnarchiver().decode(ArchivedOrderedSet<ArchivedOrderedSet<PlistValue>>.self, from: nested)
        #expect(decoded.elements == [[1, 2], ["x"]])
        let (root, error) = try Self.foundationRoot(KeyedArchiver().archive(decoded))
        #expect(error == nil)
        #expect((root as? NSOrderedSet)?.isEqual(to: NSOrderedSet(array: [NSOrderedSet(array: [1, 2]), ["x"] as NSOrderedSet])) == true)
    }

    static let manyRanges: IndexSet = FoundationTypeMappingTests.manyRanges

    @Test("index sets: Foundation's (range data in place) decode here; ours (Darwin's form) decode in Foundation to equal sets of the same class",
          arguments: [IndexSet(), IndexSet(integer: 3), IndexSet(integersIn: 0..<50), IndexSet([1, 2, 3, 9]), manyRanges])
    func indexSets(_ indexes: IndexSet) throws {
        for isMutable in [false, true] {
            let object: NSIndexSet = isMutable ? NSMutableIndexSet(indexSet: indexes) : NSIndexSet(indexSet: indexes)
            let theirs = try Self.foundationArchive(object)
            let decoded = try KeyedUnarchiver().decode(ArchivedIndexSet.self, from: theirs)
            #expect(decoded.indexes == indexes && decoded.isMutable == isMutable)

            let ours = try KeyedArchiver().archive(ArchivedIndexSet(indexes, isMutable: isMutable))
            let (root, error) = try Self.foundationRoot(ours)
            #expect(error == nil)
            let back = try #require(root as? NSIndexSet)
            #expect(back.isEqual(to: indexes))
            #expect(back.count == indexes.count)
            #expect((back is NSMutableIndexSet) == isMutable)
        }
        // A Swift IndexSet archived by Foundation (it bridges to NSMutableIndexSet on Linux) reads as an IndexSet.
        #expect(try KeyedUnarchiver().decode(IndexSet.self, from: Self.foundationArchive(indexes)) == indexes)
    }

    /// Foundation shares two objects when they are equal and fall in one bucket of its table;
    /// NSIndexSet (like NSOrderedSet and NSAttributedString) keeps NSObject's identity hash, so
    /// whether two equal index sets are shared is chance there. Ours are written at each use.
    @Test("equal index sets are written at each use, and each side reads the other's")
    func equalIndexSets() throws {
        let ours = try KeyedArchiver().archive([IndexSet(integer: 3), IndexSet(integer: 3), IndexSet([1, 5])])
        #expect(FoundationTypeMappingTests.entries(of: "NSIndexSet", in: try KeyedArchive(data: ours)).count == 3)
        let (root, error) = try Self.foundationRoot(ours)
        #expect(error == nil)
        let sets = try #require(root as? [NSIndexSet])
        #expect(sets.count == 3)
        #expect(zip(sets, [IndexSet(integer: 3), IndexSet(integer: 3), IndexSet([1, 5])]).allSatisfy { $0.isEqual(to: $1) })
        let theirs = try Self.foundationArchive([NSIndexSet(index: 3), NSIndexSet(index: 3), NSIndexSet(indexSet: IndexSet([1, 5]))] as NSArray)
        #expect(try KeyedUnarchiver().decode([IndexSet].self, from: theirs) == [IndexSet(integer: 3), IndexSet(integer: 3), IndexSet([1, 5])])
    }

    /// The attribute values the interop tests use: what Foundation bridges bools, numbers,
    /// strings and URLs to, decoded by trying each in turn.
    enum Attribute: ArchiveRepresentable, Equatable {
        case flag(Bool)
        case number(Int)
        case text(String)
        case link(URL)

        func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
            switch self {
            case .flag(let value): return try value.encodeArchiveField(with: encoder)
            case .number(let value): return try value.encodeArchiveField(with: encoder)
            case .text(let value): return try value.encodeArchiveField(with: encoder)
            case .link(let value): return try value.encodeArchiveField(with: encoder)
            }
        }

        static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Attribute {
            if let url = try? URL.decodeArchiveField(field, with: decoder) { return .link(url) }
            switch try PlistValue.decodeArchiveField(field, with: decoder) {
            case .bool(let value): return .flag(value)
            case .integer(let value): return .number(Int(value.int64Value ?? 0))
            case .string(let value): return .text(value)
            case let other: throw PlistError(.typeMismatch, "unexpected attribute \(other)")
            }
        }

        var foundationValue: Any {
            switch self {
            case .flag(let value): return value
            case .number(let value): return value
            case .text(let value): return value
            case .link(let value): return NSURL(string: value.absoluteString)!
            }
        }
    }

    typealias Text = ArchivedAttributedString<Attribute>

    static let link = URL(string: "https://example.com")!

    /// Texts and the Foundation objects that are the same texts (made afresh for each test:
    /// Foundation's objects are not `Sendable`).
    static func texts() -> [(Text, NSAttributedString)] {
        let styled = Text("héllo wörld 👋", runs: [
            .init(length: 5, attributes: ["bold": .flag(true)]), .init(length: 1),
            .init(length: 5, attributes: ["link": .link(link)]), .init(length: 1), .init(length: 2, attributes: ["bold": .flag(true)]),
        ])
        let foundationStyled = NSMutableAttributedString(string: "héllo wörld 👋")
        for run in styled.attributeRuns {
            for (key, value) in run.attributes {
                foundationStyled.addAttribute(NSAttributedString.Key(key), value: value.foundationValue, range: run.range)
            }
        }
        return [
            (Text(""), NSAttributedString(string: "")),
            (Text("hello"), NSAttributedString(string: "hello")),
            (Text("hello", attributes: ["k": .text("v")]), NSAttributedString(string: "hello", attributes: [NSAttributedString.Key("k"): "v"])),
            (Text("hello", attributes: ["n": .number(3)]), NSAttributedString(string: "hello", attributes: [NSAttributedString.Key("n"): 3])),
            (styled, NSAttributedString(attributedString: foundationStyled)),
        ]
    }

    @Test("attributed strings: Foundation's decode here to the same runs; ours have Foundation's object table and decode in Foundation to equal strings",
          arguments: 0..<texts().count)
    func attributedStrings(_ index: Int) throws {
        let (text, foundation) = Self.texts()[index]
        let theirs = try Self.foundationArchive(foundation)
        let decoded = try KeyedUnarchiver().decode(Text.self, from: theirs)
        #expect(decoded == text)
        #expect(!decoded.isMutable)

        let ours = try KeyedArchiver().archive(text)
        let theirObjects = try KeyedArchive(data: theirs).objects
        let ourObjects = try KeyedArchive(data: ours).objects
        #expect(ourObjects.count == theirObjects.count)
        for (entry, (mine, foundations)) in zip(ourObjects, theirObjects).enumerated() {
            #expect(mine == foundations, "entry \(entry) of $objects")
        }
        let (root, error) = try Self.foundationRoot(ours)
        #expect(Self.isMissingAttributeInfo(error), "\(String(describing: error))")
        let back = try #require(root as? NSAttributedString)
        #expect(back.isEqual(to: foundation), "\(back) is not \(foundation)")
        #expect(!(back is NSMutableAttributedString))
    }

    @Test("mutable attributed strings: Foundation's decode here as mutable; ours (text as an NSMutableString object) decode in Foundation as NSMutableAttributedString",
          arguments: 0..<texts().count)
    func mutableAttributedStrings(_ index: Int) throws {
        var (text, foundation) = Self.texts()[index]
        text.isMutable = true
        let theirs = try Self.foundationArchive(NSMutableAttributedString(attributedString: foundation))
        let decoded = try KeyedUnarchiver().decode(Text.self, from: theirs)
        #expect(decoded == text && decoded.isMutable)

        let (root, error) = try Self.foundationRoot(KeyedArchiver().archive(text))
        #expect(Self.isMissingAttributeInfo(error), "\(String(describing: error))")
        let back = try #require(root as? NSMutableAttributedString)
        #expect(back.isEqual(to: foundation))
        #expect(back.string == text.string)
    }
}
