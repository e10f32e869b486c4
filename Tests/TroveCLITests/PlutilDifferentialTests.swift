import Foundation
import Testing
import Trove

/// `trove` against the toolchain's `plutil`, verb by verb, over every valid XML and binary file
/// of the fixture corpus: the same output (bytes where plutil's output is deterministic, values
/// where it is not), the same exit status, the same verdict on bad input. Every place where the
/// two differ on purpose is a named case below, and the test checks that it still differs for
/// the stated reason, so a stale exception cannot hide a regression.
@Suite("trove vs plutil on the corpus",
       .enabled(if: TestEnvironment.hasPlutil && TestEnvironment.fixtures != nil,
                "plutil or the fixture corpus was not found (set TROVE_FIXTURES or put it at ../shared/fixtures)"))
struct PlutilDifferentialTests {
    /// A valid corpus file with its decoded value, read once per suite.
    struct Sample: Sendable {
        var path: String
        var bytes: Data
        var document: PlistDocument
        /// plutil 6.3.1 refuses to convert, type or extract any value that holds a keyed-archive UID
        /// ("Dictionaries are required to have string keys"): its property-list check does not know
        /// `_NSKeyedArchiverUID`. trove handles them; see README "Where trove differs".
        var holdsUID: Bool
        /// The toolchain's CoreFoundation keeps the first of two equal keys in a binary
        /// dictionary; trove (like the corpus goldens, plistlib and go-plist) keeps the last.
        var hasRepeatedKeys: Bool
        var isBinary: Bool { document.format == .binary }
    }

    static let samples: [Sample] = {
        guard let fixtures = try? CorpusCommandTests.fixtures() else { return [] }
        return fixtures.compactMap { fixture in
            guard fixture.expectation.hasPrefix("valid"), fixture.category != "malformed",
                  let bytes = FileManager.default.contents(atPath: fixture.path),
                  let document = try? Plist.read(bytes) else { return nil }
            return Sample(path: fixture.path, bytes: bytes, document: document,
                          holdsUID: containsUID(document.value),
                          hasRepeatedKeys: CorpusCommandTests.binaryHasRepeatedKeys(bytes))
        }
    }()

    static func containsUID(_ value: PlistValue) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .uid: return true
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let entries): pending.append(contentsOf: entries.values)
            default: continue
            }
        }
        return false
    }

    /// Up to `limit` key paths of `value`, spread over the whole tree (pre-order, then every
    /// n-th), so that deep leaves, containers and escaped keys all get their turn.
    static func keyPaths(of value: PlistValue, limit: Int) -> [PlistKeyPath] {
        var all: [PlistKeyPath] = []
        var pending: [(PlistKeyPath, PlistValue)] = [(PlistKeyPath(components: []), value)]
        while let (path, next) = pending.popLast(), all.count < 5_000 {
            if !path.components.isEmpty { all.append(path) }
            switch next {
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() {
                    pending.append((path.appending(index: index), element))
                }
            case .dictionary(let entries):
                for (key, element) in entries.reversed() { pending.append((path.appending(key: key), element)) }
            default: continue
            }
        }
        guard all.count > limit else { return all }
        let stride = Double(all.count - 1) / Double(limit - 1)
        return (0..<limit).map { all[Int((Double($0) * stride).rounded())] }
    }

    /// The value of a plist in any format, or nil when it does not read.
    static func value(_ data: Data) -> PlistValue? { try? Plist.read(data, options: PlistReadOptions(keepsLayout: false)).value }

    /// plutil 6.3.1 mangles keys that contain a newline when it prints raw dictionary keys,
    /// and paths through keys holding a dot are written with `\.`; both tools take that.
    static func lineSet(_ text: String) -> Set<Substring> { Set(text.split(separator: "\n", omittingEmptySubsequences: false)) }

    /// Collects failures so that one run reports every file, not just the first.
    struct Findings {
        var compared = 0
        var mismatches: [String] = []
        mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { mismatches.append(message()) }
        }
        /// The named difference: plutil refuses a value holding a UID, trove does not.
        mutating func checkUIDRefusal(ours: ProcessResult, plutil: ProcessResult, _ label: String) {
            uidRefusals += 1
            check(plutil.status != 0, "\(label): plutil now accepts a value holding a UID; drop the exception")
            check(ours.status == 0, "\(label): trove refused a value holding a UID: \(ours.stderrText)")
        }
        var uidRefusals = 0
        func expectClean(_ what: String, minimum: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(compared >= minimum, "only \(compared) \(what) compared", sourceLocation: sourceLocation)
            #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) \(what) differ:\n\(mismatches.prefix(40).joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("convert xml1: binary files give plutil's bytes, XML files plutil's value and their own bytes")
    func convertXML() async throws {
        var findings = Findings()
        for sample in Self.samples where !sample.hasRepeatedKeys {
            let ours = try await trove("convert", "-f", "xml1", "-o", "-", sample.path)
            let theirs = try await plutil("-convert", "xml1", "-o", "-", sample.path)
            findings.compared += 1
            if sample.holdsUID {
                findings.checkUIDRefusal(ours: ours, plutil: theirs, sample.path)
                continue
            }
            findings.check(ours.status == 0 && theirs.status == 0, "\(sample.path): status \(ours.status) vs plutil \(theirs.status)")
            if sample.isBinary {
                findings.check(ours.stdout == theirs.stdout, "\(sample.path): XML bytes differ from plutil's")
            } else {
                // Lossless: an XML file converted to XML is written back as it was.
                findings.check(ours.stdout == sample.bytes, "\(sample.path): XML to XML changed the bytes")
                findings.check(Self.value(ours.stdout) == Self.value(theirs.stdout), "\(sample.path): value differs from plutil's")
            }
        }
        findings.expectClean("files", minimum: 150)
    }

    @Test("convert binary1: plutil reads our binary back to the value it reads from the source")
    func convertBinary() async throws {
        var findings = Findings()
        let directory = try TemporaryDirectory()
        for (index, sample) in Self.samples.enumerated() where !sample.hasRepeatedKeys {
            let ours = try await trove("convert", "-f", "binary1", "-o", "-", sample.path)
            findings.compared += 1
            guard ours.status == 0 else {
                findings.check(false, "\(sample.path): trove failed: \(ours.stderrText)")
                continue
            }
            // plutil's own binary output orders dictionaries by CF hash, so bytes are not
            // comparable; what matters is that plutil reads ours as it reads the source.
            if sample.holdsUID {
                findings.checkUIDRefusal(ours: ours, plutil: try await plutil("-convert", "binary1", "-o", "-", sample.path), sample.path)
                continue
            }
            let copy = try directory.write(ours.stdout, as: "\(index).bplist")
            let viaOurs = try await plutil("-convert", "xml1", "-o", "-", copy)
            let viaSource = try await plutil("-convert", "xml1", "-o", "-", sample.path)
            findings.check(viaOurs.status == 0 && viaOurs.stdout == viaSource.stdout,
                           "\(sample.path): plutil reads our binary differently (status \(viaOurs.status))")
            let theirs = try await plutil("-convert", "binary1", "-o", "-", sample.path)
            findings.check(Self.value(theirs.stdout) == Self.value(ours.stdout), "\(sample.path): value differs from plutil's binary")
        }
        findings.expectClean("files", minimum: 150)
    }

    @Test("convert json: same bytes, or the same refusal")
    func convertJSON() async throws {
        var findings = Findings()
        for sample in Self.samples where !sample.hasRepeatedKeys {
            for pretty in [false, true] {
                let flags = pretty ? ["-r"] : []
                let ours = try await trove(arguments: ["convert", "-f", "json"] + flags + ["-o", "-", sample.path])
                let theirs = try await runProcess(TestEnvironment.plutil!, ["-convert", "json"] + flags + ["-o", "-", sample.path])
                findings.compared += 1
                findings.check(ours.status == theirs.status, "\(sample.path)\(pretty ? " -r" : ""): status \(ours.status) vs plutil \(theirs.status)")
                guard ours.status == 0, theirs.status == 0 else { continue }
                if pretty {
                    findings.check(ours.stdout == theirs.stdout, "\(sample.path) -r: JSON bytes differ")
                } else {
                    // Compact JSON from plutil orders keys by hash; compare the values.
                    findings.check(Self.value(ours.stdout) == Self.value(theirs.stdout), "\(sample.path): JSON value differs")
                }
            }
        }
        findings.expectClean("conversions", minimum: 300)
    }

    @Test("type and extract (raw, xml1, json, binary1) agree on sampled key paths of every file")
    func typeAndExtract() async throws {
        var findings = Findings()
        var blankKeyPaths = 0
        for sample in Self.samples where !sample.hasRepeatedKeys {
            let paths = Self.keyPaths(of: sample.document.value, limit: 6)
            for path in paths {
                let keyPath = path.description
                findings.compared += 1
                let ourType = try await trove("type", keyPath, sample.path)
                let theirType = try await plutil("-type", keyPath, sample.path)
                if path.components.contains("") {
                    // Named difference: plutil cannot address an empty key (a key path with an
                    // empty component is "invalid" to it); trove reads it as the key "".
                    blankKeyPaths += 1
                    findings.check(theirType.status != 0 && ourType.status == 0,
                                   "\(sample.path) type \(keyPath): plutil now reaches empty keys; drop the exception")
                    continue
                }
                if let value = sample.document.value[keyPath: path], Self.containsUID(value) {
                    let ourExtract = try await trove("extract", keyPath, "xml1", "-o", "-", sample.path)
                    let theirExtract = try await plutil("-extract", keyPath, "xml1", "-o", "-", sample.path)
                    findings.checkUIDRefusal(ours: ourExtract, plutil: theirExtract, "\(sample.path) extract \(keyPath)")
                    continue
                }
                findings.check(ourType.status == theirType.status && ourType.stdout == theirType.stdout,
                               "\(sample.path) type \(keyPath): \(ourType.stdoutText)\(ourType.stderrText) vs \(theirType.stdoutText)")
                for format in ["raw", "xml1", "json", "binary1"] {
                    let ours = try await trove("extract", keyPath, format, "-o", "-", sample.path)
                    let theirs = try await plutil("-extract", keyPath, format, "-o", "-", sample.path)
                    let label = "\(sample.path) extract \(keyPath) \(format)"
                    findings.check(ours.status == theirs.status, "\(label): status \(ours.status) vs plutil \(theirs.status) \(theirs.stderrText)")
                    guard ours.status == 0, theirs.status == 0 else { continue }
                    switch format {
                    case "raw" where theirType.stdoutText == "dictionary\n":
                        findings.check(Self.lineSet(ours.stdoutText) == Self.lineSet(theirs.stdoutText), "\(label): key lines differ")
                    case "raw", "xml1":
                        findings.check(ours.stdout == theirs.stdout, "\(label): bytes differ")
                    default:
                        findings.check(Self.value(ours.stdout) == Self.value(theirs.stdout), "\(label): value differs")
                    }
                }
            }
        }
        #expect(findings.uidRefusals > 20, "the keyed archives in the corpus were not exercised")
        #expect(blankKeyPaths > 0, "the empty-key files were not exercised")
        findings.expectClean("key paths", minimum: 500)
    }

    @Test("insert, replace and remove leave the value plutil leaves, with the same status")
    func edits() async throws {
        var findings = Findings()
        let directory = try TemporaryDirectory()
        // plutil cannot write back a file holding UIDs (see `holdsUID`), so there is nothing to compare.
        let editable = Self.samples.filter { !$0.hasRepeatedKeys && !$0.holdsUID }
        for (index, sample) in editable.enumerated() {
            // A path through an empty key is out: plutil cannot address one (see typeAndExtract).
            guard let path = Self.keyPaths(of: sample.document.value, limit: 3).last(where: { !$0.components.contains("") })
            else { continue }
            let parent = PlistKeyPath(components: Array(path.components.dropLast()))
            let fresh = parent.appending("trove.differential").description
            let edits: [[String]] = [
                ["replace", path.description, "string", "replaced"],
                ["insert", fresh, "integer", "-42"],
                ["insert", path.description, "bool", "YES"],
                ["remove", path.description],
            ]
            for (editIndex, edit) in edits.enumerated() {
                let ourFile = try directory.copy(sample.path, as: "\(index)-\(editIndex)-ours")
                let theirFile = try directory.copy(sample.path, as: "\(index)-\(editIndex)-theirs")
                var ourArguments = [edit[0], edit[1]]
                var theirArguments = ["-\(edit[0])", edit[1]]
                if edit.count == 4 {
                    ourArguments += ["--\(edit[2])", edit[3]]
                    theirArguments += ["-\(edit[2])", edit[3]]
                }
                let ours = try await trove(arguments: ourArguments + [ourFile])
                let theirs = try await runProcess(TestEnvironment.plutil!, theirArguments + [theirFile])
                findings.compared += 1
                let label = "\(sample.path) \(edit.joined(separator: " "))"
                findings.check(ours.status == theirs.status, "\(label): status \(ours.status) vs plutil \(theirs.status): \(ours.stderrText)")
                let ourValue = Self.value(try bytes(of: ourFile))
                let theirValue = Self.value(try bytes(of: theirFile))
                findings.check(ourValue != nil && ourValue == theirValue, "\(label): the edited values differ")
            }
        }
        findings.expectClean("edits", minimum: 300)
    }

    /// Manifest rows of a category (any format), as absolute paths with their expectation.
    static func manifestRows(category: String) throws -> [(path: String, expectation: String)] {
        let root = try #require(TestEnvironment.fixtures)
        let manifest = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, fields[1] == category else { return nil }
            return (root.appendingPathComponent(fields[0]).path, fields[5])
        }
    }

    @Test("OpenStep and JSON files convert to plutil's XML bytes", arguments: ["openstep", "json"])
    func textFormatsToXML(category: String) async throws {
        // plutil reads JSON through JSONSerialization, which turns -2^63 into a real; trove keeps
        // every integer that fits 64 bits an integer (README "Where trove differs").
        let integerKept = ["libplist-int64_min_max.json"]
        var findings = Findings()
        for row in try Self.manifestRows(category: category) where row.expectation.hasPrefix("valid") {
            let ours = try await trove("convert", "-f", "xml1", "-o", "-", row.path)
            let theirs = try await plutil("-convert", "xml1", "-o", "-", row.path)
            findings.compared += 1
            let name = URL(fileURLWithPath: row.path).lastPathComponent
            // A JSON null has no XML form: both tools refuse those files.
            findings.check(ours.status == theirs.status, "\(row.path): status \(ours.status) vs plutil \(theirs.status)")
            guard ours.status == 0 else { continue }
            if integerKept.contains(name) {
                findings.check(ours.stdout != theirs.stdout && String(decoding: theirs.stdout, as: UTF8.self).contains("<real>"),
                               "\(row.path): plutil now keeps the integer; drop the exception")
                findings.check(String(decoding: ours.stdout, as: UTF8.self).contains("<integer>-9223372036854775808</integer>"),
                               "\(row.path): trove lost the integer")
            } else {
                findings.check(ours.stdout == theirs.stdout, "\(row.path): XML bytes differ from plutil's")
            }
        }
        findings.expectClean("\(category) files", minimum: category == "json" ? 15 : 25)
    }

    @Test("lint: every must-reject file, in every format, is refused by both tools")
    func lintVerdicts() async throws {
        var findings = Findings()
        // Files plutil 6.3.1 accepts although the corpus says a reader must reject them, with the
        // reason (none today: plutil's leniencies are all on files the manifest marks "no-crash").
        let plutilTooLenient: [String: String] = [:]
        var lenientSeen: Set<String> = []
        for fixture in try Self.manifestRows(category: "malformed") where fixture.expectation == "must-reject" {
            let ours = try await trove("lint", "-s", fixture.path)
            let theirs = try await plutil("-lint", "-s", fixture.path)
            findings.compared += 1
            findings.check(ours.status == 1, "\(fixture.path): trove accepted it")
            let name = URL(fileURLWithPath: fixture.path).lastPathComponent
            if theirs.status == 0 {
                lenientSeen.insert(name)
                findings.check(plutilTooLenient[name] != nil, "\(fixture.path): plutil accepts it; name the case and the reason")
            }
        }
        #expect(lenientSeen == Set(plutilTooLenient.keys), "the list of files plutil accepts has changed")
        findings.expectClean("must-reject files", minimum: 140)
    }
}
