import Foundation
import Testing

@Suite("trove roundtrip", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct RoundtripCommandTests {
    @Test("the samples pass; dates and integers keep them out of JSON and OpenStep")
    func samples() async throws {
        let preferences = TestEnvironment.sample("Preferences.plist")
        let catalog = TestEnvironment.sample("Catalog.plist")
        let result = try await trove("roundtrip", preferences, catalog)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText == "\(preferences): OK (binary1 xml1)\n\(catalog): OK (binary1 xml1)\n")
    }

    @Test("-v explains: the lossless rewrite, and each skipped format with the value in the way")
    func verbose() async throws {
        let preferences = TestEnvironment.sample("Preferences.plist")
        let result = try await trove("roundtrip", "-v", preferences)
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(preferences): OK (binary1 xml1)")
        #expect(lines.contains("  lossless: the rewrite reproduces the input byte for byte"))
        // LastLaunch is the sample's only date; AutoSaveInterval sorts first among its integers.
        #expect(lines.contains { $0.hasPrefix("  json: skipped: ") && $0.contains("date") && $0.contains("LastLaunch") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  openstep: skipped: ") && $0.contains("integer") }, "\(lines)")
        #expect(lines.count == 4)
    }

    @Test("a document of strings, data and containers makes the trip through all four formats")
    func allFormats() async throws {
        let directory = try TemporaryDirectory()
        let value: [String: Any] = ["name": "Trove", "list": ["a", "b c", "ü"], "bytes": Data([0, 1, 254]), "empty": [String: Any]()]
        let plist = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
        let path = try directory.write(plist, as: "strings.plist")
        let result = try await trove("roundtrip", path)
        #expect(result.status == 0, "\(result.stdoutText)")
        #expect(result.stdoutText == "\(path): OK (binary1 xml1 openstep)\n", "data has no JSON form")
        let withoutData = try PropertyListSerialization.data(fromPropertyList: ["a": ["b", "c"]], format: .binary, options: 0)
        let second = try directory.write(withoutData, as: "plain.plist")
        #expect(try await trove("roundtrip", second).stdoutText == "\(second): OK (binary1 xml1 json openstep)\n")
    }

    @Test("JSON and OpenStep input: the lossless rewrite and the conversions are checked")
    func textInputs() async throws {
        let directory = try TemporaryDirectory()
        let json = try directory.write(Data(#"{"a": [1, 2.5, true, null, "x"]}"#.utf8), as: "doc.json")
        let result = try await trove("roundtrip", "-v", json)
        #expect(result.status == 0, "\(result.stdoutText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        // Null keeps it out of XML and OpenStep.
        #expect(lines.first == "\(json): OK (binary1 json)")
        #expect(lines.contains("  lossless: the rewrite reproduces the input byte for byte"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  xml1: skipped: XML has no null (at a.3)") }, "\(lines)")

        let openStep = try directory.write(Data("{ name = Trove; list = (a, \"b c\"); bytes = <0001fe>; }".utf8), as: "doc.strings")
        let second = try await trove("roundtrip", openStep)
        #expect(second.stdoutText == "\(openStep): OK (binary1 xml1 openstep)\n", "\(second.stderrText)")
    }

    @Test("values a format cannot hold skip it: null, fractional dates, UIDs, -0.0, whole reals, 32-bit reals")
    func skippedFormats() async throws {
        let directory = try TemporaryDirectory()
        func bits<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let cases: [(objects: [[UInt8]], ok: String, skipped: [String])] = [
            // [null]: XML and OpenStep have no null.
            ([[0xA1, 1], [0x00]], "binary1 json", ["xml1: skipped: XML has no null (at 0)", "openstep: skipped: OpenStep has no null values (at 0)"]),
            // [date 0.5 s after 2001]: XML writes whole seconds; JSON has no dates.
            ([[0xA1, 1], [0x33] + bits((0.5).bitPattern)], "binary1", ["xml1: skipped: XML keeps dates to the whole second", "json: skipped: JSON has no date values (at 0)"]),
            // [UID 2^40]: the XML reader keeps 32 bits of a CF$UID.
            ([[0xA1, 1], [0x84, 1, 0, 0, 0, 0]], "binary1", ["xml1: skipped: XML keeps the low 32 bits of a CF$UID"]),
            // [3.0]: written to JSON as 3, an integer.
            ([[0xA1, 1], [0x23] + bits((3.0).bitPattern)], "binary1 xml1", ["json: skipped: JSON has one kind of number; the real 3.0 is written as 3"]),
            // [-0.0]: CoreFoundation's XML writer drops the sign; JSON writes -0, an integer.
            ([[0xA1, 1], [0x23] + bits((-0.0).bitPattern)], "binary1", ["xml1: skipped: XML, as CoreFoundation writes it, spells -0.0 as 0.0", "json: skipped: JSON has one kind of number"]),
            // [32-bit 0.1]: JSON writes 0.1, which reads back as the 64-bit 0.1.
            ([[0xA1, 1], [0x22] + bits(Float(0.1).bitPattern)], "binary1 xml1", ["json: skipped: the 32-bit real"]),
            // [32-bit 0.5]: exact in both widths, so JSON can hold it.
            ([[0xA1, 1], [0x22] + bits(Float(0.5).bitPattern)], "binary1 xml1 json", ["openstep: skipped: OpenStep holds only strings and data; a float would read back as a string"]),
        ]
        for (index, item) in cases.enumerated() {
            let path = try directory.write(binaryPlist(item.objects), as: "case\(index).plist")
            let result = try await trove("roundtrip", "-v", path)
            #expect(result.status == 0, "case \(index): \(result.stdoutText)\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.first == "\(path): OK (\(item.ok))", "case \(index)")
            for expected in item.skipped {
                #expect(lines.contains { $0.hasPrefix("  " + expected) }, "case \(index): no line starts with \(expected): \(lines)")
            }
        }
    }

    @Test("a file that cannot be read is reported on standard error; the others are still checked")
    func unreadable() async throws {
        let directory = try TemporaryDirectory()
        let broken = TestEnvironment.sample("Broken.plist")
        let missing = directory.path("missing.plist")
        let catalog = TestEnvironment.sample("Catalog.plist")
        let result = try await trove("roundtrip", broken, missing, catalog)
        #expect(result.status == 1)
        #expect(result.stdoutText == "\(catalog): OK (binary1 xml1)\n")
        let errors = result.stderrText.split(separator: "\n").map(String.init)
        #expect(errors.count == 2)
        #expect(errors.first?.hasPrefix("\(broken):8:10: XML: ") == true, "\(errors)")
        #expect(errors.last?.hasPrefix("\(missing): ") == true, "\(errors)")
    }

    @Test("-s prints only failures; standard input is read once")
    func silentAndStdin() async throws {
        let catalog = TestEnvironment.sample("Catalog.plist")
        let silent = try await trove("roundtrip", "-s", catalog)
        #expect(silent.status == 0)
        #expect(silent.stdout.isEmpty)
        let stdin = try await trove("roundtrip", "-", stdin: try bytes(of: catalog))
        #expect(stdin.stdoutText == "<stdin>: OK (binary1 xml1)\n", "\(stdin.stderrText)")
    }

    @Test("a failure names the check and says what differed, and the exit status is 1")
    func failureReport() async throws {
        // Two bytes no offset points to: valid (CoreFoundation reads the file), but the layout
        // notes keep no copy of the input, so the rewrite cannot reproduce them.
        let directory = try TemporaryDirectory()
        var file = Array("bplist00".utf8)
        file += [0xA1, 1, 0x77, 0x77, 0x10, 5]  // [5], then the junk, then the integer 5 at offset 12
        file += [8, 12]  // offset table at 14
        file += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 14]
        let path = try directory.write(Data(file), as: "gap.plist")
        let catalog = TestEnvironment.sample("Catalog.plist")
        let result = try await trove("roundtrip", path, catalog)
        #expect(result.status == 1)
        #expect(result.stdoutText == """
            \(path): FAILED (lossless), OK (binary1 xml1 json)
              lossless: the rewrite differs from the input at byte 10 (46 bytes written, 48 read)
            \(catalog): OK (binary1 xml1)

            """)
        let silent = try await trove("roundtrip", "-s", path, catalog)
        #expect(silent.status == 1)
        #expect(silent.stdoutText.split(separator: "\n").first == "\(path): FAILED (lossless), OK (binary1 xml1 json)")
        #expect(!silent.stdoutText.contains(catalog))
    }

    @Test("a small binary file whose shared objects expand to millions of values is not converted, and finishes fast")
    func sharedObjectExpansion() async throws {
        let directory = try TemporaryDirectory()
        // 22 arrays, each holding the next one twice, then an integer: 2^23 - 1 values from 24 objects.
        let levels = 22
        let objects = (0..<levels).map { level -> [UInt8] in [0xA2, UInt8(level + 1), UInt8(level + 1)] } + [[0x10, 7]]
        let path = try directory.write(binaryPlist(objects), as: "expanding.plist")
        let result = try await trove("roundtrip", "-v", path)
        #expect(result.seconds < 30)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(path): OK (no conversions; see -v)")
        #expect(lines.contains("  lossless: the rewrite reproduces the input byte for byte"))
        #expect(lines.filter { $0.contains("skipped: its shared objects expand to more than 1000000 values") }.count == 4, "\(lines)")

        // diff compares each pair of shared objects once.
        let other = try directory.write(binaryPlist(Array(objects.dropLast()) + [[0x10, 8]]), as: "other.plist")
        let same = try await trove("diff", path, path)
        let different = try await trove("diff", "-q", path, other)
        #expect(same.status == 0 && different.status == 1)
        #expect(result.seconds + same.seconds + different.seconds < 60)
    }

    @Test("a one-entry CF$UID dictionary is how XML spells a UID, so XML is skipped for it")
    func uidLookalike() async throws {
        let directory = try TemporaryDirectory()
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": ["CF$UID": 5]], format: .binary, options: 0)
        let path = try directory.write(plist, as: "lookalike.plist")
        let result = try await trove("roundtrip", "-v", path)
        #expect(result.status == 0, "\(result.stdoutText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(path): OK (binary1 json)")
        #expect(lines.contains { $0.hasPrefix("  xml1: skipped: XML reads a dictionary whose only entry is CF$UID") && $0.hasSuffix("(at a)") }, "\(lines)")
    }
}

/// `trove roundtrip` over every file of the fixture corpus whose plist layer is valid.
@Suite("trove roundtrip on the fixture corpus",
       .enabled(if: TestEnvironment.hasTrove && TestEnvironment.fixtures != nil,
                "the fixture corpus was not found (set TROVE_FIXTURES or put it at ../shared/fixtures)"))
struct RoundtripCorpusTests {
    /// Corpus files that do not make every round trip, with the reason. Each is a limitation or
    /// a codec bug to look into; a file that starts passing must be taken off the list.
    static let knownFailures: [String: String] = [:]

    /// Valid rows (and every keyed archive, whose plist layer is valid), by category.
    static func validFiles(in category: String) throws -> [(relative: String, path: String)] {
        let root = try #require(TestEnvironment.fixtures)
        let manifest = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, fields[1] == category else { return nil }
            guard fields[5].hasPrefix("valid") || fields[1] == "keyed-archive" else { return nil }
            return (fields[0], root.appendingPathComponent(fields[0]).path)
        }
    }

    @Test("every valid file round-trips, except the known failures named with their reasons",
          arguments: ["xml", "binary", "keyed-archive", "openstep", "json", "large"])
    func corpus(category: String) async throws {
        let files = try Self.validFiles(in: category)
        #expect(!files.isEmpty, "no valid \(category) files in the manifest")
        let result = try await trove(arguments: ["roundtrip"] + files.map(\.path))
        #expect(result.stderr.isEmpty, "files that did not read: \(result.stderrText)")
        let summaries = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init)
        #expect(summaries.count == files.count, "one summary line per file")
        var passed = 0
        for (relative, path) in files {
            guard let line = summaries.first(where: { $0.hasPrefix(path + ": ") }) else {
                Issue.record("\(relative): no summary line")
                continue
            }
            let ok = line.hasPrefix(path + ": OK (")
            if ok { passed += 1 }
            if let reason = Self.knownFailures[relative] {
                #expect(!ok, "\(relative) now passes; take it off the known failures (\(reason))")
            } else {
                #expect(ok, "\(relative): \(Self.details(of: path, in: result.stdoutText))")
            }
        }
        #expect(result.status == (passed == files.count ? 0 : 1))
        print("roundtrip corpus, \(category): \(passed) of \(files.count) files pass every check")
    }

    /// The summary line of one file and the indented lines under it.
    static func details(of path: String, in output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(path + ": ") }) else { return "(no output)" }
        let block = lines[start...].prefix { $0 == lines[start] || $0.hasPrefix(" ") }
        return block.joined(separator: "\n")
    }
}
