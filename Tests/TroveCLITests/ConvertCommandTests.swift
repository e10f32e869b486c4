import Foundation
import Testing
import TroveTestSupport

@Suite("trove convert", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct ConvertCommandTests {
    static let preferences = TestEnvironment.sample("Preferences.plist")
    static let catalog = TestEnvironment.sample("Catalog.plist")

    // MARK: Against plutil

    @Test("XML to binary gives what plutil -convert binary1 gives", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func xmlToBinaryMatchesPlutil() async throws {
        try await expectBinaryConversionMatchesPlutil(Self.preferences, sameSize: true)
    }

    @Test("binary to XML is byte-identical to plutil -convert xml1", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func binaryToXMLMatchesPlutil() async throws {
        try await expectXMLConversionMatchesPlutil(Self.catalog)
    }

    @Test("generated values convert as plutil converts them", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func generatedValuesMatchPlutil() async throws {
        let directory = try TemporaryDirectory()
        var generator = ValueGenerator(seed: 0x7407e)
        for index in 0..<12 {
            let value = generator.document()
            let xml = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
            let binary = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
            try await expectBinaryConversionMatchesPlutil(try directory.write(xml, as: "generated-\(index).xml"))
            try await expectXMLConversionMatchesPlutil(try directory.write(binary, as: "generated-\(index).bplist"))
        }
    }

    /// plutil's binary output depends on the hash order of Foundation's dictionaries, so it is not
    /// byte-stable from one run to the next; what must match is the value. The size must match too
    /// when `sameSize` is set: on Linux plutil shares one object between equal integers but not
    /// between equal strings, reals or dates read from XML, so only inputs without repeated values
    /// of those kinds (like the samples) are expected to come out the same size.
    private func expectBinaryConversionMatchesPlutil(
        _ path: String, sameSize: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let ours = try await trove("convert", "binary1", "-o", "-", path)
        #expect(ours.status == 0, "\(path): \(ours.stderrText)", sourceLocation: sourceLocation)
        let theirs = try await plutil("-convert", "binary1", "-o", "-", path)
        try #require(theirs.status == 0, "plutil failed on \(path)")
        #expect(ours.stdout.starts(with: Data("bplist00".utf8)), sourceLocation: sourceLocation)
        if sameSize {
            #expect(ours.stdout.count == theirs.stdout.count, "\(path): size differs from plutil's", sourceLocation: sourceLocation)
        }
        #expect(try foundationValue(ours.stdout) == foundationValue(theirs.stdout), "\(path)", sourceLocation: sourceLocation)
    }

    private func expectXMLConversionMatchesPlutil(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ours = try await trove("convert", "xml1", "-o", "-", path)
        #expect(ours.status == 0, "\(path): \(ours.stderrText)", sourceLocation: sourceLocation)
        let theirs = try await plutil("-convert", "xml1", "-o", "-", path)
        try #require(theirs.status == 0, "plutil failed on \(path)")
        #expect(ours.stdoutText == theirs.stdoutText, "\(path)", sourceLocation: sourceLocation)
    }

    // MARK: Lossless same-format conversion

    @Test("converting into the file's own format gives back the same bytes", arguments: [
        ("Preferences.plist", "xml1"), ("Catalog.plist", "binary1"),
    ])
    func sameFormatIsLossless(sample: String, format: String) async throws {
        let path = TestEnvironment.sample(sample)
        let result = try await trove("convert", "--format", format, "-o", "-", path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdout == (try bytes(of: path)))
    }

    @Test("a hand-laid-out XML file keeps its layout when converted to XML")
    func unusualLayoutIsKept() async throws {
        let directory = try TemporaryDirectory()
        let original = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>zeta</key> <integer>0x1F</integer>
              <key>alpha</key><string>kept &#x41; as written</string>
            </dict>
            </plist>

            """.utf8)
        let path = try directory.write(original, as: "layout.plist")
        let result = try await trove("convert", "xml1", path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try bytes(of: path) == original)
    }

    // MARK: In place, -o, -e, stdin

    @Test("in-place conversion replaces the file atomically and keeps its permissions")
    func inPlace() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(Self.preferences, as: "prefs.plist")
        #expect(chmod(path, 0o640) == 0)
        let original = try bytes(of: path)

        let toBinary = try await trove("convert", "-f", "binary1", path)
        #expect(toBinary.status == 0, "\(toBinary.stderrText)")
        #expect(toBinary.stdout.isEmpty)
        let binary = try bytes(of: path)
        #expect(binary.starts(with: Data("bplist00".utf8)))
        #expect(try foundationValue(binary) == foundationValue(original))
        #expect(try permissions(of: path) == 0o640)
        #expect(try directory.contents() == ["prefs.plist"], "no temporary file is left behind")

        // The sample is in Apple's canonical XML layout, so the round trip restores every byte.
        let back = try await trove("convert", "xml1", path)
        #expect(back.status == 0, "\(back.stderrText)")
        #expect(try bytes(of: path) == original)
        #expect(try directory.contents() == ["prefs.plist"])
    }

    @Test("-e writes next to the input with a new extension and leaves the input alone")
    func newExtension() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(Self.catalog, as: "catalog.plist")
        let original = try bytes(of: path)
        let result = try await trove("convert", "-f", "xml1", "-e", "xml", path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try bytes(of: path) == original)
        #expect(try directory.contents() == ["catalog.plist", "catalog.xml"])
        let xml = try bytes(of: directory.path("catalog.xml"))
        #expect(try foundationFormat(xml) == .xml)
        #expect(try foundationValue(xml) == foundationValue(original))
    }

    @Test("-e on a name without an extension appends one; dots in directory names are left alone")
    func newExtensionEdgeCases() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("dir.d"), withIntermediateDirectories: false)
        let bare = try directory.copy(Self.catalog, as: "dir.d/settings")
        let hidden = try directory.copy(Self.catalog, as: "dir.d/.hidden")
        let result = try await trove("convert", "-f", "xml1", "-e", ".xml", bare, hidden)
        #expect(result.status == 0, "\(result.stderrText)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path("dir.d")).sorted()
        #expect(names == [".hidden", ".hidden.xml", "settings", "settings.xml"])
    }

    @Test("-o writes a new file and leaves the input alone")
    func outputFile() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.path("out.bin")
        let result = try await trove("convert", "--format", "binary", "-o", output, Self.preferences)
        #expect(result.status == 0, "\(result.stderrText)")
        let written = try bytes(of: output)
        #expect(try foundationFormat(written) == .binary)
        #expect(try foundationValue(written) == foundationValue(bytes(of: Self.preferences)))
        #expect(try directory.contents() == ["out.bin"])
    }

    @Test("--no-sync writes the same file, replaced atomically, without flushing it")
    func noSync() async throws {
        let directory = try TemporaryDirectory()
        let flushed = directory.path("flushed.bin")
        let unflushed = directory.path("unflushed.bin")
        #expect(try await trove("convert", "--format", "binary1", "-o", flushed, Self.catalog).status == 0)
        let result = try await trove("convert", "--no-sync", "--format", "binary1", "-o", unflushed, Self.catalog)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try bytes(of: unflushed) == bytes(of: flushed))
        #expect(try directory.contents() == ["flushed.bin", "unflushed.bin"])
        // Whether the file and its directory are flushed shows in the system calls made.
        guard let strace = TestEnvironment.executableOnPath("strace") else { return }
        func flushCalls(_ extra: [String]) async throws -> Int {
            let traced = try await runProcess(
                strace, ["-f", "-e", "trace=fsync,fdatasync", try #require(TroveExecutable.path), "convert"] + extra
                    + ["--format", "xml1", "-o", directory.path("traced.xml"), Self.catalog])
            #expect(traced.status == 0, "\(traced.stderrText)")
            return traced.stderrText.split(separator: "\n").filter { $0.contains("fsync(") || $0.contains("fdatasync(") }.count
        }
        #expect(try await flushCalls([]) == 2, "the file and its directory are flushed by default")
        #expect(try await flushCalls(["--no-sync"]) == 0)
    }

    @Test("'-' converts standard input to standard output")
    func standardInputToStandardOutput() async throws {
        let input = try bytes(of: Self.catalog)
        let result = try await trove("convert", "xml1", "-", stdin: input)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try foundationFormat(result.stdout) == .xml)
        #expect(try foundationValue(result.stdout) == foundationValue(input))
        if TestEnvironment.hasPlutil {
            let theirs = try await plutil("-convert", "xml1", "-o", "-", Self.catalog)
            #expect(result.stdout == theirs.stdout)
        }

        let binary = try await trove("convert", "binary1", "-o", "-", "-", stdin: try bytes(of: Self.preferences))
        #expect(binary.status == 0)
        #expect(binary.stdout.starts(with: Data("bplist00".utf8)))
    }

    // MARK: Failures leave the input untouched

    @Test("an unreadable input is reported and left untouched")
    func invalidInputUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(TestEnvironment.sample("Broken.plist"), as: "broken.plist")
        let original = try bytes(of: path)
        let result = try await trove("convert", "binary1", path)
        #expect(result.status == 1)
        #expect(result.stderrText.hasPrefix("\(path):8:10: XML: "), "got: \(result.stderrText)")
        #expect(try bytes(of: path) == original)
        #expect(try directory.contents() == ["broken.plist"])
    }

    @Test("a failed write leaves the input untouched and names the output")
    func failedWrite() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(Self.preferences, as: "prefs.plist")
        let original = try bytes(of: path)

        let missingParent = directory.path("no/such/dir/out.plist")
        let intoMissing = try await trove("convert", "binary1", "-o", missingParent, path)
        #expect(intoMissing.status == 1)
        #expect(intoMissing.stderrText.hasPrefix("\(missingParent): "), "got: \(intoMissing.stderrText)")
        #expect(intoMissing.stderrText.contains("No such file or directory"))

        try FileManager.default.createDirectory(atPath: directory.path("sub"), withIntermediateDirectories: false)
        let ontoDirectory = try await trove("convert", "binary1", "-o", directory.path("sub"), path)
        #expect(ontoDirectory.status == 1)
        #expect(ontoDirectory.stderrText.contains("Is a directory"), "got: \(ontoDirectory.stderrText)")

        #expect(try bytes(of: path) == original)
        #expect(try directory.contents() == ["prefs.plist", "sub"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("sub")).isEmpty)
    }

    @Test("a read-only directory makes the in-place write fail without touching the file",
          .enabled(if: geteuid() != 0, "root may write into read-only directories"))
    func readOnlyDirectory() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(Self.preferences, as: "prefs.plist")
        let original = try bytes(of: path)
        #expect(chmod(directory.url.path, 0o555) == 0)
        let result = try await trove("convert", "binary1", path)
        #expect(chmod(directory.url.path, 0o755) == 0)
        #expect(result.status == 1)
        #expect(result.stderrText.contains("Permission denied"), "got: \(result.stderrText)")
        #expect(try bytes(of: path) == original)
        #expect(try directory.contents() == ["prefs.plist"])
    }

    @Test("a write that runs out of space leaves the target untouched and no temporary file",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh"), "no /bin/sh"))
    func outOfSpace() async throws {
        let directory = try TemporaryDirectory()
        let entries = Dictionary(uniqueKeysWithValues: (0..<400).map { ("key \($0)", "value number \($0)") })
        let input = try directory.write(
            try PropertyListSerialization.data(fromPropertyList: entries, format: .xml, options: 0), as: "input.plist")
        let target = try directory.write(Data("original".utf8), as: "target.plist")
        // A file-size limit makes write(2) fail with EFBIG part way through, as a full disk fails
        // with ENOSPC; SIGXFSZ is ignored so that the failure is reported instead of fatal.
        let binary = try #require(TroveExecutable.path)
        let script = "trap '' XFSZ; ulimit -f 4; exec \"$0\" convert binary1 -o \"$1\" \"$2\""
        let result = try await runProcess("/bin/sh", ["-c", script, binary, target, input])
        #expect(result.status == 1, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("\(target): cannot write: "), "got: \(result.stderrText)")
        #expect(try bytes(of: target) == Data("original".utf8))
        #expect(try directory.contents() == ["input.plist", "target.plist"])
    }

    @Test("one bad file among several: the others are converted, the exit status is 1")
    func mixedBatch() async throws {
        let directory = try TemporaryDirectory()
        let good = try directory.copy(Self.preferences, as: "good.plist")
        let bad = try directory.copy(TestEnvironment.sample("Broken.plist"), as: "bad.plist")
        let badBytes = try bytes(of: bad)
        let result = try await trove("convert", "binary1", bad, good)
        #expect(result.status == 1)
        #expect(try bytes(of: good).starts(with: Data("bplist00".utf8)))
        #expect(try bytes(of: bad) == badBytes)
        #expect(result.stderrText.split(separator: "\n").count == 1)
    }

    @Test("plutil's own spellings of the verbs work as drop-in replacements")
    func plutilSpellings() async throws {
        let converted = try await trove("-convert", "binary1", "-o", "-", Self.catalog)
        #expect(converted.status == 0, "\(converted.stderrText)")
        #expect(converted.stdout == (try bytes(of: Self.catalog)))

        let printed = try await trove("-p", Self.catalog)
        #expect(printed.status == 0)
        #expect(printed.stdout == (try await trove("print", Self.catalog)).stdout)

        let linted = try await trove("-lint", "-s", Self.catalog)
        #expect(linted.status == 0)
        #expect(linted.stdout.isEmpty)
    }

    // MARK: Usage

    @Test("usage errors exit with status 64", arguments: [
        ["convert", "Samples/Preferences.plist"],
        ["convert", "swift", "--header", "Samples/Preferences.plist"],
        ["convert", "-f", "xml1", "-header", "Samples/Preferences.plist"],
        ["convert", "xml1"],
        ["convert", "xml1", "-o", "out.plist", "a.plist", "b.plist"],
        ["convert", "xml1", "-e", "", "a.plist"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await trove(arguments: arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderrText)")
        #expect(result.stdout.isEmpty)
    }
}

/// Deterministic pseudo-random property-list values, built with Foundation types so that they
/// can be written by the independent peer (PropertyListSerialization).
struct ValueGenerator {
    /// The shared seeded generator, so that every run writes the same documents.
    private var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    /// A dictionary at the root, as most real files have.
    mutating func document() -> Any { dictionary(depth: 0) }

    mutating func value(depth: Int) -> Any {
        switch random.below(depth >= 3 ? 7 : 9) {
        case 0: return string()
        case 1: return integer()
        case 2: return real()
        case 3: return random.below(2) == 0
        case 4: return Date(timeIntervalSinceReferenceDate: Double(Int(random.next() % 4_000_000_000)) - 2_000_000_000)
        case 5: return Data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 6: return string()
        case 7: return (0..<random.below(5)).map { _ in value(depth: depth + 1) }
        default: return dictionary(depth: depth + 1)
        }
    }

    mutating func dictionary(depth: Int) -> [String: Any] {
        var result: [String: Any] = [:]
        for _ in 0..<random.below(6) + (depth == 0 ? 2 : 0) { result[string()] = value(depth: depth) }
        return result
    }

    mutating func string() -> String {
        let pieces = ["a", "Key", "10", "9", "é", "日本", "😀", " ", "&", "<", ">", "\"", "'", "\n", "\t", "z", "Ω", "_"]
        return (0..<random.below(8)).map { _ in pieces[random.below(pieces.count)] }.joined()
    }

    mutating func integer() -> NSNumber {
        switch random.below(5) {
        case 0: return NSNumber(value: random.below(300) - 150)
        case 1: return NSNumber(value: Int64(bitPattern: random.next()))
        case 2: return NSNumber(value: random.next())
        case 3: return NSNumber(value: Int64.min)
        default: return NSNumber(value: UInt64.max)
        }
    }

    mutating func real() -> Double {
        let choices: [Double] = [0, 0.1, -2.5, 1e300, .leastNonzeroMagnitude, 123456.789, 3.0e10, -1.0 / 3.0, 1e16, 1e15]
        return random.below(3) == 0 ? Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) : choices[random.below(choices.count)]
    }
}
