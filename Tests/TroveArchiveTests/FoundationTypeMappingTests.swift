import Foundation
import Testing
import Trove
import TroveTestSupport

/// `NSOrderedSet`, `NSIndexSet` and `NSAttributedString` (and their mutable subclasses) as Swift
/// values: round trips, the keys written, malformed input, and the corpus archives that hold them.
@Suite("Ordered sets, index sets and attributed strings in keyed archives")
struct FoundationTypeMappingTests {
    // MARK: - Helpers

    /// The archive of `objects` with `root` as its root: a crafted archive for a malformed case.
    static func archive(root: Int, _ objects: [PlistValue]) throws -> KeyedArchive {
        try KeyedArchive(value: [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(UInt64(root))],
            "$objects": .array([.string("$null")] + objects),
        ])
    }

    /// The same archive with entry `entry` as its root, to decode one object deep inside it.
    static func rerooted(_ archive: KeyedArchive, at entry: Int) throws -> KeyedArchive {
        try KeyedArchive(value: [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(UInt64(entry))],
            "$objects": .array(archive.objects),
        ])
    }

    /// The entries of `archive` whose class is `className`.
    static func entries(of className: String, in archive: KeyedArchive) -> [Int] {
        archive.objects.indices.filter { index in
            guard case .uid(let record)? = archive.objects[index]["$class"] else { return false }
            return archive.objects[Int(record)]["$classname"] == .string(className)
        }
    }

    static let corpusAvailable = FixtureLocation.root != nil

    // MARK: - Ordered sets

    @Test("an ordered set keeps order, drops repeats, writes NS.object.N and its class, and decodes back (also as an array)")
    func orderedSetRoundTrip() throws {
        var set: ArchivedOrderedSet = ["b", "a", "b", "c"]
        #expect(Array(set) == ["b", "a", "c"])
        #expect(set.append("a") == false && set.append("d"))
        #expect(set.contains("d") && set.count == 4)
        for format in [PlistFormat.binary, .xml] {
            for isMutable in [false, true] {
                set.isMutable = isMutable
                let data = try KeyedArchiver(outputFormat: format).archive(set)
                let back = try KeyedUnarchiver().decode(ArchivedOrderedSet<String>.self, from: data)
                #expect(back.elements == ["b", "a", "c", "d"] && back.isMutable == isMutable)
                #expect(try KeyedUnarchiver().decode([String].self, from: data) == ["b", "a", "c", "d"])
                let root = try KeyedArchive(data: data).objects[1]
                #expect(root["NS.object.0"] != nil && root["NS.object.3"] != nil && root["NS.objects"] == nil)
                #expect(try KeyedUnarchiver().plainValue(of: KeyedArchive(data: data)) == ["b", "a", "c", "d"])
            }
        }
        // Equality is by elements, whichever class, as isEqual: compares.
        #expect(ArchivedOrderedSet([1, 2], isMutable: true) == ArchivedOrderedSet([1, 2]))
        #expect(ArchivedOrderedSet([1, 2]) != ArchivedOrderedSet([2, 1]))
    }

    @Test("an ordered set stored as NS.objects reads too, and its repeats are dropped as NSOrderedSet(array:) drops them")
    func orderedSetFromObjectsArray() throws {
        let archive = try Self.archive(root: 1, [
            ["NS.objects": [.uid(3), .uid(4), .uid(3)], "$class": .uid(2)],
            ["$classname": "NSMutableOrderedSet", "$classes": ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]],
            "x", "y",
        ])
        let set = try KeyedUnarchiver().decode(ArchivedOrderedSet<String>.self, from: archive)
        #expect(set.elements == ["x", "y"] && set.isMutable)
        // A wrong element type names the element's place.
        let error = #expect(throws: PlistError.self) { try KeyedUnarchiver().decode(ArchivedOrderedSet<Int>.self, from: archive) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == PlistKeyPath(components: ["root", "NS.objects", 0]))
    }

    @Test("an ordered set inside a Codable model archives as NSOrderedSet and decodes back")
    func orderedSetInCodable() throws {
        struct Playlist: Codable, Equatable {
            var name: String
            var tracks: ArchivedOrderedSet<String>
        }
        let playlist = Playlist(name: "mix", tracks: ["one", "two"])
        let data = try KeyedArchiver().archive(codable: playlist)
        #expect(try KeyedUnarchiver().decodeCodable(Playlist.self, from: data) == playlist)
        #expect(Self.entries(of: "NSOrderedSet", in: try KeyedArchive(data: data)).count == 1)
        // Through another Codable coder it is a plain array.
        let json = try JSONEncoder().encode(playlist)
        #expect(try JSONDecoder().decode(Playlist.self, from: json) == playlist)
    }

    @Test("the corpus's ordered sets decode to their elements, and ours of the same value has the same object table",
          .enabled(if: corpusAvailable))
    func orderedSetCorpus() throws {
        let numbersData = try ArchiveCorpusTests.data("keyed-archive/scf-macOS-10.14-NSOrderedSet-Numbers.archive")
        let numbers = try KeyedUnarchiver().decode(ArchivedOrderedSet<Int>.self, from: numbersData)
        #expect(numbers.elements == [1, 2, 3, 4, 5] && !numbers.isMutable)
        let ours = try KeyedArchiver().archive(numbers)
        #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: numbersData).objects)

        let namesData = try ArchiveCorpusTests.data("keyed-archive/scf-NSKeyedUnarchiver-OrderedSetTest.plist")
        let names = try KeyedUnarchiver().decode(ArchivedOrderedSet<String>.self, from: namesData)
        #expect(names.elements == ["valgeir", "nico", "puzzle"])
        #expect(try KeyedArchive(data: KeyedArchiver().archive(names)).objects == KeyedArchive(data: namesData).objects)
    }

    // MARK: - Every archive of the corpus

    /// Decodes `archive`'s root as `T`; when it decodes, archives it again and decodes that to an
    /// equal value (the property the archive fuzz target checks). Refusals must be `PlistError`s.
    static func checkTyped<T: ArchiveRepresentable & Equatable>(_ type: T.Type, _ archive: KeyedArchive, _ label: String) -> Bool {
        do {
            let value = try KeyedUnarchiver().decode(T.self, from: archive)
            let again = try KeyedUnarchiver().decode(T.self, from: KeyedArchiver().archive(value))
            #expect(again == value, "\(label): \(T.self) archived again decodes differently")
            return true
        } catch {
            #expect(error is PlistError, "\(label): \(error)")
            return false
        }
    }

    @Test("every corpus archive: its root and every ordered set, index set and attributed string in it decode as the typed values or fail typed, and what decodes round-trips",
          .enabled(if: corpusAvailable), arguments: ArchiveCorpusTests.archiveRows.filter { !$0.mustReject })
    func corpusTypedValues(_ row: ArchiveCorpusTests.Row) throws {
        let archive = try KeyedArchive(data: ArchiveCorpusTests.data(row.path))
        _ = Self.checkTyped(IndexSet.self, archive, row.path)
        _ = Self.checkTyped(ArchivedOrderedSet<String>.self, archive, row.path)
        _ = Self.checkTyped(ArchivedAttributedString<String>.self, archive, row.path)
        let classes = ["NSIndexSet", "NSMutableIndexSet", "NSOrderedSet", "NSMutableOrderedSet", "NSAttributedString", "NSMutableAttributedString"]
        for className in classes {
            for entry in Self.entries(of: className, in: archive) {
                let rerooted = try Self.rerooted(archive, at: entry)
                let label = "\(row.path) entry \(entry)"
                let decoded: Bool
                switch className {
                case "NSIndexSet", "NSMutableIndexSet": decoded = Self.checkTyped(ArchivedIndexSet.self, rerooted, label)
                case "NSOrderedSet", "NSMutableOrderedSet": decoded = Self.checkTyped(ArchivedOrderedSet<PlistValue>.self, rerooted, label)
                default:
                    decoded = (try? KeyedUnarchiver().decode(ArchivedAttributedString<ArchiveField>.self, from: rerooted)) != nil
                }
                #expect(decoded, "\(label): a \(className) of the corpus does not decode")
            }
        }
    }

    // MARK: - Index sets

    static let manyRanges: IndexSet = {
        var set = IndexSet(integersIn: 0..<50)
        set.insert(integersIn: 100..<150)
        set.insert(integersIn: 1000..<1050)
        set.insert(integersIn: (Int.max - 50)..<Int.max)
        return set
    }()

    @Test("index sets with no, one and many ranges round-trip, as NSIndexSet or NSMutableIndexSet", arguments: [
        IndexSet(), IndexSet(integer: 7), IndexSet(integersIn: 0..<50), IndexSet([1, 2, 3, 9, 200, 201]), manyRanges,
    ])
    func indexSetRoundTrip(_ indexes: IndexSet) throws {
        for isMutable in [false, true] {
            let data = try KeyedArchiver().archive(ArchivedIndexSet(indexes, isMutable: isMutable))
            let back = try KeyedUnarchiver().decode(ArchivedIndexSet.self, from: data)
            #expect(back.indexes == indexes && back.isMutable == isMutable)
            #expect(try KeyedUnarchiver().decode(IndexSet.self, from: data) == indexes)
            let root = try KeyedArchive(data: data).objects[1]
            #expect(root["NSRangeCount"] == .integer(PlistInteger(indexes.rangeView.count)))
            #expect((root["NSLocation"] != nil) == (indexes.rangeView.count == 1))
            #expect((root["NSRangeData"] != nil) == (indexes.rangeView.count > 1))
        }
        #expect(try KeyedUnarchiver().decode(IndexSet.self, from: KeyedArchiver().archive(indexes)) == indexes)
    }

    @Test("the corpus's six index sets decode to the ranges their notes give, and ours have the same object tables",
          .enabled(if: corpusAvailable))
    func indexSetCorpus() throws {
        let cases: [(String, IndexSet)] = [
            ("Empty", IndexSet()), ("OneRange", IndexSet(integersIn: 0..<50)), ("ManyRanges", Self.manyRanges),
        ]
        for (name, expected) in cases {
            for isMutable in [false, true] {
                let path = "keyed-archive/scf-macOS-10.14-\(isMutable ? "NSMutableIndexSet" : "NSIndexSet")-\(name).archive"
                let data = try ArchiveCorpusTests.data(path)
                let decoded = try KeyedUnarchiver().decode(ArchivedIndexSet.self, from: data)
                #expect(decoded.indexes == expected, "\(path)")
                #expect(decoded.isMutable == isMutable, "\(path)")
                let ours = try KeyedArchiver().archive(decoded)
                #expect(try KeyedArchive(data: ours).objects == KeyedArchive(data: data).objects, "\(path)")
            }
        }
        // Xcode's state file holds empty index sets inside its dictionaries.
        let state = try KeyedArchive(data: ArchiveCorpusTests.data("large/xcode-Candy_Samples-UserInterfaceState.xcuserstate"))
        let sets = Self.entries(of: "NSIndexSet", in: state) + Self.entries(of: "NSMutableIndexSet", in: state)
        #expect(sets.count == 2)
        for entry in sets {
            #expect(try KeyedUnarchiver().decode(IndexSet.self, from: Self.rerooted(state, at: entry)).isEmpty)
        }
    }

    @Test("secure decoding: allowing NSIndexSet is enough (its range data is allowed with it); not allowing it is refused",
          .enabled(if: corpusAvailable))
    func indexSetSecure() throws {
        let data = try ArchiveCorpusTests.data("keyed-archive/scf-macOS-10.14-NSMutableIndexSet-ManyRanges.archive")
        var unarchiver = KeyedUnarchiver(allowedClasses: ["NSIndexSet"])
        #expect(try unarchiver.decode(IndexSet.self, from: data) == Self.manyRanges)
        unarchiver.allowedClasses = ["NSArray"]
        let error = #expect(throws: PlistError.self) { try unarchiver.decode(IndexSet.self, from: data) }
        #expect(error?.code == .archiveClassNotAllowed)
        #expect(error?.message.contains("NSMutableIndexSet") == true)
        // The allowance lasts while the index set reads its range data: an NSMutableData met
        // after it, outside an index set, is still refused.
        let pair = try Self.archive(root: 1, [
            ["set": .uid(2), "data": .uid(5), "$class": .uid(6)],
            ["NSRangeCount": 2, "NSRangeData": .uid(3), "$class": .uid(4)],
            ["NS.data": .data(Data([0, 1, 5, 1])), "$class": .uid(7)],
            Self.indexSetClass,
            ["NS.data": .data(Data([9])), "$class": .uid(7)],
            ["$classname": "Pair", "$classes": ["Pair", "NSObject"]],
            ["$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]],
        ])
        unarchiver.allowedClasses = ["Pair", "NSIndexSet"]
        let refused = #expect(throws: PlistError.self) { try unarchiver.decode(Pair.self, from: pair) }
        #expect(refused?.code == .archiveClassNotAllowed)
        #expect(refused?.keyPath?.description == "root.data")
        unarchiver.allowedClasses = ["Pair", "NSIndexSet", "NSData"]
        let decoded = try unarchiver.decode(Pair.self, from: pair)
        #expect(decoded.set == IndexSet([0, 5]) && decoded.data == Data([9]))
    }

    struct Pair: KeyedArchivable {
        static let archiveClassName = "Pair"
        var set: IndexSet
        var data: Data
        init(from decoder: ArchiveDecoder) throws {
            set = try decoder.decode(IndexSet.self, forKey: "set")
            data = try decoder.decode(Data.self, forKey: "data")
        }
        func encode(to encoder: ArchiveEncoder) throws {
            try encoder.encode(set, forKey: "set")
            try encoder.encode(data, forKey: "data")
        }
    }

    static let indexSetClass: PlistValue = ["$classname": "NSIndexSet", "$classes": ["NSIndexSet", "NSObject"]]

    @Test("malformed index sets are typed errors naming the class and the key")
    func indexSetErrors() throws {
        func object(_ fields: PlistDictionary) -> [PlistValue] {
            var fields = fields
            fields.updateValue(.uid(2), forKey: "$class")
            return [.dictionary(fields), Self.indexSetClass]
        }
        let manyBytes: [UInt8] = [0, 1] + Array(repeating: 0xff, count: 10) + [0x7f, 1]
        let cases: [(String, [PlistValue], PlistError.Code, String)] = [
            ("negative count", object(["NSRangeCount": -1]), .typeMismatch, "root"),
            ("negative length", object(["NSRangeCount": 1, "NSLocation": 3, "NSLength": -2]), .typeMismatch, "root"),
            ("range past Int.max", object(["NSRangeCount": 1, "NSLocation": .integer(PlistInteger(Int.max)), "NSLength": 2]), .typeMismatch, "root"),
            ("no range data", object(["NSRangeCount": 2]), .archiveMissingKey, "root"),
            ("count and data disagree", object(["NSRangeCount": 3, "NSRangeData": .data(Data([0, 1, 5, 1]))]), .typeMismatch, "root"),
            ("a huge count", object(["NSRangeCount": .integer(PlistInteger(Int.max)), "NSRangeData": .data(Data([0, 1, 5, 1]))]), .typeMismatch, "root"),
            ("an odd number of integers", object(["NSRangeCount": 2, "NSRangeData": .data(Data([0, 1, 5, 1, 9]))]), .typeMismatch, "root"),
            ("cut-off integer", object(["NSRangeCount": 2, "NSRangeData": .data(Data([0, 1, 5, 0x81]))]), .typeMismatch, "root"),
            ("integer past 64 bits", object(["NSRangeCount": 2, "NSRangeData": .data(Data(manyBytes))]), .typeMismatch, "root"),
            ("range data a string", object(["NSRangeCount": 2, "NSRangeData": "nope"]), .typeMismatch, "root.NSRangeData"),
            ("count a string", object(["NSRangeCount": "two"]), .typeMismatch, "root.NSRangeCount"),
            ("an array, not an index set",
             [["NS.objects": [], "$class": .uid(2)], ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]]], .typeMismatch, "root"),
        ]
        for (name, objects, code, path) in cases {
            let archive = try Self.archive(root: 1, objects)
            let error = #expect(throws: PlistError.self, "\(name)") { try KeyedUnarchiver().decode(IndexSet.self, from: archive) }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
            #expect(error?.keyPath?.description == path, "\(name): \(String(describing: error))")
            if path == "root" {
                #expect(error?.message.contains(name.hasPrefix("an array") ? "NSArray" : "NSIndexSet") == true, "\(name): \(String(describing: error))")
            }
        }
        // Range data stored in place (as Foundation on Linux writes it) reads, and an unsorted list is normalized.
        let inPlace = try Self.archive(root: 1, [["NSRangeCount": 2, "NSRangeData": .data(Data([10, 2, 0, 3])), "$class": .uid(2)], Self.indexSetClass])
        #expect(try KeyedUnarchiver().decode(IndexSet.self, from: inPlace) == IndexSet([0, 1, 2, 10, 11]))
    }

    // MARK: - Attributed strings

    typealias Text = ArchivedAttributedString<PlistValue>

    static let styled = Text("héllo wörld 👋", runs: [
        .init(length: 5, attributes: ["bold": true]), .init(length: 1), .init(length: 5, attributes: ["link": "https://example.com", "size": 12]),
        .init(length: 1), .init(length: 2, attributes: ["bold": true]),
    ])

    @Test("attributed strings round-trip: empty, without attributes, one run, several runs, immutable and mutable",
          arguments: [Text(""), Text("plain"), Text("whole", attributes: ["size": 12.5, "name": "Menlo"]), styled])
    func attributedRoundTrip(_ text: Text) throws {
        for isMutable in [false, true] {
            var value = text
            value.isMutable = isMutable
            for format in [PlistFormat.binary, .xml] {
                let data = try KeyedArchiver(outputFormat: format).archive(value)
                let back = try KeyedUnarchiver().decode(Text.self, from: data)
                #expect(back == value && back.isMutable == isMutable)
                #expect(back.runs.map(\.length) == value.runs.map(\.length))
            }
        }
    }

    @Test("the keys written: NSString, NSAttributes as one dictionary or an array with NSAttributeInfo, none for an empty text")
    func attributedLayout() throws {
        func root(_ text: Text) throws -> (PlistValue, KeyedArchive) {
            let archive = try KeyedArchive(data: KeyedArchiver().archive(text))
            return (archive.objects[1], archive)
        }
        let (empty, _) = try root(Text(""))
        #expect(empty["NSString"] != nil && empty["NSAttributes"] == nil && empty["NSAttributeInfo"] == nil)
        let (whole, wholeArchive) = try root(Text("ab", attributes: ["k": "v"]))
        #expect(wholeArchive.objects[2] == "ab")  // immutable: the text in place
        #expect(Self.entries(of: "NSDictionary", in: wholeArchive).count == 1 && whole["NSAttributeInfo"] == nil)
        let (styled, styledArchive) = try root(Self.styled)
        guard case .uid(let info)? = styled["NSAttributeInfo"], case .uid(let table)? = styled["NSAttributes"] else {
            Issue.record("no NSAttributeInfo or NSAttributes reference")
            return
        }
        // Five runs over three distinct dictionaries: (length, index) pairs 5 0, 1 1, 5 2, 1 1, 2 0.
        #expect(styledArchive.objects[Int(info)]["NS.data"] == .data(Data([5, 0, 1, 1, 5, 2, 1, 1, 2, 0])))
        #expect(styledArchive.objects[Int(table)]["NS.objects"]?.arrayValue?.count == 3)
        #expect(Self.entries(of: "NSMutableArray", in: styledArchive) == [Int(table)])
        #expect(Self.styled.attributeRuns.map(\.range) == [
            NSRange(location: 0, length: 5), NSRange(location: 5, length: 1), NSRange(location: 6, length: 5),
            NSRange(location: 11, length: 1), NSRange(location: 12, length: 2),
        ])
        // Mutable: the text is an NSMutableString object, as Darwin writes it.
        var mutable = Text("ab")
        mutable.isMutable = true
        let (mutableRoot, mutableArchive) = try root(mutable)
        guard case .uid(let text)? = mutableRoot["NSString"] else {
            Issue.record("NSString is not a reference")
            return
        }
        #expect(mutableArchive.objects[Int(text)]["NS.string"] == "ab")
        #expect(Self.entries(of: "NSMutableString", in: mutableArchive) == [Int(text)])
    }

    @Test("equality looks at the attributes of each code unit, not at how the runs are split")
    func attributedEquality() {
        let split = Text("abcd", runs: [.init(length: 2, attributes: ["k": 1]), .init(length: 2, attributes: ["k": 1])])
        #expect(split == Text("abcd", attributes: ["k": 1]))
        #expect(split != Text("abcd", runs: [.init(length: 3, attributes: ["k": 1]), .init(length: 1)]))
        #expect(Text("abcd", attributes: ["k": 1], isMutable: true) == Text("abcd", attributes: ["k": 1]))
    }

    @Test("runs that do not cover the text are refused when archiving")
    func attributedEncodeErrors() throws {
        let cases = [
            Text("abc", runs: [.init(length: 2)]),
            Text("abc", runs: [.init(length: 2), .init(length: 2)]),
            Text("abc", runs: [.init(length: 3), .init(length: 0)]),
            Text("abc", runs: [.init(length: Int.max), .init(length: Int.max)]),
            Text("", runs: [.init(length: 1)]),
        ]
        for text in cases {
            let error = #expect(throws: PlistError.self) { try KeyedArchiver().archive(text) }
            #expect(error?.code == .unsupportedValue)
        }
    }

    static let attributedClass: PlistValue = [
        "$classname": "NSAttributedString", "$classes": ["NSAttributedString", "NSObject"],
    ]

    /// An attributed string `abcd` whose NSAttributes array (entry 3) holds two dictionaries.
    static func runArchive(info: [UInt8]) throws -> KeyedArchive {
        try archive(root: 1, [
            ["NSString": .uid(5), "NSAttributes": .uid(3), "NSAttributeInfo": .data(Data(info)), "$class": .uid(2)],
            attributedClass,
            ["NS.objects": [.uid(4), .uid(4)], "$class": .uid(6)],
            ["NS.keys": [], "NS.objects": [], "$class": .uid(7)],
            "abcd",
            ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]],
            ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]],
        ])
    }

    @Test("malformed run information is a typed error at NSAttributeInfo; extra pairs after the text is covered are ignored")
    func attributedDecodeErrors() throws {
        let cases: [(String, [UInt8])] = [
            ("a dictionary index past NSAttributes", [2, 0, 2, 2]),
            ("runs longer than the text", [3, 0, 3, 1]),
            ("runs shorter than the text", [1, 0, 1, 1]),
            ("an odd number of integers", [4]),
            ("a cut-off integer", [2, 0, 0x82]),
        ]
        for (name, info) in cases {
            let error = #expect(throws: PlistError.self, "\(name)") { try KeyedUnarchiver().decode(Text.self, from: Self.runArchive(info: info)) }
            #expect(error?.code == .typeMismatch, "\(name): \(String(describing: error))")
            #expect(error?.keyPath == PlistKeyPath(components: ["root", "NSAttributeInfo"]), "\(name)")
            #expect(error?.message.contains("NSAttributedString") == true, "\(name)")
        }
        let ignored = try KeyedUnarchiver().decode(Text.self, from: Self.runArchive(info: [0, 0, 3, 1, 1, 0, 9, 9]))
        #expect(ignored.runs.map(\.length) == [3, 1])
        // Without NSAttributes the text has no attributes; without NSString it is empty.
        let bare = try Self.archive(root: 1, [["NSString": "xy", "$class": .uid(2)], Self.attributedClass])
        #expect(try KeyedUnarchiver().decode(Text.self, from: bare) == Text("xy"))
        let nothing = try Self.archive(root: 1, [["$class": .uid(2)], Self.attributedClass])
        #expect(try KeyedUnarchiver().decode(Text.self, from: nothing).string.isEmpty)
    }

    @Test("Xcode's attributed strings (with AppKit fonts and paragraph styles) decode, and re-archive to the same graph",
          .enabled(if: corpusAvailable))
    func attributedCorpus() throws {
        let state = try KeyedArchive(data: ArchiveCorpusTests.data("keyed-archive/xcode-Candy-UserInterfaceState.xcuserstate"))
        let entries = Self.entries(of: "NSMutableAttributedString", in: state)
        #expect(entries.count == 2)
        var texts: [String] = []
        for entry in entries {
            let archive = try Self.rerooted(state, at: entry)
            let text = try KeyedUnarchiver().decode(ArchivedAttributedString<ArchiveField>.self, from: archive)
            #expect(text.isMutable)
            texts.append(text.string)
            if text.string == "exit" {
                #expect(text.runs.count == 1 && text.runs[0].length == 4)
                guard case .object(let font)? = text.runs[0].attributes["NSFont"] else {
                    Issue.record("NSFont is not an object")
                    continue
                }
                #expect(font.className == "NSFont")
            } else {
                #expect(text.runs.isEmpty)
            }
            // Ours of the decoded value is the corpus's object graph again.
            let ours = try KeyedArchiver().archive(text)
            let theirGraph = try KeyedUnarchiver().decodeGraph(from: archive)
            let ourGraph = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: ours))
            guard case .object(let theirs)? = theirGraph.root, case .object(let mine)? = ourGraph.root else {
                Issue.record("a root is not an object")
                continue
            }
            #expect(mine.isEquivalent(to: theirs), "\(text.string)")
        }
        #expect(texts.sorted() == ["", "exit"])

        let large = try KeyedArchive(data: ArchiveCorpusTests.data("large/xcode-Candy_Samples-UserInterfaceState.xcuserstate"))
        let styled = try #require(Self.entries(of: "NSMutableAttributedString", in: large).first)
        let text = try KeyedUnarchiver().decode(ArchivedAttributedString<ArchiveField>.self, from: Self.rerooted(large, at: styled))
        #expect(text.string == "string")
        #expect(Set(text.runs.first.map { Array($0.attributes.keys) } ?? []) == ["NSFont", "NSParagraphStyle"])
        // Secure decoding: the attribute values' classes must be allowed, the dictionary need not be.
        var secure = KeyedUnarchiver(allowedClasses: ["NSAttributedString", "NSFont"])
        let refused = #expect(throws: PlistError.self) {
            try secure.decode(ArchivedAttributedString<ArchiveField>.self, from: Self.rerooted(large, at: styled))
        }
        #expect(refused?.code == .archiveClassNotAllowed)
        #expect(refused?.message.contains("NSParagraphStyle") == true)
        secure.allowedClasses?.insert("NSParagraphStyle")
        #expect(try secure.decode(ArchivedAttributedString<ArchiveField>.self, from: Self.rerooted(large, at: styled)).string == "string")
    }
}
