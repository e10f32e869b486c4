import Foundation
import Testing

/// README.md and the catalog's articles show only code that compiles: each ```swift block is one
/// of the listings marked in `Tests/DocumentationListings` or in this target, word for word.
@Suite("Documents show compiled listings")
struct DocumentListingTests {
    @Test("every Swift block of README.md and of the catalog is a compiled listing")
    func everySwiftBlockIsCompiled() throws {
        let listings = Set(try DocumentListings.listings().values)
        var checked = 0
        for document in try DocumentListings.documents() {
            for block in CodeBlock.all(in: try DocumentListings.text(document)) where block.language == "swift" {
                checked += 1
                let isCompiled = listings.contains(block.text)
                #expect(
                    isCompiled,
                    "\(document):\(block.line): this Swift block is none of the compiled listings; change the listing in Tests/DocumentationListings or Tests/DocumentationTests and copy it here")
            }
        }
        #expect(checked >= 20)
    }

    @Test("every compiled listing is shown in a document")
    func everyListingIsShown() throws {
        var shown = Set<String>()
        for document in try DocumentListings.documents() {
            for block in CodeBlock.all(in: try DocumentListings.text(document)) where block.language == "swift" {
                shown.insert(block.text)
            }
        }
        for (name, text) in try DocumentListings.listings() {
            let isShown = shown.contains(text)
            #expect(isShown, "listing \(name) is in no document: the document changed, or the listing is stale")
        }
    }

    @Test("the catalog's code blocks all name their language")
    func blocksNameTheirLanguage() throws {
        for document in try DocumentListings.documents() where document.hasPrefix("Sources/") {
            for block in CodeBlock.all(in: try DocumentListings.text(document)) {
                #expect(["swift", "sh"].contains(block.language), "\(document):\(block.line): a block in \(block.language.isEmpty ? "no language" : block.language) is not checked")
            }
        }
    }

    @Test("the landing page links every article")
    func landingPageLinksArticles() throws {
        let landing = try DocumentListings.text("Sources/Trove/Trove.docc/Trove.md")
        let articles = try DocumentListings.documents().filter { $0.hasPrefix("Sources/") && !$0.hasSuffix("/Trove.md") }
        #expect(articles.count == 5)
        for article in articles {
            let name = URL(fileURLWithPath: article).deletingPathExtension().lastPathComponent
            #expect(landing.contains("<doc:\(name)>"), "Trove.md does not link \(name)")
        }
    }

    @Test("listing markers: a region's common indentation is removed, and regions of one name join")
    func markersJoinRegions() throws {
        // Built from the marker constants, so that this file marks no listing of its own.
        let source = [
            MarkedListings.begin + "demo", "import Trove", "", MarkedListings.end,
            "func f() {",
            "    " + MarkedListings.begin + "demo", "    let a = 1", "    if a > 0 {", "        print(a)", "    }",
            "    " + MarkedListings.end,
            "}",
        ].joined(separator: "\n")
        let found = try MarkedListings(source: source, file: "demo.swift")
        #expect(found.listings["demo"] == "import Trove\n\nlet a = 1\nif a > 0 {\n    print(a)\n}")
        #expect(throws: MarkedListings.MarkerError.self) {
            try MarkedListings(source: MarkedListings.begin + "open\nlet x = 1\n", file: "open.swift")
        }
    }
}
