import Foundation
import Testing
import Trove
import TroveTestSupport

@Suite("trove archive", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct ArchiveCommandTests {
    static func fixture(_ name: String) -> String? {
        TestEnvironment.fixtures?.appendingPathComponent("keyed-archive/" + name).path
    }

    /// An archive of a small graph with a shared dictionary, made by Foundation.
    static func foundationArchive() throws -> Data {
        let shared: NSDictionary = ["k": "v"]
        let root: NSDictionary = ["first": shared, "second": shared, "list": [1, "two", Date(timeIntervalSinceReferenceDate: 0)] as NSArray]
        return try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
    }

    @Test("print shows classes and keys, a shared object once with a mark, and its later uses by the mark")
    func printGraph() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Self.foundationArchive(), as: "graph.archive")
        let result = try await trove("archive", "print", path)
        #expect(result.status == 0, "\(result.stderrText)")
        let text = result.stdoutText
        #expect(text.hasPrefix("root = #1 NSDictionary (3) {"))
        #expect(text.contains("NSDate 2001-01-01T00:00:00Z"))
        // The shared dictionary: printed in full once, referred to by its mark the second time.
        let marks = text.components(separatedBy: "NSDictionary (1) {").count - 1
        #expect(marks == 1)
        #expect(text.range(of: #"-> #\d+ NSDictionary"#, options: .regularExpression) != nil)
    }

    @Test("print shows a cycle, and an archive that cannot be unarchived prints the error and exits 1")
    func printCycleAndErrors() async throws {
        let directory = try TemporaryDirectory()
        let node = ArchivedObject(classRecord: ArchiveClassRecord(name: "Node", chain: ["Node", "NSObject"]))
        node["self"] = .object(node)
        node["name"] = .inline("loop")
        let path = try directory.write(try KeyedArchiver().archive(node), as: "cycle.archive")
        node["self"] = nil
        let cycle = try await trove("archive", "print", path)
        #expect(cycle.status == 0)
        #expect(cycle.stdoutText.contains("self = -> #1 Node (cycle)"))
        #expect(cycle.stdoutText.contains("name = \"loop\""))

        let notAnArchive = try await trove("archive", "print", TestEnvironment.sample("Preferences.plist"))
        #expect(notAnArchive.status == 1)
        #expect(notAnArchive.stderrText.contains("$archiver is missing"))
        if let invalid = Self.fixture("bpylist2-invalid_uid_archive.plist") {
            let result = try await trove("archive", "print", invalid)
            #expect(result.status == 1)
            #expect(result.stderrText.contains("past the 3 entries of $objects"))
        }
    }

    @Test("print --allow decodes securely: a class outside the list is an error naming it")
    func printSecure() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Self.foundationArchive(), as: "graph.archive")
        let refused = try await trove("archive", "print", "--allow", "NSDictionary", path)
        #expect(refused.status == 1)
        #expect(refused.stderrText.contains("class NSArray is not among the allowed classes"))
        let allowed = try await trove("archive", "print", "--allow", "NSDictionary,NSArray,NSDate", path)
        #expect(allowed.status == 0, "\(allowed.stderrText)")
    }

    @Test("decode --allow decodes securely too: a class outside the list is one error line naming it and its key path, and nothing is written")
    func decodeSecure() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Self.foundationArchive(), as: "graph.archive")
        let out = directory.path("plain.plist")
        let refused = try await trove("archive", "decode", "--allow", "NSDictionary,NSArray", "-o", out, path)
        #expect(refused.status == 1)
        #expect(refused.stderrText.contains("class NSDate is not among the allowed classes"), "\(refused.stderrText)")
        #expect(refused.stderrText.contains("list.2"), "\(refused.stderrText)")
        #expect(try directory.contents() == ["graph.archive"])
        let allowed = try await trove("archive", "decode", "--allow", "NSDictionary,NSArray,NSDate", "-o", out, path)
        #expect(allowed.status == 0, "\(allowed.stderrText)")
        #expect(try Plist.read(try bytes(of: out)).value["first"] == ["k": "v"])
    }

    @Test("decode writes the plain property list, in the format asked for, atomically with -o")
    func decode() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Self.foundationArchive(), as: "graph.archive")
        let out = directory.path("plain.plist")
        let result = try await trove("archive", "decode", "--format", "binary1", "-o", out, path)
        #expect(result.status == 0, "\(result.stderrText)")
        let value = try Plist.read(try bytes(of: out))
        #expect(value.format == .binary)
        #expect(value.value["first"] == ["k": "v"])
        #expect(value.value["second"] == ["k": "v"])
        #expect(value.value["list"] == [1, "two", .date(PlistDate(secondsSinceReferenceDate: 0))])
        #expect(try directory.contents() == ["graph.archive", "plain.plist"])  // no temporary left

        if let custom = Self.fixture("bpylist2-complex_archive.plist") {
            let json = try await trove("archive", "decode", "-f", "json", custom)
            #expect(json.status == 0)
            let parsed = try Plist.read(json.stdout).value
            #expect(parsed["$class"] == "crap.Foo")
            #expect(parsed["categories"] == ["banana", "apple"])
        }
    }

    @Test("decode --nested also decodes archives stored as data")
    func decodeNested() async throws {
        let inner = try NSKeyedArchiver.archivedData(withRootObject: ["deep": "value"] as NSDictionary, requiringSecureCoding: false)
        let outer = try NSKeyedArchiver.archivedData(withRootObject: ["blob": inner] as NSDictionary, requiringSecureCoding: false)
        let directory = try TemporaryDirectory()
        let path = try directory.write(outer, as: "outer.archive")
        let flat = try Plist.read(try await trove("archive", "decode", path).stdout).value
        #expect(flat["blob"]?.dataValue == inner)
        let nested = try Plist.read(try await trove("archive", "decode", "--nested", path).stdout).value
        #expect(nested["blob"] == ["deep": "value"])
    }

    @Test("encode archives a plain plist as Foundation archives the same graph: Foundation reads it, and its $objects are Foundation's")
    func encode() async throws {
        let directory = try TemporaryDirectory()
        let graph: NSDictionary = [
            "name": "Ann", "tags": ["a", "b", "a"] as NSArray, "count": 3, "ratio": 0.5,
            "when": Date(timeIntervalSinceReferenceDate: 12.5), "bytes": Data([1, 2]), "nested": ["x": ["y": 1] as NSDictionary] as NSDictionary,
        ]
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: graph, requiringSecureCoding: false)
        // The plain plist, keys in the order Foundation archived them, so the two tables line up.
        let plain = try KeyedUnarchiver().decode(PlistValue.self, from: theirs)
        let input = try directory.write(try Plist.write(plain, as: .binary), as: "plain.plist")  // binary keeps key order and exact dates
        for (format, expected) in [("binary1", PlistFormat.binary), ("xml1", .xml)] {
            let out = directory.path("out-\(format)")
            let result = try await trove("archive", "encode", "--format", format, "-o", out, input)
            #expect(result.status == 0, "\(result.stderrText)")
            let ours = try bytes(of: out)
            #expect(ours.withUnsafeBytes { PlistFormat.detect($0) } == expected)
            #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: theirs).objects)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: ours)
            unarchiver.requiresSecureCoding = false
            let decoded = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary
            #expect(decoded == graph)
        }
        let bad = try await trove("archive", "encode", "--format", "json", input)
        #expect(bad.status == 64)
    }
}

@Suite("trove archive over the corpus", .enabled(if: TestEnvironment.hasTrove && TestEnvironment.fixtures != nil, "the trove executable or the corpus is missing"))
struct ArchiveCommandCorpusTests {
    static let rows: [(path: String, mustReject: Bool)] = FixtureLocation.manifestRows().compactMap { fields in
        guard fields["category"] == "keyed-archive", let path = fields["path"] else { return nil }
        return (path, fields["expectation"] == "must-reject")
    }

    @Test("every keyed archive of the corpus prints and decodes (exit 0); must-reject ones exit 1 with one error line")
    func everyArchive() async throws {
        let root = try #require(TestEnvironment.fixtures)
        #expect(Self.rows.count >= 59)
        for row in Self.rows {
            let path = root.appendingPathComponent(row.path).path
            let printed = try await trove("archive", "print", path)
            let decoded = try await trove("archive", "decode", "-f", "binary1", path)
            if row.mustReject {
                #expect(printed.status == 1, "\(row.path)")
                #expect(printed.stderrText.split(separator: "\n").count == 1, "\(row.path): \(printed.stderrText)")
                #expect(decoded.status == 1, "\(row.path)")
            } else {
                #expect(printed.status == 0, "\(row.path): \(printed.stderrText)")
                #expect(!printed.stdout.isEmpty)
                #expect(decoded.status == 0, "\(row.path): \(decoded.stderrText)")
                #expect((try? Plist.read(decoded.stdout)) != nil, "\(row.path)")
            }
        }
    }
}
