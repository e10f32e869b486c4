import Foundation
import Testing
@testable import TroveCore

/// What a binary read keeps for further references: containers and a large dictionary's keys
/// are kept from their second use on in a plain read and decoded again then, which must give the
/// same values, count each object once against the limits, and stay linear on shared input.
@Suite("Binary reader: objects referenced again")
struct BinaryObjectReuseTests {
    @Test("an exponential shared-reference file decodes fast in both modes", arguments: [false, true])
    func exponentialSharing(keepingLayout: Bool) throws {
        // Object i is an array referencing object i + 1 twice: 2^40 paths, 41 objects.
        var builder = BinaryPlistBuilder()
        for i in 0..<40 { builder.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        builder.add([0x51, 0x78])
        let start = ContinuousClock.now
        let value = try readBinary(
            builder.build(), limits: PlistLimits(maxExpandedValues: .max, maxDecodedBytes: .max), keepingLayout: keepingLayout
        ).value
        var node = value
        var depth = 0
        while case .array(let elements) = node {
            #expect(elements.count == 2 && elements[0] == elements[1])
            node = elements[0]
            depth += 1
        }
        #expect(depth == 40 && node == "x")
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test("a container referenced three times reads as three equal values", arguments: [false, true])
    func containerReferencedThrice(keepingLayout: Bool) throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 1, 1, 4, 1])
        builder.add([0xD2, 2, 3, 4, 5])
        builder.add([0x51, 0x61])
        builder.add([0x51, 0x62])
        builder.add([0xA1, 2])
        builder.add([0x10, 0x07])
        let shared = PlistValue.dictionary(PlistDictionary([("a", .array(["a"])), ("b", 7)]))
        let value = try readBinary(builder.build(), keepingLayout: keepingLayout).value
        #expect(value == .array([shared, shared, .array(["a"]), shared]))
    }

    @Test("a container decoded again is not counted again against the value limit")
    func sharedContainerCountedOnce() throws {
        // The top array holds one array of 50 integers twice. The lossless read keeps the shared
        // array at once; the plain read decodes it again: both must stop at the same limit.
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 1])
        builder.add([0xAF, 0x10, 50] + (0..<50).map { UInt8($0 + 2) })
        for i in 0..<50 { builder.add([0x10, UInt8(i)]) }
        let file = builder.build()
        func smallestLimit(keepingLayout: Bool) -> Int? {
            (50..<400).first { limit in
                (try? readBinary(file, limits: PlistLimits(maxValues: limit), keepingLayout: keepingLayout)) != nil
            }
        }
        let lossless = try #require(smallestLimit(keepingLayout: true))
        // Counted once: the 50 integers, the shared array and the top with their references.
        #expect(lossless < 110)
        #expect(smallestLimit(keepingLayout: false) == lossless)
    }

    @Test("a large dictionary's key objects shared with values and with a later dictionary", arguments: [false, true])
    func largeDictionaryKeysSharedWithValues(keepingLayout: Bool) throws {
        // Top array: [key object 0 as a value, the large dictionary, key objects 0 and 1 as
        // values, a small dictionary using key object 1]; the large dictionary's values are
        // integers, except the first, which is key object 2 (used as its own key's value too).
        let count = BinaryKeyClasses.largestAlwaysClassified + 10
        var builder = BinaryPlistBuilder()
        builder.refSize = 2
        builder.offsetSize = 4
        let ref = { (i: Int) in binaryBigEndian(UInt64(i), width: 2) }
        let top = builder.add([])
        let keyBase = 1
        var texts: [String] = []
        for i in 0..<count {
            let text = "a dictionary key of some length, number \(i)"
            texts.append(text)
            builder.add([0x5F, 0x10, UInt8(text.utf8.count)] + Array(text.utf8))
        }
        let integer = builder.add([0x10, 0x2A])
        let large = builder.add(
            [0xDF, 0x11] + binaryBigEndian(UInt64(count), width: 2)
                + (0..<count).flatMap { ref(keyBase + $0) }
                + ref(keyBase + 2) + (1..<count).flatMap { _ in ref(integer) })
        let small = builder.add([0xD1] + ref(keyBase + 1) + ref(integer))
        builder.objects[top] = [0xA5] + ref(keyBase) + ref(large) + ref(keyBase) + ref(keyBase + 1) + ref(small)
        var expected = PlistDictionary()
        for (i, text) in texts.enumerated() { expected[text] = i == 0 ? .string(texts[2]) : 42 }
        let value = try readBinary(builder.build(), keepingLayout: keepingLayout).value
        let want = PlistValue.array([
            .string(texts[0]), .dictionary(expected), .string(texts[0]), .string(texts[1]),
            .dictionary(PlistDictionary([(texts[1], PlistValue.integer(42))])),
        ])
        #expect(value == want)
        #expect(value.arrayValue?[1].dictionaryValue?.keys == texts)
    }

    @Test("a large dictionary with a key that is not a string is refused at that reference", arguments: [false, true])
    func largeDictionaryNonStringKey(keepingLayout: Bool) throws {
        let count = BinaryKeyClasses.largestAlwaysClassified + 1
        var builder = BinaryPlistBuilder()
        builder.refSize = 2
        builder.offsetSize = 4
        let ref = { (i: Int) in binaryBigEndian(UInt64(i), width: 2) }
        builder.add([])
        for i in 0..<count - 1 { builder.add([0x5F, 0x10, 8] + Array(String(format: "key%05d", i).utf8)) }
        let number = builder.add([0x10, 0x01])
        // The last key reference names the integer.
        builder.objects[0] = [0xDF, 0x11] + binaryBigEndian(UInt64(count), width: 2)
            + (1..<count).flatMap { ref($0) } + ref(number) + (0..<count).flatMap { _ in ref(number) }
        let error = try #require(throws: PlistError.self) { try readBinary(builder.build(), keepingLayout: keepingLayout) }
        #expect(error.code == .badKey)
        // After the 8-byte header, the marker and its 3-byte count, count - 1 references of 2 bytes.
        #expect(error.location == .byteOffset(8 + 4 + 2 * (count - 1)))
    }
}
