import Foundation
import Testing
import Trove

/// A document with every kind of value: 300
/// records under keys that need escaping now and then, a wide array, and nested containers.
private func generatedDocument() -> PlistValue {
    var records = PlistDictionary()
    for index in 0..<300 {
        var record = PlistDictionary()
        record["name"] = .string("record \(index) \u{E9}\u{1F600}")
        record["index"] = .integer(PlistInteger(Int64(index - 100)))
        record["ratio"] = .real(PlistReal(Double(index) / 7))
        record["stamp"] = .date(PlistDate(secondsSinceReferenceDate: Double(index) * 86_400.5))
        record["blob"] = .data(Data((0..<(index % 40)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        record["flags"] = .array([.bool(index % 2 == 0), .bool(index % 3 == 0)])
        record["nested"] = .dictionary(["level": .dictionary(["deep": .string("value \(index)")])])
        records[index % 97 == 0 ? "key.with.dots \(index)" : "key \(index)"] = .dictionary(record)
    }
    return .dictionary([
        "records": .dictionary(records),
        "wide": .array((0..<2_000).map { .integer(PlistInteger(Int64($0))) }),
        "title": "generated for the lazy extract tests",
    ])
}

@Suite("trove extract and type on binary input, read lazily",
       .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct LazyExtractTests {
    /// The same document as a binary plist (read lazily) and as XML (decoded whole): every
    /// answer must be the same, byte for byte.
    @Test("binary input answers exactly as the same document in XML does")
    func binaryMatchesXML() async throws {
        let directory = try TemporaryDirectory()
        // The XML writer sorts keys; the binary file is written from the XML file's value so that
        // both hold their dictionaries in the same order (raw, JSON and binary output follow it).
        let xmlData = try Plist.write(generatedDocument(), as: .xml)
        let xml = try directory.write(xmlData, as: "big.xml")
        let binary = try directory.write(try Plist.write(try Plist.read(xmlData).value, as: .binary), as: "big.plist")
        let paths = [
            "title", "records", "wide", "wide.0", "wide.1999", "wide.2000", "wide.-1", "wide.x",
            "records.key 199", "records.key 199.name", "records.key 199.index", "records.key 199.ratio",
            "records.key 199.stamp", "records.key 199.blob", "records.key 199.flags.1",
            "records.key 199.nested.level.deep", "records.key\\.with\\.dots 194.nested", "records.key.with.dots 194",
            "records.missing", "title.0", "", "records.key 0.blob",
        ]
        var compared = 0
        for path in paths {
            let type = (try await trove("type", path, binary), try await trove("type", path, xml))
            #expect(type.0.status == type.1.status && type.0.stdout == type.1.stdout, "type \(path): \(type.0.stderrText)")
            for format in ["raw", "xml1", "json", "binary1"] {
                let ours = try await trove("extract", path, format, "-o", "-", binary)
                let reference = try await trove("extract", path, format, "-o", "-", xml)
                #expect(ours.status == reference.status, "extract \(path) \(format): \(ours.stderrText)")
                #expect(ours.stdout == reference.stdout, "extract \(path) \(format)")
                // The file name differs; the rest of the message must not.
                #expect(ours.stderrText.replacingOccurrences(of: binary, with: "F") == reference.stderrText.replacingOccurrences(of: xml, with: "F"),
                        "extract \(path) \(format): \(ours.stderrText) vs \(reference.stderrText)")
                compared += 1
            }
        }
        #expect(compared == paths.count * 4)
        let expect = try await trove("extract", "records.key 3.index", "raw", "--expect", "integer", binary)
        #expect(expect.status == 0 && expect.stdoutText == "-97\n")
        let wrong = try await trove("extract", "records.key 3", "raw", "--expect", "array", binary)
        #expect(wrong.status == 1)
        #expect(wrong.stderrText.contains("expected to be array but is dictionary"))
    }

    @Test("standard input and several files work as before")
    func standardInputAndSeveralFiles() async throws {
        let directory = try TemporaryDirectory()
        let data = try Plist.write(["a": ["b": 5]], as: .binary)
        let file = try directory.write(data, as: "small.plist")
        let piped = try await trove("type", "a.b", "-", stdin: data)
        #expect(piped.status == 0 && piped.stdoutText == "integer\n")
        let both = try await trove("type", "a", file, TestEnvironment.sample("Preferences.plist"), file)
        #expect(both.status == 1)  // the sample has no key "a"
        #expect(both.stdoutText == "dictionary\ndictionary\n")
        let missing = try await trove("type", "a", directory.path("absent.plist"))
        #expect(missing.status == 1)
        #expect(missing.stderrText.contains("cannot open for reading: No such file or directory"))
    }

    /// The lazy path reads only what it needs, so damage off the path goes unnoticed, and damage
    /// on it is reported with its byte offset.
    @Test("damage on the path is reported with its byte offset; damage elsewhere is not read")
    func damageOffThePath() async throws {
        let directory = try TemporaryDirectory()
        var bytes = [UInt8](try Plist.write(["good": "fine", "bad": [1, 2]], as: .binary))
        // Point the array's second reference past the object count.
        let value = try Plist.read(Data(bytes)).value
        #expect(value["bad"]?[1] == 2)
        let arrayMarker = try #require(bytes.firstIndex(of: 0xA2))
        bytes[arrayMarker + 2] = 0x7F
        let file = try directory.write(Data(bytes), as: "damaged.plist")
        let good = try await trove("extract", "good", "raw", file)
        #expect(good.status == 0 && good.stdoutText == "fine\n")
        let bad = try await trove("extract", "bad.1", "raw", file)
        #expect(bad.status == 1)
        #expect(bad.stderrText.contains("\(file): byte \(arrayMarker + 2): binary: reference 127 is not below the object count"), "\(bad.stderrText)")
        #expect(bad.stderrText.contains("(at key path bad.1)"))
        // Extracting a container decodes all of it, so the damage inside is found.
        let whole = try await trove("extract", "bad", "xml1", "-o", "-", file)
        #expect(whole.status == 1)
        // lint reads the whole file and always finds it.
        #expect(try await trove("lint", file).status == 1)
    }
}
