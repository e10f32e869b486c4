import Foundation
import Testing
@testable import TroveCore

/// The error for `bytes`, which must fail.
private func failure(_ bytes: [UInt8], limits: PlistLimits = .default) throws -> PlistError {
    let error = try #require(binaryReadError(bytes, limits: limits))
    #expect(error.format == .binary)
    #expect(!error.message.isEmpty)
    return error
}

private func file(_ objects: [[UInt8]], refSize: Int = 1) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.refSize = refSize
    for object in objects { builder.add(object) }
    return builder.build()
}

@Suite("Binary reader: errors")
struct BinaryErrorTests {
    @Test func badMagic() throws {
        var bytes = file([[0x09]])
        bytes[3] = UInt8(ascii: "L")
        let error = try failure(bytes)
        #expect(error.code == .badMagic)
        #expect(error.location == .byteOffset(0))
        #expect(try failure(Array("bplist".utf8)).code == .badMagic)
    }

    @Test("any version character after bplist0 is accepted")
    func anyVersion() throws {
        var bytes = file([[0x09]])
        bytes[7] = UInt8(ascii: "?")
        #expect(try readBinary(bytes).value == true)
    }

    @Test func truncatedTrailer() throws {
        let whole = file([[0x09]])
        let error = try failure(Array(whole.prefix(30)))
        #expect(error.code == .badTrailer)
        // Dropping one byte of the offset table breaks the length rule.
        var cut = whole
        cut.remove(at: 9)
        #expect(try failure(cut).code == .badTrailer)
    }

    @Test("trailer fields: sizes, object count, top object, table offset")
    func trailerFields() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0x09])
        var bytes = builder.build()
        let trailer = bytes.count - 32
        bytes[trailer + 6] = 0
        #expect(try failure(bytes).location == .byteOffset(trailer + 6))

        builder.top = 1
        let topError = try failure(builder.build())
        #expect(topError.code == .badTrailer)
        #expect(topError.location == .byteOffset(trailer + 16))

        builder.top = 0
        #expect(try failure(builder.build(objectCount: UInt64.max)).code == .badTrailer)
        #expect(try failure(builder.build(tableOffset: UInt64.max)).code == .badTrailer)
        #expect(try failure(builder.build(tableOffset: 4)).code == .badTrailer)
    }

    @Test("a reference size too small for the object count is refused")
    func referenceSizeTooSmall() throws {
        var builder = BinaryPlistBuilder()
        builder.offsetSize = 2
        for _ in 0..<256 { builder.add([0x08]) }
        let error = try failure(builder.build())
        #expect(error.code == .badTrailer)
    }

    @Test func badOffset() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA1, 1])
        builder.add([0x09])
        let bytes = builder.build(offsets: [8, 200])
        let error = try failure(bytes)
        #expect(error.code == .badOffset)
        // Entry 1 of the 1-byte offset table, which starts right after the 3 object bytes.
        #expect(error.location == .byteOffset(8 + 3 + 1))
        #expect(try failure(builder.build(offsets: [8, 3])).code == .badOffset)
    }

    @Test func badReference() throws {
        let error = try failure(file([[0xA2, 1, 7], [0x09]]))
        #expect(error.code == .badReference)
        #expect(error.location == .byteOffset(10))
    }

    @Test("fill bytes, unknown markers and odd real widths are bad objects")
    func badObjects() throws {
        for object: [UInt8] in [[0x0F], [0x01], [0x21, 0, 0], [0x24] + Array(repeating: 0, count: 16), [0x30], [0x90], [0xB0], [0xE0], [0xF0], [0x15] + Array(repeating: 0, count: 32)] {
            let error = try failure(file([object]))
            #expect(error.code == .badObject, "marker \(object[0])")
            #expect(error.location == .byteOffset(8))
        }
    }

    @Test("objects that run into the offset table, and counts that overflow, are bad counts")
    func badCounts() throws {
        // A 5-byte string with only 2 bytes before the offset table.
        let short = try failure(file([[0x55, 0x61, 0x62]]))
        #expect(short.code == .badCount)
        // A 64-bit extended count near UInt64.max.
        let huge = try failure(file([[0x5F, 0x13] + Array(repeating: 0xFF, count: 8)]))
        #expect(huge.code == .badCount)
        #expect(huge.location == .byteOffset(9))
        // An extended count that is not an integer object.
        #expect(try failure(file([[0xAF, 0x23] + Array(repeating: 0, count: 8)])).code == .badCount)
        // Counts claiming more elements than the bytes hold, per type.
        for marker: UInt8 in [0x4F, 0x6F, 0xAF, 0xCF, 0xDF] {
            let error = try failure(file([[marker, 0x12, 0x7F, 0xFF, 0xFF, 0xFF]]))
            #expect(error.code == .badCount, "marker \(marker)")
        }
        // One-byte extended counts, which have a path of their own: more units than the bytes
        // hold, and the count's byte itself cut off by the offset table.
        for marker: UInt8 in [0x4F, 0x5F, 0x6F, 0xAF, 0xDF] {
            #expect(try failure(file([[marker, 0x10, 0xF0]])).code == .badCount, "marker \(marker)")
        }
        let cutOff = try failure(file([[0x5F, 0x10]]))
        #expect(cutOff.code == .badCount && cutOff.message.contains("extended count"))
        // An integer whose bytes run into the offset table.
        #expect(try failure(file([[0x13, 0, 0]])).code == .badCount)
    }

    @Test func referenceCycles() throws {
        let selfContaining = try failure(file([[0xA1, 0]]))
        #expect(selfContaining.code == .referenceCycle)
        #expect(selfContaining.location == .byteOffset(9))
        let twoLevels = try failure(file([[0xA1, 1], [0xD1, 2, 0], [0x51, 0x6B]]))
        #expect(twoLevels.code == .referenceCycle)
    }

    @Test("an object shared by siblings is not a cycle")
    func sharingIsNotACycle() throws {
        #expect(try readBinary(file([[0xA2, 1, 1], [0xA0]])).value == [[], []])
    }

    @Test func badStrings() throws {
        let unpaired = try failure(file([[0x62, 0xD8, 0x00, 0x00, 0x41]]))
        #expect(unpaired.code == .badString)
        #expect(unpaired.location == .byteOffset(9))
        #expect(try failure(file([[0x61, 0xDC, 0x00]])).code == .badString)
        var utf8 = BinaryPlistBuilder()
        utf8.version = UInt8(ascii: "1")
        utf8.add([0x71, 0xFF])
        #expect(try failure(utf8.build()).code == .badString)
    }

    @Test func nonStringKeys() throws {
        let integerKey = try failure(file([[0xD1, 1, 2], [0x10, 0x01], [0x09]]))
        #expect(integerKey.code == .badKey)
        #expect(integerKey.location == .byteOffset(9))
        // A container as a key is refused before it is descended into.
        #expect(try failure(file([[0xD1, 0, 1], [0x09]])).code == .badKey)
    }

    @Test("every truncation of a valid file fails cleanly")
    func truncations() throws {
        let whole = try BinaryPlistWriter().write(["a": [1, 2.5, "x", .data(Data([1, 2]))], "b": "é"])
        for length in 0..<whole.count {
            #expect(binaryReadError(Array(whole.prefix(length))) != nil)
        }
    }

    @Test("every single-byte corruption either reads or fails with a PlistError")
    func corruptions() throws {
        let whole = try BinaryPlistWriter().write(["key": [1, 2.5, "text", .data(Data([1, 2])), ["nested": true]], "b": "é"])
        var failures = 0
        for position in whole.indices {
            for replacement: UInt8 in [0x00, 0x0F, 0x7F, 0xFF, whole[position] &+ 1] {
                var bytes = whole
                bytes[position] = replacement
                if binaryReadError(bytes) != nil { failures += 1 }
            }
        }
        #expect(failures > 0)
    }
}
