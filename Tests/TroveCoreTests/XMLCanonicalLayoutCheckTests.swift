import Foundation
import Testing
@_spi(Testing) @testable import TroveCore
import TroveTestSupport

/// A lossless read of a canonical document takes its layout from the common-subset scanner's
/// own pass instead of `XMLLayoutScanner`; whenever the scanner makes a layout, the layout
/// scanner must find the same notes in the document (content notes only) and the same
/// container shapes.
@Suite("XML canonical layout check")
struct XMLCanonicalLayoutCheckTests {
    /// The scanner's layout for `bytes` when it found the document canonical but for content notes.
    private static func scannerLayout(_ bytes: [UInt8]) -> XMLLayout? {
        bytes.withUnsafeBytes { raw in
            XMLCommonSubsetScanner.read(raw.assumingMemoryBound(to: UInt8.self), limits: .default, checkingLayout: true)?
                .checkedLayout
        }
    }

    /// The layout `XMLLayoutScanner` derives for `bytes`, read as `value`.
    private static func referenceLayout(_ bytes: [UInt8], _ value: PlistValue) -> XMLLayout? {
        bytes.withUnsafeBytes { raw in
            XMLLayoutScanner.scan(raw.assumingMemoryBound(to: UInt8.self), value: value, encoding: .standard)
        }
    }

    /// A lossless read of `bytes`.
    private static func losslessRead(_ bytes: [UInt8]) throws -> (value: PlistValue, layout: XMLLayout?) {
        var result: (value: PlistValue, layout: XMLLayout?)?
        var failure: PlistError?
        bytes.withUnsafeBytes { raw in
            do throws(PlistError) { result = try XMLPlistReader().read(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        return result!
    }

    private static func describe(_ shapes: [Int: XMLContainerShape]) -> [Int: [Int]] {
        shapes.mapValues { [$0.isDictionary ? 1 : 0, $0.childCount, $0.subtreeSize] }
    }

    /// Every note's parts, for comparing two layouts' notes.
    private static func describe(_ notes: [Int: XMLNodeNote]) -> [Int: String] {
        notes.mapValues { note in
            let parts: [[UInt8]?] = [
                note.leading, note.startTag, note.endTag, note.content, note.closing, note.rawElement,
            ]
            return "\(parts) \(note.spelledValue.map { "\($0)" } ?? "-") \(note.repeatedEntries?.count ?? 0)"
        }
    }

    /// Checks that a document the scanner makes a layout for has the layout scanner's notes and
    /// shapes; returns whether the scanner made one.
    @discardableResult
    private static func checkCanonical(_ bytes: [UInt8], _ what: @autoclosure () -> String,
                                       sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let layout = scannerLayout(bytes) else { return false }
        let shapes = layout.containers.byNode
        guard let value = bytes.withUnsafeBytes({ try? XMLPlistReader().read($0, keepingLayout: false).value }),
            let reference = referenceLayout(bytes, value)
        else {
            Issue.record("\(what()): called canonical, but the layout scanner made no layout", sourceLocation: sourceLocation)
            return true
        }
        #expect(describe(layout.notes) == describe(reference.notes), "\(what()): notes differ", sourceLocation: sourceLocation)
        #expect(reference.prolog == nil && reference.epilog == nil, "\(what()): prolog or epilog", sourceLocation: sourceLocation)
        #expect(reference.lineBreak == [0x0A] && reference.indentUnit == [0x09], "\(what()): indentation", sourceLocation: sourceLocation)
        #expect(describe(shapes) == describe(reference.containers.byNode), "\(what()): container shapes differ", sourceLocation: sourceLocation)
        return true
    }

    @Test("the writer's output is canonical, and its layout is the layout scanner's")
    func writerOutput() throws {
        var g = SplitMix(seed: 0x5CA7_0101)
        var canonical = 0, containers = 0
        for round in 0..<400 {
            let value = XMLWriterTests.randomValue(&g, depth: 4)
            guard value.isContainer else { continue }
            containers += 1
            let bytes = try XMLPlistWriter().write(value)
            if Self.checkCanonical(bytes, "generated document \(round)") { canonical += 1 }
        }
        #expect(canonical == containers, "\(canonical) of \(containers) canonical")
        // A lossless read of a canonical document writes it back unchanged.
        let value: PlistValue = ["a": [1, 2.5, "x &amp; <y>"], "u": .uid(7), "d": .data(Data(repeating: 7, count: 100)), "e": [], "t": true]
        let bytes = try XMLPlistWriter().write(value)
        #expect(Self.checkCanonical(bytes, "mixed document"))
        let read = try Self.losslessRead(bytes)
        #expect(read.value == value)
        #expect(try XMLPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("what is not canonical is left to the layout scanner", arguments: [
        "<array>\n\t<integer>1</integer>\n</array>",
        "<plist version=\"1.0\">\n<array>\n  <integer>1</integer>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<string/>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<key>k</key>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<true></true>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array></array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<!-- c -->\n\t<real>1</real>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<dict>\n\t\t<key>CF$UID</key>\n\t\t<integer>4294967297</integer>\n\t</dict>\n</array>\n</plist>\n",
        "<plist version=\"1.0\">\n<string>x</string>\n</plist>\n",
        "<plist version=\"1.0\">\n<array>\n\t<true/>\n</array>\n</plist>",
    ])
    func notCanonical(_ body: String) throws {
        // The canonical XML declaration and DOCTYPE before a `<plist>` body.
        let head = String(decoding: XMLCanonicalSpelling.header.dropLast(Array("<plist version=\"1.0\">\n".utf8).count), as: UTF8.self)
        let document = body.hasPrefix("<plist") ? head + body : body
        #expect(Self.scannerLayout(Array(document.utf8)) == nil, "\(document.debugDescription)")
        // The reader still gives the layout scanner's notes, which write the document back.
        let bytes = Array(document.utf8)
        if let read = try? Self.losslessRead(bytes), read.layout != nil {
            #expect(try XMLPlistWriter().write(read.value, layout: read.layout) == bytes)
        }
    }

    @Test("text other than the writer's spelling becomes the layout scanner's content note", arguments: [
        ("<integer>01</integer>", 1), ("<integer>+1</integer>", 1), ("<integer>-0</integer>", 1), ("<integer>0x1F</integer>", 1),
        ("<string>a&#38;b</string>", 1), ("<string>a>b</string>", 1), ("<string>it&apos;s</string>", 1), ("<string>&quot;</string>", 1),
        ("<real>1.50</real>", 1), ("<real>0.1</real>", 1), ("<real>1e3</real>", 1), ("<real>-0.0</real>", 1), ("<real>0.10000000000000001</real>", 0),
        ("<real>1.5393373958778421e-07</real>", 0), ("<real>1.5393373958778421E-07</real>", 1), ("<real>267.72199999999998</real>", 0),
        ("<real>267.722</real>", 1), ("<real>1e+300</real>", 1), ("<real>1.0000000000000001e+300</real>", 0),
        ("<date>02001-01-01T00:00:00Z</date>", 1), ("<date>2001-01-01T00:00:00Z</date>", 0), ("<data>AAAA</data>", 1), ("<data>\n\tAAAA\n\t</data>", 0),
        ("<integer>12</integer>\n\t<string>x&apos;</string>\n\t<dict>\n\t\t<key>k&apos;</key>\n\t\t<real>2.0</real>\n\t</dict>", 3),
    ])
    func contentNotes(_ element: String, _ noteCount: Int) throws {
        let document = String(decoding: XMLCanonicalSpelling.header, as: UTF8.self) + "<array>\n\t\(element)\n</array>\n</plist>\n"
        let bytes = Array(document.utf8)
        #expect(Self.checkCanonical(bytes, document.debugDescription))
        #expect(Self.scannerLayout(bytes)?.notes.count == noteCount)
        let read = try Self.losslessRead(bytes)
        #expect(read.layout?.notes.count == noteCount)
        #expect(try XMLPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("base64 is called canonical exactly when it is the writer's spelling of what it decodes to")
    func canonicalData() throws {
        var g = SplitMix(seed: 0x5CA7_0103)
        var mutator = ByteMutator(random: SplitMix(seed: 0x5CA7_0104), alphabet: Array("AB=\n\t/+a0!".utf8), emptyReplacement: 0x0A)
        // Decided from the text alone, and with the decoder's count of bytes it did not take as
        // four letters: both must give the same answer.
        func isCanonical(_ text: [UInt8], _ count: Int, _ depth: Int, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
            let alone = text.withUnsafeBufferPointer { XMLCanonicalLayoutCheck.isCanonicalData($0, count: count, depth: depth) }
            var slowBytes = 0
            if (try? text.withUnsafeBufferPointer({ try XMLScalarSyntax.decodeBase64($0, slowBytes: &slowBytes) })) != nil {
                let counted = text.withUnsafeBufferPointer {
                    XMLCanonicalLayoutCheck.isCanonicalData($0, count: count, depth: depth, slowBytes: slowBytes)
                }
                #expect(counted == alone, "\(String(decoding: text, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
            }
            return alone
        }
        for round in 0..<600 {
            let bytes = (0..<g.below(130)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            let depth = g.below(11)
            var spelled = ByteBuffer()
            XMLCanonicalSpelling.appendDataContent(Data(bytes), depth: depth, to: &spelled)
            let text = spelled.withUnsafeBufferPointer { Array($0) }
            #expect(isCanonical(text, bytes.count, depth), "round \(round): the writer's spelling")
            let mutated = mutator.mutated(text)
            let decoded = mutated.withUnsafeBufferPointer { try? XMLScalarSyntax.decodeBase64($0) }
            if decoded == bytes {
                #expect(isCanonical(mutated, bytes.count, depth) == (mutated == text), "round \(round): \(String(decoding: mutated, as: UTF8.self).debugDescription)")
            }
        }
        // The bits after the last byte: "AB==" decodes to the same byte as "AA==".
        #expect(isCanonical(Array("\nAA==\n".utf8), 1, 0))
        #expect(!isCanonical(Array("\nAB==\n".utf8), 1, 0))
        #expect(isCanonical(Array("\nAAE=\n".utf8), 2, 0))
        #expect(!isCanonical(Array("\nAAE\n".utf8), 2, 0))
    }

    @Test("mutated canonical documents: whatever the scanner calls canonical has no notes")
    func mutatedDocuments() throws {
        let value: PlistValue = [
            "a": [1, -2, 2.5, "x &amp; y", .date(PlistDate(secondsSinceReferenceDate: 1e8)), false],
            "u": .uid(7), "d": .data(Data(repeating: 7, count: 70)), "e": [:], "n": ["k": ["z": "q"]],
        ]
        let seed = try XMLPlistWriter().write(value)
        #expect(Self.checkCanonical(seed, "seed"))
        var mutator = ByteMutator(
            random: SplitMix(seed: 0x5CA7_0102), alphabet: Array("<>/&;#\t\n \r01.-akeyCF$UID".utf8), emptyReplacement: UInt8(ascii: "\t"))
        var canonical = 0
        for round in 0..<3_000 {
            let bytes = mutator.mutated(seed)
            if Self.checkCanonical(bytes, "mutation \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)") { canonical += 1 }
        }
        #expect(canonical > 20)
    }
}
