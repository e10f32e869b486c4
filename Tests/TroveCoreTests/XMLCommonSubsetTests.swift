import Foundation
import Testing
@_spi(Testing) @testable import TroveCore
import TroveTestSupport

/// The XML reader's scanner for the common subset must give exactly what the libxml2 path gives
/// for every document it accepts, and must accept the documents property-list writers produce.
@Suite("XML common-subset scanner")
struct XMLCommonSubsetTests {
    /// What the scanner made of `bytes` (nil: it left the document to libxml2), and what the
    /// libxml2 path made of it.
    private static func bothPaths(_ bytes: [UInt8], limits: PlistLimits = .default) -> (
        scanned: XMLCommonSubsetScanner.Outcome?, reference: Result<(value: PlistValue, layout: XMLLayout?), PlistError>
    ) {
        bytes.withUnsafeBytes { raw in
            let scanned = XMLCommonSubsetScanner.read(raw.assumingMemoryBound(to: UInt8.self), limits: limits)
            var reader = XMLPlistReader(limits: limits)
            reader.usesCommonSubsetScanner = false
            return (scanned, Result { () throws(PlistError) in try reader.read(raw) })
        }
    }

    /// Checks that an accepted document reads the same both ways; returns whether it was accepted.
    @discardableResult
    private static func checkAgreement(_ bytes: [UInt8], limits: PlistLimits = .default, _ what: @autoclosure () -> String,
                                       sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let (scanned, reference) = bothPaths(bytes, limits: limits)
        guard let scanned else { return false }
        switch reference {
        case .success(let read):
            #expect(scanned.value == read.value, "\(what()): the scanner's value differs from libxml2's", sourceLocation: sourceLocation)
            // The flags decide whether layout notes are made; the notes must then be the same.
            let fast = bytes.withUnsafeBytes { raw in try? XMLPlistReader(limits: limits).read(raw) }
            #expect((fast?.layout == nil) == (read.layout == nil), "\(what()): layout notes made on one path only", sourceLocation: sourceLocation)
            if let fast, let layout = read.layout {
                let fastBytes = try? XMLPlistWriter().write(fast.value, layout: fast.layout)
                let referenceBytes = try? XMLPlistWriter().write(read.value, layout: layout)
                #expect(fastBytes == referenceBytes, "\(what()): layout notes differ", sourceLocation: sourceLocation)
            }
        case .failure(let error):
            Issue.record("\(what()): the scanner accepted what libxml2's path refuses: \(error)", sourceLocation: sourceLocation)
        }
        return true
    }

    @Test("every XML fixture: accepted ones read as with libxml2, and Apple's files are accepted",
          .enabled(if: XMLTestSupport.fixtureRoot != nil, XMLTestSupport.corpusMissing))
    func corpus() {
        var total = 0, accepted = 0
        var appleRefused: [String] = []
        for (row, bytes) in XMLTestSupport.xmlRows {
            total += 1
            // The scanner sees UTF-8 only; the reader transcodes other encodings first.
            let utf8 = bytes.starts(with: Array("<?xml".utf8)) || bytes.starts(with: Array("<plist".utf8))
            if Self.checkAgreement(bytes, row.path) {
                accepted += 1
            } else {
                print("xml common subset: left to libxml2: \(row.path) \(row.expectation)")
            }
            if !Self.checkAgreement(bytes, row.path),  utf8, row.isAppleWritten, row.expectation == "valid" {
                appleRefused.append(row.path)
            }
        }
        print("xml common subset: \(accepted) of \(total) XML fixtures read without libxml2")
        #expect(total > 40)
        #expect(accepted * 2 > total, "the scanner should read most of the corpus")
        #expect(appleRefused == [], "Apple-written UTF-8 fixtures the scanner left to libxml2")
    }

    @Test("generated documents with every kind of value are accepted and read as with libxml2")
    func generatedDocuments() throws {
        var g = SplitMix(seed: 0x5CA7_0001)
        var accepted = 0
        let rounds = 400
        for round in 0..<rounds {
            let value = XMLWriterTests.randomValue(&g, depth: 4)
            guard value.isContainer || round % 4 == 0 else { continue }
            let bytes = try XMLPlistWriter().write(value)
            if Self.checkAgreement(bytes, "generated document \(round)") { accepted += 1 }
        }
        print("xml common subset: \(accepted) generated documents read without libxml2")
        #expect(accepted > rounds / 2)
    }

    @Test("mutated documents: whatever the scanner accepts, libxml2's path reads the same")
    func mutatedDocuments() {
        let bodies = [
            "<dict>\n\t<key>a&amp;b</key>\n\t<string>x &lt; y &#233; &#x1F600;</string>\n\t<key>n</key>\n\t<integer>-12</integer>\n</dict>",
            "<array>\n\t<real>1.5</real>\n\t<date>2024-02-29T12:00:00Z</date>\n\t<data>\n\tAAEC\n\t</data>\n\t<true/>\n\t<false/>\n</array>",
            "<dict>\n\t<key>CF$UID</key>\n\t<integer>7</integer>\n</dict>",
            "<dict><key>k</key><dict/><key>k</key><array/><key>p</key><plist><array><string>]]</string></array></plist></dict>",
            "<dict>\n\t<key>日本</key>\n\t<string>é</string>\n\t<!-- note -->\n\t<key/>\n\t<string/>\n</dict>",
        ]
        // With the canonical header, and bare, so that most edits land in the elements.
        let seeds = bodies.map { XMLTestSupport.document($0) } + bodies.map { "<plist>" + $0 + "</plist>" } + bodies
        var mutator = ByteMutator(
            random: SplitMix(seed: 0x5CA7_0002), alphabet: Array("<>/&;#x!-?[]\"= \r\n\u{1}key".utf8) + [0xEF, 0xBF, 0xBE, 0xC3, 0x80],
            emptyReplacement: UInt8(ascii: "<"))
        var accepted = 0
        for round in 0..<6_000 {
            let bytes = mutator.mutated(Array(seeds[round % seeds.count].utf8))
            if Self.checkAgreement(bytes, "mutation \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)") { accepted += 1 }
        }
        #expect(accepted > 150)
        for seed in seeds { #expect(Self.checkAgreement(Array(seed.utf8), seed)) }
    }

    @Test("what the scanner leaves to libxml2", arguments: [
        // CF-specific readings and the markup outside the subset.
        "<plist version=\"1.0\"><string>&#0;</string></plist>",
        "<plist version=\"1.0\"><string>&nbsp;</string></plist>",
        "<plist version=\"1.0\"><string><![CDATA[x]]></string></plist>",
        "<plist version=\"1.0\"><string q=\">\">x</string></plist>",
        "<!DOCTYPE plist [<!ENTITY e \"x\">]><plist version=\"1.0\"><string>&e;</string></plist>",
        "<plist version=\"1.0\"><!-- a -- b --><array/></plist>",
        "<plist version=\"1.0\"><dict><string>x</string></dict></plist>",
        "<plist version=\"1.0\"><integer>12x</integer></plist>",
        "<plist version=\"1.0\"><true>1</true></plist>",
        "<plist version=\"1.0\"><array></plist>",
        "<plist version=\"1.0\"></plist>",
        "text<plist version=\"1.0\"><array/></plist>",
        " <?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>",
        "<plist version=\"1.0\"><Array/></plist>",
    ])
    func leftToLibXML2(_ document: String) {
        #expect(!Self.checkAgreement(Array(document.utf8), document))
    }

    @Test("limits: a document over a limit is left to libxml2's path, which reports it")
    func limits() {
        let deep = String(repeating: "<array>", count: 20) + String(repeating: "</array>", count: 20)
        #expect(!Self.checkAgreement(Array(deep.utf8), limits: PlistLimits(maxDepth: 10), "20 deep, limit 10"))
        #expect(Self.checkAgreement(Array(deep.utf8), limits: PlistLimits(maxDepth: 20), "20 deep, limit 20"))
        let many = "<array>" + String(repeating: "<true/>", count: 11) + "</array>"
        #expect(!Self.checkAgreement(Array(many.utf8), limits: PlistLimits(maxValues: 11), "12 values, limit 11"))
        let long = "<dict><key>kk</key><string>ssss</string></dict>"
        #expect(!Self.checkAgreement(Array(long.utf8), limits: PlistLimits(maxDecodedBytes: 5), "6 bytes, limit 5"))
        #expect(Self.checkAgreement(Array(long.utf8), limits: PlistLimits(maxDecodedBytes: 6), "6 bytes, limit 6"))
    }

    @Test("what it reads: the shapes Apple's writers and hand-edited files use")
    func accepted() throws {
        let documents = [
            XMLTestSupport.document("<dict>\n\t<key>a</key>\n\t<string>x</string>\n</dict>"),
            "<plist><array><plist><true/></plist></array></plist>",
            "<string>bare root</string>",
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<array><key>k</key><string>a]b]]c</string></array>\n</plist>\ntrailing text is never read",
            "<plist version=\"1.0\"><dict><key>CF$UID</key><integer>0x10</integer></dict></plist>",
            "<plist version=\"1.0\"><string>&#x1F600;&#9;&#13;&quot;&apos;</string></plist>",
            // Raw controls, carriage returns and U+FFFE/U+FFFF in text, which CF keeps: the
            // libxml2 path keeps them through character references, and after one of them it
            // must still decode the references that follow.
            "<plist version=\"1.0\"><string>a\rb\r\nc\u{0}\u{1}\u{1F}</string></plist>",
            "<plist version=\"1.0\"><dict><key>\u{1}k\r</key><string>\u{FFFE}x\u{FFFF}</string></dict></plist>",
            "<plist version=\"1.0\"><array><string>\u{2}&amp;&lt;\u{3}&#65;&gt;</string><key>\u{1}</key></array></plist>",
            "<plist version=\"1.0\"><array><data>AA\rEC\u{1}</data><string>\u{8}</string></array></plist>",
        ]
        for document in documents { #expect(Self.checkAgreement(Array(document.utf8), document)) }
        let (scanned, _) = Self.bothPaths(Array("<plist><dict><key>CF$UID</key><integer>3</integer></dict></plist>".utf8))
        #expect(scanned?.value == .uid(3))
    }
}
