import Foundation
import Testing
import Trove

@Suite("Codable values in keyed archives")
struct ArchiveCodableTests {
    @Test("a Codable model archives as keyed objects without hand-written methods and decodes back equal")
    func roundTrip() throws {
        for format in [PlistFormat.binary, .xml] {
            let data = try KeyedArchiver(outputFormat: format).archive(codable: Library.sample)
            let back = try KeyedUnarchiver().decodeCodable(Library.self, from: data)
            #expect(back == Library.sample)
        }
    }

    @Test("coding keys become the object's keys, nested values nested objects, class names configurable")
    func layout() throws {
        var archiver = KeyedArchiver()
        archiver.setClassName("LBBook", forCodable: Library.Book.self)
        let data = try archiver.archive(codable: Library.sample, className: "LBLibrary")
        let plain = try KeyedUnarchiver().plainValue(of: KeyedArchive(data: data))
        #expect(plain["$class"] == "LBLibrary")
        #expect(plain["name"] == "Stacks")
        #expect(plain["kind"] == "publicLibrary")
        #expect(plain["opened"] == .date(PlistDate(secondsSinceReferenceDate: 1000.25)))
        #expect(plain["books"]?[0]?["$class"] == "LBBook")
        #expect(plain["books"]?[0]?["year"] == 1965)
        #expect(plain["books"]?[1]?["rating"] == nil)
        #expect(plain["byTitle"]?["Dune"]?["title"] == "Dune")  // [String: Book] is an NSDictionary
        let archive = try KeyedArchive(data: data)
        #expect(archive.objects.contains { $0["$classname"] == "NSDictionary" })
    }

    @Test("Foundation's NSDictionary and NSArray archives decode into Codable structs whose keys match")
    func fromFoundation() throws {
        let books: NSArray = [
            ["title": "Dune", "year": 1965, "tags": ["sf"], "rating": 4.5] as NSDictionary,
            ["title": "Emma", "year": 1815, "tags": [] as NSArray] as NSDictionary,
        ]
        let data = try NSKeyedArchiver.archivedData(withRootObject: books, requiringSecureCoding: false)
        let decoded = try KeyedUnarchiver().decodeCodable([Library.Book].self, from: data)
        #expect(decoded == Library.sample.books)
    }

    @Test("a decoding failure carries the coding path, as a PlistError key path and the underlying DecodingError")
    func codingPathErrors() throws {
        struct Strict: Decodable {
            struct Item: Decodable { var title: String; var pages: Int }
            var name: String
            var books: [Item]
        }
        let data = try KeyedArchiver().archive(codable: Library.sample)
        let missing = #expect(throws: PlistError.self) { try KeyedUnarchiver().decodeCodable(Strict.self, from: data) }
        #expect(missing?.code == .archiveMissingKey)
        #expect(missing?.keyPath == PlistKeyPath(components: ["root", "books", 0, "pages"]))
        guard case .keyNotFound(let key, let context)? = missing?.underlyingError as? DecodingError else {
            Issue.record("not a keyNotFound: \(String(describing: missing?.underlyingError))")
            return
        }
        #expect(key.stringValue == "pages")
        #expect(context.codingPath.map(\.stringValue) == ["books", "Index 0"])

        struct WrongType: Decodable { var name: Int }
        let mismatch = #expect(throws: PlistError.self) { try KeyedUnarchiver().decodeCodable(WrongType.self, from: data) }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.keyPath == PlistKeyPath(components: ["root", "name"]))
    }

    @Test("secure decoding applies to Codable decoding: a class outside the allowed set is refused with its name and key path")
    func secureCodable() throws {
        var archiver = KeyedArchiver()
        archiver.setClassName("LBBook", forCodable: Library.Book.self)
        let data = try archiver.archive(codable: Library.sample, className: "LBLibrary")
        var unarchiver = KeyedUnarchiver(allowedClasses: ["LBLibrary", "NSArray", "NSDictionary", "NSDate"])
        let refused = #expect(throws: PlistError.self) { try unarchiver.decodeCodable(Library.self, from: data) }
        #expect(refused?.code == .archiveClassNotAllowed)
        #expect(refused?.message.contains("LBBook") == true)
        #expect(refused?.keyPath?.description == "root.books.0")
        unarchiver.allowedClasses?.insert("LBBook")
        #expect(try unarchiver.decodeCodable(Library.self, from: data) == Library.sample)
    }

    @Test("a Codable value inside a KeyedArchivable object")
    func codableField() throws {
        struct Shelf: KeyedArchivable, Equatable {
            static let archiveClassName = "Shelf"
            var library: Library
            init(library: Library) { self.library = library }
            init(from decoder: ArchiveDecoder) throws { library = try decoder.decodeCodable(Library.self, forKey: "library") }
            func encode(to encoder: ArchiveEncoder) throws { try encoder.encodeCodable(library, forKey: "library") }
        }
        let data = try KeyedArchiver().archive(Shelf(library: .sample))
        #expect(try KeyedUnarchiver().decode(Shelf.self, from: data) == Shelf(library: .sample))
    }
}
