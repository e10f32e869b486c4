import Foundation

/// README.md and the DocC catalog, and the compiled sources that hold their code listings.
///
/// A listing is marked in a source file by a line `// begin listing NAME` and a line
/// `// end listing`; the lines between, with their common indentation removed, are the listing.
/// A name may mark several regions of one file (an `import` at the top and statements in a
/// function, say): the listing is those regions joined in order. Every ```swift block of a
/// document must be exactly one listing, so a block that no longer compiles fails the build and
/// a block edited in the document alone fails `DocumentListingTests`.
enum DocumentListings {
    /// The package root, three levels above this file (`Tests/DocumentationTests/...`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The DocC catalog of the `Trove` module.
    static let catalog = packageRoot.appendingPathComponent("Sources/Trove/Trove.docc")

    /// The directories whose Swift files hold listings: the program that runs them and this
    /// test target (the fixture-testing listings are tests themselves).
    static let listingDirectories = ["Tests/DocumentationListings", "Tests/DocumentationTests"]

    /// The documents whose listings are checked, relative to the package root.
    static func documents() throws -> [String] {
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + articles.map { "Sources/Trove/Trove.docc/" + $0 }
    }

    /// The text of a file under the package root.
    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Every listing, by name, from every listing source.
    static func listings() throws -> [String: String] {
        var all: [String: String] = [:]
        for directory in listingDirectories {
            let names = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(directory).path)
            for name in names.sorted() where name.hasSuffix(".swift") {
                let found = try MarkedListings(source: text(directory + "/" + name), file: name)
                for (listing, body) in found.listings {
                    guard all[listing] == nil else {
                        throw MarkedListings.MarkerError(description: "\(name): listing \(listing) is also marked in another file")
                    }
                    all[listing] = body
                }
            }
        }
        return all
    }
}

/// A fenced code block of a Markdown document.
struct CodeBlock: Equatable {
    /// The word after the opening fence (`swift`, `sh`), or empty.
    var language: String
    /// The lines between the fences, trailing spaces removed, joined by newlines.
    var text: String
    /// The line of the opening fence, from 1.
    var line: Int

    /// The blocks of `markdown`, in order. Fences are three backticks at the start of a line.
    static func all(in markdown: String) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var open: (language: String, line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let current = open {
                    blocks.append(CodeBlock(language: current.language, text: current.lines.joined(separator: "\n"), line: current.line))
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), index + 1, [])
                }
            } else if open != nil {
                open!.lines.append(trimmingTrailingSpaces(line))
            }
        }
        return blocks
    }

    /// The non-empty lines of the block that are not comments: the commands of a shell block.
    var commands: [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}

/// The listings marked in one source file.
struct MarkedListings {
    struct MarkerError: Error, CustomStringConvertible {
        var description: String
    }

    static let begin = "// begin listing "
    static let end = "// end listing"

    /// Each listing's text, by name.
    private(set) var listings: [String: String] = [:]

    init(source: String, file: String) throws {
        var parts: [String: [String]] = [:]
        var open: (name: String, line: Int, lines: [Substring])?
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(Self.begin) {
                guard open == nil else { throw MarkerError(description: "\(file):\(index + 1): listing begins inside \(open!.name)") }
                open = (String(trimmed.dropFirst(Self.begin.count)), index + 1, [])
            } else if trimmed == Self.end {
                guard let current = open else { throw MarkerError(description: "\(file):\(index + 1): end of no listing") }
                parts[current.name, default: []].append(Self.dedented(current.lines))
                open = nil
            } else if open != nil {
                open!.lines.append(line)
            }
        }
        if let open { throw MarkerError(description: "\(file):\(open.line): listing \(open.name) does not end") }
        listings = parts.mapValues { $0.joined(separator: "\n") }
    }

    /// The lines without their common indentation and trailing spaces, joined by newlines.
    static func dedented(_ lines: [Substring]) -> String {
        let indents = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }
        let common = indents.min() ?? 0
        return lines.map { line in
            line.allSatisfy(\.isWhitespace) ? "" : trimmingTrailingSpaces(line.dropFirst(common))
        }.joined(separator: "\n")
    }
}

private func trimmingTrailingSpaces(_ line: Substring) -> String {
    var line = line
    while line.last == " " || line.last == "\t" { line.removeLast() }
    return String(line)
}
