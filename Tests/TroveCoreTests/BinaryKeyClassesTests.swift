import Testing
import TroveTestSupport
@testable import TroveCore

/// The binary reader proves a dictionary's keys distinct through ``BinaryKeyClasses`` and leaves
/// everything it cannot prove to the assembler; together they must decide exactly as inserting
/// the entries one at a time, adding only absent keys, does (first position, first value: the
/// rule of CoreFoundation's binary reader).
@Suite("Binary key classes")
struct BinaryKeyClassesTests {
    @Test("a key object shared by many dictionaries is admitted once per dictionary")
    func sharedKeyObjects() {
        var classes = BinaryKeyClasses(objectCount: 10, seed: 7)
        classes.prepare()
        var admitted: [Bool] = []
        for _ in 0..<5 {
            classes.beginDictionary(count: 3)
            admitted.append(classes.admit(1, text: "name"))
            admitted.append(classes.admit(2, text: "size"))
            admitted.append(classes.admit(3, text: "kind"))
        }
        #expect(admitted == Array(repeating: true, count: 15))
        // The same object twice in one dictionary is a repeat.
        classes.beginDictionary(count: 2)
        let first = classes.admit(1, text: "name")
        let second = classes.admit(1, text: "name")
        #expect(first && !second)
    }

    @Test("two objects with the same bytes are one class, outside ASCII too; canonically equal texts are two")
    func equalTextsAndUnicode() {
        var classes = BinaryKeyClasses(objectCount: 12, seed: 7)
        classes.prepare()
        var admitted: [Bool] = []
        classes.beginDictionary(count: 2)
        admitted.append(classes.admit(4, text: "same"))
        admitted.append(classes.admit(5, text: "same"))
        classes.beginDictionary(count: 2)
        admitted.append(classes.admit(5, text: "same"))
        admitted.append(classes.admit(6, text: "other"))
        // The Kelvin sign equals "K" as a Swift String, but not as a key: CF compares code units.
        classes.beginDictionary(count: 2)
        admitted.append(classes.admit(7, text: "K"))
        admitted.append(classes.admit(8, text: "\u{212A}"))
        classes.beginDictionary(count: 3)
        admitted.append(classes.admit(9, text: "é"))
        admitted.append(classes.admit(10, text: "e\u{301}"))
        admitted.append(classes.admit(11, text: "é"))
        #expect(admitted == [true, false, true, true, true, true, true, true, false])
    }

    @Test("a large dictionary's table, built from the key classes' hashes, finds every key")
    func largeDictionaryLookups() throws {
        // Keys shared by several dictionaries, so that later ones meet classified key objects;
        // ASCII, non-ASCII and canonically equivalent spellings among them.
        let keys = (0..<120).map { "key-\($0)" } + ["é", "e\u{301}", "K", "\u{212A}", "ключ-\(7)"]
        let dictionary = PlistDictionary(keys.enumerated().map { ($0.element, PlistValue.integer(PlistInteger($0.offset))) })
        let file = try BinaryPlistWriter().write(.array([.dictionary(dictionary), .dictionary(dictionary.sortedByKey())]))
        guard case .array(let read) = try readBinary(file).value else {
            Issue.record("not an array")
            return
        }
        for case .dictionary(let d) in read {
            #expect(d.count == keys.count)
            for (i, key) in keys.enumerated() where d[key] != .integer(PlistInteger(i)) {
                Issue.record("\(key) not found")
            }
            #expect(d["key-120"] == nil && d["k"] == nil)
        }
    }

    @Test("thousands of distinct keys in one dictionary are all admitted")
    func manyKeys() {
        let count = 5000
        var classes = BinaryKeyClasses(objectCount: count, seed: 99)
        classes.prepare()
        classes.beginDictionary(count: count)
        var admitted = 0
        for i in 0..<count where classes.admit(i, text: "a-key-long-enough-for-the-heap-\(i)") { admitted += 1 }
        #expect(admitted == count)
        // Each of them again, as other objects: every one is a repeat now.
        var classes2 = BinaryKeyClasses(objectCount: 2 * count, seed: 99)
        classes2.prepare()
        classes2.beginDictionary(count: 2 * count)
        for i in 0..<count { _ = classes2.admit(i, text: "k\(i)") }
        var repeats = 0
        for i in 0..<count where !classes2.admit(count + i, text: "k\(i)") { repeats += 1 }
        #expect(repeats == count)
    }

    @Test("dictionaries over a pool of key objects with repeated texts decode as one-at-a-time insertion")
    func randomFilesMatchInsertion() throws {
        var random = SplitMix(seed: 0xC1A55)
        for round in 0..<40 {
            // A pool of key objects whose texts repeat across objects (a writer that does not
            // unique strings), some as UTF-16 objects with the same ASCII text, some non-ASCII.
            let alphabet = ["a", "b", "name", "K", "\u{212A}", "é", "e\u{301}", "long-key-\(round)-that-is-not-inline"]
            var builder = BinaryPlistBuilder()
            builder.refSize = 2
            builder.offsetSize = 4
            let dictionaryCount = 6
            let top = builder.add([])  // filled in below
            var keyObjects: [(index: Int, text: String)] = []
            for _ in 0..<12 {
                let text = alphabet[Int(random.next() % UInt64(alphabet.count))]
                let asUTF16 = random.next() % 3 == 0 || !text.utf8.allSatisfy { $0 < 0x80 }
                let bytes: [UInt8] = asUTF16
                    ? Self.marker(0x60, count: text.utf16.count) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                    : Self.marker(0x50, count: text.utf8.count) + Array(text.utf8)
                keyObjects.append((builder.add(bytes), text))
            }
            var expected: [PlistValue] = []
            var dictionaryObjects: [Int] = []
            for _ in 0..<dictionaryCount {
                let size = Int(random.next() % 7)
                let chosen = (0..<size).map { _ in keyObjects[Int(random.next() % UInt64(keyObjects.count))] }
                var storage = PlistDictionary()
                var valueRefs: [Int] = []
                for (i, key) in chosen.enumerated() {
                    valueRefs.append(builder.add([0x10, UInt8(i)]))
                    if storage[key.text] == nil { storage[key.text] = .integer(PlistInteger(i)) }
                }
                let refs = chosen.map(\.index) + valueRefs
                dictionaryObjects.append(builder.add([0xD0 | UInt8(size)] + refs.flatMap { binaryBigEndian(UInt64($0), width: 2) }))
                expected.append(.dictionary(storage))
            }
            builder.objects[top] = [0xA0 | UInt8(dictionaryCount)] + dictionaryObjects.flatMap { binaryBigEndian(UInt64($0), width: 2) }
            let value = try readBinary(builder.build(), keepingLayout: false).value
            guard case .array(let dictionaries) = value else {
                Issue.record("round \(round): not an array")
                continue
            }
            #expect(dictionaries == expected, "round \(round)")
            // Key order too, which == ignores.
            for (got, want) in zip(dictionaries, expected) {
                #expect(got.dictionaryValue?.keys == want.dictionaryValue?.keys, "round \(round)")
            }
        }
    }

    @Test("a large dictionary is classified only when its first key object was a key before")
    func largeDictionariesClassifiedWhenShared() {
        let large = BinaryKeyClasses.largestAlwaysClassified + 1
        var classes = BinaryKeyClasses(objectCount: 20, seed: 5)
        classes.prepare()
        // (#expect cannot take a non-copyable value, so each answer is a local first.)
        var decisions = [
            classes.classifies(count: BinaryKeyClasses.largestAlwaysClassified, firstKey: 1),
            classes.classifies(count: large, firstKey: 1),
        ]
        // Used by a large dictionary that was not classified: the next one sharing it is.
        classes.markUsedUnclassified(1)
        decisions += [classes.classifies(count: large, firstKey: 1), classes.classifies(count: large, firstKey: 2)]
        #expect(decisions == [true, false, true, false])
        // Such an object gets its class when admitted, and its text's class is the usual one.
        classes.beginDictionary(count: 3)
        var admitted = [classes.admit(1, text: "shared"), classes.admit(2, text: "other"), classes.admit(3, text: "shared")]
        let classifiedNow = classes.classifies(count: large, firstKey: 2)
        #expect(admitted == [true, true, false] && classifiedNow)
        // Marking leaves a classified object as it is.
        classes.markUsedUnclassified(2)
        classes.beginDictionary(count: 2)
        admitted = [classes.admit(2, text: "other"), classes.admit(4, text: "other")]
        #expect(admitted == [true, false])
    }

    @Test("large dictionaries, alone or sharing key objects, with repeated texts and objects, decode as one-at-a-time insertion")
    func largeDictionariesMatchInsertion() throws {
        var random = SplitMix(seed: 0x1A26E)
        let large = BinaryKeyClasses.largestAlwaysClassified
        for round in 0..<4 {
            var builder = BinaryPlistBuilder()
            builder.refSize = 4
            builder.offsetSize = 4
            let top = builder.add([])  // filled in below
            // A pool of key objects, a few of them with a text another object has too.
            var keyObjects: [(index: Int, text: String)] = []
            for i in 0..<(large + 300) {
                let text = i % 97 == 5 ? "key-\(i - 5)" : (i % 11 == 0 ? "ключ-\(i)" : "key-\(i)")
                let bytes = text.utf8.allSatisfy { $0 < 0x80 }
                    ? Self.marker(0x50, count: text.utf8.count) + Array(text.utf8)
                    : Self.marker(0x60, count: text.utf16.count) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                keyObjects.append((builder.add(bytes), text))
            }
            // The first dictionary takes every pool object once; the others share its objects:
            // one in the same order, one shuffled with some objects twice, one small.
            var shuffled = keyObjects
            for i in shuffled.indices.reversed() { shuffled.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            let twice = (0..<200).map { _ in keyObjects[Int(random.next() % UInt64(keyObjects.count))] }
            let orders = [keyObjects, keyObjects, shuffled + twice, Array(shuffled.prefix(40))]
            var expected: [PlistValue] = []
            var dictionaryObjects: [Int] = []
            for (n, order) in orders.enumerated() where round % 2 == 0 || n != 1 {
                var storage = PlistDictionary()
                var valueRefs: [Int] = []
                for (i, key) in order.enumerated() {
                    if storage[key.text] == nil { storage[key.text] = .integer(PlistInteger(i % 7)) }
                    valueRefs.append(builder.add([0x10, UInt8(i % 7)]))
                }
                expected.append(.dictionary(storage))
                let refs = order.map(\.index) + valueRefs
                dictionaryObjects.append(
                    builder.add(Self.marker(0xD0, count: order.count) + refs.flatMap { binaryBigEndian(UInt64($0), width: 4) }))
            }
            builder.objects[top] = Self.marker(0xA0, count: dictionaryObjects.count)
                + dictionaryObjects.flatMap { binaryBigEndian(UInt64($0), width: 4) }
            let file = builder.build()
            for keepingLayout in [false, true] {
                let document = try readBinary(file, keepingLayout: keepingLayout)
                guard case .array(let dictionaries) = document.value else {
                    Issue.record("round \(round): not an array")
                    continue
                }
                #expect(dictionaries.count == expected.count, "round \(round)")
                // Compared as booleans: a failure printing thousands of keys says no more.
                for (n, (got, want)) in zip(dictionaries, expected).enumerated() {
                    let sameEntries = got == want
                    let sameOrder = got.dictionaryValue?.keys == want.dictionaryValue?.keys
                    #expect(sameEntries && sameOrder, "round \(round), dictionary \(n)")
                }
                // The notes of the repeated entries rewrite the file byte for byte.
                if keepingLayout {
                    let rewritten = try BinaryPlistWriter().write(document.value, layout: document.layout)
                    #expect(rewritten == file, "round \(round)")
                }
            }
        }
    }

    /// An object marker with its count, in the extended form from 15 on.
    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [type | UInt8(count)] }
        if count < 256 { return [type | 0x0F, 0x10, UInt8(count)] }
        return [type | 0x0F, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
    }
}
