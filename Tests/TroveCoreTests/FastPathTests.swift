import Foundation
import Testing
@testable import TroveCore
import TroveTestSupport

/// The shortcuts taken for speed must decide exactly as the plain definitions they replace.
@Suite("Fast paths")
struct FastPathTests {
    /// The definition ``PlistKeyOrder/precedes(_:_:)`` must keep: lexicographic UTF-16 order.
    private static func utf16Precedes(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    @Test("key order on UTF-8 bytes equals UTF-16 code-unit order, surrogates included")
    func keyOrderMatchesUTF16() {
        // U+E000...U+FFFF against supplementary scalars is where UTF-8 and UTF-16 order differ.
        let keys = [
            "", "a", "ab", "b", "A", "Z", "_", "~", "\u{7F}", "é", "e\u{301}", "ÿ", "Ā", "中", "中文",
            "\u{E000}", "\u{FFFD}", "\u{FFFF}", "😀", "😀a", "𝄞", "a😀", "a\u{E000}", "a\u{FFFD}", "\u{10FFFF}",
        ]
        for a in keys {
            for b in keys {
                #expect(PlistKeyOrder.precedes(a, b) == Self.utf16Precedes(a, b), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
        #expect(PlistKeyOrder.precedes("😀", "\u{E000}"))
        #expect(!PlistKeyOrder.precedes("\u{FFFD}", "𝄞"))
    }

    @Test("sorting keys by their sixteen-byte prefixes gives the order of sorting them with precedes")
    func prefixSortMatchesComparisonSort() {
        // Pieces that make keys share long prefixes, differ at and around bytes 8 and 16, end
        // inside a prefix word, hold NUL (the prefix's padding byte) and put U+E000...U+FFFF
        // against supplementary scalars at every offset.
        let pieces = [
            "", "a", "b", "ab", "general.", "general.settings", "\u{0}", "é", "中", "\u{E000}", "\u{FFFD}", "😀", "𝄞",
            "7", "12345678", "123456789012345",
        ]
        var random = SplitMix(seed: 0x5EED_0F_50E7)
        for count in [0, 1, 2, 12, 13, 40, 300, 3_000] {
            var seen = Set<[UInt8]>()
            var keys: [String] = []
            while keys.count < count {
                var key = ""
                for _ in 0..<Int.random(in: 0...5, using: &random) { key += pieces.randomElement(using: &random)! }
                if seen.insert(Array(key.utf8)).inserted { keys.append(key) }
                if seen.count > 40_000 { break }
            }
            let expected = keys.indices.sorted { PlistKeyOrder.precedes(keys[$0], keys[$1]) }
            let sorted = keys.withUnsafeBufferPointer { PlistKeyOrder.sortedPositions(of: $0) }
            #expect(sorted == expected, "\(count) keys")
            #expect(sorted.map { keys[$0] } == keys.sorted(by: Self.utf16Precedes), "\(count) keys")
        }
    }

    /// The definition the fast UTF-8 check must keep: what the standard library decodes without
    /// a replacement character.
    private static func decodesCleanly(_ bytes: [UInt8]) -> Bool {
        Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

    @Test("the word-at-a-time UTF-8 check accepts exactly what the standard library decodes cleanly")
    func utf8ValidationMatchesStandardLibrary() {
        var mismatches: [[UInt8]] = []
        func check(_ bytes: [UInt8]) {
            let fast = bytes.withUnsafeBytes { UnicodeTranscoder.isValidUTF8($0) }
            if fast != Self.decodesCleanly(bytes) && mismatches.count < 5 { mismatches.append(bytes) }
        }
        // Every lead byte with every second byte, completed by continuation bytes at both edges of
        // their range and by non-continuations.
        let thirds: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in 0x80...0xFF {
            for second in 0...0xFF {
                check([UInt8(lead), UInt8(second)])
                for third in thirds {
                    check([UInt8(lead), UInt8(second), third])
                    check([UInt8(lead), UInt8(second), third, 0x80])
                }
            }
        }
        // After ASCII runs that end at each offset of a word, so the word loop hands over to the
        // scalar check (and back) at every point.
        for padding in 0...17 {
            for tail: [UInt8] in [[0xC3, 0xA9], [0xC3], [0xE0, 0x80, 0x80], [0xF0, 0x9F, 0x98, 0x80], [0xFF]] {
                let bytes = [UInt8](repeating: 0x61, count: padding) + tail
                check(bytes)
                check(bytes + [UInt8](repeating: 0x62, count: 9))
            }
        }
        // Random mixtures of ASCII, valid scalars of every length and stray bytes.
        var random = SplitMix(seed: 0x07F8_0001)
        let scalars: [String] = ["é", "ÿ", "中", "\u{FFFD}", "\u{E000}", "😀", "\u{10FFFF}", "\u{800}", "\u{10000}"]
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                switch Int.random(in: 0...9, using: &random) {
                case 0...5: bytes += [UInt8](repeating: UInt8.random(in: 0x20...0x7E, using: &random), count: Int.random(in: 1...9, using: &random))
                case 6...8: bytes += Array(scalars.randomElement(using: &random)!.utf8)
                default: bytes.append(UInt8.random(in: 0x80...0xFF, using: &random))
                }
            }
            check(bytes)
            // A truncated copy ends inside a scalar whenever the last one is long.
            if !bytes.isEmpty { check(Array(bytes.dropLast())) }
        }
        #expect(mismatches.isEmpty, "first disagreements: \(mismatches)")
    }

    @Test("the ASCII test finds a high bit at every position of runs of every length up to 40")
    func asciiScanAtEveryPosition() {
        for length in 0...40 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 16)
            bytes.withUnsafeBytes { #expect(UnsafeRawBufferPointer(rebasing: $0[8..<8 + length]).isASCII) }
            // Bytes outside the run are never read as part of it.
            bytes[7] = 0x80
            bytes[8 + length] = 0xC3
            bytes.withUnsafeBytes { #expect(UnsafeRawBufferPointer(rebasing: $0[8..<8 + length]).isASCII, "length \(length)") }
            for position in 0..<length {
                bytes[8 + position] = 0xE9
                bytes.withUnsafeBytes {
                    #expect(!UnsafeRawBufferPointer(rebasing: $0[8..<8 + length]).isASCII, "length \(length), high bit at \(position)")
                }
                bytes[8 + position] = UInt8(ascii: "a")
            }
        }
    }

    @Test("byte-buffer appends of every length up to 40 copy exactly those bytes after what is there")
    func byteBufferAppendsEveryLength() {
        let source = (0..<48).map { UInt8($0 * 5 + 1) }
        for offset in 0..<9 {
            for length in 0...40 {
                var out = ByteBuffer(capacity: 16)
                out.append(repeating: 0xEE, count: offset)
                source.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[3..<3 + length])) }
                out.append(0xFF)
                let expected = Array(repeating: 0xEE, count: offset) + source[3..<3 + length] + [0xFF]
                #expect(out.withUnsafeBufferPointer { Array($0) } == expected, "offset \(offset), length \(length)")
            }
        }
    }

    @Test("control-character prescan agrees with a byte-by-byte scan at every position")
    func controlScanMatchesNaive() {
        let interesting: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x41, 0x7F, 0x80, 0xBF, 0xEE, 0xEF, 0xF0]
        func isHit(_ c: UInt8) -> Bool { (c < 0x20 && c != 0x09 && c != 0x0A) || c == 0xEF }
        // Up to 40 bytes the Swift loop answers; longer ranges go to the C scan, whose vector
        // blocks are 64 bytes (so 100 and 200 reach a block, its tail and the byte loop).
        for length in [0, 1, 15, 16, 17, 40, 100, 200] {
            for position in stride(from: 0, to: max(length, 1), by: 7) {
                for byte in interesting {
                    for second in [UInt8(ascii: "y"), 0x01, 0xEF] {
                        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                        if position < length { bytes[position] = byte }
                        // A second candidate later in the same word must not hide the first.
                        if position + 3 < length { bytes[position + 3] = second }
                        let naive = bytes.contains(where: isHit)
                        let fast = bytes.withUnsafeBufferPointer { XMLMarkupPrescan.containsControlOrEF($0) }
                        #expect(fast == naive, "length \(length), byte \(byte) at \(position)")
                        // Every start and end, so that both the word loop and the byte tail are asked.
                        for start in stride(from: 0, through: length, by: length > 40 ? 13 : 1) {
                            for end in stride(from: start, through: length, by: length > 40 ? 7 : 3) {
                                let expected = (start..<end).first { isHit(bytes[$0]) }
                                let found = bytes.withUnsafeBufferPointer {
                                    XMLMarkupPrescan.firstControlOrEF($0, from: start, to: end)
                                }
                                #expect(found == expected, "length \(length), \(start)..<\(end), byte \(byte) at \(position)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("the prescan's C walk over plain markup finds exactly the edits the Swift walk finds")
    func prescanSkipMatchesSwiftWalk() {
        // Documents stitched from fragments where the walk must stop (attributes, `<?`, `<!`,
        // DOCTYPEs, CDATA, comments, a `<` at the very end, an unterminated end tag) between
        // plain tags and text, and characters the text may need references for (controls,
        // U+FFFE, U+FFFF) or not (other characters whose UTF-8 starts with 0xEF).
        let fragments = [
            "<dict>", "</dict>", "<key>k</key>", "<string>text &amp; more</string>", "<true/>", "<array/>",
            "<key q=\">\">x</key>", "<string =\">", "<integer  >5</integer>", "<dict\n>", "<a/ >",
            "<!-- c -->", "<!--", "<![CDATA[ <x> ]]>", "<?pi x?>", "<!DOCTYPE plist>", "<!DOCTYPE x [ ]>",
            "<!DOCTYPE plist PUBLIC \"a\" \"b\" extra>", "text", " \n\t", "<>", "< x>", "</unterminated",
            "<", "é", "<plist version=\"1.0\">", "</plist>", "\u{FF01}", "\u{FFFE}", "\u{FFFF}", "\r\n", "\u{1}",
        ]
        var random = SplitMix(seed: 0x9E5C)
        for round in 0..<3000 {
            let count = 1 + Int(random.next() % 12)
            let text = (0..<count).map { _ in fragments[Int(random.next() % UInt64(fragments.count))] }.joined()
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { b in
                let fast = Result { () throws(PlistError) in try XMLMarkupPrescan(b) }
                let slow = Result { () throws(PlistError) in try XMLMarkupPrescan(b, skippingPlainMarkup: false) }
                switch (fast, slow) {
                case let (.success(f), .success(s)):
                    #expect(f.edits.map(\.range) == s.edits.map(\.range), "round \(round): \(text.debugDescription)")
                    #expect(f.edits.map(\.replacement) == s.edits.map(\.replacement), "round \(round)")
                case let (.failure(f), .failure(s)):
                    #expect(f.message == s.message, "round \(round)")
                default:
                    Issue.record("round \(round): one walk threw and the other did not: \(text.debugDescription)")
                }
            }
        }
    }

    @Test("binary uniquing keeps exactly-different scalars apart and merges identical ones")
    func uniquingIdentity() throws {
        let composed = PlistValue.string("é")
        let decomposed = PlistValue.string("e\u{301}")
        let value: PlistValue = .array([
            composed, decomposed, composed,
            .real(PlistReal(0.0)), .real(PlistReal(-0.0)), .real(PlistReal(Float(1.5))), .real(PlistReal(1.5)),
            .integer(1), .real(PlistReal(1.0)), .integer(1),
            .data(Data([1, 2])), .data(Data([1, 2])), .string(""), .data(Data()),
        ])
        let bytes = try BinaryPlistWriter().write(value)
        let objectCount = bytes.withUnsafeBytes { Int($0.loadBigEndianUInt64(at: $0.count - 24)) }
        // One array and 11 distinct scalars: é, e+U+0301, 0.0, -0.0, 1.5f, 1.5, 1, 1.0,
        // <01 02>, "" and empty data.
        #expect(objectCount == 12)
        let back = try bytes.withUnsafeBytes { try BinaryPlistReader().read($0, keepingLayout: false).value }
        #expect(back == value)
    }

    @Test("the uniquing table grows without losing entries")
    func uniquingTableGrowth() throws {
        let strings = (0..<5_000).map { PlistValue.string("key \($0 % 1_000)") }
        let bytes = try BinaryPlistWriter().write(.array(strings))
        let objectCount = bytes.withUnsafeBytes { Int($0.loadBigEndianUInt64(at: $0.count - 24)) }
        #expect(objectCount == 1_001)
    }

    @Test("scalars crafted to collide use up the probe budget, switch the table to SipHash, and still unique exactly")
    func uniquingTableSurvivesCollisions() {
        let seed: UInt64 = 0x5EED_CAFE
        // Encodings of strings whose fast hashes agree in their low ten bits.
        var colliding: [[UInt8]] = []
        var candidate = 0
        while colliding.count < 100 {
            var encoding = ByteBuffer()
            encoding.appendBinaryString("candidate-\(candidate)", note: nil)
            let bytes = encoding.array
            if bytes.withUnsafeBytes({ ScalarUniquingTable.fastHash(encoding: $0, seed: seed) }) & 1023 == 0 {
                colliding.append(bytes)
            }
            candidate += 1
        }
        var table = ScalarUniquingTable(seed: seed)
        var stored = ByteBuffer()
        var slots: [(first: Int, count: Int)] = []
        func lookUp(_ bytes: [UInt8]) -> ScalarUniquingTable.Lookup {
            let start = stored.count
            stored.append(contentsOf: bytes)
            defer { stored.truncate(to: start) }
            return stored.withUnsafeBufferPointer { buffer in
                let base = UnsafeRawPointer(buffer.baseAddress!)
                return table.lookup(
                    encoding: UnsafeRawBufferPointer(start: base + start, count: bytes.count), in: base,
                    fastHash: { seed, encoding in ScalarUniquingTable.fastHash(encoding: encoding, seed: seed) },
                    encodingOf: { slots[$0] })
            }
        }
        for bytes in colliding + colliding {
            switch lookUp(bytes) {
            case .found(let slot):
                let held = stored.withUnsafeBufferPointer { Array($0[slots[slot].first..<slots[slot].first + slots[slot].count]) }
                #expect(held == bytes)
            case .absent(let insertion):
                table.insert(slots.count, at: insertion)
                slots.append((stored.count, bytes.count))
                stored.append(contentsOf: bytes)
            }
        }
        let (usesSipHash, count) = (table.usesSipHash, table.count)
        #expect(usesSipHash)
        #expect(count == 100)
        #expect(slots.count == 100)
        for (i, bytes) in colliding.enumerated() {
            guard case .found(let slot) = lookUp(bytes) else {
                Issue.record("encoding \(i) was lost when the table switched hashes")
                continue
            }
            #expect(slot == i)
        }
        var absent = ByteBuffer()
        absent.appendBinaryString("not there", note: nil)
        guard case .absent = lookUp(absent.array) else {
            Issue.record("a new string was found")
            return
        }
    }

    @Test("the fallback hash reads all of a long encoding, so blobs sharing their ends cannot defeat it")
    func fallbackHashReadsWholeData() {
        let ends = Data(repeating: 0xAB, count: 64)
        let encodings = (0..<64).map { i in
            var buffer = ByteBuffer()
            buffer.appendBinaryScalar(.data(ends + Data([UInt8(i)]) + ends), note: nil, int128HighWord: { 0 })
            return buffer.array
        }
        let fast = Set(encodings.map { $0.withUnsafeBytes { ScalarUniquingTable.fastHash(encoding: $0, seed: 9) } })
        let sip = Set(encodings.map { $0.withUnsafeBytes { ScalarUniquingTable.sipHash($0) } })
        #expect(fast.count == 1)
        #expect(sip.count == encodings.count)
    }

    @Test("exact UTF-8 equality tells canonically equivalent strings apart")
    func exactStringEquality() {
        #expect("e\u{301}" == "é")
        #expect(!"e\u{301}".hasSameUTF8(as: "é"))
        #expect("é".hasSameUTF8(as: "é"))
        #expect("".hasSameUTF8(as: ""))
        #expect(!"".hasSameUTF8(as: "a"))
        let long = String(repeating: "long string past the small-string limit ", count: 4)
        #expect(long.hasSameUTF8(as: String(long.reversed().reversed())))
        #expect(!long.hasSameUTF8(as: long + "x"))
        #expect(!"K".hasSameUTF8(as: "\u{212A}"))
    }

    /// What the layout scanner did before the shortcuts: spell the value and compare.
    private static func spelledMatches(_ content: [UInt8], _ value: PlistValue) -> Bool {
        var spelled = ByteBuffer()
        XMLCanonicalSpelling.appendScalarContent(value, depth: 0, to: &spelled)
        return content.withUnsafeBufferPointer { spelled.equals($0[...]) }
    }

    @Test("canonical integer and date content is decided exactly as spelling and comparing does")
    func canonicalContentShortcuts() {
        // Seeded, so a failure names a value that fails again.
        var generator = SplitMix(seed: 0xCA70_1CA1)
        var integers: [PlistInteger] = [0, 1, -1, 9, 10, -10, 999_999_999_999_999_999, -999_999_999_999_999_999]
        for _ in 0..<400 { integers.append(PlistInteger(Int64.random(in: -99_999_999 ... 99_999_999, using: &generator))) }
        for n in integers {
            var contents: [[UInt8]] = []
            var canonical = ByteBuffer()
            canonical.appendDecimal(n)
            let text = canonical.array
            contents.append(text)
            contents.append([UInt8(ascii: "0")] + text)
            contents.append([UInt8(ascii: "+")] + text)
            contents.append(text + [UInt8(ascii: " ")])
            contents.append(Array("-0".utf8))
            contents.append(Array(String(Int64(n.isNegative ? -1 : 1) * Int64(n.magnitude) + 1).utf8))
            contents.append([])
            for content in contents {
                let decided = content.withUnsafeBufferPointer { XMLCanonicalSpelling.isCanonicalInteger($0, n) }
                if let decided { #expect(decided == Self.spelledMatches(content, .integer(n)), "\(n) vs \(content)") }
            }
        }
        var dates: [PlistDate] = [PlistDate(secondsSinceReferenceDate: 0), PlistDate(secondsSinceReferenceDate: -0.5),
                                  PlistDate(secondsSinceReferenceDate: 1e-9), PlistDate(secondsSinceReferenceDate: -63_113_904_000)]
        for _ in 0..<400 {
            dates.append(PlistDate(secondsSinceReferenceDate: Double.random(in: -6.4e10 ... 2.5e11, using: &generator).rounded(.down)))
            dates.append(PlistDate(secondsSinceReferenceDate: Double.random(in: -1e9 ... 1e9, using: &generator)))
        }
        for d in dates {
            var canonical = ByteBuffer()
            XMLCanonicalSpelling.appendDate(d, to: &canonical)
            let text = canonical.array
            var contents = [text, text + [0x20], Array(text.dropLast()), Array("2023-02-29T00:00:00Z".utf8),
                            Array("2024-02-29T23:59:59Z".utf8), Array("2024-13-01T00:00:00Z".utf8), Array("2024-01-01T24:00:00Z".utf8),
                            Array("0000-01-01T00:00:00Z".utf8), Array("2024-01-01 00:00:00Z".utf8)]
            // Every other whole second near the date, and each field bumped by one.
            var shifted = ByteBuffer()
            XMLCanonicalSpelling.appendDate(PlistDate(secondsSinceReferenceDate: d.secondsSinceReferenceDate + 1), to: &shifted)
            contents.append(shifted.array)
            for position in [3, 6, 9, 12, 15, 18] where position < text.count {
                var bumped = text
                bumped[position] = bumped[position] == UInt8(ascii: "9") ? UInt8(ascii: "0") : bumped[position] + 1
                contents.append(bumped)
            }
            for content in contents {
                let decided = content.withUnsafeBufferPointer { XMLCanonicalSpelling.isCanonicalDate($0, d) }
                if let decided { #expect(decided == Self.spelledMatches(content, .date(d)), "\(d) vs \(String(decoding: content, as: UTF8.self))") }
            }
            #expect(text.withUnsafeBufferPointer { XMLCanonicalSpelling.isCanonicalDate($0, d) } != false)
        }
    }

    @Test("a date's text is called canonical while it is parsed exactly when it is the date's spelling")
    func canonicalDateWhileParsing() {
        var generator = SplitMix(seed: 0xDA7E_0F1E)
        var contents: [[UInt8]] = ["2023-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
                                   "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z",
                                   "0000-01-01T00:00:00Z", "-001-01-01T00:00:00Z", "12024-01-01T00:00:00Z", "1900-02-29T00:00:00Z",
                                   "2000-02-29T00:00:00Z", "2001-04-31T00:00:00Z", "2001-12-31T23:59:59Z"].map { Array($0.utf8) }
        for _ in 0..<2000 {
            var text = ByteBuffer()
            let seconds = Double.random(in: -6.4e10 ... 2.5e11, using: &generator).rounded(.down)
            XMLCanonicalSpelling.appendDate(PlistDate(secondsSinceReferenceDate: seconds), to: &text)
            contents.append(text.array)
            var bumped = text.array
            let position = [3, 6, 9, 12, 15, 18][generator.below(6)]
            bumped[position] = bumped[position] == UInt8(ascii: "9") ? UInt8(ascii: "0") : bumped[position] + 1
            contents.append(bumped)
        }
        var decidedCount = 0
        for content in contents {
            var isCanonical: Bool?
            guard let date = try? content.withUnsafeBufferPointer({ b throws(XMLScalarSyntax.Failure) in
                try XMLScalarSyntax.parseDate(b, isCanonical: &isCanonical)
            }) else { continue }
            #expect((try? content.withUnsafeBufferPointer { b throws(XMLScalarSyntax.Failure) in try XMLScalarSyntax.parseDate(b) }) == date)
            guard let isCanonical else { continue }
            decidedCount += 1
            #expect(isCanonical == Self.spelledMatches(content, .date(date)), "\(String(decoding: content, as: UTF8.self))")
        }
        #expect(decidedCount > 3000)
    }
}
