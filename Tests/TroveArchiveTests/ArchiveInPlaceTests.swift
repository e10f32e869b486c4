import Foundation
import Testing
import Trove

/// Decoding a binary archive from its bytes reads it in place (no value tree): what that reads,
/// what it checks, and where it differs from reading the archive whole.
@Suite("Binary archives decoded in place")
struct ArchiveInPlaceTests {
    @Test("a malformed value in a field is the file's error at the field's key path, not a missing key")
    func malformedField() throws {
        var data = try KeyedArchiver().archive(TreeNode("root", children: [TreeNode("leaf-node")]))
        // The field `name` of the child holds a UID object naming the string's entry; UIDs are
        // stored once per value, so breaking that object breaks this field alone.
        let entry = try #require(try KeyedArchive(data: data).objects.firstIndex(of: "leaf-node"))
        let bytes = [UInt8](data)
        let uid: [UInt8] = [0x80, UInt8(entry)]
        let found = (8..<(bytes.count - 34)).filter { bytes[$0] == uid[0] && bytes[$0 + 1] == uid[1] }
        try #require(found.count == 1, "the UID object is not unique in the file")
        data[found[0]] = 0x3F  // no object has this marker
        let error = try #require(throws: PlistError.self) { try KeyedUnarchiver().decode(TreeNode.self, from: data) }
        #expect(error.code == .badObject, "\(error)")
        #expect(error.keyPath?.components == [.key("root"), .key("children"), .key("NS.objects"), .index(0), .key("name")], "\(error)")
        // Read whole, the same file fails before any object is decoded.
        #expect(throws: PlistError.self) { try KeyedArchive(data: data) }
    }

    @Test("every entry's class is checked in place as when the archive is read whole, referred to or not")
    func unreachableEntryClass() throws {
        let archive = try KeyedArchive(data: KeyedArchiver().archive(TreeNode("root")))
        guard case .dictionary(var top) = archive.document.value else { Issue.record("not a dictionary"); return }
        top["$objects"] = .array(archive.objects + [.dictionary(["$class": .uid(999)])])
        let data = try Plist.write(.dictionary(top), as: .binary)
        let whole = try #require(throws: PlistError.self) { try KeyedArchive(data: data) }
        let inPlace = try #require(throws: PlistError.self) { try KeyedUnarchiver().decode(TreeNode.self, from: data) }
        #expect(inPlace.code == .archiveBadReference && inPlace == whole, "\(inPlace) vs \(whole)")
    }

    @Test("a reference array shared by many objects counts against maxExpandedValues each time it is read")
    func sharedFieldArrays() throws {
        // 200 NSArray objects whose NS.objects is one binary array of 100 references.
        let element = PlistValue.uid(1)
        let shared = PlistValue.array(Array(repeating: element, count: 100))
        var objects: [PlistValue] = ["$null", "item"]
        let arrayClass = objects.count
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        var outer: [PlistValue] = []
        for _ in 0..<200 {
            outer.append(.uid(UInt64(objects.count)))
            objects.append(["NS.objects": shared, "$class": .uid(UInt64(arrayClass))])
        }
        let root = objects.count
        objects.append(["NS.objects": .array(outer), "$class": .uid(UInt64(arrayClass))])
        let value: PlistValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(UInt64(root))], "$objects": .array(objects),
        ]
        let data = try Plist.write(value, as: .binary)
        let decoded = try KeyedUnarchiver().decode([[String]].self, from: data)
        #expect(decoded.count == 200 && decoded.allSatisfy { $0.count == 100 && $0.allSatisfy { $0 == "item" } })
        let limited = KeyedUnarchiver(limits: KeyedArchiveLimits(maxExpandedValues: 5_000))
        let error = try #require(throws: PlistError.self) { try limited.decode([[String]].self, from: data) }
        #expect(error.code == .expansionLimit, "\(error)")
    }

    @Test("keys spelled at run time are found by their text, whatever storage they had")
    func runTimeKeys() throws {
        // Keys longer than a small string live in heap storage that is freed after each lookup
        // and reused for the next key of the same length: a lookup cache keyed by a string's
        // storage would answer the previous key's value.
        let data = try KeyedArchiver().archive(Measurements(values: (0..<40).map { $0 * 7 + 3 }))
        let decoded = try KeyedUnarchiver(registry: ArchiveClassRegistry([Measurements.self])).decode(Measurements.self, from: data)
        #expect(decoded.values == (0..<40).map { $0 * 7 + 3 })
    }

    @Test("objects of one class with their keys in other orders, or other keys, read their own values")
    func keyLayouts() throws {
        var objects: [PlistValue] = ["$null"]
        let nodeClass = objects.count
        objects.append(["$classname": "Pair", "$classes": ["Pair", "NSObject"]])
        let layouts: [[(String, Int)]] = [
            [("first", 1), ("second", 2)], [("second", 4), ("first", 3)], [("first", 5), ("second", 6)],
            [("second", 8), ("extra", 99), ("first", 7)], [("first", 9), ("second", 10)],
        ]
        var pairs: [PlistValue] = []
        for layout in layouts {
            var fields: PlistDictionary = ["$class": .uid(UInt64(nodeClass))]
            for (key, value) in layout { fields[key] = .integer(PlistInteger(value)) }
            pairs.append(.uid(UInt64(objects.count)))
            objects.append(.dictionary(fields))
        }
        let arrayClass = objects.count
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let root = objects.count
        objects.append(["NS.objects": .array(pairs), "$class": .uid(UInt64(arrayClass))])
        let value: PlistValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(UInt64(root))], "$objects": .array(objects),
        ]
        let data = try Plist.write(value, as: .binary)
        let decoded = try KeyedUnarchiver(registry: ArchiveClassRegistry([Pair.self])).decode([Pair].self, from: data)
        #expect(decoded.map(\.first) == [1, 3, 5, 7, 9] && decoded.map(\.second) == [2, 4, 6, 8, 10])
    }
}

/// Numbered fields whose keys are built at run time, each longer than a small string.
private final class Measurements: KeyedArchivable {
    static let archiveClassName = "Measurements"
    let values: [Int]

    init(values: [Int]) { self.values = values }

    init(from decoder: ArchiveDecoder) throws {
        var values: [Int] = []
        while values.count < 100, decoder.containsValue(forKey: Self.key(values.count)) {
            values.append(try decoder.decode(Int.self, forKey: Self.key(values.count)))
        }
        self.values = values
    }

    func encode(to encoder: ArchiveEncoder) throws {
        for (index, value) in values.enumerated() { try encoder.encode(value, forKey: Self.key(index)) }
    }

    private static func key(_ index: Int) -> String { "measurement-number-\(1000 + index)" }
}

private final class Pair: KeyedArchivable {
    static let archiveClassName = "Pair"
    let first: Int
    let second: Int

    init(from decoder: ArchiveDecoder) throws {
        first = try decoder.decode(Int.self, forKey: "first")
        second = try decoder.decode(Int.self, forKey: "second")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(first, forKey: "first")
        try encoder.encode(second, forKey: "second")
    }
}
