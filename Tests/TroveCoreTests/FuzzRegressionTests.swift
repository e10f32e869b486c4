import Foundation
import Testing
import TroveCore
import TroveTestSupport

/// Replays every input the fuzz targets (`Fuzz/`) ever failed on, kept under
/// `Tests/FuzzRegressions/<target>/`, through the checks that target makes: the reader either
/// refuses the input with a ``PlistError`` that names the format and the place, or accepts it, and
/// then the value survives a lossless re-encode and re-read, and re-encoding again repeats the bytes.
///
/// Files added to those folders are picked up without touching this file; the known findings
/// also pin the outcome each one was fixed to have.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// One committed input and the fuzz target that found it.
    struct Input: Sendable, CustomTestStringConvertible {
        var target: String
        var name: String
        var bytes: [UInt8]

        var testDescription: String { "\(target)/\(name)" }
    }

    /// `Tests/FuzzRegressions`, beside this file's folder.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions", isDirectory: true)

    static let inputs: [Input] = {
        let files = FileManager.default
        guard let targets = try? files.contentsOfDirectory(atPath: directory.path) else { return [] }
        var inputs: [Input] = []
        for target in targets.sorted() {
            let folder = directory.appendingPathComponent(target, isDirectory: true)
            guard let names = try? files.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                guard let data = files.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
                inputs.append(Input(target: target, name: name, bytes: [UInt8](data)))
            }
        }
        return inputs
    }()

    /// The fuzz targets, as `Fuzz/run` names them.
    /// (`archive` inputs are read and round-tripped here as property lists; their archive-level
    /// checks run in TroveArchiveTests, which links the archive layer.)
    static let targets = ["binary", "xml", "openstep", "json", "detect", "roundtrip", "archive"]

    @Test("The regression folder is found and holds only inputs of known fuzz targets")
    func folderIsFound() {
        #expect(!Self.inputs.isEmpty, "no inputs under \(Self.directory.path)")
        for input in Self.inputs {
            #expect(Self.targets.contains(input.target), "\(input.testDescription): unknown fuzz target folder")
        }
    }

    @Test("Every committed fuzz input is refused cleanly or round-trips", arguments: inputs)
    func replay(_ input: Input) async {
        let outcome = await HangGuard.run(seconds: 60) { FuzzReplay.check(input) }
        guard let outcome else {
            Issue.record("\(input.testDescription): still running after 60 s (a hang)")
            return
        }
        for problem in outcome.problems { Issue.record(Comment(rawValue: "\(input.testDescription): \(problem)")) }
        #expect(outcome.readersRun > 0)
    }

    // MARK: - Known findings, with the outcome each was fixed to have

    @Test("JSON: an underflowing literal reads as -0.0, as Foundation reads it, and settles as integer 0 after one write")
    func jsonUnderflowToNegativeZero() throws {
        let bytes = try #require(Self.inputs.first { $0.name == "underflow-to-negative-zero.json" }).bytes
        let value = try JSONPlistReader().read(bytes)
        guard case .real(let real) = value else {
            Issue.record("read as \(value), expected a real")
            return
        }
        #expect(real.value == 0 && real.value.sign == .minus)
        // Foundation writes -0.0 as `-0` and reads `-0` back as the integer 0; so do we.
        let reread = try JSONPlistReader().read(try JSONPlistWriter(.allowsFragments).write(value))
        #expect(reread == .integer(0))
    }

    @Test("Binary: a key that shares its string object with an earlier value keeps its entry's place in a lossless rewrite")
    func binaryKeySharedWithValue() throws {
        // plistlib's binary form of ["", {"a": "x", "": 1}]: one "" object, used as a value and as a key.
        let bytes = try #require(Self.inputs.first { $0.name == "empty-string-key-shared-with-value.bplist" }).bytes
        let document = try FuzzReplay.read(bytes, as: .binary)
        #expect(document.value == .array([.string(""), .dictionary(["a": .string("x"), "": .integer(1)])]))
        #expect(try [UInt8](Plist.write(document)) == bytes)
    }

    @Test("XML: a declared encoding that does not keep markup ASCII (UTF-7) is refused; Latin-1 still reads")
    func xmlDeclaredUTF7() throws {
        // Found by the CI fuzz pass: the reader took the ASCII bytes as UTF-7, and the lossless
        // writer then wrote `<` as `+ADw-`, which no reader can start on.
        let bytes = try #require(Self.inputs.first { $0.name == "utf7-declared-encoding.plist" }).bytes
        #expect(throws: PlistError.self) { _ = try Plist.read(Data(bytes)) }
        do {
            _ = try Plist.read(Data(bytes))
        } catch {
            #expect(error.code == .badEncoding)
            #expect(error.message.contains("UTF-7"))
        }
        let latin1 = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>".utf8) + [0xE9]
            + Array("</string></plist>".utf8)
        #expect(try Plist.read(Data(latin1)).value == "\u{E9}")
    }
}

extension FuzzRegressionTests {
    @Test("XML: a comment holding `--` ends at its first `-->` for libxml2 as for CF, so markup after it is read alike")
    func xmlCommentWithDoubleHyphens() throws {
        // Found by the fuzz pass: libxml2 ended such a comment elsewhere than CF (at the `-->` of
        // a later `</di---->`), the reader accepted the file, and its lossless rewrite wrote
        // `</dict>` there, leaving a comment no reader could close. CF refuses the file (the end
        // tag does not match), and so does the reader now.
        let bytes = try #require(Self.inputs.first { $0.name == "comment-double-hyphen-hides-end-tag.plist" }).bytes
        do {
            _ = try Plist.read(Data(bytes))
            Issue.record("the mismatched end tag after the comment was accepted")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.message.contains("di----"))
        }
        // Comments CF reads: `--` inside, a body ending in `-`. Values as CF reads them, and the
        // file comes back byte for byte.
        for text in ["<plist><dict><key>k</key><string>v</string><!-- a -- b -----></dict></plist>",
                     "<plist><!-- x --->\n<string>a</string><!-- -- --></plist>",
                     "<!-- -- --><plist><true/></plist>"] {
            let document = try Plist.read(Data(text.utf8))
            #expect(try [UInt8](Plist.write(document)) == Array(text.utf8), "\(text)")
        }
        #expect(try Plist.read(Data("<plist><!-- a -- b -----><integer>5</integer></plist>".utf8)).value == 5)
    }
}

/// The checks of the fuzz targets, returning what went wrong instead of trapping.
enum FuzzReplay {
    struct Outcome: Sendable {
        var problems: [String] = []
        var readersRun = 0
    }

    static func check(_ input: FuzzRegressionTests.Input) -> Outcome {
        var outcome = Outcome()
        let formats: [PlistFormat]
        switch input.target {
        case "binary": formats = [.binary]
        case "xml": formats = [.xml]
        case "openstep": formats = [.openStep]
        case "json": formats = [.json]
        default: formats = []
        }
        for format in formats {
            outcome.readersRun += 1
            do {
                let document = try read(input.bytes, as: format)
                outcome.problems += roundTrip(document)
            } catch {
                outcome.problems += refusalProblems(error, format: format)
            }
        }
        if formats.isEmpty {
            // detect and roundtrip: Plist.read, then the lossless rewrite and an exact binary copy.
            outcome.readersRun += 1
            do {
                let document = try Plist.read(Data(input.bytes))
                outcome.problems += roundTrip(document)
                do {
                    let binary = try Plist.write(document.value, as: .binary)
                    let copy = try read([UInt8](binary), as: .binary)
                    if copy.value != document.value { outcome.problems.append("converting to binary changed the value") }
                } catch {
                    outcome.problems.append("converting to binary failed: \(error)")
                }
            } catch {
                outcome.problems += refusalProblems(error, format: nil)
            }
        }
        return outcome
    }

    /// A refusal must say which format and where.
    static func refusalProblems(_ error: PlistError, format: PlistFormat?) -> [String] {
        var problems: [String] = []
        if error.format == nil || (format != nil && error.format != format) {
            problems.append("the refusal names format \(String(describing: error.format)): \(error)")
        }
        if error.location == nil { problems.append("the refusal has no location: \(error)") }
        return problems
    }

    /// Re-encode, re-read with the same reader, compare; then re-encode again and compare bytes.
    static func roundTrip(_ document: PlistDocument) -> [String] {
        let format = document.format
        do {
            let first = try encode(document)
            let second = try read([UInt8](first), as: format)
            if !equal(second.value, document.value, jsonNumbers: format == .json) {
                return ["the value changed in a \(format.displayName) round trip"]
            }
            let again = try encode(second)
            if again == first { return [] }
            // JSON settles after one step (-0.0 is written `-0`, read back as the integer 0).
            if format == .json, try encode(read([UInt8](again), as: format)) == again { return [] }
            return ["re-encoding the re-read \(format.displayName) document is not byte-stable"]
        } catch {
            return ["the \(format.displayName) round trip failed: \(error)"]
        }
    }

    /// Equal, except that JSON may turn an integral real into an integer (`10.0` is written `10`).
    static func equal(_ a: PlistValue, _ e: PlistValue, jsonNumbers: Bool) -> Bool {
        switch (a, e) {
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, jsonNumbers: jsonNumbers) }
        case let (.dictionary(x), .dictionary(y)):
            return x.count == y.count && y.allSatisfy { key, value in x[key].map { equal($0, value, jsonNumbers: jsonNumbers) } ?? false }
        case let (.integer(n), .real(r)) where jsonNumbers:
            return r.value == r.value.rounded() && n.doubleValue == r.value
        default:
            return a == e
        }
    }

    static func encode(_ document: PlistDocument) throws(PlistError) -> Data {
        switch document.format {
        case .binary, .xml: return try Plist.write(document)
        case .openStep: return Data(try OpenStepPlistWriter().write(document.value))
        case .json: return Data(try JSONPlistWriter(.allowsFragments).write(document.value))
        }
    }

    static func read(_ bytes: [UInt8], as format: PlistFormat) throws(PlistError) -> PlistDocument {
        let result: Result<PlistDocument, PlistError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in
                switch format {
                case .binary:
                    let (value, layout) = try BinaryPlistReader().read(raw)
                    return PlistDocument(value: value, format: .binary, layout: layout.map { .binary($0) })
                case .xml:
                    let (value, layout) = try XMLPlistReader().read(raw)
                    return PlistDocument(value: value, format: .xml, layout: layout.map { .xml($0) })
                case .openStep:
                    return PlistDocument(value: try OpenStepPlistReader().read(raw), format: .openStep)
                case .json:
                    return PlistDocument(value: try JSONPlistReader().read(raw), format: .json)
                }
            }
        }
        return try result.get()
    }
}
