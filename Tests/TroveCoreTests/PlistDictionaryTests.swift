import Testing
import TroveTestSupport
@testable import TroveCore

/// ``PlistDictionary`` keeps its own hash table above a few keys and shares it between copies;
/// every operation must agree with a plain list of entries searched by code units.
@Suite("Dictionary value")
struct PlistDictionaryTests {
    /// The reference: entries in order, found by comparing code units.
    private struct Model {
        var keys: [String] = []
        var values: [PlistValue] = []
        func position(_ key: String) -> Int? { keys.firstIndex { Array($0.utf8) == Array(key.utf8) } }
        mutating func set(_ key: String, _ value: PlistValue?) {
            if let i = position(key) {
                if let value { values[i] = value } else { keys.remove(at: i); values.remove(at: i) }
            } else if let value {
                keys.append(key)
                values.append(value)
            }
        }
    }

    private static func agree(_ d: PlistDictionary, _ m: Model, probes: [String], _ note: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(d.keys.map { Array($0.utf8) } == m.keys.map { Array($0.utf8) }, "\(note)", sourceLocation: sourceLocation)
        #expect(d.values == m.values, "\(note)", sourceLocation: sourceLocation)
        for key in probes where d.index(forKey: key) != m.position(key) {
            Issue.record("\(note): \(key) at \(String(describing: d.index(forKey: key))), expected \(String(describing: m.position(key)))",
                         sourceLocation: sourceLocation)
            return
        }
    }

    @Test("random inserts, replacements and removals across the linear-search limit match a list")
    func randomOperations() {
        var random = SplitMix(seed: 0xD1C7_0001)
        let alphabet = (0..<60).map { "k\($0)" } + ["é", "e\u{301}", "K", "\u{212A}", "a-key-long-enough-to-live-on-the-heap"]
        for round in 0..<30 {
            var d = PlistDictionary()
            var m = Model()
            // Copies taken along the way must never see later changes (the table is shared).
            var snapshots: [(PlistDictionary, Model)] = []
            for step in 0..<300 {
                let key = alphabet[Int(random.next() % UInt64(alphabet.count))]
                // Mostly growth, with removals, so sizes cross 16 in both directions.
                let roll = random.next() % 10
                let value: PlistValue? = roll < (round.isMultiple(of: 2) ? 7 : 5) ? .integer(PlistInteger(step)) : nil
                d[key] = value
                m.set(key, value)
                if random.next() % 25 == 0 { snapshots.append((d, m)) }
            }
            Self.agree(d, m, probes: alphabet, "round \(round)")
            for (i, (copy, model)) in snapshots.enumerated() { Self.agree(copy, model, probes: alphabet, "round \(round) copy \(i)") }
            let sorted = d.sortedByKey()
            #expect(sorted == d)
            #expect(sorted.keys == d.keys.sorted(by: PlistKeyOrder.precedes))
            for key in alphabet { #expect(sorted[key] == d[key]) }
        }
    }

    @Test("a copy keeps its entries when the original grows past the table's size or loses keys")
    func copiesAreIndependent() {
        var d = PlistDictionary((0..<40).map { ("key\($0)", PlistValue.integer(PlistInteger($0))) })
        let copy = d
        for i in 40..<200 { d["key\(i)"] = .integer(PlistInteger(i)) }
        d["key3"] = nil
        #expect(copy.count == 40 && copy["key39"] == .integer(39) && copy["key3"] == .integer(3) && copy["key40"] == nil)
        #expect(d.count == 199 && d["key3"] == nil && d["key199"] == .integer(199) && d.index(forKey: "key4") == 3)
    }

    @Test("removing most keys of a large dictionary, one at a time, keeps every lookup right")
    func largeRemovals() {
        var random = SplitMix(seed: 0x5EED_0002)
        let keys = (0..<3000).map { "entry-\($0)-" + String(repeating: "x", count: $0 % 20) }
        var d = PlistDictionary(keys.map { ($0, PlistValue.integer(PlistInteger($0.count))) })
        var m = Model()
        for key in keys { m.set(key, .integer(PlistInteger(key.count))) }
        var remaining = keys
        var snapshot: (PlistDictionary, Model)?
        // Down to a dozen, so that the table is marked, rebuilt, and finally dropped.
        while remaining.count > 12 {
            let key = remaining.remove(at: Int(random.next() % UInt64(remaining.count)))
            #expect(d.removeValue(forKey: key) == m.values[m.position(key)!])
            m.set(key, nil)
            if remaining.count == 1500 { snapshot = (d, m) }
            if remaining.count % 500 == 0 {
                // A key removed and added again goes to the end.
                d[key] = 7
                m.set(key, 7)
                Self.agree(d, m, probes: keys, "\(remaining.count) left")
                d[key] = nil
                m.set(key, nil)
            }
        }
        Self.agree(d, m, probes: keys, "at the end")
        if let (copy, model) = snapshot { Self.agree(copy, model, probes: keys, "the copy taken halfway") }
    }

    @Test("keys that all land in one bucket spend the probe budget and move the table to SipHash")
    func collidingKeys() {
        let seed: UInt64 = 0xC011_1DE5
        let count = 300
        let mask = UInt64(PlistKeyIndex.bucketCount(for: count) - 1)
        var colliding: [String] = []
        var candidate = 0
        while colliding.count < count {
            let key = "candidate-\(candidate)"
            if SeededByteHash.hash(key, seed: seed).hash & mask == 0 { colliding.append(key) }
            candidate += 1
        }
        let unique = colliding.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: $0, seed: seed) }
        #expect(unique.usesKeyedHash && unique.count == count)
        guard case .success(let checked) = colliding.withUnsafeBufferPointer({ PlistKeyIndex.build(checking: $0, seed: seed) })
        else {
            Issue.record("distinct keys reported as repeated")
            return
        }
        #expect(checked.usesKeyedHash)
        for (i, key) in colliding.enumerated() {
            #expect(colliding.withUnsafeBufferPointer { unique.position(of: key, in: $0) } == i)
            #expect(colliding.withUnsafeBufferPointer { checked.position(of: key, in: $0) } == i)
        }
        // A repeat is still found after the switch.
        let repeated = colliding + [colliding[123]]
        guard case .failure(let found) = repeated.withUnsafeBufferPointer({ PlistKeyIndex.build(checking: $0, seed: seed) })
        else {
            Issue.record("the repeat was not found")
            return
        }
        #expect(found.position == count)
        // Ordinary keys never spend the budget.
        let ordinary = (0..<5000).map { "ordinary-\($0)" }
        #expect(!ordinary.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: $0, seed: seed) }.usesKeyedHash)
    }

    @Test("a table large enough to look keys up ahead finds repeats, and switches to SipHash mid-build")
    func largeTableLookahead() throws {
        let seed: UInt64 = 0x1A4C_EAD5
        let count = 20_000
        let mask = UInt64(PlistKeyIndex.bucketCount(for: count) - 1)
        // Keys whose buckets fall in the first 64 form one cluster, which spends the probe budget
        // after a few dozen of them: the switch happens in the middle of the look-ahead.
        var clustered: [String] = []
        var candidate = 0
        while clustered.count < 300 {
            let key = "clustered-\(candidate)"
            if SeededByteHash.hash(key, seed: seed).hash & mask < 64 { clustered.append(key) }
            candidate += 1
        }
        let ordinary = (0..<(count - clustered.count)).map { "ordinary-\($0)" }
        // The budget grows with every key placed, so the cluster must come early to spend it.
        let switching = Array(ordinary[..<500]) + clustered + ordinary[500...]
        for keys in [clustered + ordinary, switching] {
            guard case .success(let checked) = keys.withUnsafeBufferPointer({ PlistKeyIndex.build(checking: $0, seed: seed) })
            else {
                Issue.record("distinct keys reported as repeated")
                return
            }
            let hashes = keys.map { SeededByteHash.hash($0, seed: seed).hash }
            let unique = keys.withUnsafeBufferPointer { keys in
                hashes.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: keys, knownHashes: $0, seed: seed) }
            }
            #expect(checked.usesKeyedHash && unique.usesKeyedHash)
            #expect(checked.count == count && unique.count == count)
            let misplaced = keys.indices.filter { i in
                keys.withUnsafeBufferPointer { checked.position(of: keys[i], in: $0) != i || unique.position(of: keys[i], in: $0) != i }
            }
            #expect(misplaced.isEmpty, "\(misplaced.count) keys not found at their positions, first \(misplaced.prefix(3))")
        }
        // Repeats are found at the later position: right after the first key, inside the first
        // look-ahead window, far from it, and after the switch to SipHash.
        for (original, repeatAt) in [(0, 1), (2, 5), (17, 12_000), (count - 1, count), (10_000, count)] {
            var keys = switching
            keys.insert(switching[original], at: repeatAt)
            guard case .failure(let found) = keys.withUnsafeBufferPointer({ PlistKeyIndex.build(checking: $0, seed: seed) })
            else {
                Issue.record("the repeat of key \(original) at \(repeatAt) was not found")
                continue
            }
            #expect(found.position == repeatAt)
        }
        #expect(!ordinary.withUnsafeBufferPointer { PlistKeyIndex.build(uniqueKeys: $0, seed: seed) }.usesKeyedHash)
    }

    @Test("a value is three words: the dictionary leaves the enum's case room in its last word")
    func valueSize() {
        // Every array element, stack slot and decoded child is a `PlistValue`; a 25th byte makes
        // each one 32 in an array (a dense JSON array decoded into 30% more memory).
        #expect(MemoryLayout<PlistDictionary>.size == 3 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<PlistValue>.size == 3 * MemoryLayout<Int>.size)
    }

    @Test("canonically equivalent keys are two entries, as in CoreFoundation")
    func literalKeys() {
        var d: PlistDictionary = ["é": 1]
        d["e\u{301}"] = 2
        #expect(d.count == 2 && d["é"] == 1 && d["e\u{301}"] == 2)
        // Equal dictionaries need equal keys by code units, whatever the order.
        let a: PlistDictionary = ["é": 1, "x": 2]
        let b: PlistDictionary = ["x": 2, "e\u{301}": 1]
        #expect(a != b)
        #expect(a == ["x": 2, "é": 1])
    }
}
