import Foundation
import Testing
import TroveCore
import TroveTestSupport

@Suite("PlistValue.differences(from:)")
struct PlistDifferenceTests {
    @Test("equal values have no differences, whatever the key order")
    func equalValues() {
        let a: PlistValue = ["b": 1, "a": ["x", 2.5, true], "c": ["k": .data(Data([1, 2]))]]
        let b: PlistValue = ["c": ["k": .data(Data([1, 2]))], "a": ["x", 2.5, true], "b": 1]
        #expect(b.differences(from: a).isEmpty)
        #expect(a.differences(from: a).isEmpty)
        #expect(PlistValue.null.differences(from: .null).isEmpty)
    }

    @Test("a different root scalar is one change at the empty path")
    func rootScalar() {
        let differences = PlistValue.string("new").differences(from: .string("old"))
        #expect(differences == [PlistDifference(keyPath: PlistKeyPath(components: []), change: .changed(from: "old", to: "new"))])
        #expect(differences.first?.description == "~ (root): \"old\" -> \"new\"")
    }

    @Test("dictionary entries: added, removed and changed, listed in key order")
    func dictionaryEntries() {
        let old: PlistValue = ["Zoom": 1, "Name": "Trove", "Size": 10, "Gone": false]
        let new: PlistValue = ["Size": 12, "Name": "Trove", "Added": ["x"], "Zoom": 1]
        let differences = new.differences(from: old)
        #expect(differences.map(\.keyPath.description) == ["Added", "Gone", "Size"])
        #expect(differences.map(\.change) == [.added(["x"]), .removed(false), .changed(from: 10, to: 12)])
        #expect(differences.map(\.oldValue) == [nil, false, 10])
        #expect(differences.map(\.newValue) == [["x"], nil, 12])
    }

    @Test("key order is by UTF-16 code units, not by either file's order")
    func keyOrder() {
        // "é" (U+00E9) sorts after "z", and "Z" before "a", by code unit.
        let old: PlistValue = ["é": 1, "a": 1, "Z": 1, "z": 1]
        let new: PlistValue = ["z": 2, "é": 2, "Z": 2, "a": 2]
        #expect(new.differences(from: old).map { $0.keyPath.components } == [["Z"], ["a"], ["z"], ["é"]])
        let reordered: PlistValue = ["a": 2, "é": 2, "z": 2, "Z": 2]
        #expect(reordered.differences(from: old) == new.differences(from: old))
    }

    @Test("arrays compare by index; extra elements are added or removed at the end")
    func arrays() {
        let old: PlistValue = [1, 2, 3, 4]
        let shorter: PlistValue = [1, 5]
        #expect(shorter.differences(from: old).map(\.description) == ["~ 1: 2 -> 5", "- 2: 3", "- 3: 4"])
        let longer: PlistValue = [1, 2, 3, 4, "five"]
        #expect(longer.differences(from: old).map(\.description) == ["+ 4: \"five\""])
        let empty: PlistValue = []
        #expect(empty.differences(from: old).count == 4)
    }

    @Test("nested differences carry the full key path, with dots in keys escaped")
    func nestedPaths() throws {
        let old: PlistValue = ["com.example": ["Window": ["Frame": [0, 0, 800, 600]]]]
        let new: PlistValue = ["com.example": ["Window": ["Frame": [0, 0, 1024, 600]]]]
        let differences = new.differences(from: old)
        #expect(differences.count == 1)
        #expect(differences.first?.keyPath.components == ["com.example", "Window", "Frame", 2])
        #expect(differences.first?.keyPath.description == "com\\.example.Window.Frame.2")
        // The path leads to the changed values on both sides.
        let path = try #require(differences.first?.keyPath)
        #expect(old[keyPath: path] == 800)
        #expect(new[keyPath: path] == 1024)
    }

    @Test("a change of kind is a change of the whole value, not a walk into it")
    func kindChanges() {
        let old: PlistValue = ["a": ["x": 1], "b": [1, 2], "c": 1, "d": "1", "e": [1]]
        let new: PlistValue = ["a": [1], "b": ["0": 1], "c": 1.0, "d": 1, "e": 1]
        let differences = new.differences(from: old)
        #expect(differences.map(\.keyPath.description) == ["a", "b", "c", "d", "e"])
        #expect(differences.map(\.change) == [
            .changed(from: ["x": 1], to: [1]),
            .changed(from: [1, 2], to: ["0": 1]),
            .changed(from: 1, to: 1.0),
            .changed(from: "1", to: 1),
            .changed(from: [1], to: 1),
        ])
    }

    @Test("leaves follow ==: real width ignored, NaN equal, -0.0 and dates bitwise")
    func leafEquality() {
        #expect(PlistValue.real(PlistReal(Float(0.5))).differences(from: .real(0.5)).isEmpty)
        #expect(PlistValue.real(.init(Double.nan)).differences(from: .real(.init(Double.nan))).isEmpty)
        #expect(PlistValue.real(-0.0).differences(from: .real(0.0)).count == 1)
        #expect(PlistValue.real(PlistReal(Float(0.1))).differences(from: .real(0.1)).count == 1)
        let date = PlistDate(secondsSinceReferenceDate: 100)
        let nearby = PlistDate(secondsSinceReferenceDate: 100.000_001)
        #expect(PlistValue.date(nearby).differences(from: .date(date)).count == 1)
        #expect(PlistValue.uid(3).differences(from: .integer(3)).count == 1)
        #expect(PlistValue.null.differences(from: .string("$null")).count == 1)
        #expect(PlistValue.integer(PlistInteger(UInt64.max)).differences(from: .integer(-1)).count == 1)
    }

    @Test("a subtree on one side only is reported once, at its root")
    func wholeSubtrees() {
        let subtree: PlistValue = ["deep": ["er": [1, 2, 3]]]
        let old: PlistValue = ["keep": 1]
        let new: PlistValue = ["keep": 1, "tree": subtree]
        #expect(new.differences(from: old) == [PlistDifference(keyPath: "tree", change: .added(subtree))])
        #expect(old.differences(from: new) == [PlistDifference(keyPath: "tree", change: .removed(subtree))])
    }

    @Test("nesting far deeper than any file allows is walked without recursion")
    func deepNesting() {
        let depth = 20_000
        var old: PlistValue = 1
        var new: PlistValue = 2
        for level in 0..<depth {
            old = level.isMultiple(of: 2) ? .array([old]) : .dictionary(["k": old])
            new = level.isMultiple(of: 2) ? .array([new]) : .dictionary(["k": new])
        }
        let differences = new.differences(from: old)
        #expect(differences.count == 1)
        #expect(differences.first?.keyPath.components.count == depth)
        #expect(differences.first?.change == .changed(from: 1, to: 2))
        // Unwind by hand: releasing a 20,000-deep value would otherwise recurse in the runtime.
        Self.dismantle(&old)
        Self.dismantle(&new)
    }

    @Test("limit stops the walk: the first differences in order, and no more")
    func limit() {
        let old: PlistValue = .array((0..<100).map { .integer(PlistInteger($0)) })
        let new: PlistValue = .array((0..<100).map { .integer(PlistInteger($0 + 1)) })
        let all = new.differences(from: old)
        #expect(all.count == 100)
        let first = new.differences(from: old, limit: 3)
        #expect(first == Array(all.prefix(3)))
        #expect(new.differences(from: old, limit: 0).isEmpty)
        // The lazy sequence yields the same differences in the same order.
        #expect(Array(new.differenceSequence(from: old)) == all)
        var iterator = new.differenceSequence(from: old).makeIterator()
        #expect(iterator.next() == all.first)
    }

    @Test("shared containers (a binary plist's shared objects) are compared once, not once per path")
    func sharedContainers() {
        // 60 levels of arrays that hold the level below twice: 2^60 paths to the leaf.
        func chain(_ leaf: PlistValue) -> PlistValue {
            var value = leaf
            for _ in 0..<60 { value = .array([value, value]) }
            return value
        }
        // Built twice, so the two sides share no storage with each other.
        #expect(chain(["k": 1]).differences(from: chain(["k": 1])).isEmpty)
        let differing = chain(["k": 2]).differences(from: chain(["k": 1]), limit: 4)
        #expect(differing.count == 4)
        #expect(differing.first?.keyPath.components == Array(repeating: .index(0), count: 60) + ["k"])
        #expect(differing.first?.change == .changed(from: 1, to: 2))
    }

    @Test("generated values: empty exactly when ==, and applying the differences to the old value gives the new", arguments: 0..<40)
    func generatedValues(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 0x5EED)
        let old = random.value(depth: 0)
        let new = random.mutated(old, depth: 0)
        let differences = new.differences(from: old)
        #expect(differences.isEmpty == (new == old), "\(old) vs \(new)")
        let rebuilt = try Self.apply(differences, to: old)
        #expect(rebuilt == new, "differences: \(differences)")
    }

    // MARK: - Helpers

    /// Applies differences in the order given, then the removals from last to first (a removal
    /// from the end of an array must not shift the indices of earlier ones).
    static func apply(_ differences: [PlistDifference], to value: PlistValue) throws -> PlistValue {
        var result = value
        for difference in differences {
            if let newValue = difference.newValue { try set(newValue, at: difference.keyPath.components[...], in: &result) }
        }
        for difference in differences.reversed() where difference.newValue == nil {
            try set(nil, at: difference.keyPath.components[...], in: &result)
        }
        return result
    }

    struct PathError: Error, CustomStringConvertible {
        var description: String
    }

    private static func set(_ newValue: PlistValue?, at path: ArraySlice<PlistKeyPath.Component>, in value: inout PlistValue) throws {
        guard let first = path.first else {
            guard let newValue else { throw PathError(description: "cannot remove the root") }
            value = newValue
            return
        }
        let rest = path.dropFirst()
        switch value {
        case .dictionary(var entries):
            guard case .key(let key) = first else { throw PathError(description: "index \(first) into a dictionary") }
            if rest.isEmpty {
                entries[key] = newValue
            } else {
                var child = try #require(entries[key])
                try set(newValue, at: rest, in: &child)
                entries[key] = child
            }
            value = .dictionary(entries)
        case .array(var elements):
            guard case .index(let index) = first else { throw PathError(description: "key \(first) into an array") }
            if rest.isEmpty {
                switch (newValue, index) {
                case (let newValue?, elements.count): elements.append(newValue)
                case (let newValue?, _): elements[index] = newValue
                case (nil, elements.count - 1): elements.removeLast()
                default: throw PathError(description: "removal at \(index) is not at the end of \(elements.count)")
                }
            } else {
                try set(newValue, at: rest, in: &elements[index])
            }
            value = .array(elements)
        default:
            throw PathError(description: "path \(path) goes through a scalar")
        }
    }

    /// Takes a deeply nested value apart level by level.
    static func dismantle(_ value: inout PlistValue) {
        var current = value
        value = .null
        while true {
            switch current {
            case .array(let elements) where elements.count == 1:
                current = elements[0]
            case .dictionary(let entries) where entries.count == 1:
                current = entries[0].value
            default:
                return
            }
        }
    }
}

/// Random values and edits for the difference tests, drawn from the shared seeded generator and
/// independent of any reader.
struct SeededRandom {
    private var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    mutating func key() -> String { ["a", "b", "c.d", "A", "é", "", "key"][random.below(7)] }

    mutating func scalar() -> PlistValue {
        switch random.below(8) {
        case 0: return .string(["", "x", "hello", "1"][random.below(4)])
        case 1: return .integer(PlistInteger(Int64(random.below(5)) - 2))
        case 2: return .real([0.5, -0.0, 0.0, 1.0][random.below(4)])
        case 3: return .bool(random.below(2) == 0)
        case 4: return .date(PlistDate(secondsSinceReferenceDate: Double(random.below(3))))
        case 5: return .data(Data(repeating: UInt8(random.below(3)), count: random.below(3)))
        case 6: return .uid(UInt64(random.below(3)))
        default: return .null
        }
    }

    mutating func value(depth: Int) -> PlistValue {
        guard depth < 4, random.below(3) > 0 else { return scalar() }
        if random.below(2) == 0 {
            return .array((0..<random.below(5)).map { _ in value(depth: depth + 1) })
        }
        var entries = PlistDictionary()
        for _ in 0..<random.below(5) { entries[key()] = value(depth: depth + 1) }
        return .dictionary(entries)
    }

    /// A copy with a few random edits: replaced values, added and removed entries and elements,
    /// and shuffled key order (which must not count as a difference).
    mutating func mutated(_ value: PlistValue, depth: Int) -> PlistValue {
        switch (value, random.below(6)) {
        case (_, 0):
            return self.value(depth: depth)
        case (.array(var elements), _):
            elements = elements.map { mutated($0, depth: depth + 1) }
            if random.below(3) == 0 { elements.append(self.value(depth: depth + 1)) }
            if random.below(3) == 0, !elements.isEmpty { elements.removeLast() }
            return .array(elements)
        case (.dictionary(let entries), _):
            var result = PlistDictionary()
            let keys = random.below(2) == 0 ? Array(entries.keys) : Array(entries.keys.reversed())
            for key in keys where random.below(6) > 0 {
                if let child = entries[key] { result[key] = mutated(child, depth: depth + 1) }
            }
            if random.below(3) == 0 { result[self.key()] = self.value(depth: depth + 1) }
            return .dictionary(result)
        default:
            return value
        }
    }
}
