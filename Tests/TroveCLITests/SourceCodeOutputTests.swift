import Foundation
import Testing
import Trove

/// `trove convert -f swift|objc` against the toolchain's `plutil -convert swift|objc`: the same
/// bytes on generated values and on every valid corpus file, the same files on disk, and the same
/// refusals with the same messages.
@Suite("convert to Swift and Objective-C source", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not found"))
struct SourceCodeOutputTests {
    static let languages = ["swift", "objc"]

    /// A document both languages can write (no dates or data), as XML.
    static func literalSample() throws -> Data {
        let value: PlistValue = [
            "Name": "Main \"window\"", "Count": 3, "Ratio": 0.75, "Enabled": true,
            "Recent": ["~/a.txt", "~/b.txt"], "Window": ["Width": 1024, "Title": "T\\w"],
        ]
        return try Plist.write(value, as: .xml)
    }

    /// Corpus files where plutil's output differs because plutil *reads* the file differently;
    /// the writers are not involved. Each entry says why.
    static let knownReadDifferences: [String: String] = [
        // plutil bug: JSONSerialization reads -9223372036854775808 as a Double, so plutil writes
        // it as a real (-9223372036854775808.000000) and adds a [String : Any] annotation.
        "json/libplist-int64_min_max.json": "Foundation's JSON reader turns INT64_MIN into a real",
        // plutil bug: its Foundation cannot read this binary file at all ("Unexpected character
        // b at line 1"); Trove reads it and refuses its UIDs with plutil's own message.
        "binary/go-plist-cf-keyed-archiver-uids-interface-binary.bplist": "plutil cannot read the file",
    ]

    /// The message of an error line, without the `FILE: ` in front and the key path Trove adds.
    static func message(_ stderr: String, file: String) -> String {
        var text = stderr.trimmingCharacters(in: .newlines)
        if text.hasPrefix(file + ": ") { text.removeFirst(file.count + 2) }
        if let keyPath = text.range(of: " (at key path ") { text = String(text[..<keyPath.lowerBound]) }
        return text
    }

    /// Runs trove and plutil on the same file: a description of any difference in output, status
    /// or message (nil when they agree), and whether trove succeeded.
    static func compare(language: String, path: String) async throws -> (difference: String?, succeeded: Bool) {
        let ours = try await trove("convert", "-f", language, "-o", "-", path)
        return (try await difference(ours, language: language, path: path), ours.status == 0)
    }

    private static func difference(_ ours: ProcessResult, language: String, path: String) async throws -> String? {
        let theirs = try await runProcess(try #require(TestEnvironment.plutil), ["-convert", language, "-o", "-", path])
        if ours.status != theirs.status {
            return "\(language) \(path): status \(ours.status) vs plutil \(theirs.status): \(ours.stderrText) | \(theirs.stderrText)"
        }
        if ours.stdout != theirs.stdout {
            let ourLines = ours.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            let theirLines = theirs.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            let index = zip(ourLines, theirLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(ourLines.count, theirLines.count)
            let ourLine = index < ourLines.count ? String(ourLines[index]) : "<end>"
            let theirLine = index < theirLines.count ? String(theirLines[index]) : "<end>"
            return "\(language) \(path): line \(index + 1): \(ourLine) vs plutil \(theirLine)"
        }
        if ours.status != 0 {
            let ourMessage = message(ours.stderrText, file: path)
            let theirMessage = message(theirs.stderrText, file: path)
            if ourMessage != theirMessage { return "\(language) \(path): message \(ourMessage) vs plutil \(theirMessage)" }
        }
        return nil
    }

    // MARK: Against plutil

    @Test("generated values convert byte for byte as plutil converts them",
          .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func generatedValues() async throws {
        let directory = try TemporaryDirectory()
        var generator = LiteralValueGenerator(seed: 0x5EED_C0DE)
        var compared = 0
        var differences: [String] = []
        let names = ["gen.plist", "my-values file.plist", "a+b$c.v2.plist", "Ünïcødé.plist", "noext"]
        for round in 0..<40 {
            let value = generator.document()
            let name = names[round % names.count]
            let path = try directory.write(try Plist.write(value, as: round.isMultiple(of: 2) ? .binary : .xml), as: name)
            for language in Self.languages {
                compared += 1
                if let difference = try await Self.compare(language: language, path: path).difference { differences.append(difference) }
            }
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(compared == 80)
        #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(10).joined(separator: "\n"))")
    }

    @Test("every valid corpus file converts as plutil converts it, or fails with plutil's message",
          .enabled(if: TestEnvironment.hasPlutil && TestEnvironment.fixtures != nil, "plutil or the fixture corpus not found"))
    func corpus() async throws {
        let root = try #require(TestEnvironment.fixtures)
        let manifest = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var identical = 0
        var refusedAlike = 0
        var differences: [String] = []
        var knownSeen: Set<String> = []
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, fields[5].hasPrefix("valid"), fields[1] != "malformed" else { continue }
            let path = root.appendingPathComponent(fields[0]).path
            for language in Self.languages {
                let (difference, succeeded) = try await Self.compare(language: language, path: path)
                guard let difference else {
                    if succeeded { identical += 1 } else { refusedAlike += 1 }
                    continue
                }
                if Self.knownReadDifferences[fields[0]] != nil {
                    knownSeen.insert(fields[0])
                } else {
                    differences.append(difference)
                }
            }
        }
        #expect(identical > 250, "only \(identical) conversions were byte-identical")
        #expect(refusedAlike > 100, "only \(refusedAlike) refusals matched plutil's")
        #expect(differences.isEmpty, "\(differences.count) unexplained differences:\n\(differences.prefix(10).joined(separator: "\n"))")
        // A known difference that went away should be taken off the list.
        #expect(knownSeen == Set(Self.knownReadDifferences.keys), "known differences not seen: \(Set(Self.knownReadDifferences.keys).subtracting(knownSeen))")
    }

    @Test("without -o the result goes next to the input as NAME.swift / NAME.m (+ NAME.h), as plutil writes it",
          .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func filesOnDisk() async throws {
        let ours = try TemporaryDirectory()
        let theirs = try TemporaryDirectory()
        let sample = try Self.literalSample()
        let ourInput = try ours.write(sample, as: "Prefs.plist")
        let theirInput = try theirs.write(sample, as: "Prefs.plist")

        #expect(try await trove("convert", "swift", ourInput).status == 0)
        #expect(try await plutil("-convert", "swift", theirInput).status == 0)
        #expect(try await trove("convert", "-f", "objc", "--header", ourInput).status == 0)
        #expect(try await plutil("-convert", "objc", "-header", theirInput).status == 0)

        #expect(try ours.contents() == ["Prefs.h", "Prefs.m", "Prefs.plist", "Prefs.swift"])
        #expect(try theirs.contents() == ours.contents())
        for name in ["Prefs.h", "Prefs.m", "Prefs.swift"] {
            #expect(try bytes(of: ours.path(name)) == bytes(of: theirs.path(name)), "\(name) differs")
        }
        #expect(try bytes(of: ourInput) == sample, "the property list itself is never replaced")
    }

    @Test("-o names the implementation, and the header goes beside it; -o - writes no header",
          .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func outputPaths() async throws {
        let ours = try TemporaryDirectory()
        let theirs = try TemporaryDirectory()
        let inputs = try TemporaryDirectory()
        let sample = try inputs.write(try Self.literalSample(), as: "sample.plist")
        #expect(try await trove("convert", "objc", "-header", "-o", ours.path("gen.mm"), sample).status == 0)
        #expect(try await plutil("-convert", "objc", "-header", "-o", theirs.path("gen.mm"), sample).status == 0)
        #expect(try ours.contents() == ["gen.h", "gen.mm"])
        #expect(try bytes(of: ours.path("gen.mm")) == bytes(of: theirs.path("gen.mm")))
        #expect(try bytes(of: ours.path("gen.h")) == bytes(of: theirs.path("gen.h")))

        let toStandardOutput = try await trove("-convert", "objc", "-header", "-o", "-", sample)
        #expect(toStandardOutput.status == 0)
        #expect(toStandardOutput.stdout == (try await plutil("-convert", "objc", "-header", "-o", "-", sample)).stdout)
        #expect(!toStandardOutput.stdoutText.contains("#import"), "no header is imported on standard output")
    }

    @Test("-e chooses the extension (plutil ignores it), and standard input goes to standard output as '-'")
    func extensionAndStandardInput() async throws {
        let directory = try TemporaryDirectory()
        let input = try directory.copy(TestEnvironment.sample("Preferences.plist"), as: "p.plist")
        #expect(try await trove("convert", "swift", "-e", "generated.swift", input).status == 0)
        #expect(try directory.contents() == ["p.generated.swift", "p.plist"])
        let generated = try String(contentsOfFile: directory.path("p.generated.swift"), encoding: .utf8)
        #expect(generated.hasPrefix("/// Generated from p.plist\nlet p "))

        let piped = try await trove("convert", "swift", "-", stdin: Data("<plist><array><string>x</string></array></plist>".utf8))
        #expect(piped.status == 0)
        #expect(piped.stdoutText == "/// Generated from -\nlet _ = [\n    \"x\",\n]\n")
    }

    @Test("a value with no literal fails with plutil's message, the key path, exit 1 and no output file")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let value: PlistValue = ["when": .date(PlistDate(secondsSinceReferenceDate: 0)), "name": "x"]
        let input = try directory.write(try Plist.write(value, as: .xml), as: "dated.plist")
        let good = try directory.write(try Self.literalSample(), as: "good.plist")
        let result = try await trove("convert", "objc", "--header", input, good)
        #expect(result.status == 1)
        #expect(result.stderrText == "\(input): Input contains an object that cannot be represented in Obj-C literal syntax (at key path when)\n")
        #expect(try directory.contents() == ["dated.plist", "good.h", "good.m", "good.plist"], "the other file still converts")

        let swift = try await trove("convert", "swift", "-o", "-", input)
        #expect(swift.status == 0, "Swift has a literal for dates: \(swift.stderrText)")
        #expect(swift.stdoutText.contains("\"when\" : Date(timeIntervalSinceReferenceDate: 0.0),"))
    }

    @Test("--header is refused for anything but objc")
    func headerOnlyForObjC() async throws {
        for arguments in [["convert", "swift", "--header", "a.plist"], ["convert", "-f", "json", "-header", "a.plist"]] {
            let result = try await trove(arguments: arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderrText.contains("--header is only valid for objc literal conversions."))
        }
    }
}

/// Deterministic pseudo-random values that stress the literal writers: strings with the sequences
/// plutil escapes, combining marks, line breaks and non-ASCII; keys that sort by case and number;
/// every kind of number; nesting, empties and mixed or uniform collections.
struct LiteralValueGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    private static let fragments = [
        "a", "Z", "é", "e\u{301}", "😀", "\"", "\\", "\\b", "\\s", "\\w", "\\.", "\\|", "\\*", "\\(", "\\)", "\n", "\r\n",
        "\t", " ", "10", "9", "_", "-", "$", "\"\u{301}", "日本", "\u{200D}",
    ]

    mutating func string() -> String {
        (0..<next(6)).map { _ in Self.fragments[next(Self.fragments.count)] }.joined()
    }

    mutating func key() -> String {
        ["a", "A", "b", "a9", "a10", "A2", "é", "E", "z", "_x", "key", "Key", "k\\w", "k\"q"][next(14)] + (next(3) == 0 ? string() : "")
    }

    mutating func scalar() -> PlistValue {
        switch next(9) {
        case 0: return .string(string())
        case 1: return .integer(PlistInteger(Int64(next(2000)) - 1000))
        case 2: return [.integer(PlistInteger(UInt64.max)), .integer(PlistInteger(Int64.min)), 0][next(3)]
        case 3: return .real(PlistReal([0.1, -2.5, 1e300, 1e-9, 3, -0.0, 123456.789, .infinity][next(8)]))
        case 4: return .real(PlistReal(Float([0.1, 1.5, 16_777_217][next(3)])))
        case 5: return .bool(next(2) == 0)
        case 6: return .date(PlistDate(secondsSinceReferenceDate: Double(next(2_000_000_000)) - 1e9))
        case 7: return .data(Data((0..<next(5)).map { _ in UInt8(next(256)) }))
        default: return .string(string())
        }
    }

    mutating func value(depth: Int) -> PlistValue {
        guard depth < 4, next(3) == 0 else { return scalar() }
        return container(depth: depth)
    }

    mutating func container(depth: Int) -> PlistValue {
        let count = next(5)
        if next(2) == 0 {
            // Half the arrays hold one kind only, so both annotation cases come up.
            if next(2) == 0 { return .array((0..<count).map { _ in .string(string()) }) }
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        }
        var dictionary = PlistDictionary()
        for _ in 0..<count { dictionary.updateValue(value(depth: depth + 1), forKey: key()) }
        return .dictionary(dictionary)
    }

    /// A whole document: usually a collection, sometimes a scalar.
    mutating func document() -> PlistValue {
        next(8) == 0 ? scalar() : container(depth: 0)
    }
}
