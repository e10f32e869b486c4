import Foundation
import Testing
import Trove

/// A `Codable` class: shared by identity in an archive.
final class Author: Codable {
    var name: String
    init(_ name: String) { self.name = name }
}

/// A `Codable` class holding another one.
final class Book: Codable {
    var title: String
    var author: Author
    init(_ title: String, by author: Author) {
        self.title = title
        self.author = author
    }
}

/// A `Codable` class that can point at itself or at another node: a cycle `Codable` can encode
/// but not decode.
final class Link: Codable {
    var name: String
    var next: Link?
    init(_ name: String) { self.name = name }
}

@Suite("Codable classes in keyed archives: identity, sharing and cycles")
struct ArchiveCodableIdentityTests {
    struct Shelf: Codable {
        var books: [Book]
        var featured: Book
        var editors: [String: Author]
    }

    struct Tag: Codable, Equatable {
        var label: String
    }

    static func count(_ className: String, in data: Data) throws -> Int {
        let archive = try KeyedArchive(data: data)
        return archive.objects.filter { object in
            guard case .uid(let record)? = object["$class"] else { return false }
            return archive.objects[Int(record)]["$classname"] == .string(className)
        }.count
    }

    @Test("a class instance referenced several times is archived once and decoded as one shared instance")
    func sharedInstances() throws {
        let ann = Author("Ann")
        let dune = Book("Dune", by: ann)
        let emma = Book("Emma", by: ann)
        let shelf = Shelf(books: [dune, emma, dune], featured: emma, editors: ["lead": ann, "second": Author("Bob")])
        for format in [PlistFormat.binary, .xml] {
            let data = try KeyedArchiver(outputFormat: format).archive(codable: shelf)
            #expect(try Self.count("Author", in: data) == 2)
            #expect(try Self.count("Book", in: data) == 2)
            let back = try KeyedUnarchiver().decodeCodable(Shelf.self, from: data)
            #expect(back.books.map(\.title) == ["Dune", "Emma", "Dune"])
            #expect(back.books[0] === back.books[2])
            #expect(back.featured === back.books[1])
            #expect(back.books[0].author === back.books[1].author)
            #expect(back.editors["lead"] === back.books[0].author)
            #expect(back.editors["second"]?.name == "Bob" && back.editors["second"] !== back.editors["lead"])
        }
    }

    @Test("a value type is written at each use, equal or not; a class is shared by identity, not by equal contents")
    func valuesAndEqualInstances() throws {
        struct Board: Codable { var tags: [Tag]; var authors: [Author] }
        let data = try KeyedArchiver().archive(codable: Board(tags: [Tag(label: "a"), Tag(label: "a")], authors: [Author("Ann"), Author("Ann")]))
        #expect(try Self.count("Tag", in: data) == 2)
        #expect(try Self.count("Author", in: data) == 2)
        let back = try KeyedUnarchiver().decodeCodable(Board.self, from: data)
        #expect(back.tags == [Tag(label: "a"), Tag(label: "a")])
        #expect(back.authors[0] !== back.authors[1])
    }

    @Test("instances are shared across Codable fields of KeyedArchivable objects and the archive's top-level values")
    func sharedAcrossFields() throws {
        struct Card: KeyedArchivable {
            static let archiveClassName = "Card"
            var first: Author
            var second: Author
            init(first: Author, second: Author) {
                self.first = first
                self.second = second
            }
            init(from decoder: ArchiveDecoder) throws {
                first = try decoder.decodeCodable(Author.self, forKey: "first")
                second = try decoder.decodeCodable(Author.self, forKey: "second")
            }
            func encode(to encoder: ArchiveEncoder) throws {
                try encoder.encodeCodable(first, forKey: "first")
                try encoder.encodeCodable(second, forKey: "second")
            }
        }
        let ann = Author("Ann")
        let data = try KeyedArchiver().archive(Card(first: ann, second: ann))
        #expect(try Self.count("Author", in: data) == 1)
        let card = try KeyedUnarchiver().decode(Card.self, from: data)
        #expect(card.first === card.second && card.first.name == "Ann")
    }

    @Test("a cycle of Codable classes archives once per instance; decoding it with Codable is archive-cycle, the generic graph closes it")
    func cycles() throws {
        let a = Link("a"), b = Link("b")
        a.next = b
        b.next = a
        defer { a.next = nil }
        let data = try KeyedArchiver().archive(codable: a)
        #expect(try Self.count("Link", in: data) == 2)
        let error = #expect(throws: PlistError.self) { try KeyedUnarchiver().decodeCodable(Link.self, from: data) }
        #expect(error?.code == .archiveCycle)
        #expect(error?.keyPath?.description == "root.next.next")
        #expect(error?.message.contains("Link") == true)

        let graph = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: data))
        guard case .object(let first)? = graph.root, case .object(let second)? = first["next"], case .object(let third)? = second["next"] else {
            Issue.record("the graph does not have a -> b -> a")
            return
        }
        #expect(third === first)

        // A node that points at itself: one object whose next is itself.
        let solo = Link("solo")
        solo.next = solo
        defer { solo.next = nil }
        let selfData = try KeyedArchiver().archive(codable: solo)
        let root = try KeyedArchive(data: selfData).objects[1]
        #expect(root["next"] == .uid(1))
        let selfError = #expect(throws: PlistError.self) { try KeyedUnarchiver().decodeCodable(Link.self, from: selfData) }
        #expect(selfError?.code == .archiveCycle)
    }

    /// A class that encodes only its successor, as a single value: a cycle of these has no
    /// object to refer back to.
    final class Relay: Codable {
        var next: Relay?
        init() {}
        init(from decoder: any Decoder) throws { next = try decoder.singleValueContainer().decode(Relay?.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(next)
        }
    }

    @Test("a cycle through single-value containers only is a reference-cycle error when archiving, not a stack overflow")
    func singleValueCycle() throws {
        let relay = Relay()
        relay.next = Relay()
        relay.next?.next = relay
        defer { relay.next = nil }
        struct Box: Codable { var relay: Relay }
        let error = #expect(throws: PlistError.self) { try KeyedArchiver().archive(codable: Box(relay: relay)) }
        #expect(error?.code == .referenceCycle)
        #expect(error?.message.contains("Relay") == true)
        #expect(error?.keyPath?.description == "relay")
    }

    /// A class that encodes itself as one value: its instances are shared through that value.
    final class Wrapped: Codable {
        var tags: [String]
        init(_ tags: [String]) { self.tags = tags }
        init(from decoder: any Decoder) throws { tags = try decoder.singleValueContainer().decode([String].self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(tags)
        }
    }

    /// A value that encodes itself as one value held in an object of the archive (a UUID).
    struct Identifier: Codable, Equatable {
        var raw: UUID
        init(_ raw: UUID) { self.raw = raw }
        init(from decoder: any Decoder) throws { raw = try decoder.singleValueContainer().decode(UUID.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(raw)
        }
    }

    @Test("single-value Codable types around objects of the archive (an array, a UUID) decode, and a class of that kind is still shared")
    func singleValueWrappers() throws {
        struct Holder: Codable {
            var first: Wrapped
            var second: Wrapped
            var id: Identifier
            var ids: [Identifier]
        }
        let wrapped = Wrapped(["x", "y"])
        let id = Identifier(UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!)
        let data = try KeyedArchiver().archive(codable: Holder(first: wrapped, second: wrapped, id: id, ids: [id, id]))
        let back = try KeyedUnarchiver().decodeCodable(Holder.self, from: data)
        #expect(back.first.tags == ["x", "y"])
        #expect(back.first === back.second)
        #expect(back.id == id && back.ids == [id, id])
    }
}
