import Foundation
import Testing

@testable import TroveCore
import TroveTestSupport

@Suite("XML reader")
struct XMLReaderTests {
    private func read(_ body: String) throws(PlistError) -> PlistValue {
        try XMLTestSupport.read("<plist version=\"1.0\">" + body + "</plist>")
    }

    @Test("every element type reads as CoreFoundation reads it")
    func elementTypes() throws {
        #expect(try read("<string>hi</string>") == "hi")
        #expect(try read("<string/>") == "")
        #expect(try read("<string></string>") == "")
        #expect(try read("<integer>42</integer>") == 42)
        #expect(try read("<real>1.5</real>") == 1.5)
        #expect(try read("<true/>") == true)
        #expect(try read("<false></false>") == false)
        #expect(try read("<date>2001-01-01T00:00:00Z</date>") == .date(PlistDate(secondsSinceReferenceDate: 0)))
        #expect(try read("<data>AAEC</data>") == .data(Data([0, 1, 2])))
        #expect(try read("<data/>") == .data(Data()))
        #expect(try read("<array/>") == [])
        #expect(try read("<dict/>") == [:])
        #expect(try read("<array><integer>1</integer><string>a</string></array>") == [1, "a"])
        #expect(try read("<dict><key>a</key><integer>1</integer><key/><string>x</string></dict>") == ["a": 1, "": "x"])
    }

    @Test("integers: hex, signs, leading zeros, the full range")
    func integers() throws {
        #expect(try read("<integer>0x10</integer>") == 16)
        #expect(try read("<integer>0XfF</integer>") == 255)
        #expect(try read("<integer>-0x2a</integer>") == -42)
        #expect(try read("<integer>+5</integer>") == 5)
        #expect(try read("<integer>007</integer>") == 7)
        #expect(try read("<integer>-042</integer>") == -42)
        #expect(try read("<integer>000</integer>") == 0)
        #expect(try read("<integer> 12</integer>") == 12)
        #expect(try read("<integer>18446744073709551615</integer>") == .uint64(.max))
        #expect(try read("<integer>-9223372036854775808</integer>") == .int64(.min))
    }

    @Test("reals: exponents and every non-finite spelling CF knows")
    func reals() throws {
        #expect(try read("<real>1e4</real>") == 10000.0)
        #expect(try read("<real>.5</real>") == 0.5)
        #expect(try read("<real>-0.0</real>") == .double(-0.0))
        for (text, expected) in [("nan", Double.nan), ("NaN", .nan), ("inf", .infinity), ("+infinity", .infinity),
                                 ("-INFINITY", -.infinity), ("Infinity", .infinity), ("-inf", -.infinity), ("+inf", .infinity)] {
            let value = try read("<real>\(text)</real>")
            #expect(value == .double(expected), "\(text)")
        }
    }

    @Test("dates roll over out-of-range fields as CFGregorianDate does")
    func dates() throws {
        func seconds(_ text: String) throws -> Double? { try read("<date>\(text)</date>").dateValue?.secondsSinceReferenceDate }
        #expect(try seconds("2001-01-02T00:00:01Z") == 86_401)
        #expect(try seconds("1970-01-01T00:00:00Z") == -978_307_200)
        #expect(try seconds("2001-02-30T00:00:00Z") == seconds("2001-03-02T00:00:00Z"))
        #expect(try seconds("2001-13-01T00:00:00Z") == seconds("2002-01-01T00:00:00Z"))
        #expect(try seconds("2001-01-01T24:00:00Z") == 86_400)
        #expect(try read("<date>-0001-01-01T00:00:00Z</date>").dateValue?.description.hasPrefix("-0001-01-01") == true)
    }

    @Test("base64 with whitespace, padding and CF's lenient skipping")
    func base64() throws {
        #expect(try read("<data>\n\tAAEC\n\tAw==\n</data>") == .data(Data([0, 1, 2, 3])))
        #expect(try read("<data>AA==</data>") == .data(Data([0])))
        #expect(try read("<data>AAA</data>") == .data(Data()))
        #expect(try read("<data>A!AAA</data>") == .data(Data([0, 0, 0])))
    }

    @Test("base64: the four-at-a-time decoder agrees with CF's byte-at-a-time rules on random text")
    func base64AgreesWithTheByteRules() throws {
        // Letters mostly, so that the fast path runs, with padding, whitespace, punctuation CF
        // skips and, now and then, a byte above 0x7F, which is an error.
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let others = Array("==\n\t \r!-.".utf8)
        var generator = SplitMix(seed: 0xB64)
        var decoded = 0, refused = 0
        for _ in 0..<3_000 {
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...90, using: &generator) {
                switch Int.random(in: 0..<100, using: &generator) {
                case 0..<80: text.append(letters.randomElement(using: &generator)!)
                case 80..<99: text.append(others.randomElement(using: &generator)!)
                default: text.append(UInt8.random(in: 0x80...0xFF, using: &generator))
                }
            }
            let expected = Self.referenceBase64(text)
            do throws(XMLScalarSyntax.Failure) {
                let bytes = try text.withUnsafeBufferPointer { b throws(XMLScalarSyntax.Failure) in try XMLScalarSyntax.decodeBase64(b) }
                #expect(bytes == expected, "\(String(decoding: text, as: UTF8.self))")
                decoded += 1
            } catch {
                #expect(expected == nil, "\(String(decoding: text, as: UTF8.self)): \(error.message)")
                #expect(error.code == .badData)
                refused += 1
            }
        }
        #expect(decoded > 1_000 && refused > 100, "decoded \(decoded), refused \(refused)")
    }

    /// CF's rules one byte at a time: letters and `=` are sextets (`=` worth zero), other ASCII
    /// is skipped, a quantum of four yields three bytes less one per `=` run at its end (spaces
    /// do not break the run), and a byte above 0x7F is an error (nil).
    private static func referenceBase64(_ text: [UInt8]) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var run = 0, count = 0
        var bits: UInt32 = 0
        for c in text {
            guard c < 0x80 else { return nil }
            if c == UInt8(ascii: "=") { run += 1 } else if ![0x20, 0x09, 0x0A, 0x0D].contains(c) { run = 0 }
            let value: UInt32
            if c == UInt8(ascii: "=") {
                value = 0
            } else if let index = alphabet.firstIndex(of: c) {
                value = UInt32(index)
            } else {
                continue
            }
            count += 1
            bits = bits << 6 | value
            guard count % 4 == 0 else { continue }
            out.append(UInt8(truncatingIfNeeded: bits >> 16))
            if run < 2 { out.append(UInt8(truncatingIfNeeded: bits >> 8)) }
            if run < 1 { out.append(UInt8(truncatingIfNeeded: bits)) }
        }
        return out
    }

    @Test("entities: the five predefined ones and numeric references, &#0; included")
    func entities() throws {
        #expect(try read("<string>&lt;&gt;&amp;&apos;&quot;</string>") == "<>&'\"")
        #expect(try read("<string>&#65;&#x42;&#x1D562;</string>") == "AB\u{1D562}")
        #expect(try read("<string>a&#0;b</string>") == "a\u{0}b")
        #expect(try read("<string>&#8;&lt;x&#1;&amp;&#0;</string>") == "\u{8}<x\u{1}&\u{0}")
        #expect(try read("<string>a\u{1}&lt;b\u{0}&amp;</string>") == "a\u{1}<b\u{0}&")
        #expect(try read("<string>line1\r\nline2\rline3</string>") == "line1\r\nline2\rline3")
        #expect(try read("<string>\u{FFFE}&amp;</string>") == "\u{FFFE}&")
        #expect(try read("<key>k&amp;</key>") == "k&")
        #expect(try read("<string><![CDATA[<&>]]>x</string>") == "<&>x")
    }

    @Test("CF leniencies: prolog variants, attributes, junk after the root, keys as values")
    func leniencies() throws {
        #expect(try XMLTestSupport.read("  \n<?xml version=\"1.0\"?><plist><string>a</string></plist>") == "a")
        #expect(try XMLTestSupport.read("<!DOCTYPE test \"><plist><string>a</string></plist>") == "a")
        #expect(try XMLTestSupport.read("<plist><string =\">apple</string></plist>") == "apple")
        #expect(try XMLTestSupport.read("<plist><dict><key q=\">\">t</key><true /></dict></plist>") == ["\">t": true])
        #expect(try XMLTestSupport.read("<plist><string>a</string></plist>junk<<<") == "a")
        #expect(try XMLTestSupport.read("<dict><key>a</key><key>b</key></dict>") == ["a": "b"])
        #expect(try XMLTestSupport.read("<plist><!-- c --><array><!-- d --><?pi x?></array></plist>") == [])
        #expect(try XMLTestSupport.read("<plist><dict><key>CF$UID</key><integer>7</integer></dict></plist>") == .uid(7))
        #expect(try XMLTestSupport.read("<plist><dict><key>CF$UID</key><string>7</string></dict></plist>") == ["CF$UID": "7"])
    }

    @Test("UTF-16 and UTF-32 documents, with and without byte-order marks")
    func wideEncodings() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>h\u{E9}\u{1F600}</string></plist>"
        var le: [UInt8] = [0xFF, 0xFE], be: [UInt8] = [0xFE, 0xFF]
        for u in text.utf16 {
            le += [UInt8(u & 0xFF), UInt8(u >> 8)]
            be += [UInt8(u >> 8), UInt8(u & 0xFF)]
        }
        #expect(try XMLTestSupport.read(bytes: le).value == "h\u{E9}\u{1F600}")
        #expect(try XMLTestSupport.read(bytes: be).value == "h\u{E9}\u{1F600}")
        #expect(try XMLTestSupport.read(bytes: Array(be.dropFirst(2))).value == "h\u{E9}\u{1F600}")
        var utf32: [UInt8] = [0xFF, 0xFE, 0, 0]
        for s in text.unicodeScalars {
            let v = s.value
            utf32 += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        }
        #expect(try XMLTestSupport.read(bytes: utf32).value == "h\u{E9}\u{1F600}")
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9]
            + Array("</string></plist>".utf8)
        #expect(try XMLTestSupport.read(bytes: latin1).value == "\u{E9}")
    }
}
