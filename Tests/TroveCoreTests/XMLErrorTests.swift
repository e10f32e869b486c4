import Foundation
import Testing

@testable import TroveCore

@Suite("XML reader errors")
struct XMLErrorTests {
    /// The error for a document whose offending element sits alone on line 3.
    private func errorOnLine3(_ element: String) -> PlistError? {
        XMLTestSupport.error(reading: "<plist version=\"1.0\">\n<array>\n\(element)\n</array>\n</plist>\n")
    }

    private func expectError(_ element: String, _ code: PlistError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let e = errorOnLine3(element) else {
            Issue.record("\(element) was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(e.code == code, "\(element): \(e)", sourceLocation: sourceLocation)
        #expect(e.format == .xml, sourceLocation: sourceLocation)
        guard case .lineColumn(let line, let column)? = e.location else {
            Issue.record("\(element): no line:column", sourceLocation: sourceLocation)
            return
        }
        #expect(line == 3, "\(element): \(e)", sourceLocation: sourceLocation)
        #expect(column >= 1, sourceLocation: sourceLocation)
        #expect(!e.message.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("scalar content errors carry their code and the element's line")
    func scalarErrors() {
        expectError("<integer>abc</integer>", .badInteger)
        expectError("<integer></integer>", .badInteger)
        expectError("<integer>18446744073709551616</integer>", .badInteger)
        expectError("<integer>-9223372036854775809</integer>", .badInteger)
        expectError("<integer>12a</integer>", .badInteger)
        expectError("<integer>5 </integer>", .badInteger)
        expectError("<real>abc</real>", .badReal)
        expectError("<real></real>", .badReal)
        expectError("<real>0x10</real>", .badReal)
        expectError("<date>2001-01-01T00:00:00</date>", .badDate)
        expectError("<date>2001-01-01T00:00:00.5Z</date>", .badDate)
        expectError("<date> 2001-01-01T00:00:00Z</date>", .badDate)
        expectError("<date>2001-1-01T00:00:00Z</date>", .badDate)
        expectError("<data>AAAA\u{E9}</data>", .badData)
    }

    @Test("structural errors")
    func structuralErrors() {
        expectError("<foo/>", .unexpectedElement)
        expectError("<x:string>a</x:string>", .unexpectedElement)
        expectError("<dict><key>a</key></dict>", .missingValue)
        expectError("<dict><string>a</string></dict>", .missingValue)
        expectError("<string>a</integer>", .syntax)
        expectError("<true>x</true>", .syntax)
        expectError("<string>a<!-- c -->b</string>", .syntax)
        expectError("<string>a<b/>c</string>", .unexpectedElement)
        expectError("<dict>text</dict>", .syntax)
        expectError("<integer><![CDATA[5]]></integer>", .syntax)
        expectError("<string>&foo;</string>", .badEscape)
        expectError("<string>&amp</string>", .badEscape)
        expectError("<string>&#xD800;</string>", .badEscape)
        expectError("<string>&#x110000;</string>", .badEscape)
    }

    @Test("errors name the key path of the value being read")
    func keyPaths() {
        let e = XMLTestSupport.error(reading: "<plist><dict><key>a</key><array><integer>1</integer><integer>x</integer></array></dict></plist>")
        #expect(e?.code == .badInteger)
        #expect(e?.keyPath == PlistKeyPath(components: ["a", 1]))
    }

    @Test("root errors: none, two, empty plist")
    func rootErrors() {
        #expect(XMLTestSupport.error(reading: "<plist><string>a</string><string>b</string></plist>")?.code == .badRoot)
        #expect(XMLTestSupport.error(reading: "<plist></plist>")?.code == .badRoot)
        #expect(XMLTestSupport.error(reading: "<plist/>")?.code == .badRoot)
        #expect(XMLTestSupport.error(reading: "<?xml version=\"1.0\"?>\n")?.code != nil)
        #expect(XMLTestSupport.error(reading: "<plist><!-- nothing --></plist>")?.code == .badRoot)
        #expect(XMLTestSupport.error(reading: "<plist>&#32;&amp;</plist>")?.code == .syntax)
    }

    @Test("truncated documents and unknown encodings")
    func truncationAndEncoding() {
        #expect(XMLTestSupport.error(reading: "<plist><dict><key>a</key>")?.code == .unexpectedEnd)
        #expect(XMLTestSupport.error(reading: "<plist><array>")?.code == .unexpectedEnd)
        #expect(XMLTestSupport.error(reading: "<pl") != nil)
        let e = XMLTestSupport.error(reading: "<?xml version=\"1.0\" encoding=\"klingon-9\"?><plist><true/></plist>")
        #expect(e?.code == .badEncoding)
        #expect(e?.message.contains("klingon-9") == true)
        do {
            _ = try XMLTestSupport.read(bytes: [])
            Issue.record("empty input was accepted")
        } catch {
            #expect(error.format == .xml)
        }
    }

    @Test("nesting: 512 levels read, 513 fail with depth-limit")
    func depthLimit() throws {
        func nested(_ n: Int) -> String {
            "<plist>" + String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n) + "</plist>"
        }
        #expect(throws: Never.self) { try XMLTestSupport.read(nested(512)) }
        #expect(XMLTestSupport.error(reading: nested(513))?.code == .depthLimit)
        #expect(XMLTestSupport.error(reading: nested(5), limits: PlistLimits(maxDepth: 4))?.code == .depthLimit)
    }

    @Test("100,000-deep nesting fails fast with depth-limit, without exhausting the stack")
    func hostileDepth() {
        let n = 100_000
        let text = "<plist>" + String(repeating: "<dict><key>k</key>", count: n) + "<true/>"
            + String(repeating: "</dict>", count: n) + "</plist>"
        let start = Date()
        let e = XMLTestSupport.error(reading: text)
        #expect(e?.code == .depthLimit)
        #expect(Date().timeIntervalSince(start) < 2)
        let unclosed = String(repeating: "<array>", count: n)
        #expect(XMLTestSupport.error(reading: unclosed)?.code == .depthLimit)
    }

    /// Verdicts of the toolchain's plutil (CoreFoundation's parser) on each document.
    @Test("a DOCTYPE counts only before the root: inside it is an error, after it nothing is read", arguments: [
        // Inside a string, a non-plain DOCTYPE was once blanked out and the string read without it.
        ("<plist><string>x<!DOCTYPE\n</p>y</string></plist>", false),
        ("<plist><dict><key>a</key><string>x<!DOCTYPE\n</p>y</string></dict></plist>", false),
        ("<plist><!DOCTYPE\n</p><string>a</string></plist>", false),
        ("<plist><!DOCTYPE plist><string>a</string></plist>", false),
        ("<plist><string>a</string><!DOCTYPE x [ ]></plist>", false),
        // CF stops at the end of the root element, so what follows it cannot be wrong.
        ("<plist><string>a</string></plist><!DOCTYPE x [ ]>", true),
        ("<plist><string>a</string></plist><!DOCTYPE\n</p>", true),
        // Before the root, CF skips a DOCTYPE up to its first `>`.
        ("<!DOCTYPE\nfoo \"x><plist><string>a</string></plist>", true),
    ])
    func doctypePosition(document: String, accepted: Bool) {
        let error = XMLTestSupport.error(reading: document)
        if accepted {
            #expect(error == nil, "\(document): \(error.map(String.init(describing:)) ?? "")")
        } else {
            #expect(error?.format == .xml, "\(document) was accepted")
        }
    }

    @Test("entity declarations are refused: billion laughs and external entities do nothing")
    func entityAttacks() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
             <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
            ]>
            <plist><string>&lol2;</string></plist>
            """
        let e = XMLTestSupport.error(reading: laughs)
        #expect(e?.code == .syntax)
        #expect(e?.location == .lineColumn(line: 2, column: 16))
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE plist SYSTEM "file:///etc/passwd">
            <plist><string>&xxe;</string></plist>
            """
        #expect(XMLTestSupport.error(reading: xxe)?.code == .badEscape)
        let parameterEntity = "<!DOCTYPE p [<!ENTITY % x SYSTEM \"file:///etc/passwd\"> %x;]><plist><true/></plist>"
        #expect(XMLTestSupport.error(reading: parameterEntity)?.code == .syntax)
        // The external DTD Apple's files name is never fetched: reading works offline.
        #expect(throws: Never.self) { try XMLTestSupport.read(XMLTestSupport.document("<true/>")) }
    }
}
