import Foundation
import Testing
import TroveTestSupport

@testable import TroveCore

private func json(_ value: PlistValue, _ options: JSONPlistWriter.Options = []) throws(PlistError) -> String {
    String(decoding: try JSONPlistWriter(options).write(value), as: UTF8.self)
}

/// The toolchain's `plutil`, the peer whose output the writer must reproduce.
enum PlutilPeer {
    static let path: String? = {
        var candidates = ["/opt/swift/usr/bin/plutil"]
        if let pathVariable = ProcessInfo.processInfo.environment["PATH"] {
            candidates += pathVariable.split(separator: ":").map { "\($0)/plutil" }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static var isAvailable: Bool { path != nil }

    /// What `plutil -convert json [-r]` writes for `value` (given to it as a binary plist).
    static func convert(_ value: PlistValue, pretty: Bool) async throws -> (status: Int32, output: [UInt8]) {
        let plist = try PropertyListSerialization.data(fromPropertyList: try FoundationBridge.object(from: value), format: .binary, options: 0)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("trove-json-\(UUID().uuidString).plist")
        try plist.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let converted = try await ProcessRun.run(
            try #require(path), ["-convert", "json"] + (pretty ? ["-r"] : []) + ["-o", "-", input.path], timeLimit: .seconds(120))
        return (converted.status, [UInt8](converted.stdout))
    }
}

extension TextValueGenerator {
    static let keyAlphabet: [String] = ["a", "A", "b", "B", "1", "2", "10", "_", "-", " ", "é", "É", "z", "ß", "日", "/", "\""]

    mutating func key() -> String {
        (0..<(1 + random.below(3))).map { _ in Self.keyAlphabet[random.below(Self.keyAlphabet.count)] }.joined()
    }

    /// A value JSON can hold (no dates, data, UIDs, null or non-finite reals). With
    /// `singleKeyDictionaries`, no dictionary has more than one key, so that `plutil`'s
    /// hash-ordered compact output is deterministic.
    mutating func jsonValue(depth: Int = 0, singleKeyDictionaries: Bool = false, floats: Bool = true) -> PlistValue {
        // `floats` false also leaves out random bit patterns (subnormals and extremes), which
        // JSONSerialization does not always parse to the nearest double.
        switch random.below(depth > 3 ? 4 : 6) {
        case 0: return .string(string())
        case 1:
            switch random.below(3) {
            case 0: return .integer(PlistInteger(Int64(bitPattern: random.next())))
            case 1: return .integer(PlistInteger(random.next()))
            default: return .integer(PlistInteger(Int64(random.below(2001)) - 1000))
            }
        case 2:
            let doubles: [Double] = [
                0.1, -2.5, 3, 1e300, .leastNonzeroMagnitude, 1e16, 1e15, 123456789012345.6, 1e-5, 0.0001, 1.5e-7,
                100, 9007199254740992, 1.0 / 3, -Double(random.below(1_000_000)) / 64,
            ] + (floats ? [Double(bitPattern: random.next() >> 2)] : [])
            let pick = doubles[random.below(doubles.count)]
            if floats, random.below(4) == 0 { return .real(PlistReal(Float(pick.isFinite ? pick : 0))) }
            return .real(PlistReal(pick))
        case 3: return .bool(random.below(2) == 0)
        case 4: return .array((0..<random.below(4)).map { _ in jsonValue(depth: depth + 1, singleKeyDictionaries: singleKeyDictionaries, floats: floats) })
        default:
            var dict = PlistDictionary()
            for _ in 0..<(singleKeyDictionaries ? random.below(2) : random.below(6)) {
                dict[key()] = jsonValue(depth: depth + 1, singleKeyDictionaries: singleKeyDictionaries, floats: floats)
            }
            return .dictionary(dict)
        }
    }

    /// A container holding a JSON value, since `plutil` only writes containers.
    mutating func jsonDocument(singleKeyDictionaries: Bool = false, floats: Bool = true) -> PlistValue {
        let inner = jsonValue(singleKeyDictionaries: singleKeyDictionaries, floats: floats)
        if inner.isContainer { return inner }
        return singleKeyDictionaries || random.below(2) == 0 ? [inner] : [key(): inner]
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test func compactForm() throws {
        let value: PlistValue = ["a": [.integer(1), .real(2.5), .bool(true), .null], "b": .dictionary([:]), "c": []]
        #expect(try json(value) == #"{"a":[1,2.5,true,null],"b":{},"c":[]}"#)
    }

    @Test func prettyFormMatchesPlutilLayout() throws {
        let value: PlistValue = ["b": ["x": [.integer(1), ["c": []]]], "a": .dictionary([:]), "n": .integer(-3)]
        let expected = """
            {
              "a" : {

              },
              "b" : {
                "x" : [
                  1,
                  {
                    "c" : [

                    ]
                  }
                ]
              },
              "n" : -3
            }
            """
        #expect(try json(value, .plutilPretty) == expected)
        #expect(try json([], .prettyPrinted) == "[\n\n]")
    }

    @Test func keyOrderIsKeptOrSortedLikePlutil() throws {
        let value: PlistValue = ["a10": "", "A": "", "a2": "", "a": "", "b": "", "_": "", "á": "", "a1": ""]
        #expect(try json(value) == #"{"a10":"","A":"","a2":"","a":"","b":"","_":"","á":"","a1":""}"#)
        #expect(try json(value, .sortedKeys) == #"{"_":"","a":"","A":"","á":"","a1":"","a2":"","a10":"","b":""}"#)
    }

    @Test func stringEscapes() throws {
        let value: PlistValue = ["\u{08}\u{0C}\n\r\t\"\\/\u{0}\u{1F}\u{7F}é😀\u{2028}"]
        #expect(try json(value) == "[\"\\b\\f\\n\\r\\t\\\"\\\\\\/\\u0000\\u001f\u{7F}é😀\u{2028}\"]")
    }

    @Test func numberSpellings() throws {
        let value: PlistValue = [
            .integer(PlistInteger(Int64.min)), .integer(PlistInteger(UInt64.max)), .real(3.0), .real(-0.0), .real(0.1),
            .real(1e300), .real(1.5e-7), .real(1e16), .real(1e15), .real(PlistReal(Float(0.1))), .real(PlistReal(Float(16777217))),
        ]
        #expect(try json(value) == "[-9223372036854775808,18446744073709551615,3,-0,0.1,1e+300,1.5e-07,1e+16,1000000000000000,0.1,16777216]")
    }

    @Test func valuesWithoutAJSONFormAreRefused() {
        let cases: [(PlistValue, String)] = [
            (["d": .date(PlistDate(secondsSinceReferenceDate: 0))], "d"),
            (["k": [.data(Data([1]))]], "k.0"),
            ([.uid(1)], "0"),
            ([.real(PlistReal(Double.nan))], "0"),
            ([.real(PlistReal(Double.infinity))], "0"),
        ]
        for (value, path) in cases {
            do {
                _ = try JSONPlistWriter().write(value)
                Issue.record("wrote \(value)")
            } catch {
                #expect(error.code == .unsupportedValue)
                #expect(error.format == .json)
                #expect(error.message.hasPrefix("Invalid object in plist for JSON format"))
                #expect(error.keyPath?.description == path)
            }
        }
    }

    @Test func topLevelScalarsNeedFragments() throws {
        #expect(throws: PlistError.self) { try JSONPlistWriter().write("text") }
        #expect(try json("a/b", .allowsFragments) == #""a\/b""#)
        #expect(try json(.integer(5), .allowsFragments) == "5")
        #expect(try json(.null, .allowsFragments) == "null")
    }

    @Test func nestingBeyondTheLimitIsRefused() throws {
        var value: PlistValue = []
        for _ in 0..<3 { value = [value] }
        #expect(try JSONPlistWriter(maxDepth: 4).write(value) == Array("[[[[]]]]".utf8))
        #expect(throws: PlistError.self) { try JSONPlistWriter(maxDepth: 3).write(value) }
    }

    /// JSON spells an integral real below 1e16 like an integer (`3.0` is `3`), so it reads back as one;
    /// with `allReals`, every number becomes a real, for comparing with JSONSerialization, which
    /// reads some large negative integers as reals.
    private func normalized(_ value: PlistValue, allReals: Bool) -> PlistValue {
        switch value {
        case .integer(let i) where allReals: return .real(PlistReal(i.doubleValue))
        case .real(let r) where allReals: return .real(PlistReal(r.value))
        case .real(let r):
            // Written without a fraction or exponent, so read back as an integer.
            if r.value.rounded() == r.value, !r.value.description.contains("e"),
                let exact = Int64(exactly: r.value)
            {
                return .integer(PlistInteger(exact))
            }
            return .real(PlistReal(r.value))
        case .array(let items): return .array(items.map { normalized($0, allReals: allReals) })
        case .dictionary(let dict):
            return .dictionary(PlistDictionary(dict.map { ($0.key, normalized($0.value, allReals: allReals)) }))
        default: return value
        }
    }

    @Test("generated values read back equal, by our reader and by JSONSerialization", arguments: 0..<40)
    func generatedRoundTrip(seed: Int) throws {
        var generator = TextValueGenerator(seed: UInt64(seed) &* 104_729)
        let value = generator.jsonDocument(floats: false)
        for options in [JSONPlistWriter.Options(), .plutilPretty] {
            let bytes = try JSONPlistWriter(options).write(value)
            #expect(try JSONPlistReader().read(bytes) == normalized(value, allReals: false))
            let foundation = try #require(foundationJSONValue(bytes))
            #expect(normalized(foundation, allReals: true) == normalized(value, allReals: true))
        }
    }
}

@Suite("JSON writer: byte-identical to plutil", .enabled(if: PlutilPeer.isAvailable, "plutil not found"))
struct JSONWriterPlutilTests {
    @Test("pretty output equals plutil -convert json -r", arguments: 0..<40)
    func prettyMatchesPlutil(seed: Int) async throws {
        var generator = TextValueGenerator(seed: UInt64(seed) &+ 77)
        let value = generator.jsonDocument()
        let plutil = try await PlutilPeer.convert(value, pretty: true)
        #expect(plutil.status == 0)
        #expect(plutil.output.count >= 2)
        let ours = try JSONPlistWriter(.plutilPretty).write(value)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: plutil.output, as: UTF8.self))
        #expect(ours == plutil.output)
    }

    @Test("compact output equals plutil -convert json", arguments: 0..<30)
    func compactMatchesPlutil(seed: Int) async throws {
        var generator = TextValueGenerator(seed: UInt64(seed) &+ 5000)
        let value = generator.jsonDocument(singleKeyDictionaries: true)
        let plutil = try await PlutilPeer.convert(value, pretty: false)
        #expect(plutil.status == 0)
        #expect(plutil.output.count >= 2)
        let ours = try JSONPlistWriter().write(value)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: plutil.output, as: UTF8.self))
    }

    @Test func plutilRefusesWhatWeRefuse() async throws {
        for value: PlistValue in [[.date(PlistDate(secondsSinceReferenceDate: 0))], [.data(Data([1]))]] {
            #expect(try await PlutilPeer.convert(value, pretty: false).status != 0)
            #expect(throws: PlistError.self) { try JSONPlistWriter().write(value) }
        }
    }

    @Test(.enabled(if: TextFixtures.isAvailable, TextFixtures.skipMessage))
    func corpusJSONRewrittenMatchesPlutil() async throws {
        var compared = 0
        for row in TextFixtures.rows where row.category == "json" {
            let value = try JSONPlistReader().read(try TextFixtures.bytes(row.path))
            guard value.isContainer, !containsNull(value) else { continue }
            let plutil = try await PlutilPeer.convert(value, pretty: true)
            #expect(try JSONPlistWriter(.plutilPretty).write(value) == plutil.output, "\(row.path)")
            compared += 1
        }
        #expect(compared >= 5)
    }

    private func containsNull(_ value: PlistValue) -> Bool {
        switch value {
        case .null: return true
        case .array(let items): return items.contains(where: containsNull)
        case .dictionary(let dict): return dict.values.contains(where: containsNull)
        default: return false
        }
    }
}
