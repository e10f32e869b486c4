import Foundation
import Testing
import TroveTestSupport

/// `trove print` in color: the same layout as the plain printout, painted and annotated.
@Suite("trove print in color", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct PrintColorTests {
    static let escape = "\u{1B}["

    /// The text with every ANSI escape sequence (ESC [ parameters letter) removed.
    static func strippingEscapes(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                out.unicodeScalars.append(scalar)
                continue
            }
            // Skip '[' and parameters up to the final letter.
            while let next = scalars.next(), !next.properties.isAlphabetic {}
        }
        return out
    }

    /// Removes the notes colored output adds: ` (type)` after scalars, ` (N items)` / ` (N keys)`
    /// after brackets; each is the last thing on its line.
    static func strippingAnnotations(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasSuffix(")"), let open = line.range(of: " (", options: .backwards) else { return String(line) }
            return String(line[..<open.lowerBound])
        }.joined(separator: "\n")
    }

    @Test("--color output without its colors and notes is exactly the plain output", arguments: ["Preferences.plist", "Catalog.plist"])
    func sameLayout(sample: String) async throws {
        let path = TestEnvironment.sample(sample)
        let plain = try await trove("print", path)
        let colored = try await trove("print", "--color", path)
        #expect(colored.status == 0)
        #expect(colored.stdoutText != plain.stdoutText)
        #expect(colored.stdoutText.contains(Self.escape))
        #expect(Self.strippingAnnotations(Self.strippingEscapes(colored.stdoutText)) == plain.stdoutText)
    }

    @Test("piped output and --no-color have no escapes; the last of --color and --no-color wins")
    func plainByDefault() async throws {
        let path = TestEnvironment.sample("Preferences.plist")
        let piped = try await trove("print", path)
        #expect(!piped.stdout.contains(0x1B))
        #expect(try await trove("print", "--no-color", path).stdout == piped.stdout)
        #expect(try await trove("print", "--color", "--no-color", path).stdout == piped.stdout)
        #expect(try await trove("print", "--no-color", "--color", path).stdout.contains(0x1B))
    }

    @Test("each kind has its color and a dim type note; containers show their size")
    func paintedPieces() async throws {
        let value: [String: Any] = [
            "s": "text", "i": 42, "r": 1.5, "b": true, "d": Date(timeIntervalSinceReferenceDate: 0),
            "x": Data([0xAB]), "list": [1], "map": ["k": "v", "l": "w"],
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let result = try await trove("print", "--color", "-", stdin: plist)
        #expect(result.status == 0, "\(result.stderrText)")
        let e = Self.escape
        let reset = "\(e)0m"
        let arrow = "\(e)1m=>\(reset)"
        func note(_ text: String) -> String { " \(e)2m(\(text))\(reset)" }
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        let expected = [
            "\(e)1m{\(reset)\(note("8 keys"))",
            "  \(e)1;34m\"b\"\(reset) \(arrow) \(e)33mtrue\(reset)\(note("bool"))",
            "  \(e)1;34m\"d\"\(reset) \(arrow) \(e)35m2001-01-01 00:00:00 +0000\(reset)\(note("date"))",
            "  \(e)1;34m\"i\"\(reset) \(arrow) \(e)36m42\(reset)\(note("integer"))",
            "  \(e)1;34m\"list\"\(reset) \(arrow) \(e)1m[\(reset)\(note("1 item"))",
            "    \(e)34m0\(reset) \(arrow) \(e)36m1\(reset)\(note("integer"))",
            "  \(e)1m]\(reset)",
            "  \(e)1;34m\"map\"\(reset) \(arrow) \(e)1m{\(reset)\(note("2 keys"))",
            "    \(e)1;34m\"k\"\(reset) \(arrow) \(e)32m\"v\"\(reset)\(note("string"))",
            "    \(e)1;34m\"l\"\(reset) \(arrow) \(e)32m\"w\"\(reset)\(note("string"))",
            "  \(e)1m}\(reset)",
            "  \(e)1;34m\"r\"\(reset) \(arrow) \(e)36m1.5\(reset)\(note("float"))",
            "  \(e)1;34m\"s\"\(reset) \(arrow) \(e)32m\"text\"\(reset)\(note("string"))",
            "  \(e)1;34m\"x\"\(reset) \(arrow) \(e)33m{length = 1, bytes = 0xab}\(reset)\(note("data"))",
            "\(e)1m}\(reset)",
        ]
        #expect(lines == expected)
    }

    @Test("in color, control characters in keys and strings are shown as escapes, not sent to the terminal")
    func controlCharacters() async throws {
        let value: [String: Any] = ["bell\u{7}": "red\u{1B}[31m\nnext"]
        let plist = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let colored = try await trove("print", "--color", "-", stdin: plist)
        let text = Self.strippingEscapes(colored.stdoutText)
        #expect(text.contains("\"bell\\u{7}\""), "\(text)")
        #expect(text.contains("\"red\\u{1b}[31m\\nnext\""), "\(text)")
        // Every escape byte in the output starts one of trove's own color sequences.
        let raw = colored.stdoutText
        #expect(!raw.contains("\u{1B}[31m\\n"))
        #expect(raw.components(separatedBy: "\u{1B}").dropFirst().allSatisfy { $0.hasPrefix("[") && ($0.hasPrefix("[0m") || $0.hasPrefix("[1") || $0.hasPrefix("[2m") || $0.hasPrefix("[3")) })
        // Plain output keeps the characters as plutil does.
        let plain = try await trove("print", "-", stdin: plist)
        #expect(plain.stdoutText.contains("\"red\u{1B}[31m\nnext\""))
    }

    @Test("a deeply nested document prints in color without recursion limits")
    func deepNesting() async throws {
        let depth = 500
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
            + String(repeating: "<array>", count: depth) + "<integer>7</integer>" + String(repeating: "</array>", count: depth)
            + "\n</plist>\n"
        let colored = try await trove("print", "--color", "-", stdin: Data(xml.utf8))
        #expect(colored.status == 0, "\(colored.stderrText)")
        let plain = try await trove("print", "-", stdin: Data(xml.utf8))
        #expect(Self.strippingAnnotations(Self.strippingEscapes(colored.stdoutText)) == plain.stdoutText)
        #expect(plain.stdoutText.split(separator: "\n").count == 2 * depth + 1)
    }

    @Test("on a terminal: colored by default, plain with NO_COLOR, TERM=dumb or --no-color",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script(1) is needed for a pseudo-terminal"))
    func terminalDetection() async throws {
        let binary = try #require(TroveExecutable.path)
        let sample = TestEnvironment.sample("Catalog.plist")
        func onTerminal(_ environment: String, _ options: String = "") async throws -> String {
            let command = "env \(environment) '\(binary)' print \(options) '\(sample)'"
            let result = try await runProcess("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
            #expect(result.status == 0, "\(command): \(result.stderrText)")
            return result.stdoutText
        }
        #expect(try await onTerminal("-u NO_COLOR TERM=xterm").contains(Self.escape))
        #expect(try await onTerminal("NO_COLOR= TERM=xterm").contains(Self.escape), "an empty NO_COLOR does not count")
        #expect(try await !onTerminal("NO_COLOR=1").contains("\u{1B}"))
        #expect(try await !onTerminal("TERM=dumb").contains("\u{1B}"))
        #expect(try await !onTerminal("-u NO_COLOR TERM=xterm", "--no-color").contains("\u{1B}"))
        #expect(try await onTerminal("NO_COLOR=1 TERM=dumb", "--color").contains(Self.escape))
    }
}
