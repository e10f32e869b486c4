import Testing
import TroveTestSupport
@testable import TroveCore

/// The binary reader proves a dictionary's keys distinct through ``BinaryKeyClasses`` and leaves
/// everything it cannot prove to the assembler; together they must decide exactly as inserting
/// the entries one at a time does (first position, last value).
@Suite("Binary key classes")
struct BinaryKeyClassesTests {
    @Test("a key object shared by many dictionaries is admitted once per dictionary")
    func sharedKeyObjects() {
        var classes = BinaryKeyClasses(objectCount: 10, seed: 7)
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
        classes.beginDictionary(count: count)
        var admitted = 0
        for i in 0..<count where classes.admit(i, text: "a-key-long-enough-for-the-heap-\(i)") { admitted += 1 }
        #expect(admitted == count)
        // Each of them again, as other objects: every one is a repeat now.
        var classes2 = BinaryKeyClasses(objectCount: 2 * count, seed: 99)
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
                    storage[key.text] = .integer(PlistInteger(i))
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

    /// An object marker with its count, in the extended form from 15 on.
    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type | UInt8(count)] : [type | 0x0F, 0x10, UInt8(count)]
    }
}
