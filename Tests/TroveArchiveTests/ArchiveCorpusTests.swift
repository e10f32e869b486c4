import Foundation
import Testing
import Trove
import TroveTestSupport

/// Every keyed archive of the fixture corpus: the `keyed-archive` rows, and archives in other
/// categories (files in `large/`, and archives nested as data in preference files) that the
/// manifest's notes mention.
@Suite("Keyed archives of the fixture corpus", .enabled(if: FixtureLocation.root != nil, Comment(rawValue: FixtureLocation.unavailableReason)))
struct ArchiveCorpusTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let path: String
        let mustReject: Bool
        let notes: String
        var testDescription: String { path }
    }

    /// Rows whose file is a keyed archive: the keyed-archive category, and files elsewhere whose
    /// notes call them an NSKeyedArchiver archive and whose content is one.
    static let archiveRows: [Row] = FixtureLocation.manifestRows().compactMap { fields in
        guard let path = fields["path"], let category = fields["category"], let notes = fields["notes"] else { return nil }
        let mustReject = fields["expectation"] == "must-reject"
        if category == "keyed-archive" { return Row(path: path, mustReject: mustReject, notes: notes) }
        guard notes.contains("NSKeyedArchiver archive"), let data = contents(path),
            case .dictionary(let top)? = try? Plist.read(data).value, top["$archiver"] != nil
        else { return nil }
        return Row(path: path, mustReject: mustReject, notes: notes)
    }

    /// Files whose notes say they hold archives as data values.
    static let nestingRows: [String] = FixtureLocation.manifestRows().compactMap { fields in
        guard let path = fields["path"], let notes = fields["notes"], notes.contains("NSKeyedArchiver"),
            archiveRows.allSatisfy({ $0.path != path })
        else { return nil }
        return path
    }

    static func contents(_ path: String) -> Data? {
        FixtureLocation.root.flatMap { try? Data(contentsOf: $0.appendingPathComponent(path)) }
    }

    static func data(_ path: String) throws -> Data {
        try #require(contents(path), "cannot read \(path)")
    }

    @Test("the corpus has the archives the manifest lists")
    func inventory() {
        #expect(Self.archiveRows.count >= 60)
        #expect(Self.archiveRows.filter(\.mustReject).count == 6)
        #expect(Self.archiveRows.contains { $0.path.hasPrefix("large/") })
        #expect(Self.nestingRows.count >= 5)
    }

    @Test("every valid archive decodes (generic graph, plain value, PlistValue) and rewrites byte for byte; must-reject ones fail with a typed error", arguments: archiveRows)
    func decodesOrRejects(_ row: Row) throws {
        let data = try Self.data(row.path)
        let unarchiver = KeyedUnarchiver()
        if row.mustReject {
            let error = #expect(throws: PlistError.self) {
                let archive = try KeyedArchive(data: data)
                _ = try unarchiver.decodeGraph(from: archive)
            }
            let archiveCodes: Set<PlistError.Code> = [.archiveInvalid, .archiveBadReference, .archiveBadClass]
            #expect(error.map { archiveCodes.contains($0.code) } == true, "\(String(describing: error))")
            return
        }
        let archive = try KeyedArchive(data: data)
        #expect(try archive.write() == data)
        let graph = try unarchiver.decodeGraph(from: archive)
        #expect(graph.topLevel.map(\.key) == archive.topLevel.map(\.key))
        _ = try unarchiver.plainValue(of: archive, options: ArchivePlainOptions(decodesNestedArchives: true))
        for entry in archive.topLevel {
            _ = try unarchiver.decode(PlistValue.self, from: archive, forKey: entry.key)
        }
        // The generic graph archives again and decodes to an equivalent graph.
        let objects = graph.topLevel.compactMap { entry -> (String, ArchivedObject)? in
            if case .object(let object) = entry.value { return (entry.key, object) }
            return nil
        }
        if !objects.isEmpty {
            let again = try KeyedArchiver().archive(topLevel: objects.map { ($0.0, $0.1 as any ArchiveRepresentable) })
            let reread = try unarchiver.decodeGraph(from: KeyedArchive(data: again))
            for ((key, original), entry) in zip(objects, reread.topLevel) {
                guard case .object(let copy) = entry.value else {
                    Issue.record("\(key) is no longer an object")
                    continue
                }
                #expect(original.isEquivalent(to: copy), "\(key)")
            }
        }
    }

    /// The outcome of a decode, comparable: the value, or the error's code.
    static func outcome<T>(_ body: () throws -> T) -> Result<T, PlistError> {
        do { return .success(try body()) } catch let error as PlistError { return .failure(error) } catch {
            return .failure(PlistError(.init("not a PlistError: \(error)"), "\(error)"))
        }
    }

    @Test("a binary archive read in place decodes as the archive read whole does: same values, same errors", arguments: archiveRows)
    func inPlaceAgreesWithWhole(_ row: Row) throws {
        let data = try Self.data(row.path)
        guard data.starts(with: "bplist".utf8) else { return }
        let unarchiver = KeyedUnarchiver()
        guard let archive = try? KeyedArchive(data: data) else {
            #expect(row.mustReject, "\(row.path) does not read whole")
            #expect(throws: PlistError.self) { try unarchiver.decode(PlistValue.self, from: data) }
            return
        }
        for entry in archive.topLevel {
            let inPlace = Self.outcome { try unarchiver.decode(PlistValue.self, from: data, forKey: entry.key) }
            let whole = Self.outcome { try unarchiver.decode(PlistValue.self, from: archive, forKey: entry.key) }
            switch (inPlace, whole) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(entry.key)")
            case (.failure(let a), .failure(let b)): #expect(a.code == b.code && a.message == b.message, "\(entry.key): \(a) vs \(b)")
            default: Issue.record("\(entry.key): in place \(inPlace), whole \(whole)")
            }
            let graphInPlace = Self.outcome { try unarchiver.decode(ArchivedObject.self, from: data, forKey: entry.key) }
            let graphWhole = Self.outcome { try unarchiver.decode(ArchivedObject.self, from: archive, forKey: entry.key) }
            switch (graphInPlace, graphWhole) {
            case (.success(let a), .success(let b)): #expect(a.isEquivalent(to: b), "\(entry.key)")
            case (.failure(let a), .failure(let b)): #expect(a.code == b.code && a.message == b.message, "\(entry.key): \(a) vs \(b)")
            default: Issue.record("\(entry.key) as a graph: in place \(graphInPlace), whole \(graphWhole)")
            }
        }
    }

    @Test("archives nested as data in preference files decode")
    func nestedArchives() throws {
        var found = 0
        for path in Self.nestingRows {
            let document = try Plist.read(try Self.data(path))
            var pending = [document.value]
            while let value = pending.popLast() {
                switch value {
                case .array(let elements): pending += elements
                case .dictionary(let entries): pending += entries.values
                case .data(let bytes) where bytes.starts(with: Array("bplist00".utf8)):
                    guard let archive = try? KeyedArchive(data: bytes) else { continue }
                    _ = try KeyedUnarchiver().plainValue(of: archive, options: ArchivePlainOptions(decodesNestedArchives: true))
                    found += 1
                default: break
                }
            }
        }
        #expect(found >= 25)
    }

    // MARK: - Values the notes assert

    /// bpylist2's `crap.Foo`, read as a Codable struct whose coding keys are the object's keys.
    struct Foo: Decodable {
        var title: String?
        var count: Int?
        var active: Bool?
        var categories: [String]?
        var metadata: [String: String]?
        var stamp: Date?
        var empty: String?
    }

    @Test("bpylist2 archives: the values its tests assert, read into a Codable struct")
    func bpylist2Values() throws {
        let unarchiver = KeyedUnarchiver()
        let simple = try unarchiver.decodeCodable(Foo.self, from: try Self.data("keyed-archive/bpylist2-simple_archive.plist"))
        #expect(simple.title == "yo" && simple.count == 42 && simple.active == true)
        let complex = try unarchiver.decodeCodable(Foo.self, from: try Self.data("keyed-archive/bpylist2-complex_archive.plist"))
        #expect(complex.categories == ["banana", "apple"])
        #expect(complex.metadata == ["fruit": "kiwi", "veg": "asparagus"])
        let dated = try unarchiver.decodeCodable(Foo.self, from: try Self.data("keyed-archive/bpylist2-date_archive.plist"))
        #expect(dated.stamp == Date(timeIntervalSinceReferenceDate: 509_523_358.684097))
        let empty = try unarchiver.decodeCodable(Foo.self, from: try Self.data("keyed-archive/bpylist2-empty_archive.plist"))
        #expect(empty.title == nil && empty.count == nil && empty.stamp == nil)
        let null = try unarchiver.decodeCodable(Foo.self, from: try Self.data("keyed-archive/bpylist2-null_archive.plist"))
        #expect(null.empty == nil)
        let dataArchive = try KeyedArchive(data: try Self.data("keyed-archive/bpylist2-data_archive.plist"))
        #expect(try unarchiver.plainValue(of: dataArchive)["stamp"] == .data(Data()))
        let mutableData = try unarchiver.decode(Data.self, from: try Self.data("keyed-archive/bpylist2-nsmutabledata_archive.plist"))
        #expect(mutableData == Data("hello".utf8))
        struct Dataclass: Decodable {
            var int_field: Int
            var str_field: String
            var float_field: Double
            var list_field: [String]
        }
        let dataclass = try unarchiver.decodeCodable(Dataclass.self, from: try Self.data("keyed-archive/bpylist2-dataclass_archive.plist"))
        #expect(dataclass.int_field == 5 && dataclass.str_field == "hello" && dataclass.float_field == 3.15)
        #expect(dataclass.list_field == ["foo", "bar", "baz"])
    }

    @Test("bpylist2's invalid archives fail with the code for what is wrong")
    func bpylist2Rejections() throws {
        let cases: [(String, PlistError.Code)] = [
            ("bpylist2-invalid_uid_archive.plist", .archiveBadReference),
            ("bpylist2-invalid_version_archive.plist", .archiveInvalid),
            ("bpylist2-missing_uid_archive.plist", .archiveBadClass),
            ("bpylist2-no_class_meta_archive.plist", .archiveBadClass),
            ("bpylist2-no_objects_archive.plist", .archiveInvalid),
            ("bpylist2-no_top_archive.plist", .archiveInvalid),
        ]
        for (name, code) in cases {
            let data = try Self.data("keyed-archive/" + name)
            let error = #expect(throws: PlistError.self, "\(name)") {
                _ = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: data))
            }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
        }
    }

    @Test("swift-corelibs-foundation's archives: the values its tests assert")
    func corelibsValues() throws {
        let unarchiver = KeyedUnarchiver()
        #expect(try unarchiver.decode([String].self, from: Self.data("keyed-archive/scf-NSKeyedUnarchiver-ArrayTest.plist"))
            == ["baa", "baa", "black", "sheep"])
        #expect(try unarchiver.decode([String].self, from: Self.data("keyed-archive/scf-NSKeyedUnarchiver-OrderedSetTest.plist"))
            == ["valgeir", "nico", "puzzle"])
        let range = try unarchiver.decode(NSRange.self, from: Self.data("keyed-archive/scf-NSKeyedUnarchiver-RangeTest.plist"))
        #expect(range.location == 97345 && range.length == 98345)
        let url = try unarchiver.decode(URL.self, from: Self.data("keyed-archive/scf-NSKeyedUnarchiver-URLTest.plist"))
        #expect(url.relativeString == "foo.xml" && url.baseURL?.absoluteString == "https://www.example.com")
        #expect(url.absoluteString == "https://www.example.com/foo.xml")
        #expect(try unarchiver.decode(UUID.self, from: Self.data("keyed-archive/scf-NSKeyedUnarchiver-UUIDTest.plist"))
            == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))

        // ComplexTest, in secure mode with the classes its test allows.
        var secure = KeyedUnarchiver()
        secure.allowedClasses = ["NSDictionary", "NSArray", "NSURL", "NSUUID", "NSNull"]
        let complexData = try Self.data("keyed-archive/scf-NSKeyedUnarchiver-ComplexTest.plist")
        let complex = try secure.decode(PlistValue.self, from: complexData)
        #expect(complex["uuid"] == "71DC068E-3420-45FF-919E-3A267D55EC22")
        #expect(complex["url"] == "https://www.swift.org/index.xml")
        #expect(complex["string"] == "hello")
        #expect(complex["array"] == [["$class": "NSNull"], "hello", 34545, ["key": "val"]])
        secure.allowedClasses = ["NSDictionary", "NSArray"]
        let refused = #expect(throws: PlistError.self) { try secure.decode(PlistValue.self, from: complexData) }
        #expect(refused?.code == .archiveClassNotAllowed)

        // NSValue holding a C array: no Swift type, decoded generically with its class chain.
        let concrete = try KeyedArchive(data: Self.data("keyed-archive/scf-NSKeyedUnarchiver-ConcreteValueTest.plist"))
        let concreteGraph = try unarchiver.decodeGraph(from: concrete)
        guard case .object(let value)? = concreteGraph.root else {
            Issue.record("the root is not an object")
            return
        }
        #expect(value.className == "NSValue")
        guard case .object(let array)? = value["$1"] else {
            Issue.record("$1 is not the old-style array")
            return
        }
        #expect(array.className == "_NSKeyedCoderOldStyleArray")
        #expect(array["$0"].map { if case .value(let v) = $0 { v == 1 } else { false } } == true)

        #expect(try unarchiver.decode(Set<Int>.self, from: Self.data("keyed-archive/scf-macOS-10.14-NSSet-Numbers.archive")) == [1, 2, 3, 4, 5])
        #expect(try unarchiver.decode([Int].self, from: Self.data("keyed-archive/scf-macOS-10.14-NSOrderedSet-Numbers.archive")) == [1, 2, 3, 4, 5])
        #expect(try unarchiver.decode(Set<Int>.self, from: Self.data("keyed-archive/scf-macOS-10.14-NSMutableSet-Empty.archive")).isEmpty)
        #expect(try unarchiver.decode(String.self, from: Self.data("keyed-archive/cpython-KEYED_ARCHIVE.plist")) == "KeyArchive UID Test")
    }

    @Test("Apple application archives: top-level keys and object counts the notes give")
    func applicationArchives() throws {
        let nib = try KeyedArchive(data: Self.data("keyed-archive/nib-GoogleSoftwareUpdate-UpdateWindow.nib"))
        #expect(Set(nib.topLevel.map(\.key)) == ["IB.objectdata", "IB.systemFontUpdateVersion"])
        #expect(nib.objects.count == 541)
        let columns = try KeyedArchive(data: Self.data("keyed-archive/prefs-nested-ActivityMonitor-TableColumns.bplist"))
        #expect(columns.topLevel.map(\.key) == ["Array"])
        let array = try KeyedUnarchiver().decode([PlistValue].self, from: columns, forKey: "Array")
        #expect(!array.isEmpty && array.allSatisfy { $0.dictionaryValue != nil })
        let state = try KeyedArchive(data: Self.data("keyed-archive/xcode-Candy-UserInterfaceState.xcuserstate"))
        #expect(state.topLevel.map(\.key) == ["State"])
        #expect(state.objects.count == 1001)
        let favorites = try KeyedUnarchiver().decode(
            PlistValue.self, from: Self.data("keyed-archive/sfl2-LSSharedFileList.FavoriteItems.sfl2"))
        #expect(favorites["items"]?.arrayValue?.count == 6)
        #expect(favorites["items"]?[0]?["Bookmark"]?.dataValue != nil)
        let migration = try KeyedUnarchiver().decode(
            PlistValue.self, from: Self.data("keyed-archive/prefs-nested-SpeakSelection-TTSCachedIsMigrationComplete.bplist"))
        #expect(migration.kind == .bool || migration.kind == .integer)
    }
}
