import Foundation
import Testing
import TroveTestSupport
@testable import TroveCore

/// The value as Foundation property-list objects.
private func foundationObject(_ value: PlistValue) -> Any { (try? FoundationBridge.object(from: value)) ?? "unsupported" }

/// Foundation's property-list objects as a value.
private func plistValue(_ object: Any) -> PlistValue? { try? FoundationBridge.value(from: object) }

private let plutilPath = "/opt/swift/usr/bin/plutil"

/// True when a string, real, date or data value occurs more than once in `value`.
private func repeatsNonIntegerScalars(_ value: PlistValue) -> Bool {
    var seen = Set<PlistValue>()
    var repeated = false
    func visit(_ v: PlistValue) {
        switch v {
        case .array(let a): a.forEach(visit)
        case .dictionary(let d): d.forEach { visit(.string($0.key)); visit($0.value) }
        case .string, .real, .date, .data: if !seen.insert(v).inserted { repeated = true }
        default: break
        }
    }
    visit(value)
    return repeated
}

/// What CoreFoundation's binary writer (the engine of `plutil -convert binary1`) produces.
private func foundationBytes(_ value: PlistValue) throws -> [UInt8] {
    [UInt8](try PropertyListSerialization.data(fromPropertyList: foundationObject(value), format: .binary, options: 0))
}

private func foundationReads(_ bytes: [UInt8]) throws -> PlistValue? {
    plistValue(try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil))
}

/// Values whose key order is fixed (arrays, single-key dictionaries) and whose strings, reals,
/// dates and data are all distinct, so CoreFoundation's output is fully determined and comparable
/// byte for byte. (The Linux Foundation stores repeated strings, reals, dates and data once per
/// occurrence, a bridging artifact; CoreFoundation on macOS and this writer store them once.)
private let cfComparableValues: [PlistValue] = [
    [true, false, true, false, true],
    [1, 1, 255, 256, 65535, 65536, 4_294_967_295, 4_294_967_296, -1, 1],
    [.integer(PlistInteger(Int64.min)), .integer(PlistInteger(Int64.max)), .integer(PlistInteger(UInt64.max))],
    [1.5, .real(PlistReal(Float(1.5))), .real(PlistReal(Float(-3.25))), 1e300],
    [-0.0],
    [.date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: -1.5))],
    [.data(Data()), .data(Data([1, 2, 3])), .data(Data(repeating: 7, count: 300))],
    ["", "ascii", "é", "😀 astral", .string(String(repeating: "x", count: 20)), .string(String(repeating: "ü", count: 300))],
    [[], [[]], [[[1]]]],
    .array((0..<20).map { .integer(PlistInteger($0)) }),
    .array((0..<300).map { .integer(PlistInteger($0)) }),
    .array((0..<70_000).map { .integer(PlistInteger($0 % 3)) }),
    [.data(Data(repeating: 1, count: 70_000)), "after"],
    ["only": [1, 2, 3]],
    ["k": ["j": [true, ["deep": "value"]]]],
    [:],
    "top-level string",
    42,
]

@Suite("Binary writer")
struct BinaryWriterTests {
    @Test("fresh output equals CoreFoundation's byte for byte", arguments: cfComparableValues.indices)
    func matchesCoreFoundation(index: Int) throws {
        let value = cfComparableValues[index]
        let ours = try BinaryPlistWriter().write(value)
        #expect(ours == (try foundationBytes(value)))
    }

    @Test("fresh output equals plutil -convert binary1 byte for byte",
          .enabled(if: FileManager.default.isExecutableFile(atPath: plutilPath), "plutil not found at \(plutilPath)"),
          arguments: cfComparableValues.indices)
    func matchesPlutil(index: Int) async throws {
        let value = cfComparableValues[index]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-binary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let xml = directory.appendingPathComponent("in.plist")
        let binary = directory.appendingPathComponent("out.plist")
        try PropertyListSerialization.data(fromPropertyList: foundationObject(value), format: .xml, options: 0).write(to: xml)
        let converted = try await ProcessRun.run(plutilPath, ["-convert", "binary1", "-o", binary.path, xml.path], timeLimit: .seconds(120))
        try #require(converted.status == 0, "\(converted.stderrText)")
        let expected = [UInt8](try Data(contentsOf: binary))
        // XML keeps a date only to the second and cannot say 32-bit; compare against what the
        // XML round trip left.
        let viaXML = try #require(try foundationReads(expected))
        // The XML trip can turn distinct reals into repeated ones (32-bit 1.5 becomes 64-bit
        // 1.5), which the Linux Foundation does not unique; such values are covered above.
        guard !repeatsNonIntegerScalars(viaXML) else { return }
        #expect(try BinaryPlistWriter().write(viaXML) == expected)
    }

    @Test("fresh output reads back equal, in our reader and in Foundation", arguments: cfComparableValues.indices)
    func readsBack(index: Int) throws {
        let value = cfComparableValues[index]
        let ours = try BinaryPlistWriter().write(value)
        #expect(try readBinary(ours).value == value)
        #expect(try foundationReads(ours) == value)
    }

    @Test("dictionaries with many keys and shared strings read back in Foundation")
    func dictionariesReadBack() throws {
        var big = PlistDictionary()
        for i in 0..<40 { big["key\(i)"] = i % 2 == 0 ? "same" : .array([.string("key\(i)"), .integer(PlistInteger(i))]) }
        let values: [PlistValue] = [
            ["a": 1, "b": "a", "c": ["a": "b"], "d": [true, false, true]],
            .dictionary(big),
        ]
        for value in values {
            let ours = try BinaryPlistWriter().write(value)
            #expect(try foundationReads(ours) == value)
            #expect(try readBinary(ours).value == value)
        }
    }

    @Test("strings, numbers, dates and data are stored once; containers never uniqued")
    func uniquing() throws {
        let date = PlistValue.date(PlistDate(secondsSinceReferenceDate: 5))
        let data = PlistValue.data(Data([9]))
        let bytes = try BinaryPlistWriter().write(["same", "same", 7, 7, 2.5, 2.5, date, date, data, data, [], []])
        // Objects: the array, "same", 7, 2.5, the date, the data, two empty arrays.
        let (_, layout) = try readBinary(bytes)
        #expect(layout?.objectCount == 8)
    }

    @Test("booleans are appended per occurrence, and references name the first")
    func booleanCopies() throws {
        let bytes = try BinaryPlistWriter().write([true, true, true])
        let (value, layout) = try readBinary(bytes)
        #expect(value == [true, true, true])
        #expect(layout?.objectCount == 4)
        #expect(Array(bytes[8..<12]) == [0xA3, 0x01, 0x01, 0x01])
    }

    @Test("canonically equivalent strings, 0.0 and -0.0, and real widths stay distinct")
    func exactUniquing() throws {
        let value: PlistValue = ["é", "e\u{301}", 0.0, -0.0, 1.5, .real(PlistReal(Float(1.5)))]
        let bytes = try BinaryPlistWriter().write(value)
        let back = try readBinary(bytes)
        #expect(back.layout?.objectCount == 7)
        #expect(back.value.arrayValue?[1].stringValue?.unicodeScalars.count == 2)
        #expect(back.value.arrayValue?[3].realValue?.value.sign == .minus)
        #expect(back.value.arrayValue?[5].realValue?.width == .single)
    }

    @Test("UIDs and null are written and read back")
    func uidsAndNull() throws {
        let value: PlistValue = [.uid(0), .uid(255), .uid(256), .uid(70_000), .uid(UInt64.max), .null, .uid(0)]
        let bytes = try BinaryPlistWriter().write(value)
        #expect(try readBinary(bytes).value == value)
        #expect(bytes.contains(0x80))
        #expect(bytes.contains(0x87))
    }

    @Test("references grow to 2 bytes at 256 objects, offsets with the table position")
    func sizes() throws {
        let small = try BinaryPlistWriter().write(.array((0..<254).map { .integer(PlistInteger($0)) }))
        #expect(small[small.count - 25] == 1)
        let large = try BinaryPlistWriter().write(.array((0..<255).map { .integer(PlistInteger($0)) }))
        #expect(large[large.count - 25] == 2)
        #expect(large[large.count - 26] == 2)
    }

    @Test("512 nested levels write on a thread with a 512 KB stack")
    func smallStack() throws {
        var value: PlistValue = "leaf"
        for _ in 0..<512 { value = [value] }
        let box = BinaryOutcomeBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [value] in
            let written = try? BinaryPlistWriter().write(value)
            let relaid = written.flatMap { bytes in
                (try? readBinary(bytes)).flatMap { try? BinaryPlistWriter().write($0.value, layout: $0.layout) }
            }
            box.set(written != nil && written == relaid)
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(box.get() == true)
    }

    @Test("values nested deeper than the limit are refused")
    func depth() throws {
        var value: PlistValue = "leaf"
        for _ in 0..<513 { value = [value] }
        #expect(throws: PlistError.self) { try BinaryPlistWriter().write(value) }
        do {
            _ = try BinaryPlistWriter().write(value)
        } catch {
            #expect(error.code == .depthLimit)
        }
        guard case .array(let inner) = value else { return }
        #expect(try readBinary(try BinaryPlistWriter().write(inner[0])).value == inner[0])
    }

    @Test("the plain encoder writes what the planner writes without notes, byte for byte")
    func plainEncoderMatchesPlanner() throws {
        var g = SplitMix(seed: 0xB1_7E_57)
        var documents: [PlistValue] = []
        for round in 0..<400 {
            var value = XMLWriterTests.randomValue(&g, depth: 5)
            // Values only binary holds, repeats (booleans and UIDs are appended per occurrence),
            // and a subtree shared by identity, which is written once per place it appears.
            let extras: [PlistValue] = [.uid(g.next() % 300), .null, .bool(true), .bool(true), .uid(7), .uid(7)]
            value = [value, extras[Int(g.next() % 6)], value, .dictionary(["k\(round % 7)": value, "x": extras[round % 6]])]
            documents.append(value)
        }
        documents.append(.string("top-level scalar"))
        documents.append(.array((0..<70_000).map { .integer(PlistInteger(Int64($0 % 40_000))) }))
        for document in documents { try expectPlainEncoderMatchesPlanner(document) }
    }

    @Test("the plain encoder uniques by exact value where encodings come close: it writes what the planner writes")
    func plainEncoderUniquesEdgeEncodings() throws {
        // Scalars whose encodings share bytes with others: data holding another object's
        // encoding, a long data and a long string differing only in their middles (the fast hash
        // reads a long encoding's ends), every integer width at both of its edges, both real
        // widths and both zeros, UIDs and booleans repeated, and text long enough for an extended
        // count, in ASCII and in UTF-16.
        let middle = { (byte: UInt8) -> Data in Data(repeating: 7, count: 100) + Data([byte]) + Data(repeating: 7, count: 100) }
        let longText = { (c: Character) -> String in String(repeating: "a", count: 90) + String(c) + String(repeating: "a", count: 90) }
        var scalars: [PlistValue] = [
            .data(Data([0x10, 0x05])), .integer(5), .data(Data([0x23] + [UInt8](repeating: 0, count: 8))), .real(PlistReal(0.0)),
            .real(PlistReal(-0.0)), .real(PlistReal(Float(0))), .real(PlistReal(Float(-0.0))), .date(PlistDate(secondsSinceReferenceDate: 0)),
            .data(middle(1)), .data(middle(2)), .data(middle(1)), .string(longText("b")), .string(longText("c")), .string(longText("b")),
            .string(String(repeating: "é", count: 20)), .string(String(repeating: "é", count: 21)), .string("é"), .string("e\u{301}"),
            .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(UInt64(Int64.max) + 1)), .integer(PlistInteger(Int64.min)),
            .integer(-1), .null, .null, .bool(true), .bool(false), .bool(true), .uid(0), .uid(0x1_0000_0000), .uid(0x1_0000_0000),
            .data(Data()), .string(""), .data(Data(repeating: 0, count: 15)), .string(String(repeating: "x", count: 15)),
        ]
        for edge: UInt64 in [0xFF, 0xFFFF, 0xFFFF_FFFF, UInt64(Int64.max)] {
            scalars += [.integer(PlistInteger(edge)), .integer(PlistInteger(edge + 1)), .uid(edge), .uid(edge &+ 1)]
        }
        let documents: [PlistValue] = [
            .array(scalars + scalars.reversed()),
            .dictionary(PlistDictionary(scalars.enumerated().map { ("k\($0.offset % 9)-\($0.offset)", $0.element) })),
            .array(scalars.map { .array([$0, $0]) } + Array(repeating: .array([]), count: 16)),
        ]
        for document in documents { try expectPlainEncoderMatchesPlanner(document) }
    }

    @Test("large data objects, copied from the values into the output, are placed and uniqued as the planner places them")
    func plainEncoderLargeData() throws {
        // Around the size from which payloads are kept aside, with one-, two- and four-byte
        // counts; equal payloads in separate storage and as slices; payloads sharing their length
        // and their first and last 64 bytes (three, which one key holds as they are, and six,
        // which it files by whole hashes), each met again later; all between small scalars and containers, so that every offset after
        // a large payload depends on its length.
        let limit = BinaryLargeDataTable.minimumCount
        var g = SplitMix(seed: 0xDA7A)
        func random(_ count: Int) -> Data { Data((0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }) }
        let sharedEnds = (0..<6).map { k -> Data in
            var d = Data(repeating: 0xAB, count: limit + 200)
            d[100 + k] = UInt8(k)
            return d
        }
        let fewShared = (0..<3).map { k -> Data in
            var d = Data(repeating: 0x5C, count: limit + 500)
            d[limit / 2] = UInt8(k)
            return d
        }
        let big = random(70_000)
        let slice = (Data([1, 2, 3]) + big + Data([4]))[3..<(3 + big.count)]
        var values: [PlistValue] = [.data(random(limit - 1)), .data(random(limit)), .data(random(limit + 1)), .data(big)]
        values += [.integer(3), .data(slice), .string("between"), .data(Data(big)), .array([.data(big), .bool(true)])]
        values += sharedEnds.map { PlistValue.data($0) } + [.uid(9)] + sharedEnds.reversed().map { PlistValue.data(Data($0)) }
        values += fewShared.map { PlistValue.data($0) } + fewShared.reversed().map { PlistValue.data(Data($0)) }
        values += [.dictionary(["blob": .data(sharedEnds[2]), "small": .data(Data([1, 2])), "text": .string(String(repeating: "z", count: 300))])]
        let documents: [PlistValue] = [
            .array(values),
            .array(values.reversed() + values),
            .dictionary(PlistDictionary(values.enumerated().map { ("k\($0.offset)", $0.element) })),
            .data(big),
            .array([.data(random(300_000)), .data(random(limit))]),
        ]
        for document in documents { try expectPlainEncoderMatchesPlanner(document) }

        // Equal payloads are one object: the file holds each distinct large payload once.
        let written = try BinaryPlistWriter().write(.array(values))
        let occurrences = { (needle: Data) -> Int in
            var count = 0
            var from = written.startIndex
            while let found = written[from...].firstRange(of: needle) {
                count += 1
                from = found.lowerBound + 1
            }
            return count
        }
        #expect(occurrences(Data(big)) == 1)
        for payload in sharedEnds + fewShared { #expect(occurrences(payload) == 1) }
    }

    @Test("keys of a large dictionary, hashed ahead while the uniquing table is large, unique with the strings met before")
    func plainEncoderKeysLookedAhead() throws {
        // Enough distinct scalars first for a table past the caches' size, then dictionaries
        // whose keys repeat those strings and add new ones: ASCII, UTF-16, past 128 bytes, and
        // keys equal to string values met earlier in the same dictionary's subtree.
        let texts = (0..<20_000).map { i -> String in
            switch i % 4 {
            case 0: "key \(i)"
            case 1: "clé \(i) ✓"
            case 2: String(repeating: "long key ", count: 16) + "\(i)"
            default: "k\(i)"
            }
        }
        var entries: [(String, PlistValue)] = []
        for (i, text) in texts.enumerated() where i % 3 != 0 {
            entries.append((text, i % 5 == 0 ? .string(texts[(i + 7) % texts.count]) : .integer(PlistInteger(Int64(i % 50)))))
        }
        for i in 0..<300 { entries.append(("new key \(i) é", .bool(i % 2 == 0))) }
        let document: PlistValue = .array([
            .array(texts.map { .string($0) }),
            .dictionary(PlistDictionary(entries)),
            .dictionary(PlistDictionary(entries.reversed())),
        ])
        try expectPlainEncoderMatchesPlanner(document)
    }

    @Test("scalars whose words differ only in their last byte stay distinct objects, and their repeats unique")
    func plainEncoderRecentObjects() throws {
        // The plain encoder remembers recent strings by their two words and short scalars by
        // their encoding's two words, in small direct-mapped caches: hundreds of values that
        // differ only in the word the cache compares second (a real's, a date's or a negative
        // integer's last byte; an inline string's ninth and later bytes) share entries with each
        // other and with booleans, UIDs and null, and each comes back, so that hits, misses and
        // evictions all happen.
        var singles: [PlistValue] = []
        for i: UInt64 in 0..<300 {
            singles.append(.real(PlistReal(Double(bitPattern: 0x3FF0_0000_0000_0000 | i))))
            singles.append(.date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: 0x41C0_0000_0000_0000 | i))))
            singles.append(.integer(PlistInteger(Int64(bitPattern: 0x8000_0000_0000_0000 | i))))
            singles.append(.string("prefix12\(i)"))
            singles.append(.integer(PlistInteger(Int64(i % 3 == 0 ? i : i << 16))))
            singles.append([.bool(i % 2 == 0), .uid(i % 5), .null][Int(i % 3)])
        }
        let documents: [PlistValue] = [
            .array(singles + singles.reversed()),
            .array(singles.enumerated().map { .dictionary(["prefix12key\($0.offset % 4)": $0.element, "v": $0.element]) }),
        ]
        for document in documents { try expectPlainEncoderMatchesPlanner(document) }
    }

    @Test("a string held inline and the same text in storage of its own are one object, at every length")
    func plainEncoderSmallStrings() throws {
        #expect(StringRepresentation.readsSmallASCII, "small strings are read from their words on this platform")
        // The same text in a buffer of its own, not inline: reserving room moves it out.
        func stored(_ text: String) -> String {
            var copy = ""
            copy.reserveCapacity(64)
            copy.append(text)
            return copy
        }
        var elements: [PlistValue] = []
        for length in 0...17 {
            let ascii = String(repeating: "k", count: length / 2) + String(repeating: "Z", count: length - length / 2)
            let nonASCII = String(repeating: "é", count: length / 2)
            for text in [ascii, nonASCII] {
                let inline = String(decoding: Array(text.utf8), as: UTF8.self)
                let separate = stored(text)
                #expect(StringRepresentation(separate).smallASCII == nil)
                if length < 16 && text == ascii { #expect(StringRepresentation(inline).smallASCII?.count == length) }
                elements += [.string(inline), .string(separate), .string(inline)]
            }
        }
        let document: PlistValue = .array(elements + [.dictionary(PlistDictionary(elements.enumerated().map {
            ($0.offset % 2 == 0 ? String(decoding: Array("key\($0.offset)".utf8), as: UTF8.self) : stored("key\($0.offset)"), $0.element)
        }))])
        try expectPlainEncoderMatchesPlanner(document)
        // The root array, the dictionary, one object per distinct text, and the keys.
        let distinct = Set(elements.compactMap { if case .string(let s) = $0 { Array(s.utf8) } else { nil } })
        let (_, layout) = try readBinary(BinaryPlistWriter().write(document))
        #expect(layout?.objectCount == 2 + distinct.count + elements.count)
    }

    @Test("the recent-objects cache keeps what it remembered when it grows, and never answers wrongly")
    func recentObjectsGrow() {
        // Pairs that take the four slots of a four-entry cache, each remembered twice: the
        // eighth remembering makes the cache full-sized (sixteen entries), and each pair must
        // then be found in its slot there.
        let slots = BinaryRecentObjects(initialBits: 2, bits: 4)
        var pairs: [(UInt64, UInt64)] = []
        var taken = Set<Int>()
        var candidate: UInt64 = 0
        while pairs.count < 4 {
            candidate += 1
            let pair = (candidate &* 0x1000_0001, candidate >> 1)
            if taken.insert(slots.slot(pair.0, pair.1)).inserted { pairs.append(pair) }
        }
        var cache = BinaryRecentObjects(initialBits: 2, bits: 4)
        for _ in 0..<2 {
            for (object, pair) in pairs.enumerated() {
                cache.remember(UInt32(object), at: cache.slot(pair.0, pair.1), pair.0, pair.1)
            }
        }
        #expect(pairs.contains { cache.slot($0.0, $0.1) >= 4 }, "the cache has grown")
        for (object, pair) in pairs.enumerated() {
            #expect(cache.object(at: cache.slot(pair.0, pair.1), pair.0, pair.1) == UInt32(object))
        }
        // Through every size up to the full one and past it: the pair just remembered is found,
        // and an earlier one either is, with its own object, or was forgotten.
        for n in 4..<200 {
            let pair = (UInt64(n) &* 0x9E37_79B9, UInt64(n % 7))
            cache.remember(UInt32(n), at: cache.slot(pair.0, pair.1), pair.0, pair.1)
            pairs.append(pair)
            #expect(cache.object(at: cache.slot(pair.0, pair.1), pair.0, pair.1) == UInt32(n))
        }
        for (object, pair) in pairs.enumerated() {
            let found = cache.object(at: cache.slot(pair.0, pair.1), pair.0, pair.1)
            #expect(found == nil || found == UInt32(object))
        }
    }

    @Test("series of records, sampled to reserve room and numbered ahead while the table is large, write what the planner writes")
    func plainEncoderSeriesLookedAhead() throws {
        // Records like a measurement export: enough distinct numbers for four-byte references
        // and a uniquing table past the caches, in arrays long enough for their children to be
        // hashed ahead. Small containers between the numbers reuse the ring's entries before the
        // array's own turn comes back; a first record far larger or smaller than the rest
        // overstates or understates what the others need.
        func record(_ r: Int, length: Int) -> PlistValue {
            let counts = (0..<length).map { i -> PlistValue in
                i % 7 == 3 ? .array([.integer(PlistInteger(Int64(r * 1_000 + i))), .real(PlistReal(Double(i) / 8))]) :
                    .integer(PlistInteger(Int64(r * 100_000 + i)))
            }
            let samples = (0..<length).map { i -> PlistValue in
                i % 11 == 5 ? .dictionary(["t": .date(PlistDate(secondsSinceReferenceDate: Double(r * length + i))), "ok": .bool(i % 2 == 0)]) :
                    .real(PlistReal(Double(r) + Double(i) / 1_024))
            }
            return .dictionary(["id": .integer(PlistInteger(Int64(r))), "counts": .array(counts), "samples": .array(samples)])
        }
        let documents: [PlistValue] = [
            .dictionary(["series": .array((0..<120).map { record($0, length: 400) })]),
            .array([record(0, length: 3_000)] + (1..<40).map { record($0, length: 20) }),
            .array([record(0, length: 2)] + (1..<60).map { record($0, length: 900) }),
        ]
        for document in documents { try expectPlainEncoderMatchesPlanner(document) }
    }

    @Test("records under a uniquing table past the last-level cache, their numbers touched ahead, write what the planner writes")
    func plainEncoderRecordsLookedAhead() throws {
        // A root array of 2^19 children sizes the table at 2^20 buckets from the start, the size
        // from which the encoder touches small containers' numbers a few records ahead. Records
        // mix repeats with new numbers, dates and strings, and some hold a container first.
        let records = (0..<(1 << 19)).map { r -> PlistValue in
            switch r % 4 {
            case 0: return .array([.integer(PlistInteger(Int64(r))), .real(PlistReal(Double(r % 97) / 4))])
            case 1: return .dictionary(["at": .date(PlistDate(secondsSinceReferenceDate: Double(r))), "n": .integer(PlistInteger(Int64(r % 13)))])
            case 2: return .array([.array([.bool(r % 3 == 0)]), .integer(PlistInteger(Int64(-r))), .string("r\(r % 1_000)")])
            default: return .array([.uid(UInt64(r % 300)), .integer(PlistInteger(Int64(r) << 20))])
            }
        }
        try expectPlainEncoderMatchesPlanner(.array(records))
    }

    @Test("a dictionary's keys and values are its stored arrays, which the plain encoder reads through pointers")
    func dictionaryArraysAreStored() {
        // The plain encoder keeps pointers into `keys` and `values` for as long as it walks the
        // dictionary; were either built afresh on each read, the pointers would outlive their
        // array. A copy held here keeps the storage it saw alive, so a fresh array would lie
        // elsewhere.
        let dictionary = PlistDictionary((0..<40).map { ("key \($0)", PlistValue.integer(PlistInteger($0))) })
        let keys = dictionary.keys
        let values = dictionary.values
        let base = { (array: [String]) in array.withUnsafeBufferPointer { $0.baseAddress } }
        #expect(base(keys) == base(dictionary.keys))
        #expect(values.withUnsafeBufferPointer { $0.baseAddress } == dictionary.values.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("a large string's bytes are found from its words, and the same text in other storage is the same object")
    func plainEncoderTailAllocatedStrings() throws {
        #expect(StringRepresentation.readsTailAllocatedUTF8, "large strings are read from their words on this platform")
        // The same texts as a native string sized to fit, one with room to spare, one cut from
        // a longer string, and a literal; around the small-string limit and well past it.
        func spacious(_ text: String) -> String {
            var copy = ""
            copy.reserveCapacity(200)
            copy.append(text)
            return copy
        }
        var texts: [String] = []
        for length in [14, 15, 16, 17, 40, 130] {
            texts.append(String(repeating: "q", count: length - 1) + "Z")
            texts.append(String(repeating: "é", count: length / 2) + "z")
        }
        var elements: [PlistValue] = []
        for text in texts {
            let native = String(decoding: Array(text.utf8), as: UTF8.self)
            let cut = String(("<" + text + ">").dropFirst().dropLast())
            for string in [native, spacious(text), cut] {
                if let read = StringRepresentation(string).tailAllocatedUTF8 {
                    #expect(Array(read) == Array(string.utf8), "the bytes read from the words are the string's")
                } else {
                    #expect(string.utf8.count <= 15, "only small strings are read another way")
                }
                elements.append(.string(string))
            }
        }
        let literal = "a literal string, longer than fifteen bytes"
        elements += [.string(literal), .string(String(decoding: Array(literal.utf8), as: UTF8.self))]
        let keyed = PlistDictionary(elements.enumerated().map { (texts[$0.offset % texts.count] + "\($0.offset)", $0.element) })
        for document: PlistValue in [.array(elements), .dictionary(keyed), .array([.dictionary(keyed), .array(elements)])] {
            try expectPlainEncoderMatchesPlanner(document)
            #expect(try Plist.write(document, as: .binary) == Data(try BinaryPlistWriter().write(document)))
        }
        // One object per distinct text (the literal's among them) and the root array.
        let (_, layout) = try readBinary(BinaryPlistWriter().write(.array(elements)))
        #expect(layout?.objectCount == 1 + Set(texts + [literal]).count)
    }

    @Test("the smallest documents write what the planner writes: an empty container, a lone scalar")
    func plainEncoderSmallestDocuments() throws {
        for document: PlistValue in [.dictionary([:]), .array([]), .string("x"), .bool(false), .array([.dictionary([:])])] {
            try expectPlainEncoderMatchesPlanner(document)
            #expect(try Plist.write(document, as: .binary) == Data(try BinaryPlistWriter().write(document)))
        }
    }

    /// Expects the plain encoder to write `document` byte for byte as the planner does without
    /// notes, and the result to read back as `document`. The bytes are compared outside
    /// `#expect`, whose report of two unequal arrays of half a megabyte would diff them element
    /// by element for minutes.
    private func expectPlainEncoderMatchesPlanner(_ document: PlistValue) throws {
        let plain = try BinaryPlistWriter().write(document)
        let planned = try BinaryPlistWriter().encodeThroughPlanner(document, layout: nil).array
        let same = plain == planned
        #expect(same, "the plain encoder wrote \(plain.count) bytes, the planner \(planned.count)")
        #expect(try readBinary(plain).value == document)
    }

    @Test("the plain encoder refuses what the planner refuses: depth and expansion limits")
    func plainEncoderLimits() throws {
        var shared: PlistValue = .array((0..<10).map { .integer(PlistInteger(Int64($0))) })
        for _ in 0..<6 { shared = .array(Array(repeating: shared, count: 10)) }
        let limits = PlistLimits(maxExpandedValues: 1_000_000)
        var codes: [PlistError.Code] = []
        do {
            _ = try BinaryPlistWriter(limits: limits).write(shared)
            Issue.record("the plain encoder wrote a value expanding to 11 million values")
        } catch {
            codes.append(error.code)
        }
        do {
            _ = try BinaryPlistWriter(limits: limits).encodeThroughPlanner(shared, layout: nil)
            Issue.record("the planner wrote a value expanding to 11 million values")
        } catch {
            codes.append(error.code)
        }
        #expect(codes == [.expansionLimit, .expansionLimit])
    }
}
