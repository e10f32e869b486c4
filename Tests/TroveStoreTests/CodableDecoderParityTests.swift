import Foundation
import Testing
import Trove
import TroveTestSupport

/// Trove's `PlistDecoder` against the toolchain's `PropertyListDecoder`, live: the same values
/// from the same bytes, each decoder reading the other encoder's output, and the same errors
/// (case, coding path, message) for bad input.
@Suite("Codable: decoder parity with Foundation")
struct CodableDecoderParityTests {
    @Test("generated documents decode both ways", arguments: 0..<60)
    func generatedDocuments(seed: Int) throws {
        var generator = ModelGenerator(seed: UInt64(seed) &+ 1000)
        let document = generator.document()
        for format in [PlistFormat.xml, .binary] {
            let foundationBytes = try foundationEncode(document, as: format).get()
            let troveBytes = try troveEncode(document, as: format).get()
            // Both decoders on Foundation's bytes, and each on the other's.
            let onFoundation = decodeBoth(Document.self, from: foundationBytes)
            #expect(onFoundation.trove == onFoundation.foundation, "seed \(seed) \(format): Foundation's bytes")
            let onTrove = decodeBoth(Document.self, from: troveBytes)
            #expect(onTrove.foundation == onFoundation.foundation, "seed \(seed) \(format): Foundation reads Trove's bytes")
            #expect(onTrove.trove == onFoundation.foundation, "seed \(seed) \(format): Trove reads Trove's bytes")
            if format == .binary {
                // Binary keeps every bit: the value comes back exactly.
                #expect(onTrove.trove == fingerprint(document), "seed \(seed): binary round trip")
            }
            var detected = PlistFormat.openStep
            _ = try PlistDecoder().decode(Document.self, from: troveBytes, format: &detected)
            #expect(detected == format)
        }
    }

    /// One bad (or odd) input, in a `{"v": ...}` wrapper, decoded as `T` by both.
    static func expectSameOutcome<T: Codable>(_ type: T.Type, _ body: String, messages: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let wrapped = "<dict><key>v</key>\(body)</dict>"
        for (label, data) in [("xml", xmlDocument(wrapped)), ("binary", try binaryDocument(wrapped))] {
            let foundation = Result { try PropertyListDecoder().decode(Wrapped<T>.self, from: data) }
            let trove = Result { try PlistDecoder().decode(Wrapped<T>.self, from: data) }
            let expected: Fingerprint
            let actual: Fingerprint
            switch (foundation, trove) {
            case let (.failure(f), .failure(t)):
                expected = .failure(describe(f, messages: messages))
                actual = .failure(describe(t, messages: messages))
            default:
                expected = outcome(foundation)
                actual = outcome(trove)
            }
            #expect(actual == expected, "\(T.self) from \(body) (\(label))", sourceLocation: sourceLocation)
        }
    }

    @Test("number conversions: what converts, what overflows, and the messages")
    func numberConversions() throws {
        try Self.expectSameOutcome(Int.self, "<real>1.0</real>")
        try Self.expectSameOutcome(Int.self, "<real>-0</real>")
        try Self.expectSameOutcome(UInt8.self, "<real>255</real>")
        try Self.expectSameOutcome(Double.self, "<integer>5</integer>")
        try Self.expectSameOutcome(Double.self, "<integer>18446744073709551615</integer>")
        try Self.expectSameOutcome(Float.self, "<integer>16777217</integer>")
        try Self.expectSameOutcome(Double.self, "<real>nan</real>")
        try Self.expectSameOutcome(Float.self, "<real>+infinity</real>")
        try Self.expectSameOutcome(UInt64.self, "<integer>18446744073709551615</integer>")
        try Self.expectSameOutcome(Int.self, "<integer>-9223372036854775808</integer>")
        try Self.expectSameOutcome(Int32.self, "<integer>0x10</integer>")
        try Self.expectSameOutcome(Double.self, "<real>0.1</real>")
        // Reals that are not whole, or too large: "Property list number <1.5> does not fit in
        // Int." (XML: "Parsed property list number ...").
        try Self.expectSameOutcome(Int.self, "<real>1.5</real>")
        try Self.expectSameOutcome(Int.self, "<real>1e30</real>")
        try Self.expectSameOutcome(UInt8.self, "<real>256</real>")
        // Integers out of range: Foundation's binary message is matched; its XML one names the
        // line ("Invalid <integer> value on line 1"), which the value tree does not keep.
        try Self.expectSameOutcome(Int8.self, "<integer>300</integer>", messages: false)
        try Self.expectSameOutcome(UInt.self, "<integer>-1</integer>", messages: false)
        try Self.expectSameOutcome(Int64.self, "<integer>18446744073709551615</integer>", messages: false)
        try Self.expectSameOutcome(Int8.self, "<integer>-129</integer>", messages: false)
    }

    @Test("binary integer overflow messages are Foundation's word for word")
    func binaryOverflowMessages() throws {
        for (body, type) in [("<integer>300</integer>", "Int8"), ("<integer>-1</integer>", "UInt"), ("<integer>18446744073709551615</integer>", "Int64")] {
            let data = try binaryDocument("<dict><key>v</key>\(body)</dict>")
            func run<T: Codable>(_ t: T.Type) -> (Fingerprint, Fingerprint) {
                (outcome(Result { try PropertyListDecoder().decode(Wrapped<T>.self, from: data) }),
                 outcome(Result { try PlistDecoder().decode(Wrapped<T>.self, from: data) }))
            }
            let (expected, actual) = type == "Int8" ? run(Int8.self) : type == "UInt" ? run(UInt.self) : run(Int64.self)
            #expect(actual == expected)
            #expect(actual.description.contains("does not fit in \(type)."))
        }
    }

    @Test("no conversions between kinds: typeMismatch with Foundation's wording")
    func typeMismatches() throws {
        try Self.expectSameOutcome(Bool.self, "<integer>1</integer>")
        try Self.expectSameOutcome(Bool.self, "<real>1</real>")
        try Self.expectSameOutcome(Int.self, "<true/>")
        try Self.expectSameOutcome(String.self, "<integer>1</integer>")
        try Self.expectSameOutcome(Int.self, "<string>1</string>")
        try Self.expectSameOutcome(Double.self, "<date>2001-01-01T00:00:00Z</date>")
        try Self.expectSameOutcome(Date.self, "<real>0</real>")
        try Self.expectSameOutcome(Date.self, "<string>x</string>")
        try Self.expectSameOutcome(Data.self, "<string>AQI=</string>")
        try Self.expectSameOutcome(Data.self, "<integer>1</integer>")
        try Self.expectSameOutcome(String.self, "<data>AQI=</data>")
        try Self.expectSameOutcome(Int.self, "<array/>")
        try Self.expectSameOutcome(Int.self, "<dict/>")
        try Self.expectSameOutcome([Int].self, "<dict/>")
        try Self.expectSameOutcome([String: Int].self, "<array/>")
        try Self.expectSameOutcome([Int].self, "<string>x</string>")
        try Self.expectSameOutcome([String: Int].self, "<string>x</string>")
        try Self.expectSameOutcome([Int].self, "<array><integer>1</integer><string>x</string></array>")
        try Self.expectSameOutcome([String: Int].self, "<dict><key>a</key><string>x</string></dict>")
        try Self.expectSameOutcome([Int: Int].self, "<dict><key>1</key><integer>2</integer></dict>")
        try Self.expectSameOutcome([Int: Int].self, "<dict><key>x</key><integer>2</integer></dict>")
        try Self.expectSameOutcome(URL.self, "<dict><key>relative</key><string>http://a</string></dict>")
        try Self.expectSameOutcome(URL.self, "<string>http://a</string>")
        try Self.expectSameOutcome(URL.self, "<dict><key>relative</key><string></string></dict>")
        try Self.expectSameOutcome(Color.self, "<string>purple</string>")
        try Self.expectSameOutcome(Color.self, "<integer>1</integer>")
    }

    @Test("nil: the string $null, optionals, nested optionals, valueNotFound")
    func nulls() throws {
        try Self.expectSameOutcome(Int.self, "<string>$null</string>")
        try Self.expectSameOutcome(Int?.self, "<string>$null</string>")
        try Self.expectSameOutcome(String.self, "<string>$null</string>")
        try Self.expectSameOutcome(String?.self, "<string>$null</string>")
        try Self.expectSameOutcome(Int??.self, "<string>$null</string>")
        try Self.expectSameOutcome([Int?].self, "<array><integer>1</integer><string>$null</string></array>")
        try Self.expectSameOutcome([Int].self, "<array><string>$null</string></array>")
        try Self.expectSameOutcome([Int].self, "<string>$null</string>")
        try Self.expectSameOutcome([String: Int].self, "<string>$null</string>")
        try Self.expectSameOutcome(Animal.self, "<string>$null</string>")
        try Self.expectSameOutcome(Date?.self, "<string>$null</string>")
    }

    @Test("missing keys, enums, classes: keyNotFound and coding paths")
    func keyedErrors() throws {
        struct K: Codable {
            var a: Int
            var b: String?
        }
        try Self.expectSameOutcome(K.self, "<dict/>")
        try Self.expectSameOutcome(K.self, "<dict><key>a</key><string>$null</string></dict>")
        try Self.expectSameOutcome(K.self, "<dict><key>a</key><integer>1</integer><key>b</key><string>$null</string></dict>")
        try Self.expectSameOutcome(K.self, "<dict><key>a</key><integer>1</integer><key>b</key><integer>1</integer></dict>")
        try Self.expectSameOutcome(Shape.self, "<dict/>")
        try Self.expectSameOutcome(Shape.self, "<dict><key>polygon</key><dict><key>_0</key><array/></dict></dict>")
        try Self.expectSameOutcome(Shape.self, "<dict><key>circle</key><dict><key>radius</key><string>x</string></dict></dict>")
        try Self.expectSameOutcome(Shape.self, "<dict><key>point</key><dict/><key>circle</key><dict/></dict>")
        try Self.expectSameOutcome(Shape.self, "<dict><key>point</key><string>x</string></dict>")
        try Self.expectSameOutcome(Dog.self, "<dict><key>breed</key><string>b</string><key>tags</key><array/></dict>")
        try Self.expectSameOutcome(Dog.self, "<dict><key>breed</key><string>b</string><key>tags</key><array/><key>super</key><dict/></dict>")
        try Self.expectSameOutcome(Dog.self, "<dict><key>breed</key><string>b</string><key>tags</key><array/><key>super</key><dict><key>name</key><integer>3</integer></dict></dict>")
        try Self.expectSameOutcome([[String: [Int]]].self, "<array><dict/><dict><key>k</key><array><integer>1</integer><true/></array></dict></array>")
        try Self.expectSameOutcome(Handwritten.self, "<dict><key>values</key><array/><key>label</key><string>$null</string></dict>")
    }

    @Test("container operations: isAtEnd, count, currentIndex, decodeNil, decodeIfPresent, allKeys, contains, superDecoder")
    func containerOperations() throws {
        struct Unkeyed: Codable {
            var log: [String]
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                var log = ["count=\(String(describing: c.count)) index=\(c.currentIndex) end=\(c.isAtEnd)"]
                log.append("nil=\(try c.decodeNil()) index=\(c.currentIndex)")
                log.append("nil=\(try c.decodeNil()) index=\(c.currentIndex)")
                do { _ = try c.decode(Bool.self) } catch { log.append(describe(error)) }
                log.append("index=\(c.currentIndex)")
                log.append("ifPresent=\(String(describing: try c.decodeIfPresent(Int.self))) index=\(c.currentIndex)")
                log.append("ifPresent=\(String(describing: try c.decodeIfPresent(String.self))) index=\(c.currentIndex)")
                var nested = try c.nestedUnkeyedContainer()
                log.append("nested count=\(String(describing: nested.count)) \(describe(nested.codingPath)) \(try nested.decode(Int.self))")
                let keyed = try c.nestedContainer(keyedBy: PlainKey.self)
                log.append("keyed \(describe(keyed.codingPath)) \(keyed.allKeys.map(\.stringValue).sorted())")
                let sup = try c.superDecoder()
                log.append("super \(describe(sup.codingPath)) \(try sup.singleValueContainer().decode(Int.self))")
                log.append("end=\(c.isAtEnd) ifPresent=\(String(describing: try c.decodeIfPresent(Int.self)))")
                for attempt in 0..<5 {
                    do {
                        switch attempt {
                        case 0: _ = try c.decodeNil()
                        case 1: _ = try c.decode(Int.self)
                        case 2: _ = try c.nestedUnkeyedContainer()
                        case 3: _ = try c.superDecoder()
                        default: _ = try c.decode([Int].self)
                        }
                    } catch {
                        log.append(describe(error))
                    }
                }
                self.log = log
            }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.unkeyedContainer()
                try c.encode(contentsOf: log)
            }
        }
        try Self.expectSameOutcome(Unkeyed.self, """
            <array><string>$null</string><string>x</string><integer>2</integer><string>$null</string>\
            <array><integer>7</integer></array><dict><key>a</key><true/></dict><integer>9</integer></array>
            """)

        struct Keyed: Codable {
            var log: [String]
            enum Keys: String, CodingKey { case a, b, c, z, e = "é", nested }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                var log = ["keys=\(c.allKeys.map(\.stringValue).sorted())", "contains a=\(c.contains(.a)) z=\(c.contains(.z)) é=\(c.contains(.e))"]
                log.append("nil a=\(try c.decodeNil(forKey: .a)) b=\(try c.decodeNil(forKey: .b))")
                log.append("ifPresent z=\(String(describing: try c.decodeIfPresent(Int.self, forKey: .z))) a=\(String(describing: try c.decodeIfPresent(Int.self, forKey: .a)))")
                log.append("é=\(try c.decode(Bool.self, forKey: .e))")
                for attempt in 0..<12 {
                    do {
                        switch attempt {
                        case 0: _ = try c.decodeNil(forKey: .z)
                        case 1: _ = try c.nestedContainer(keyedBy: Keys.self, forKey: .z)
                        case 2: _ = try c.nestedUnkeyedContainer(forKey: .z)
                        case 3: _ = try c.nestedUnkeyedContainer(forKey: .b)
                        case 4: _ = try c.nestedContainer(keyedBy: Keys.self, forKey: .b)
                        case 5:
                            let sup = try c.superDecoder()
                            log.append("super \(describe(sup.codingPath))")
                            _ = try sup.singleValueContainer().decode(Int.self)
                        case 6:
                            let sup = try c.superDecoder(forKey: .z)
                            log.append("super z \(describe(sup.codingPath)) nil=\(try sup.singleValueContainer().decodeNil())")
                            _ = try sup.container(keyedBy: Keys.self)
                        case 7: _ = try c.superDecoder(forKey: .z).unkeyedContainer()
                        case 8: log.append("super b=\(try c.superDecoder(forKey: .b).singleValueContainer().decode(Int.self))")
                        case 9: _ = try c.decode(Int.self, forKey: .c)
                        case 10:
                            let nested = try c.nestedContainer(keyedBy: Keys.self, forKey: .nested)
                            log.append("nested \(describe(nested.codingPath))")
                            _ = try nested.decode([Int].self, forKey: .a)
                        default: _ = try decoder.unkeyedContainer()
                        }
                    } catch {
                        log.append(describe(error))
                    }
                }
                self.log = log
            }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.unkeyedContainer()
                try c.encode(contentsOf: log)
            }
        }
        try Self.expectSameOutcome(Keyed.self, """
            <dict><key>a</key><string>$null</string><key>b</key><integer>5</integer><key>c</key><string>x</string>\
            <key>é</key><true/><key>nested</key><dict><key>a</key><array><real>1.5</real></array></dict></dict>
            """)
    }

    @Test("top-level values, scalars included, decode as in Foundation")
    func topLevel() throws {
        func same<T: Codable & Equatable>(_ type: T.Type, _ body: String) {
            let data = xmlDocument(body)
            let foundation = Result { try PropertyListDecoder().decode(type, from: data) }
            let trove = Result { try PlistDecoder().decode(type, from: data) }
            #expect(outcome(trove) == outcome(foundation), "\(T.self) from \(body)")
        }
        same(Int.self, "<integer>5</integer>")
        same(String.self, "<string>x</string>")
        same(Int?.self, "<string>$null</string>")
        same(Int.self, "<string>$null</string>")
        same([Int].self, "<dict/>")
        same(Data.self, "<data>AQI=</data>")
        same(Date.self, "<date>2020-02-29T12:00:00Z</date>")
    }

    @Test("bad documents: dataCorrupted with the reader's error underneath")
    func corruptDocuments() throws {
        let inputs: [Data] = [
            Data(),
            Data("<?xml version=\"1.0\"?><plist><array><integer>1</integer></array>".utf8),
            Data("bplist00".utf8) + Data(repeating: 0, count: 40),
        ]
        for data in inputs {
            let foundation = Result { try PropertyListDecoder().decode([Int].self, from: data) }
            let trove = Result { try PlistDecoder().decode([Int].self, from: data) }
            #expect(outcome(trove) == outcome(foundation))
            guard case .failure(DecodingError.dataCorrupted(let context)) = trove else {
                Issue.record("expected dataCorrupted, got \(outcome(trove))")
                continue
            }
            #expect(context.codingPath.isEmpty)
            #expect(context.underlyingError is PlistError)
        }
    }

    @Test("decoding from the value model and from OpenStep and JSON documents")
    func otherSources() throws {
        var generator = ModelGenerator(seed: 77)
        let document = generator.document()
        let value = try PlistEncoder().encodeValue(document)
        let fromValue = try PlistDecoder().decode(Document.self, from: value)
        #expect(fingerprint(fromValue) == fingerprint(document))
        // encodeValue is the value of what encode writes: Foundation's binary document of the
        // same value reads back equal to it.
        let foundationBinary = try foundationEncode(document, as: .binary).get()
        #expect(try Plist.read(foundationBinary).value == value)

        // OpenStep holds strings only; Foundation reads it with its dictionary decoder.
        let strings = ["b": "1", "a": "two words"]
        for format in [PlistFormat.openStep, .json] {
            let data = try PlistEncoder(outputFormat: format).encode(strings)
            var detected = PlistFormat.binary
            #expect(try PlistDecoder().decode([String: String].self, from: data, format: &detected) == strings)
            #expect(detected == format)
        }
        let openStep = Data("{a = 1; b = (x, y); c = <0102>;}".utf8)
        struct OS: Codable { var a: Int }
        struct OSStrings: Codable { var a: String; var b: [String]; var c: Data }
        #expect(outcome(Result { try PlistDecoder().decode(OS.self, from: openStep) })
            == outcome(Result { try PropertyListDecoder().decode(OS.self, from: openStep) }))
        #expect(outcome(Result { try PlistDecoder().decode(OSStrings.self, from: openStep) })
            == outcome(Result { try PropertyListDecoder().decode(OSStrings.self, from: openStep) }))
    }

    @Test("userInfo reaches init(from:)")
    func userInfo() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "scale"))
        struct Scaled: Decodable {
            var value: Int
            init(from decoder: any Decoder) throws {
                let factor = decoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as? Int ?? 1
                value = try decoder.singleValueContainer().decode(Int.self) * factor
            }
        }
        var decoder = PlistDecoder()
        decoder.userInfo[key] = 3
        let decoded = try decoder.decode([Scaled].self, from: xmlDocument("<array><integer>2</integer></array>"))
        #expect(decoded.map(\.value) == [6])
    }
}
