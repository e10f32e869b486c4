import Foundation
import Testing

@testable import TroveCore

/// `PlistLimits` in every reader and writer: each limit stops hostile input with an error that
/// names it, and shared binary objects are counted as what they expand to without expanding them.
@Suite("Limits")
struct LimitsTests {
    // MARK: Exponential expansion of shared objects

    @Test("a 1 KB file of doubly shared arrays, 40 levels deep, stops at the expansion limit")
    func sharedArrayBomb() throws {
        let file = doublingArrays(levels: 40)
        #expect(file.count < 1_024)
        let started = Date()
        let error = binaryReadError(file)
        #expect(error?.code == .expansionLimit)
        #expect(error?.message.contains("PlistLimits.maxExpandedValues") == true)
        #expect(error?.location != nil)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("the expanded count is exact: 2^k+1 - 1 values for k doubling levels")
    func expandedCountIsExact() throws {
        // 10 levels: 2^11 - 1 = 2047 values once expanded (1 seed + 2 + 4 + ... + 1024 arrays).
        let file = doublingArrays(levels: 10)
        #expect(binaryReadError(file, limits: PlistLimits(maxExpandedValues: 2_047)) == nil)
        #expect(binaryReadError(file, limits: PlistLimits(maxExpandedValues: 2_046))?.code == .expansionLimit)
    }

    @Test("a shared DAG read with a raised limit is compared, hashed and described without expanding it")
    func sharedValueOperationsStayLinear() throws {
        let file = doublingArrays(levels: 40)
        let unbounded = PlistLimits(maxExpandedValues: .max, maxDecodedBytes: .max)
        let (value, layout) = try readBinary(file, limits: unbounded)
        let (again, _) = try readBinary(file, limits: unbounded)
        let started = Date()
        #expect(value == again)
        #expect(value.hashValue == again.hashValue)
        #expect(value != doublingValue(levels: 40, seed: "other"))
        let text = value.description
        #expect(text.hasSuffix("…"))
        #expect(text.utf8.count < 64 << 20)
        // With its notes the binary writer shares the objects again, byte for byte.
        #expect(try BinaryPlistWriter(limits: unbounded).write(value, layout: layout) == file)
        #expect(Date().timeIntervalSince(started) < 120)
    }

    @Test("writers refuse to expand a shared DAG past the limit", arguments: PlistFormat.allCases)
    func writersRefuseExpansion(format: PlistFormat) throws {
        let value = doublingValue(levels: 40, seed: true)
        let started = Date()
        // A lowered limit keeps the test quick; the default stops the same walk later.
        let error = thrownError { () throws(PlistError) in _ = try Plist.write(value, as: format, limits: PlistLimits(maxExpandedValues: 100_000)) }
        #expect(error != nil, "\(format) wrote 2^40 values")
        #expect(error?.code == .expansionLimit)
        #expect(error?.message.contains("PlistLimits.maxExpandedValues") == true)
        #expect(error?.format == format)
        #expect(Date().timeIntervalSince(started) < 60)
        // The same limit, lowered, applies to small values too, and a value under it is written.
        let small = doublingValue(levels: 3, seed: true)
        #expect(throws: PlistError.self) { try Plist.write(small, as: format, limits: PlistLimits(maxExpandedValues: 14)) }
        #expect(try Plist.write(small, as: format, limits: PlistLimits(maxExpandedValues: 15)).isEmpty == false)
    }

    // MARK: Decoded bytes

    @Test("a string shared a thousand times counts once per reference")
    func sharedStringBytes() throws {
        let file = sharedString(length: 1_000, references: 1_000)
        #expect(binaryReadError(file, limits: PlistLimits(maxDecodedBytes: 1_000_000)) == nil)
        let error = binaryReadError(file, limits: PlistLimits(maxDecodedBytes: 999_999))
        #expect(error?.code == .byteLimit)
        #expect(error?.message.contains("PlistLimits.maxDecodedBytes") == true)
    }

    @Test("text readers stop at the byte limit", arguments: [PlistFormat.xml, .openStep, .json])
    func textByteLimit(format: PlistFormat) throws {
        let value: PlistValue = ["key": .string(String(repeating: "x", count: 5_000))]
        let bytes = try Plist.write(value, as: format)
        #expect(try read(bytes, as: format, limits: PlistLimits(maxDecodedBytes: 5_003)) == value)
        let error = thrownError { () throws(PlistError) in _ = try read(bytes, as: format, limits: PlistLimits(maxDecodedBytes: 5_002)) }
        #expect(error != nil, "\(format) read past the byte limit")
        #expect(error?.code == .byteLimit)
        #expect(error?.message.contains("PlistLimits.maxDecodedBytes") == true)
        #expect(error?.location != nil)
    }

    @Test("writers stop at the byte limit", arguments: PlistFormat.allCases)
    func writerByteLimit(format: PlistFormat) throws {
        let big: PlistValue = [.string(String(repeating: "y", count: 4_000)), "z"]
        #expect(try Plist.write(big, as: format, limits: PlistLimits(maxDecodedBytes: 4_001)).isEmpty == false)
        if format == .binary { return }  // The binary writer stores each string once; it cannot expand bytes.
        let error = thrownError { () throws(PlistError) in _ = try Plist.write(big, as: format, limits: PlistLimits(maxDecodedBytes: 4_000)) }
        #expect(error != nil, "\(format) wrote past the byte limit")
        #expect(error?.code == .byteLimit)
    }

    // MARK: Values and depth in every reader

    @Test("every reader names the value limit", arguments: PlistFormat.allCases)
    func valueLimitIsNamed(format: PlistFormat) throws {
        let value: PlistValue = ["a": [1, 2, 3], "b": "c"]
        let bytes = try Plist.write(value, as: format)
        let expected = try read(bytes, as: format, limits: .default)
        #expect(try read(bytes, as: format, limits: PlistLimits(maxValues: 100)) == expected)
        let error = thrownError { () throws(PlistError) in _ = try read(bytes, as: format, limits: PlistLimits(maxValues: 3)) }
        #expect(error != nil, "\(format) read past the value limit")
        #expect(error?.code == .sizeLimit)
        #expect(error?.message.contains("PlistLimits.maxValues") == true)
        #expect(error?.location != nil)
    }

    @Test("every reader names the depth limit", arguments: PlistFormat.allCases)
    func depthLimitIsNamed(format: PlistFormat) throws {
        var value: PlistValue = 1
        for _ in 0..<6 { value = ["k": value] }
        let bytes = try Plist.write(value, as: format)
        let expected = try read(bytes, as: format, limits: .default)
        #expect(try read(bytes, as: format, limits: PlistLimits(maxDepth: 6)) == expected)
        let error = thrownError { () throws(PlistError) in _ = try read(bytes, as: format, limits: PlistLimits(maxDepth: 5)) }
        #expect(error != nil, "\(format) read past the depth limit")
        #expect(error?.code == .depthLimit)
        #expect(error?.message.contains("more than 5 levels of nesting (PlistLimits.maxDepth)") == true)
        #expect(error?.format == format)
    }

    @Test("hostile text nesting stops at the default depth", arguments: [
        ("(", PlistFormat.openStep), ("[", .json), ("<array>", .xml),
    ])
    func hostileTextNesting(opener: String, format: PlistFormat) {
        var text = String(repeating: opener, count: 100_000)
        if format == .xml { text = "<?xml version=\"1.0\"?><plist>" + text }
        let error = thrownError { () throws(PlistError) in _ = try Plist.read(Data(text.utf8)) }
        #expect(error != nil, "\(format) accepted 100,000 levels")
        #expect(error?.code == .depthLimit)
        #expect(error?.message.contains("more than 512 levels") == true)
    }

    @Test("defaults: CoreFoundation's depth, generous counts")
    func defaults() {
        let limits = PlistLimits.default
        #expect(limits.maxDepth == 512)
        #expect(limits.maxValues == 100_000_000)
        #expect(limits.maxExpandedValues == 100_000_000)
        #expect(limits.maxDecodedBytes == 1 << 32)
        #expect(PlistLimits.depthCeiling >= limits.maxDepth)
    }

    @Test("limit errors are typed and distinct")
    func limitCodes() {
        let codes: [PlistLimit: PlistError.Code] = [
            .depth: .depthLimit, .values: .sizeLimit, .expandedValues: .expansionLimit, .decodedBytes: .byteLimit,
        ]
        for (limit, code) in codes {
            #expect(limit.code == code)
            #expect(PlistLimits.default.message(exceeding: limit).contains("PlistLimits."))
        }
        #expect(Set(codes.values.map(\.rawValue)).count == 4)
    }

    @Test("counts saturate instead of overflowing")
    func saturation() {
        #expect(Int.max.saturatingAdd(1) == .max)
        var size = ExpandedSize()
        size.add(ExpandedSize(scalar: .string("abc")))
        var huge = ExpandedSize()
        huge.values = .max
        size.add(huge)
        #expect(size.values == .max)
        #expect(size.bytes == 3)
        #expect(size.exceeded(.default) == .expandedValues)
    }
}

// MARK: - Builders

/// The error `body` throws, or nil when it returns.
private func thrownError(_ body: () throws(PlistError) -> Void) -> PlistError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

/// Reads `bytes` as `format`: JSON directly (detection would try OpenStep first and report its
/// error), the others through ``Plist/read(_:options:)``.
private func read(_ bytes: Data, as format: PlistFormat, limits: PlistLimits) throws(PlistError) -> PlistValue {
    if format == .json { return try JSONPlistReader(limits: limits).read([UInt8](bytes)) }
    return try Plist.read(bytes, options: PlistReadOptions(limits: limits)).value
}

/// A binary plist of `levels` arrays, each holding the next one twice, around `true`: 2^levels
/// leaves once expanded, in about 10 bytes per level.
func doublingArrays(levels: Int) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    for i in 0..<levels { builder.add([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
    builder.add([0x09])
    return builder.build()
}

/// The value `doublingArrays` decodes to, built with the same sharing.
func doublingValue(levels: Int, seed: PlistValue) -> PlistValue {
    var value = seed
    for _ in 0..<levels { value = .array([value, value]) }
    return value
}

/// An array referencing one `length`-byte ASCII string `references` times.
func sharedString(length: Int, references: Int) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.refSize = 2
    builder.offsetSize = 4
    var array: [UInt8] = [0xAF, 0x11] + binaryBigEndian(UInt64(references), width: 2)
    for _ in 0..<references { array += [0, 1] }
    builder.add(array)
    builder.add([0x5F, 0x11] + binaryBigEndian(UInt64(length), width: 2) + Array(repeating: UInt8(ascii: "s"), count: length))
    return builder.build()
}
