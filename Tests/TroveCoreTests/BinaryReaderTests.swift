import Foundation
import Testing
@testable import TroveCore
import TroveTestSupport

/// A file whose top object is the single object `bytes`.
private func single(_ bytes: [UInt8], version: Character = "0") -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.version = UInt8(ascii: version.unicodeScalars.first!)
    builder.add(bytes)
    return builder.build()
}

/// A file whose top object is an array with `count` references to one `true` object.
private func arrayFile(count: Int, marker: UInt8 = 0xA0) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.refSize = 1
    var header: [UInt8] = []
    if count < 15 {
        header = [marker | UInt8(count)]
    } else if count <= 0xFF {
        header = [marker | 0x0F, 0x10, UInt8(count)]
    } else if count <= 0xFFFF {
        header = [marker | 0x0F, 0x11] + binaryBigEndian(UInt64(count), width: 2)
    } else {
        header = [marker | 0x0F, 0x12] + binaryBigEndian(UInt64(count), width: 4)
    }
    builder.add(header + Array(repeating: 1, count: count))
    if count > 0 { builder.add([0x09]) }
    builder.offsetSize = 4
    return builder.build()
}

@Suite("Binary reader: markers")
struct BinaryReaderMarkerTests {
    @Test func nullAndBooleans() throws {
        #expect(try readBinary(single([0x00])).value == .null)
        #expect(try readBinary(single([0x08])).value == .bool(false))
        #expect(try readBinary(single([0x09])).value == .bool(true))
    }

    @Test func integersOfEveryWidth() throws {
        #expect(try readBinary(single([0x10, 0xFF])).value == .integer(255))
        #expect(try readBinary(single([0x11, 0xFF, 0xFE])).value == .integer(65534))
        #expect(try readBinary(single([0x12, 0xFF, 0xFF, 0xFF, 0xFF])).value == .integer(PlistInteger(Int64(UInt32.max))))
        #expect(try readBinary(single([0x13] + Array(repeating: 0xFF, count: 8))).value == .integer(-1))
        #expect(try readBinary(single([0x13, 0x80] + Array(repeating: 0, count: 7))).value == .integer(PlistInteger(Int64.min)))
        let uint64Max = [0x14] + Array(repeating: UInt8(0), count: 8) + Array(repeating: 0xFF, count: 8)
        #expect(try readBinary(single(uint64Max)).value == .integer(PlistInteger(UInt64.max)))
    }

    @Test("16-byte integers count only their low 64 bits, as unsigned")
    func int128LowBits() throws {
        let bytes: [UInt8] = [0x14] + (1...16).map { UInt8($0) }
        #expect(try readBinary(single(bytes)).value == .integer(PlistInteger(UInt64(0x090a_0b0c_0d0e_0f10))))
    }

    @Test func realsKeepTheirWidth() throws {
        let single32 = try readBinary(single([0x22] + binaryBigEndian(UInt64(Float(1.5).bitPattern), width: 4))).value
        guard case .real(let r32) = single32 else { Issue.record("not a real"); return }
        #expect(r32.width == .single)
        #expect(r32.value == 1.5)
        let double64 = try readBinary(single([0x23] + binaryBigEndian(0.1.bitPattern, width: 8))).value
        guard case .real(let r64) = double64 else { Issue.record("not a real"); return }
        #expect(r64.width == .double)
        #expect(r64.value == 0.1)
        let negativeZero = try readBinary(single([0x23] + binaryBigEndian((-0.0).bitPattern, width: 8))).value
        #expect(negativeZero.realValue?.value.sign == .minus)
        let nan = try readBinary(single([0x23] + binaryBigEndian(Double.nan.bitPattern, width: 8))).value
        #expect(nan.realValue?.value.isNaN == true)
    }

    @Test func dates() throws {
        let value = try readBinary(single([0x33] + binaryBigEndian((-1.25).bitPattern, width: 8))).value
        #expect(value == .date(PlistDate(secondsSinceReferenceDate: -1.25)))
    }

    @Test func dataAndStrings() throws {
        #expect(try readBinary(single([0x43, 1, 2, 3])).value == .data(Data([1, 2, 3])))
        #expect(try readBinary(single([0x40])).value == .data(Data()))
        #expect(try readBinary(single([0x53] + Array("abc".utf8))).value == .string("abc"))
        #expect(try readBinary(single([0x50])).value == .string(""))
        // U+1F600 as a surrogate pair, then U+00E9.
        #expect(try readBinary(single([0x63, 0xD8, 0x3D, 0xDE, 0x00, 0x00, 0xE9])).value == .string("😀é"))
    }

    @Test("UTF-16 string objects decode as the standard library decodes them; an unpaired surrogate is an error at its offset")
    func utf16StringsMatchTheStandardLibrary() throws {
        // Units drawn to hit every UTF-8 length (1, 2, 3 and 4 bytes) and, now and then, a
        // surrogate without its partner.
        let pools: [ClosedRange<UInt16>] = [0x0000...0x007F, 0x0080...0x07FF, 0x0800...0xD7FF, 0xE000...0xFFFF]
        var generator = SplitMix(seed: 0x5EED_0016)
        var decoded = 0, refused = 0
        for round in 0..<4_000 {
            var units: [UInt16] = []
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                switch Int.random(in: 0..<100, using: &generator) {
                case 0..<8:
                    units += [UInt16.random(in: 0xD800...0xDBFF, using: &generator), UInt16.random(in: 0xDC00...0xDFFF, using: &generator)]
                case 8 where round % 3 == 0:
                    units.append(UInt16.random(in: 0xD800...0xDFFF, using: &generator))
                case 9..<60 where round % 2 == 0:
                    // Mostly-ASCII text, which is decoded four units at a time, with the units
                    // on either side of each byte's boundary mixed in.
                    units.append(UInt16.random(in: 0x20...0x7E, using: &generator))
                case 60..<70 where round % 2 == 0:
                    units.append([0x00, 0x7F, 0x80, 0xFF, 0x100, 0x17F, 0x7F00, 0x8000, 0xFF7F][Int.random(in: 0..<9, using: &generator)])
                default:
                    units.append(UInt16.random(in: pools.randomElement(using: &generator)!, using: &generator))
                }
            }
            var object: [UInt8] = units.count < 15 ? [0x60 | UInt8(units.count)] : [0x6F, 0x11, UInt8(units.count >> 8), UInt8(units.count & 0xFF)]
            let payload = 8 + object.count
            for unit in units { object += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            let expected = Self.firstUnpaired(units)
            do {
                let value = try readBinary(single(object)).value
                #expect(expected == nil, "accepted an unpaired surrogate at unit \(expected ?? -1): \(units)")
                #expect(value == .string(String(decoding: units, as: UTF16.self)), "\(units)")
                decoded += 1
            } catch {
                #expect(error.code == .badString)
                #expect(error.location == .byteOffset(payload + 2 * (expected ?? -1)), "\(units)")
                refused += 1
            }
        }
        #expect(decoded > 1_000 && refused > 100, "decoded \(decoded), refused \(refused)")
    }

    /// The index of the first surrogate that is not part of a high-low pair, if any.
    private static func firstUnpaired(_ units: [UInt16]) -> Int? {
        var i = 0
        while i < units.count {
            let u = units[i]
            if u & 0xF800 == 0xD800 {
                guard u < 0xDC00, i + 1 < units.count, units[i + 1] & 0xFC00 == 0xDC00 else { return i }
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }

    @Test("bytes above 0x7F in ASCII string objects read as Latin-1, as CoreFoundation reads them, and are kept")
    func latin1InASCIIStrings() throws {
        let file = single([0x53, 0x41, 0xE9, 0xFF])
        let (value, layout) = try readBinary(file)
        #expect(value == .string("Aéÿ"))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        // Without notes, CoreFoundation's rule applies: not ASCII, so UTF-16.
        #expect(try BinaryPlistWriter().write(value)[8] == 0x63)
        #expect(try readBinary(single([0x52, 0xC3, 0xA9])).value == .string("Ã©"))
    }

    @Test("UTF-8 strings (0x7n) are a bplist1x feature: rejected in bplist00, read otherwise")
    func utf8Strings() throws {
        let object: [UInt8] = [0x72, 0xC3, 0xA9]
        #expect(binaryReadError(single(object))?.code == .badObject)
        #expect(try readBinary(single(object, version: "1")).value == .string("é"))
    }

    @Test func uids() throws {
        #expect(try readBinary(single([0x80, 0x05])).value == .uid(5))
        #expect(try readBinary(single([0x81, 0x01, 0x00])).value == .uid(256))
        #expect(try readBinary(single([0x87] + Array(repeating: 0xFF, count: 8))).value == .uid(UInt64.max))
        #expect(binaryReadError(single([0x88] + Array(repeating: 0, count: 9)))?.code == .badObject)
    }

    @Test func emptyContainers() throws {
        #expect(try readBinary(single([0xA0])).value == .array([]))
        #expect(try readBinary(single([0xD0])).value == .dictionary([:]))
        #expect(try readBinary(single([0xC0])).value == .array([]))
    }

    @Test("sets read as arrays, and the layout writes them back as sets")
    func sets() throws {
        let file = arrayFile(count: 2, marker: 0xC0)
        let (value, layout) = try readBinary(file)
        #expect(value == .array([true, true]))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("counts 14, 15, 16 and above 65535", arguments: [0, 1, 14, 15, 16, 255, 256, 65535, 65536, 70000])
    func counts(count: Int) throws {
        let file = arrayFile(count: count)
        let (value, layout) = try readBinary(file)
        #expect(value.arrayValue?.count == count)
        #expect(value.arrayValue?.allSatisfy { $0 == true } == true)
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("a count spelled with nibble 0xF below 15 is read and kept")
    func extendedSmallCount() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0x5F, 0x10, 0x03] + Array("abc".utf8))
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == .string("abc"))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test func dictionaries() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xD2, 1, 2, 3, 4])
        builder.add([0x51] + Array("b".utf8))
        builder.add([0x51] + Array("a".utf8))
        builder.add([0x10, 0x01])
        builder.add([0x10, 0x02])
        let value = try readBinary(builder.build()).value
        #expect(value == .dictionary(["b": 1, "a": 2]))
        #expect(value.dictionaryValue?.keys == ["b", "a"])
    }

    @Test("a repeated key keeps its first position and its first value, as CoreFoundation's binary reader does")
    func duplicateKeys() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xD3, 1, 2, 1, 3, 4, 5])
        builder.add([0x51] + Array("k".utf8))
        builder.add([0x51] + Array("z".utf8))
        builder.add([0x10, 0x01])
        builder.add([0x10, 0x02])
        builder.add([0x10, 0x03])
        let (value, layout) = try readBinary(builder.build())
        #expect(value.dictionaryValue?.keys == ["k", "z"])
        #expect(value == .dictionary(["k": 1, "z": 2]))
        // The lazy reader answers as the full one: lookup, iteration and materializing.
        let lazy = try LazyBinaryPlist(Data(builder.build()))
        let root = try lazy.root()
        #expect(try root.child(forKey: "k")?.materialize() == 1)
        #expect(try root.keys() == ["k", "z"])
        var entries = try root.entries()
        #expect(try entries.next()?.value.materialize() == 1)
        #expect(try lazy.materialize() == value)
        // The notes keep the repeated entry, so the file comes back whole.
        #expect(try BinaryPlistWriter().write(value, layout: layout) == builder.build())
        // Once the keys change, the repeat is gone and the value is written as it is.
        guard case .dictionary(var edited) = value else { return }
        edited["new"] = 4
        let rewritten = try BinaryPlistWriter().write(.dictionary(edited), layout: layout)
        #expect(try readBinary(rewritten).value == .dictionary(edited))
        // Changing the surviving value of the repeated key keeps the repeat, and the new value wins.
        guard case .dictionary(var changed) = value else { return }
        changed["k"] = 9
        let changedBytes = try BinaryPlistWriter().write(.dictionary(changed), layout: layout)
        #expect(try readBinary(changedBytes).value == .dictionary(changed))
    }

    @Test("shared objects decode once and stay shared")
    func sharedReferences() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 1])
        builder.add([0xA1, 2])
        builder.add([0x51, 0x78])
        let (value, layout) = try readBinary(builder.build())
        #expect(value == .array([.array(["x"]), .array(["x"])]))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == builder.build())
    }

    @Test("a string met as a value, then as a key, then again, reads and writes back")
    func stringSharedByValuesAndKey() throws {
        // Strings are kept from their second reference on; here the second one is a key.
        let text = "a key text long enough to own storage"
        var builder = BinaryPlistBuilder()
        builder.add([0xA4, 1, 2, 1, 1])
        builder.add([0x5F, 0x10, UInt8(text.utf8.count)] + Array(text.utf8))
        builder.add([0xD1, 1, 3])
        builder.add([0x10, 0x05])
        let bytes = builder.build()
        let (value, layout) = try readBinary(bytes)
        #expect(value == .array([.string(text), .dictionary(PlistDictionary([(text, PlistValue.integer(5))])), .string(text), .string(text)]))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == bytes)
        #expect(try readBinary(bytes, keepingLayout: false).value == value)
    }

    @Test("a data object met as a value and then as a key is refused as a key")
    func dataSharedByValueAndKey() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 2])
        builder.add([0x42, 0x41, 0x42])
        builder.add([0xD1, 1, 3])
        builder.add([0x10, 0x05])
        let bytes = builder.build()
        let error = try #require(binaryReadError(bytes))
        #expect(error.code == .badKey)
        // The dictionary's key reference: after the header (8 bytes), the array (3), the data (3) and
        // the dictionary's marker.
        #expect(error.location == .byteOffset(15))
        #expect(error.message.contains("is not a string (marker 0x42)"))
    }

    @Test("an exponential shared-reference file decodes fast and stays linear")
    func exponentialSharing() throws {
        // Object i is an array referencing object i + 1 twice: 2^40 paths, 41 objects.
        var builder = BinaryPlistBuilder()
        for i in 0..<40 { builder.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        builder.add([0x51, 0x78])
        let file = builder.build()
        let start = ContinuousClock.now
        // The default limits refuse what this expands to (LimitsTests); raised, it is shared.
        let (value, layout) = try readBinary(file, limits: PlistLimits(maxExpandedValues: .max, maxDecodedBytes: .max))
        var node = value
        var depth = 0
        while case .array(let elements) = node {
            #expect(elements.count == 2)
            node = elements[1]
            depth += 1
        }
        #expect(depth == 40)
        #expect(node == "x")
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test("offset and reference sizes 3, 5, 6 and 7 read and are kept", arguments: [3, 5, 6, 7])
    func oddSizes(width: Int) throws {
        var builder = BinaryPlistBuilder()
        builder.offsetSize = width
        builder.refSize = width
        builder.add([0xA2] + binaryBigEndian(1, width: width) + binaryBigEndian(2, width: width))
        builder.add([0x10, 0x07])
        builder.add([0x51, 0x79])
        let file = builder.build()
        let (value, layout) = try readBinary(file)
        #expect(value == .array([7, "y"]))
        #expect(try BinaryPlistWriter().write(value, layout: layout) == file)
    }

    @Test("512 nested arrays read; 513 hit the depth limit")
    func depthLimit() throws {
        #expect(try readBinary(binaryNestedArrays(512)).value.arrayValue != nil)
        let error = binaryReadError(binaryNestedArrays(513))
        #expect(error?.code == .depthLimit)
        #expect(error?.location != nil)
        #expect(binaryReadError(binaryNestedArrays(20), limits: PlistLimits(maxDepth: 10))?.code == .depthLimit)
    }

    @Test("100,000 nested arrays fail with an error, not a crash")
    func hostileDepth() {
        #expect(binaryReadError(binaryNestedArrays(100_000))?.code == .depthLimit)
    }

    @Test("a raised depth limit reads and writes deep files without recursion")
    func raisedDepthLimit() throws {
        // The highest setting: PlistLimits.depthCeiling (see DeepValueTests).
        let limits = PlistLimits(maxDepth: 10_000)
        let file = binaryNestedArrays(PlistLimits.depthCeiling)
        let (value, layout) = try readBinary(file, limits: limits)
        var node = value
        var depth = 0
        while case .array(let elements) = node, let first = elements.first {
            node = first
            depth += 1
        }
        #expect(depth == PlistLimits.depthCeiling)
        #expect(node == "seed")
        #expect(try BinaryPlistWriter(limits: limits).write(value, layout: layout) == file)
        #expect(binaryReadError(binaryNestedArrays(PlistLimits.depthCeiling + 1), limits: limits)?.code == .depthLimit)
    }

    @Test("512 nested levels also read on a thread with a 512 KB stack")
    func smallStack() throws {
        let file = binaryNestedArrays(512)
        let box = BinaryOutcomeBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.set(binaryReadError(file) == nil)
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(box.get() == true)
    }

    @Test("the value limit counts shared objects once")
    func valueLimit() throws {
        let file = arrayFile(count: 100)
        #expect(binaryReadError(file, limits: PlistLimits(maxValues: 50))?.code == .sizeLimit)
        #expect(binaryReadError(file, limits: PlistLimits(maxValues: 102)) == nil)
    }
}

/// `depth` arrays each holding the next, the innermost holding the string "seed".
func binaryNestedArrays(_ depth: Int) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.offsetSize = 4
    builder.refSize = 4
    for i in 0..<depth { builder.add([0xA1] + binaryBigEndian(UInt64(i + 1), width: 4)) }
    builder.add([0x54] + Array("seed".utf8))
    return builder.build()
}

final class BinaryOutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Bool?
    func set(_ v: Bool) { lock.lock(); value = v; lock.unlock() }
    func get() -> Bool? { lock.lock(); defer { lock.unlock() }; return value }
}
