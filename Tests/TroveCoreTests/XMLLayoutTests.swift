import Foundation
import Testing

@testable import TroveCore

@Suite("XML layout")
struct XMLLayoutTests {
    private func roundTrip(_ text: String) throws -> String {
        let (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
        #expect(layout != nil)
        return String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
    }

    /// A document in none of Apple's habits: no prolog, spaces, CRLF, comments, odd spellings.
    private let oddDocument = """
        <!-- leading comment -->\r
        <plist version="1.0" extra='x'>\r
        <dict>\r
            <key>hex</key>   <integer>0x10</integer>\r
            <key>plus</key><integer>+5</integer>\r
            <key>zeros</key><integer> 007</integer>\r
            <key>real</key><real>1.50</real>\r
            <key>inf</key><real>INF</real>\r
            <key>ref&#x41;</key><string>&#x41;b<![CDATA[<c>]]>&apos;</string>\r
            <key>empty</key><string/>\r
            <key>t</key><true />\r
            <key>f</key><false></false>\r
            <key>arr</key><array></array>\r
            <key>d</key><dict >\r
              <!-- inner --><key>k</key><key>value spelled as key</key>\r
            </dict>\r
            <key>data</key><data>AAEC AwQF\r
            </data>\r
            <key>date</key><date>2001-02-30T00:00:00Z</date>\r
            <key>uid</key><dict><key>CF$UID</key><integer>0x7</integer></dict>\r
        </dict>\r
        </plist>\r
        trailing junk
        """

    @Test("an unusual document comes back byte for byte")
    func oddDocumentRoundTrip() throws {
        #expect(try roundTrip(oddDocument) == oddDocument)
    }

    @Test("a canonical document needs no notes")
    func canonicalHasNoNotes() throws {
        let value: PlistValue = ["a": [1, 2.5, "x&y", .data(Data(repeating: 7, count: 100))], "b": .uid(3), "c": [:]]
        let bytes = try XMLPlistWriter().write(value)
        let (read, layout) = try XMLTestSupport.read(bytes: bytes)
        #expect(read == value)
        #expect(layout?.noteCount == 0)
        #expect(try XMLPlistWriter().write(read, layout: layout) == bytes)
    }

    @Test("a changed value drops its old spelling; everything else keeps its own")
    func editedSpelling() throws {
        var (value, layout) = try XMLTestSupport.read(bytes: Array(oddDocument.utf8))
        value["hex"] = 17
        value["real"] = 1.5  // same number as 1.50: the spelling stays
        value["empty"] = "now full"
        let out = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
        #expect(out.contains("<key>hex</key>   <integer>17</integer>\r\n"))
        #expect(out.contains("<real>1.50</real>"))
        #expect(out.contains("<key>empty</key><string>now full</string>\r\n"))
        #expect(out.contains("<integer>+5</integer>"))
        let (reread, _) = try XMLTestSupport.read(bytes: Array(out.utf8))
        #expect(reread == value)
    }

    @Test("added and removed entries stay aligned and get canonical layout")
    func structuralEdits() throws {
        let text = XMLTestSupport.document("<dict>\n\t<key>a</key>\n\t<integer>0x1</integer>\n\t<key>b</key>\n\t<array>\n\t\t<string>x</string>\n\t</array>\n</dict>")
        var (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
        value["c"] = ["new": true]
        let out = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
        #expect(out == XMLTestSupport.document("<dict>\n\t<key>a</key>\n\t<integer>0x1</integer>\n\t<key>b</key>\n\t<array>\n\t\t<string>x</string>\n\t</array>\n\t<key>c</key>\n\t<dict>\n\t\t<key>new</key>\n\t\t<true/>\n\t</dict>\n</dict>"))
        value["b"] = ["x", "y"]
        let grown = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
        #expect(grown.contains("\t<array>\n\t\t<string>x</string>\n\t\t<string>y</string>\n\t</array>"))
        value["a"] = [1]
        let replaced = try XMLPlistWriter().write(value, layout: layout)
        #expect(try XMLTestSupport.read(bytes: replaced).value == value)
    }

    @Test("a layout without notes keeps the value's key order after edits, as a noted one does")
    func noteFreeLayoutKeepsKeyOrder() throws {
        let canonical = try XMLPlistWriter().write(["b": 1, "d": ["x": 2, "y": 3]])
        var (value, layout) = try XMLTestSupport.read(bytes: canonical)
        #expect(layout?.hasNotes == false)
        value["a"] = "added last"
        value["d"] = ["y": 3, "x": 2]
        let out = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
        #expect(out == XMLTestSupport.document(
            "<dict>\n\t<key>b</key>\n\t<integer>1</integer>\n\t<key>d</key>\n\t<dict>\n\t\t<key>y</key>\n\t\t<integer>3</integer>\n\t\t<key>x</key>\n\t\t<integer>2</integer>\n\t</dict>\n\t<key>a</key>\n\t<string>added last</string>\n</dict>"))
        // The same edits under a layout that has a note take the notes' path: one output either way.
        let noted = XMLTestSupport.document("<dict>\n\t<key>b</key>\n\t<integer>0x2</integer>\n\t<key>d</key>\n\t<dict>\n\t\t<key>x</key>\n\t\t<integer>2</integer>\n\t\t<key>y</key>\n\t\t<integer>3</integer>\n\t</dict>\n</dict>")
        var (other, otherLayout) = try XMLTestSupport.read(bytes: Array(noted.utf8))
        #expect(otherLayout?.hasNotes == true)
        other["b"] = 1
        other["a"] = "added last"
        other["d"] = ["y": 3, "x": 2]
        let otherOut = String(decoding: try XMLPlistWriter().write(other, layout: otherLayout), as: UTF8.self)
        #expect(otherOut == out, "\(otherOut.debugDescription)\n\(out.debugDescription)")
    }

    @Test("indentation deeper than the precomputed levels is written and recognized level by level")
    func deepIndentation() throws {
        for (lineBreak, unit) in [("\n", "\t"), ("\r\n", "  ")] {
            let depth = 3 * XMLIndentedBreaks.precomputedDepth + 5
            var text = "<plist>"
            for level in 0..<depth { text += lineBreak + String(repeating: unit, count: level) + "<array>" }
            text += lineBreak + String(repeating: unit, count: depth) + "<true/>"
            for level in (0..<depth).reversed() { text += lineBreak + String(repeating: unit, count: level) + "</array>" }
            text += lineBreak + "</plist>" + lineBreak
            var (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
            #expect(layout?.notes.isEmpty == true, "every break is the standard one for its depth")
            #expect(String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self) == text)
            // A node added at the bottom is indented the file's way, at its full depth.
            let path = PlistKeyPath(components: Array(repeating: .index(0), count: depth - 1))
            try value.insert(false, at: path.appending(index: 1))
            let edited = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
            let deepest = lineBreak + String(repeating: unit, count: depth)
            #expect(edited.contains(deepest + "<true/>" + deepest + "<false/>" + lineBreak))
        }
    }

    @Test("a file indented with spaces and CRLF costs no per-node notes, and additions follow its style")
    func indentationStyle() throws {
        let text = "<plist>\r\n<dict>\r\n    <key>a</key>\r\n    <array>\r\n        <integer>1</integer>\r\n    </array>\r\n</dict>\r\n</plist>\r\n"
        var (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
        #expect(layout?.notes.isEmpty == true)
        #expect(String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self) == text)
        value["b"] = ["x": true]
        let out = String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self)
        #expect(out.contains("    </array>\r\n    <key>b</key>\r\n    <dict>\r\n        <key>x</key>\r\n        <true/>\r\n    </dict>\r\n</dict>"))
    }

    @Test("UTF-16 documents are written back in UTF-16 with their byte-order mark")
    func utf16RoundTrip() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\">\n<string>h\u{E9}\u{1F600}</string>\n</plist>\n"
        var bytes: [UInt8] = [0xFE, 0xFF]
        for u in text.utf16 { bytes += [UInt8(u >> 8), UInt8(u & 0xFF)] }
        let (value, layout) = try XMLTestSupport.read(bytes: bytes)
        #expect(layout?.encoding == .utf16(bigEndian: true, byteOrderMark: true))
        #expect(try XMLPlistWriter().write(value, layout: layout) == bytes)
    }

    @Test("a UTF-8 byte-order mark is kept")
    func utf8MarkRoundTrip() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + XMLCanonicalSpelling.header + Array("<true/>\n</plist>\n".utf8)
        let (value, layout) = try XMLTestSupport.read(bytes: bytes)
        #expect(value == true)
        #expect(layout?.encoding == .utf8(byteOrderMark: true))
        #expect(try XMLPlistWriter().write(value, layout: layout) == bytes)
    }

    @Test("an 8-bit encoding named in the declaration is read and written back")
    func declaredEncodingRoundTrip() throws {
        let bytes: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist version=\"1.0\">\n<string>caf".utf8)
            + [0xE9] + Array("</string>\n</plist>\n".utf8)
        var (value, layout) = try XMLTestSupport.read(bytes: bytes)
        #expect(value == "caf\u{E9}")
        #expect(layout?.encoding == .declared(name: "ISO-8859-1"))
        #expect(try XMLPlistWriter().write(value, layout: layout) == bytes)
        value = "na\u{EF}ve"
        let edited = try XMLPlistWriter().write(value, layout: layout)
        #expect(edited.contains(0xEF) && !edited.contains(0xC3))
        #expect(try XMLTestSupport.read(bytes: edited).value == value)
    }

    @Test("repeated keys: the document round-trips, and an edit of the key wins")
    func repeatedKeys() throws {
        let text = "<plist><dict><key>k</key><string>first</string><key>m</key><true/><key>k</key><integer>2</integer></dict></plist>"
        var (value, layout) = try XMLTestSupport.read(bytes: Array(text.utf8))
        #expect(value == ["k": 2, "m": true])
        #expect(String(decoding: try XMLPlistWriter().write(value, layout: layout), as: UTF8.self) == text)
        value["k"] = "edited"
        let out = try XMLPlistWriter().write(value, layout: layout)
        #expect(try XMLTestSupport.read(bytes: out).value == ["k": "edited", "m": true])
    }

    // MARK: Apple files

    private func appleFile(_ path: String) -> [UInt8]? {
        XMLTestSupport.rows.first { $0.path == path }.flatMap(XMLTestSupport.bytes(of:))
    }

    /// Lines of `a` and `b` that differ, when both have the same number of lines.
    private func changedLines(_ a: [UInt8], _ b: [UInt8]) -> [Int]? {
        let la = String(decoding: a, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let lb = String(decoding: b, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard la.count == lb.count else { return nil }
        return la.indices.filter { la[$0] != lb[$0] }
    }

    @Test("editing one scalar of an Apple file changes only that value's line", .enabled(if: XMLTestSupport.fixtureRoot != nil, XMLTestSupport.corpusMissing))
    func oneValueEdit() throws {
        let input = try #require(appleFile("xml/xcode-DuckDuckGo-Info.plist"))
        var (value, layout) = try XMLTestSupport.read(bytes: input)
        #expect(value["CFBundleDevelopmentRegion"] == "en")
        value["CFBundleDevelopmentRegion"] = "fr"
        let output = try XMLPlistWriter().write(value, layout: layout)
        #expect(try XMLTestSupport.read(bytes: output).value == value)
        let changed = try #require(changedLines(input, output))
        #expect(changed == [16])
        let line = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)[16]
        #expect(line == "\t<string>fr</string>")

        let scheme = try #require(appleFile("xml/xcode-Candy-xcschememanagement.plist"))
        var (schemeValue, schemeLayout) = try XMLTestSupport.read(bytes: scheme)
        let firstScheme = try #require(schemeValue["SchemeUserState"]?.dictionaryValue?.keys.first)
        var states = try #require(schemeValue["SchemeUserState"])
        states[firstScheme]?["orderHint"] = 99
        schemeValue["SchemeUserState"] = states
        let schemeOut = try XMLPlistWriter().write(schemeValue, layout: schemeLayout)
        #expect(try XMLTestSupport.read(bytes: schemeOut).value == schemeValue)
        #expect(try #require(changedLines(scheme, schemeOut)).count == 1)
    }
}
