import Foundation
import Testing

@testable import TroveCore

/// Every valid OpenStep, `.strings` and JSON file of the corpus is written back byte for byte
/// from its layout notes, and edits made to it (a scalar replaced, a key or element added or
/// removed, at the root and in nested containers) change only the text of what was edited.
@Suite("Text formats: lossless rewrite of the corpus", .enabled(if: TextFixtures.isAvailable, TextFixtures.skipMessage))
struct TextLosslessCorpusTests {
    static let rows = TextLossless.openStepRows.map { ($0, PlistFormat.openStep) } + TextLossless.jsonRows.map { ($0, PlistFormat.json) }

    /// Reads a corpus file with its own format's reader, keeping the layout.
    static func document(_ bytes: [UInt8], _ format: PlistFormat) throws -> PlistDocument {
        try bytes.withUnsafeBytes { try format.reader().readDocument($0, keepingLayout: true) }
    }

    @Test func corpusHasTheRows() {
        #expect(TextLossless.openStepRows.count >= 30)
        #expect(TextLossless.jsonRows.count >= 17)
    }

    @Test("an unchanged file is written back byte for byte", arguments: rows)
    func unchangedRewrite(_ row: TextFixtures.Row, _ format: PlistFormat) throws {
        let bytes = try TextFixtures.bytes(row.path)
        let document = try Self.document(bytes, format)
        #expect(document.layout != nil)
        let output = try Plist.write(document)
        #expect(Array(output) == bytes, "\(row.path): first difference at \(TextLossless.commonEnds(Array(output), bytes).prefix)")
        // Through format detection too, as `trove` and the stores read.
        let detected = try Plist.read(Data(bytes))
        #expect(Array(try Plist.write(detected)) == bytes, "\(row.path) read through Plist.read")
    }

    @Test("generated edits change only the edited text")
    func generatedEdits() throws {
        var cases = 0, files = 0
        for (row, format) in Self.rows {
            let bytes = try TextFixtures.bytes(row.path)
            let document = try Self.document(bytes, format)
            guard case let notes? = Self.notes(document) else {
                Issue.record("\(row.path): no layout notes")
                continue
            }
            files += 1
            cases += try checkReplacements(row, document, notes)
            cases += try checkContainerEdits(row, document)
        }
        print("text lossless: \(cases) generated edits over \(files) OpenStep and JSON files")
        #expect(cases >= 300)
    }

    static func notes(_ document: PlistDocument) -> TextLayoutNotes? {
        switch document.layout {
        case .openStep(let layout)?: return layout.notes
        case .json(let layout)?: return layout.notes
        default: return nil
        }
    }

    /// Writes `document` with `edited` as its value; checks that the output reads back as
    /// `edited`, and returns the input and output text in UTF-8.
    static func rewrite(
        _ row: TextFixtures.Row, _ document: PlistDocument, as edited: PlistValue, _ what: String
    ) throws -> (before: [UInt8], after: [UInt8])? {
        var changed = document
        changed.value = edited
        let output: Data
        do {
            output = try Plist.write(changed)
        } catch {
            Issue.record("\(row.path): \(what): the write failed: \(error)")
            return nil
        }
        let bytes = Array(output)
        do {
            let reread = try bytes.withUnsafeBytes { try document.format.reader().readDocument($0, keepingLayout: false) }
            #expect(reread.value == edited, "\(row.path): \(what): the output reads back as another value")
        } catch {
            Issue.record("\(row.path): \(what): the output does not read: \(error)\n\(String(decoding: bytes.prefix(600), as: UTF8.self))")
            return nil
        }
        let original = try TextFixtures.bytes(row.path)
        let marks: [[UInt8]] = [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
        for mark in marks where original.starts(with: mark) {
            #expect(bytes.starts(with: mark), "\(row.path): \(what): the byte-order mark was lost")
        }
        return (try TextLossless.utf8(original, document.format), try TextLossless.utf8(bytes, document.format))
    }

    /// Replaces a few scalars (the first, a middle one, the last and the deepest): the text
    /// outside the replaced value's own is unchanged, and the new text alone reads as the value.
    func checkReplacements(_ row: TextFixtures.Row, _ document: PlistDocument, _ notes: TextLayoutNotes) throws -> Int {
        let leaves = TextLossless.leaves(of: document.value)
        guard !leaves.isEmpty else { return 0 }
        let deepest = leaves.indices.max { leaves[$0].path.count < leaves[$1].path.count } ?? 0
        var cases = 0
        for index in Set([0, leaves.count / 2, leaves.count - 1, deepest]).sorted() {
            let leaf = leaves[index]
            let newValue = TextLossless.changed(leaf.value)
            guard let edited = TextLossless.editing(document.value, at: leaf.path[...], { _ in newValue }) else { continue }
            let what = "replacing root\(leaf.path.map { "[\($0)]" }.joined())"
            guard let (before, after) = try Self.rewrite(row, document, as: edited, what),
                let range = TextLossless.textRange(notes, path: leaf.path)
            else { continue }
            cases += 1
            let kept = before.count - range.upperBound
            #expect(after.count >= range.lowerBound + kept, "\(row.path): \(what): the output is too short")
            guard after.count >= range.lowerBound + kept else { continue }
            #expect(after.prefix(range.lowerBound).elementsEqual(before.prefix(range.lowerBound)), "\(row.path): \(what): text before the value changed")
            #expect(after.suffix(kept).elementsEqual(before.suffix(kept)), "\(row.path): \(what): text after the value changed")
            if !range.isEmpty {
                let newText = Array(after[range.lowerBound..<(after.count - kept)])
                let alone = try? newText.withUnsafeBytes { try document.format.reader().readDocument($0, keepingLayout: false) }
                #expect(alone?.value == newValue, "\(row.path): \(what): the new text \(String(decoding: newText, as: UTF8.self)) is not the value alone")
            }
            if document.format == .openStep {
                for marker in ["//", "/*", "*/"] {
                    #expect(
                        TextLossless.occurrences(of: marker, in: after) >= TextLossless.occurrences(of: marker, in: before)
                            - TextLossless.occurrences(of: marker, in: Array(before[range])),
                        "\(row.path): \(what): a comment was lost")
                }
            }
        }
        return cases
    }

    /// Adds and removes entries of the root, the deepest dictionary and array, and a middle
    /// container: an addition only inserts text, a removal only deletes text, and comments stay.
    func checkContainerEdits(_ row: TextFixtures.Row, _ document: PlistDocument) throws -> Int {
        let containers = TextLossless.containers(of: document.value)
        guard !containers.isEmpty else { return 0 }
        var chosen = Set([0, containers.count / 2])
        if let dictionary = containers.indices.filter({ if case .dictionary = containers[$0].value { true } else { false } })
            .max(by: { containers[$0].path.count < containers[$1].path.count }) {
            chosen.insert(dictionary)
        }
        if let array = containers.indices.filter({ if case .array = containers[$0].value { true } else { false } })
            .max(by: { containers[$0].path.count < containers[$1].path.count }) {
            chosen.insert(array)
        }
        var cases = 0
        for index in chosen.sorted() {
            let (path, container) = containers[index]
            let name = "root\(path.map { "[\($0)]" }.joined())"
            let added = PlistValue.string("added value")
            var insertAt: PlistKeyPath.Component
            var removeAt: PlistKeyPath.Component?
            switch container {
            case .dictionary(let entries):
                insertAt = .key("troveAddedKey")
                removeAt = entries.isEmpty ? nil : .key(entries.keys[entries.count / 2])
            case .array(let items):
                insertAt = .index(items.count / 2)
                removeAt = items.isEmpty ? nil : .index(items.count / 2)
            default:
                continue
            }
            if let edited = TextLossless.editing(document.value, at: (path + [insertAt])[...], inserting: true, { _ in added }),
                let (before, after) = try Self.rewrite(row, document, as: edited, "adding \(insertAt) to \(name)") {
                cases += 1
                let (prefix, suffix) = TextLossless.commonEnds(before, after)
                #expect(prefix + suffix == before.count, "\(row.path): adding \(insertAt) to \(name) did more than insert text")
            }
            if let removeAt, let edited = TextLossless.editing(document.value, at: (path + [removeAt])[...], { _ in nil }),
                let (before, after) = try Self.rewrite(row, document, as: edited, "removing \(removeAt) from \(name)") {
                cases += 1
                let (prefix, suffix) = TextLossless.commonEnds(before, after)
                #expect(prefix + suffix == after.count, "\(row.path): removing \(removeAt) from \(name) did more than delete text")
            }
        }
        return cases
    }
}
