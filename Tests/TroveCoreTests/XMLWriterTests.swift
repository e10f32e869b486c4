import Foundation
import Testing

@testable import TroveCore
import TroveTestSupport

@Suite("XML writer")
struct XMLWriterTests {
    private static let plutil = "/opt/swift/usr/bin/plutil"
    private static var hasPlutil: Bool { FileManager.default.isExecutableFile(atPath: plutil) }

    private func text(_ value: PlistValue) throws -> String {
        String(decoding: try XMLPlistWriter().write(value), as: UTF8.self)
    }

    /// The canonical document around `body` lines (expected outputs are written out by hand
    /// from what plutil prints).
    private func document(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """
    }

    @Test("header, tab indentation, sorted keys, empty containers and trailing newline")
    func documentShape() throws {
        let value: PlistValue = ["b": [true, false], "a": [:], "c": []]
        #expect(
            try text(value)
                == document("<dict>\n\t<key>a</key>\n\t<dict/>\n\t<key>b</key>\n\t<array>\n\t\t<true/>\n\t\t<false/>\n\t</array>\n\t<key>c</key>\n\t<array/>\n</dict>"))
    }

    @Test("keys sort by UTF-16 code units, so astral keys come before U+FFFF")
    func keyOrder() throws {
        let value: PlistValue = ["\u{FFFF}": 1, "\u{1F600}": 2, "\u{E9}": 3, "Z": 4, "a": 5]
        let keys = try text(value).components(separatedBy: "<key>").dropFirst().map { $0.components(separatedBy: "</key>")[0] }
        #expect(keys == ["Z", "a", "\u{E9}", "\u{1F600}", "\u{FFFF}"])
    }

    @Test("a large dictionary's keys, written from the sort's copy of their bytes, come out sorted and escaped")
    func largeDictionaryKeys() throws {
        // Past PlistKeyOrder.keyTextMinimum, with keys that share sixteen-byte prefixes, need
        // escaping, and put U+E000...U+FFFF against astral scalars, in shuffled order.
        var random = SplitMix(seed: 0x0000_5EED_0000_0300)
        let pieces = ["general.settings.", "&", "<b>", "é", "\u{FFFD}", "😀", "x", "7"]
        var keys = Set<String>()
        while keys.count < 600 {
            keys.insert((0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        let shuffled = Array(keys).shuffled(using: &random)
        let value = PlistValue.dictionary(PlistDictionary(zip(shuffled, shuffled.indices.map { PlistValue.integer(PlistInteger($0)) })))
        let written = try text(value)
        let expected = keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
        let escaped = expected.map {
            $0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        let listed = written.components(separatedBy: "<key>").dropFirst().map { $0.components(separatedBy: "</key>")[0] }
        #expect(listed == escaped)
        #expect(try XMLTestSupport.read(written) == value)
    }

    @Test("only & < > are escaped; quotes and control characters are written raw")
    func escaping() throws {
        #expect(try text("a&b<c>d\"e'f\u{1}\t\n\r") == document("<string>a&amp;b&lt;c&gt;d\"e'f\u{1}\t\n\r</string>"))
    }

    @Test("reals as %.17g, whole values without a fraction, zero as 0.0, non-finite names")
    func reals() throws {
        let cases: [(PlistValue, String)] = [
            (.double(0.1), "0.10000000000000001"), (.double(1), "1"), (.double(-0.0), "0.0"), (.double(0), "0.0"),
            (.double(.nan), "nan"), (.double(.infinity), "+infinity"), (.double(-.infinity), "-infinity"),
            (.double(1e20), "1e+20"), (.double(1e16), "10000000000000000"), (.double(1e-7), "9.9999999999999995e-08"),
            (.float(0.1), "0.10000000149011612"), (.double(-1), "-1"),
        ]
        for (value, spelled) in cases {
            #expect(try text(value) == document("<real>\(spelled)</real>"), "\(value)")
        }
    }

    @Test("dates: whole seconds floored, negative years as %04d prints them")
    func dates() throws {
        #expect(try text(.date(PlistDate(secondsSinceReferenceDate: -0.5))) == document("<date>2000-12-31T23:59:59Z</date>"))
        let yearMinusOne = try XMLTestSupport.read("<plist><date>-0001-01-01T00:00:00Z</date></plist>")
        #expect(try text(yearMinusOne) == document("<date>-001-01-01T00:00:00Z</date>"))
        // Every field zero-padded as %02d (the year %04d), over years of one to five digits.
        var random = SplitMix(seed: 0xDA7E)
        for _ in 0..<500 {
            let seconds = Double(Int64(bitPattern: random.next()) % 300_000_000_000)
            let c = CivilTime(secondsSinceReferenceDate: seconds)
            guard c.year >= 0 else { continue }
            let expected = String(
                format: "%04lld-%02d-%02dT%02d:%02d:%02dZ", c.year, c.month, c.day, c.hour, c.minute, c.second)
            var out = ByteBuffer()
            XMLCanonicalSpelling.appendDate(PlistDate(secondsSinceReferenceDate: seconds), to: &out)
            #expect(out.string == expected)
        }
    }

    @Test("base64 lines of 76 columns minus 8 per tab, indentation capped at 8")
    func dataLayout() throws {
        let bytes = Data((0..<60).map { UInt8($0) })
        let top = try text(.data(bytes))
        #expect(top == document("<data>\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4\nOTo7\n</data>"))
        var nested: PlistValue = .data(Data(repeating: 0, count: 20))
        for _ in 0..<10 { nested = [nested] }
        let lines = try text(nested).split(separator: "\n", omittingEmptySubsequences: false)
        let base64Lines = lines.filter { $0.contains("AAAA") }
        #expect(base64Lines.first == "\t\t\t\t\t\t\t\tAAAAAAAAAAAA")
        #expect(try text(.data(Data())) == document("<data>\n</data>"))
    }

    @Test("base64 of every length up to 100 at every depth: Foundation's letters in CF's lines")
    func dataLayoutAllLengths() throws {
        var random = SplitMix(seed: 0xB64)
        for count in 0...100 {
            let bytes = Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            let letters = Array(bytes.base64EncodedString().utf8)
            for depth in 0...10 {
                let indent = min(depth, 8)
                let lineLength = 76 - 8 * indent
                var expected: [UInt8] = [0x0A]
                for start in stride(from: 0, to: letters.count, by: lineLength) {
                    expected += Array(repeating: 0x09, count: indent)
                    expected += letters[start..<min(start + lineLength, letters.count)]
                    expected.append(0x0A)
                }
                expected += Array(repeating: 0x09, count: depth)
                var out = ByteBuffer()
                XMLCanonicalSpelling.appendDataContent(bytes, depth: depth, to: &out)
                #expect(out.withUnsafeBufferPointer { Array($0) } == expected, "\(count) bytes at depth \(depth)")
            }
        }
    }

    @Test("strings of every length up to 40 escape a metacharacter at any position, and only there")
    func escapingAtEveryPosition() throws {
        for length in 1...40 {
            for position in 0..<length {
                for meta in ["&", "<", ">"] {
                    var characters = Array(repeating: "x", count: length)
                    characters[position] = meta
                    // A byte next to each metacharacter's code that must stay as it is.
                    if position + 1 < length { characters[position + 1] = meta == "<" ? "=" : "?" }
                    let string = characters.joined()
                    var out = ByteBuffer()
                    XMLCanonicalSpelling.appendEscaped(string, to: &out)
                    let expected = string.replacingOccurrences(of: "&", with: "&amp;")
                        .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                    #expect(out.string == expected, "\(string)")
                }
            }
            let plain = String(repeating: "=?;%", count: 10).prefix(length)
            var out = ByteBuffer()
            XMLCanonicalSpelling.appendEscaped(String(plain), to: &out)
            #expect(out.string == plain)
        }
    }

    @Test("keys in order, reversed or with one out of place are written in the same sorted order")
    func keyOrderWhateverTheInsertionOrder() throws {
        let sorted = (0..<20).map { "key\(String($0 + 10))" }
        var orders = [sorted, sorted.reversed(), Array(sorted.dropFirst()) + [sorted[0]]]
        orders.append([sorted[1], sorted[0]] + sorted.dropFirst(2))
        let expected = try text(.dictionary(PlistDictionary(uniqueKeys: sorted, values: sorted.map { .string($0) })))
        for keys in orders {
            let value = PlistValue.dictionary(PlistDictionary(uniqueKeys: keys, values: keys.map { .string($0) }))
            #expect(try text(value) == expected)
        }
        #expect(expected.components(separatedBy: "<key>").count == 21)
    }

    @Test("nesting deeper than 64 levels keeps a tab per level")
    func deepIndentation() throws {
        var value: PlistValue = "leaf"
        for _ in 0..<70 { value = [value] }
        var expected = ""
        for depth in 0..<70 { expected += (depth == 0 ? "" : "\n" + String(repeating: "\t", count: depth)) + "<array>" }
        expected += "\n" + String(repeating: "\t", count: 70) + "<string>leaf</string>"
        for depth in (0..<70).reversed() { expected += "\n" + String(repeating: "\t", count: depth) + "</array>" }
        #expect(try text(value) == document(expected))
    }

    @Test("UIDs become CF$UID dictionaries; null is refused")
    func uidAndNull() throws {
        #expect(try text([.uid(7)]) == document("<array>\n\t<dict>\n\t\t<key>CF$UID</key>\n\t\t<integer>7</integer>\n\t</dict>\n</array>"))
        #expect(throws: PlistError.self) { try XMLPlistWriter().write(["a": .null]) }
        do {
            _ = try XMLPlistWriter().write(["a": [.null]])
            Issue.record("null was written")
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.keyPath == PlistKeyPath(components: ["a", 0]))
        }
    }

    @Test("NSKeyedArchiver's XML output (CF$UID references) reads and re-writes byte for byte")
    func keyedArchiverOutput() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(["alpha", "beta", "alpha"] as NSArray, forKey: "root")
        archiver.encode(NSDictionary(dictionary: ["k": NSNumber(value: 3)]), forKey: "other")
        archiver.finishEncoding()
        let bytes = Array(archiver.encodedData)
        let (value, _) = try XMLTestSupport.read(bytes: bytes)
        #expect(value["$top"]?["root"] == .uid(1))
        #expect(try XMLPlistWriter().write(value) == bytes)
    }

    // MARK: Differential test against plutil

    static func randomString(_ g: inout SplitMix) -> String {
        let pieces = ["a", "Z", "0", " ", "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\u{1}", "\u{7F}", "é", "日本", "\u{1F600}",
                      "\u{FFFF}", "ß", "]]>", "&amp;", "CF$UID", "-", "_"]
        let n = Int(g.next() % 8)
        return (0..<n).map { _ in pieces[Int(g.next() % UInt64(pieces.count))] }.joined()
    }

    static func randomScalar(_ g: inout SplitMix) -> PlistValue {
        switch g.next() % 12 {
        case 0: return .string(randomString(&g))
        case 1: return .integer(PlistInteger(Int64(bitPattern: g.next()) >> (g.next() % 64)))
        case 2: return [.uint64(.max), .int64(.min), 0, -1, .uint64(UInt64(Int64.max) + 1)][Int(g.next() % 5)]
        case 3:
            let d = Double(bitPattern: g.next())
            return .double(d.isNaN ? .nan : d)
        case 4: return .double([0.1, 1, -0.0, 1e16, 1e17, 123456.5, .leastNonzeroMagnitude, .infinity, -.infinity, .nan, 100, 2.5e-5][Int(g.next() % 12)])
        case 5: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: g.next())).isNaN ? 0.25 : Float(bitPattern: UInt32(truncatingIfNeeded: g.next())))
        case 6: return .double(Double(Int64(bitPattern: g.next()) % 1_000_000) / 8)
        case 7: return .bool(g.next() % 2 == 0)
        case 8:
            // Years -9999 ... 9999 and fractional seconds.
            let seconds = Double(Int64(bitPattern: g.next()) % 315_000_000_000) + Double(g.next() % 1000) / 1000
            return .date(PlistDate(secondsSinceReferenceDate: seconds))
        case 9, 10: return .data(Data((0..<Int(g.next() % 200)).map { _ in UInt8(truncatingIfNeeded: g.next()) }))
        default: return .string(randomString(&g))
        }
    }

    static func randomValue(_ g: inout SplitMix, depth: Int) -> PlistValue {
        let roll = g.next() % 10
        if depth > 0 && roll < 2 {
            return .array((0..<Int(g.next() % 5)).map { _ in randomValue(&g, depth: depth - 1) })
        }
        if depth > 0 && roll < 4 {
            var d = PlistDictionary()
            for _ in 0..<Int(g.next() % 5) { d[randomString(&g)] = randomValue(&g, depth: depth - 1) }
            return .dictionary(d)
        }
        return randomScalar(&g)
    }

    /// plutil's XML for `value`, converted from our binary encoding of it.
    private func plutilXML(_ value: PlistValue) async throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory
        let url = dir.appendingPathComponent("trove-xml-diff-\(UUID().uuidString).plist")
        try Data(BinaryPlistWriter().write(value)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let converted = try await ProcessRun.run(Self.plutil, ["-convert", "xml1", "-o", "-", url.path], timeLimit: .seconds(120))
        #expect(converted.status == 0, "\(converted.stderrText)")
        return Array(converted.stdout)
    }

    @Test("a few hundred generated values print exactly as plutil -convert xml1 prints them", .enabled(if: hasPlutil, "plutil not found at /opt/swift/usr/bin/plutil"))
    func plutilDifferential() async throws {
        var g = SplitMix(seed: 0x5EED_0F_7A0E)
        var values: [PlistValue] = []
        for _ in 0..<300 { values.append(Self.randomValue(&g, depth: 4)) }
        var deep: PlistValue = .data(Data((0..<150).map { UInt8($0) }))
        for k in 0..<11 { deep = k % 2 == 0 ? [deep] : ["k\(k)": deep] }
        values.append(deep)
        // One document holding everything, then a handful of top-level values (depth 0 data).
        var documents: [PlistValue] = [.array(values)]
        for _ in 0..<12 { documents.append(Self.randomScalar(&g)) }
        documents.append(.data(Data((0..<100).map { UInt8($0) })))
        var compared = 0
        for doc in documents {
            let ours = try XMLPlistWriter().write(doc)
            let theirs = try await plutilXML(doc)
            compared += 1
            if ours != theirs {
                let a = String(decoding: ours, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let b = String(decoding: theirs, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                Issue.record("differs from plutil at line \(line + 1): ours \(line < a.count ? String(a[line]) : "<end>") | plutil \(line < b.count ? String(b[line]) : "<end>")")
            }
        }
        #expect(compared == documents.count)
    }
}
