import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting

@Suite("TroveTesting: Codable fixtures")
struct CodableFixtureTests {
    struct Library: Codable, Equatable {
        struct Book: Codable, Equatable {
            var title: String
            var pages: Int
        }
        var name: String
        var books: [Book]
    }

    static let value: PlistValue = ["name": "Home", "books": [["title": "A", "pages": 10], ["title": "B", "pages": 20]]]

    @Test("a fixture written by the encoder comes back with the same value and bytes")
    func sameBytes() throws {
        for format in [PlistFormat.xml, .binary] {
            let bytes = try PlistEncoder(outputFormat: format).encode(try PlistDecoder().decode(Library.self, from: Self.value))
            let library = try PlistCheck.codableRoundTrip(Library.self, bytes, sameBytes: true)
            #expect(library.books.count == 2)
        }
    }

    @Test("a property the type drops is reported at its coding path")
    func droppedProperty() throws {
        var value = Self.value
        try value.insert("hardback", at: [.key("books"), .index(1), .key("binding")])
        let bytes = try Plist.write(value, as: .xml)
        do {
            try PlistCheck.codableRoundTrip(Library.self, bytes, name: "library.plist")
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .valuesDiffer)
            #expect(error.message.hasPrefix(
                "re-encoding Library decoded from library.plist changes the value; first at coding path [books, Index 1, binding]"),
                "\(error.message)")
            #expect(error.message.hasSuffix("- books.1.binding: \"hardback\""))
        }
    }

    @Test("other bytes with the same value fail only when bytes are asked for")
    func otherBytes() throws {
        // Keys out of the sorted order the XML encoder writes.
        let bytes = try Plist.write(["books": [], "name": "Home"], as: .binary)
        try PlistCheck.codableRoundTrip(Library.self, bytes)
        do {
            try PlistCheck.codableRoundTrip(Library.self, bytes, sameBytes: true)
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .bytesDiffer)
            #expect(error.message.contains("the values are equal"))
        }
    }

    @Test("a fixture that does not decode names the coding path")
    func decodingFailure() throws {
        var value = Self.value
        try value.replace("ten", at: [.key("books"), .index(0), .key("pages")])
        let bytes = try Plist.write(value, as: .xml)
        do {
            try PlistCheck.codableRoundTrip(Library.self, bytes, name: "bad.plist")
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .decodingFailed)
            #expect(error.message.hasPrefix("decoding Library from bad.plist failed: at coding path [books, Index 0, pages]:"), "\(error.message)")
        }
    }

    @Test("coding paths name array positions as Codable does")
    func codingPaths() {
        #expect(PlistCheck.codingPath([.key("a"), .index(3), .key("b")]) == "[a, Index 3, b]")
        #expect(PlistCheck.codingPath(.root) == "[]")
    }
}
