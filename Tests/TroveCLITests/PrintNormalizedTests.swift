import Foundation
import Testing
import Trove
import TroveTestSupport

@Suite("trove print --normalized", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct PrintNormalizedTests {
    /// One value with every kind, dictionary keys in a deliberately unsorted order.
    static let value: PlistValue = [
        "zeta": 1, "Alpha": "two\nlines", "beta": 3.0, "list": ["a", ["x": true]], "empty": [:], "none": [],
        "when": .date(PlistDate(secondsSinceReferenceDate: 100.5)), "blob": .data(Data(0..<40)), "uid": .uid(7),
    ]

    @Test("the same value prints the same text from every format and key order")
    func sameValueSameText() async throws {
        let directory = try TemporaryDirectory()
        guard case .dictionary(let entries) = Self.value else { return }
        let reversed = PlistValue.dictionary(PlistDictionary(entries.reversed().map { ($0.key, $0.value) }))
        var outputs: [String] = []
        for (index, (value, format)) in [(Self.value, PlistFormat.binary), (reversed, .binary)].enumerated() {
            let path = try directory.write(try Plist.write(value, as: format), as: "v\(index).plist")
            let result = try await trove("print", "--normalized", path)
            #expect(result.status == 0, "\(result.stderrText)")
            outputs.append(result.stdoutText)
        }
        // XML cannot hold the UID or the date's fraction: compare a value it can hold.
        var xmlValue = Self.value
        try xmlValue.removeValue(at: "uid")
        try xmlValue.replace(.date(PlistDate(secondsSinceReferenceDate: 100)), at: "when")
        var binaryOfXMLValue = ""
        for (name, format) in [("x.xml", PlistFormat.xml), ("x.bin", .binary)] {
            let path = try directory.write(try Plist.write(xmlValue, as: format), as: name)
            let text = try await trove("print", "--sorted", path).stdoutText
            if format == .binary { binaryOfXMLValue = text } else { outputs.append(text) }
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[2] == binaryOfXMLValue)
    }

    @Test("the exact text: sorted keys, escapes, exact reals and dates, data in full")
    func layout() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Plist.write(Self.value, as: .binary), as: "v.plist")
        let text = try await trove("print", "--normalized", "--color", path).stdoutText
        let expected = """
            {
              "Alpha" => "two\\nlines"
              "beta" => 3.0
              "blob" => <
                000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
                2021222324252627
              >
              "empty" => {}
              "list" => [
                "a"
                {
                  "x" => true
                }
              ]
              "none" => []
              "uid" => UID(7)
              "when" => 2001-01-01T00:01:40.5Z
              "zeta" => 1
            }

            """
        #expect(text == expected)
    }

    @Test("values that differ print differently", arguments: [
        (PlistValue.integer(1), PlistValue.real(1.0)),
        (.string("1"), .integer(1)),
        (.date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: 0.25))),
        (.data(Data(repeating: 1, count: 100)), .data(Data(repeating: 1, count: 99) + Data([2]))),
    ])
    func differentValuesDifferentText(a: PlistValue, b: PlistValue) async throws {
        let directory = try TemporaryDirectory()
        let pathA = try directory.write(try Plist.write(["v": a], as: .binary), as: "a.plist")
        let pathB = try directory.write(try Plist.write(["v": b], as: .binary), as: "b.plist")
        #expect(try await trove("print", "--normalized", pathA).stdoutText != trove("print", "--normalized", pathB).stdoutText)
    }
}
