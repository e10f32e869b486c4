import Foundation
import Testing

@Suite("trove diff", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct DiffCommandTests {
    /// A hand-written XML document holding `body` as its root.
    static func xml(_ body: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            \(body)
            </plist>

            """.utf8)
    }

    @Test("the same value in another format and another key order is no difference: exit 0, no output")
    func equalAcrossFormats() async throws {
        let directory = try TemporaryDirectory()
        let sample = TestEnvironment.sample("Preferences.plist")
        // Foundation, the independent peer, writes the binary copy (with its own key order).
        let value = try foundationValue(try bytes(of: sample))
        let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let copy = try directory.write(binary, as: "copy.plist")
        let result = try await trove("diff", sample, copy)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)

        let reordered = try directory.write(Self.xml("<dict><key>b</key><integer>2</integer><key>a</key><integer>1</integer></dict>"), as: "ba.plist")
        let ordered = try directory.write(Self.xml("<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer></dict>"), as: "ab.plist")
        #expect(try await trove("diff", reordered, ordered).status == 0)
    }

    @Test("one line per difference: removed, added and changed, in key order, exit 1")
    func differencesAreListed() async throws {
        let directory = try TemporaryDirectory()
        let old = try directory.write(Self.xml("""
            <dict>
            <key>Name</key><string>Trove</string>
            <key>Size</key><integer>10</integer>
            <key>Gone</key><true/>
            <key>List</key><array><string>a</string><string>b</string></array>
            <key>Kind</key><integer>1</integer>
            </dict>
            """), as: "old.plist")
        let new = try directory.write(Self.xml("""
            <dict>
            <key>Name</key><string>Trove 2</string>
            <key>Size</key><integer>10</integer>
            <key>List</key><array><string>a</string><string>b</string><real>2.5</real></array>
            <key>Kind</key><real>1</real>
            <key>Added</key><date>2024-03-09T18:45:00Z</date>
            </dict>
            """), as: "new.plist")
        let result = try await trove("diff", old, new)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        #expect(result.stdoutText == """
            + Added: 2024-03-09T18:45:00Z
            - Gone: true
            ~ Kind: 1 -> 1.0
            + List.2: 2.5
            ~ Name: "Trove" -> "Trove 2"

            """)
        // Swapping the sides swaps + and -.
        let reversed = try await trove("diff", new, old)
        #expect(reversed.status == 1)
        #expect(reversed.stdoutText.hasPrefix("- Added: 2024-03-09T18:45:00Z\n+ Gone: true\n"))
    }

    @Test("key paths use plutil's syntax, dots in keys escaped; the root is (root)")
    func keyPaths() async throws {
        let directory = try TemporaryDirectory()
        let old = try directory.write(Self.xml("<dict><key>com.example</key><dict><key>a</key><array><integer>1</integer></array></dict></dict>"), as: "a.plist")
        let new = try directory.write(Self.xml("<dict><key>com.example</key><dict><key>a</key><array><integer>2</integer></array></dict></dict>"), as: "b.plist")
        #expect(try await trove("diff", old, new).stdoutText == "~ com\\.example.a.0: 1 -> 2\n")

        let scalar = try directory.write(Self.xml("<string>just text</string>"), as: "scalar.plist")
        let result = try await trove("diff", old, scalar)
        #expect(result.status == 1)
        #expect(result.stdoutText == "~ (root): {\"com.example\": {\"a\": [1]}} -> \"just text\"\n")
    }

    @Test("values print on one line: control characters escaped, data as hex, long values cut off")
    func oneLineValues() async throws {
        let directory = try TemporaryDirectory()
        let old = try directory.write(Self.xml("""
            <dict><key>text</key><string>line one
            line two&#27;[31m</string><key>bytes</key><data>AAEC/w==</data></dict>
            """), as: "old.plist")
        let long = String(repeating: "x", count: 1000)
        let new = try directory.write(Self.xml("<dict><key>text</key><string>\(long)</string><key>bytes</key><data>AAEC</data></dict>"), as: "new.plist")
        let result = try await trove("diff", old, new)
        #expect(result.status == 1)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first == "~ bytes: <000102ff> -> <000102>")
        let textLine = try #require(lines.last)
        #expect(textLine.hasPrefix("~ text: \"line one\\nline two\\u{1b}[31m\" -> \"xxxx"))
        #expect(textLine.hasSuffix("x…"))
        #expect(textLine.count < 300)
        #expect(!result.stdout.contains(0x1B))
    }

    @Test("-q prints nothing and only sets the exit status")
    func quiet() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write(Self.xml("<array><integer>1</integer></array>"), as: "a.plist")
        let b = try directory.write(Self.xml("<array><integer>2</integer></array>"), as: "b.plist")
        let differ = try await trove("diff", "-q", a, b)
        #expect(differ.status == 1)
        #expect(differ.stdout.isEmpty)
        let same = try await trove("diff", "--quiet", a, a)
        #expect(same.status == 0)
        #expect(same.stdout.isEmpty)
    }

    @Test("--format-sensitive also reports a change of format")
    func formatSensitive() async throws {
        let directory = try TemporaryDirectory()
        let xml = try directory.write(Self.xml("<dict><key>a</key><integer>1</integer></dict>"), as: "a.plist")
        let json = try directory.write(Data(#"{"a":1}"#.utf8), as: "a.json")
        #expect(try await trove("diff", xml, json).status == 0)
        let sensitive = try await trove("diff", "--format-sensitive", xml, json)
        #expect(sensitive.status == 1)
        #expect(sensitive.stdoutText == "~ (format): xml1 -> json\n")
        #expect(try await trove("diff", "--format-sensitive", xml, xml).status == 0)
    }

    @Test("either file may be standard input")
    func standardInput() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write(Self.xml("<array><integer>1</integer></array>"), as: "a.plist")
        let fromStdin = try await trove("diff", a, "-", stdin: Data("(1, 2)".utf8))
        // OpenStep has only strings, so "1" is a string there.
        #expect(fromStdin.status == 1)
        #expect(fromStdin.stdoutText == "~ 0: 1 -> \"1\"\n+ 1: \"2\"\n")
        let first = try await trove("diff", "-", a, stdin: Self.xml("<array><integer>1</integer></array>"))
        #expect(first.status == 0, "\(first.stdoutText)\(first.stderrText)")
    }

    @Test("an unreadable file is exit status 2 with the error on standard error")
    func readErrors() async throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write(Self.xml("<array/>"), as: "good.plist")
        let broken = try directory.write(Self.xml("<array><integer>x</integer></array>"), as: "broken.plist")
        let missing = directory.path("missing.plist")
        for (a, b, named) in [(good, broken, broken), (broken, good, broken), (good, missing, missing)] {
            let result = try await trove("diff", a, b)
            #expect(result.status == 2, "\(a) \(b): \(result.stderrText)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrText.hasPrefix("\(named)"), "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1)
        }
        let binaryGarbage = try directory.write(Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40), as: "bad.bplist")
        let binary = try await trove("diff", good, binaryGarbage)
        #expect(binary.status == 2)
        #expect(binary.stderrText.contains("binary"), "\(binary.stderrText)")
    }

    @Test("usage errors: two standard inputs, a missing operand", arguments: [["diff", "-", "-"], ["diff", "only-one.plist"]])
    func usageErrors(arguments: [String]) async throws {
        let result = try await trove(arguments: arguments)
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--color paints the markers, the paths and the values; piped output has no escapes")
    func color() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write(Self.xml("<dict><key>k</key><integer>1</integer><key>gone</key><string>s</string></dict>"), as: "a.plist")
        let b = try directory.write(Self.xml("<dict><key>k</key><integer>2</integer></dict>"), as: "b.plist")
        let colored = try await trove("diff", "--color", a, b)
        #expect(colored.status == 1)
        let escape = "\u{1B}["
        #expect(colored.stdoutText == """
            \(escape)31m-\(escape)0m \(escape)1mgone\(escape)0m: \(escape)32m"s"\(escape)0m
            \(escape)33m~\(escape)0m \(escape)1mk\(escape)0m: \(escape)36m1\(escape)0m -> \(escape)36m2\(escape)0m

            """)
        let plain = try await trove("diff", a, b)
        #expect(plain.stdoutText == "- gone: \"s\"\n~ k: 1 -> 2\n")
        #expect(try await trove("diff", "--color", "--no-color", a, b).stdoutText == plain.stdoutText)
    }

    @Test("generated pairs written by Foundation: equal unless edited, and then one line for the one edit")
    func generatedPairs() async throws {
        let directory = try TemporaryDirectory()
        var generator = ValueGenerator(seed: 0xD1FF)
        for index in 0..<12 {
            let old = try #require(generator.document() as? [String: Any])
            var new = old
            // Every other pair gets one edit of its first key: changed, removed, or a key added.
            var marker: String?
            if index.isMultiple(of: 2), let key = old.keys.sorted().first {
                switch index % 3 {
                case 0: (new[key], marker) = ("changed \(index)", "~ ")
                case 1: (new[key], marker) = (nil, "- ")
                default: (new["added \(index)"], marker) = (index, "+ ")
                }
            }
            // Written by the independent peer, in two formats with different key orders.
            let oldData = try PropertyListSerialization.data(fromPropertyList: old, format: .xml, options: 0)
            let newData = try PropertyListSerialization.data(fromPropertyList: new, format: .binary, options: 0)
            let result = try await trove("diff", try directory.write(oldData, as: "old\(index)"), try directory.write(newData, as: "new\(index)"))
            #expect(result.status == (marker == nil ? 0 : 1), "pair \(index): \(result.stdoutText)\(result.stderrText)")
            if let marker {
                let lines = result.stdoutText.split(separator: "\n")
                #expect(lines.count == 1 && lines.first?.hasPrefix(marker) == true, "pair \(index): \(result.stdoutText)")
            } else {
                #expect(result.stdout.isEmpty, "pair \(index): \(result.stdoutText)")
            }
        }
    }
}
