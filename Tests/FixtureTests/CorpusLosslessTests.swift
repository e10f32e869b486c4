import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting

/// Reading a file and writing it back unchanged reproduces it byte for byte, and editing one value
/// changes only the bytes of that value.
@Suite(
    "Corpus: lossless rewrite", .serialized,
    .enabled(if: FixtureCorpus.isAvailable, FixtureCorpus.unavailableReason))
struct CorpusLosslessTests {
    /// Read then write with the layout notes; nil on any failure, with the reason.
    static func rewrite(_ bytes: Data) async -> Result<Data, PlistError>? {
        await HangGuard.run(seconds: HangGuard.validDeadline) {
            Result { () throws(PlistError) in try Plist.write(try Plist.read(bytes)) }
        }
    }

    /// The first byte offset where two buffers differ, or nil when they are equal.
    static func firstDifference(_ a: Data, _ b: Data) -> Int? {
        if a == b { return nil }
        return zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }

    @Test("Rewriting an unchanged file reproduces its bytes", arguments: CorpusRowSets.valid)
    func unchangedRewriteIsIdentical(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        let result = await Self.rewrite(bytes)
        guard case .success(let output)? = result else {
            Issue.record("\(row.path): read + write failed: \(String(describing: result))")
            return
        }
        guard let offset = Self.firstDifference(output, bytes) else { return }
        let message = "\(row.path): rewrite differs at byte \(offset) (\(output.count) bytes written, \(bytes.count) read)"
        if row.isAppleWritten {
            Issue.record(Comment(rawValue: message))
        } else {
            // Files from other projects' writers are measured (see the summary), not required.
            print("lossless, not asserted (\(row.producer)): \(message)")
        }
    }

    @Test("Summary: lossless numbers")
    func summary() async throws {
        var binary = (same: 0, total: 0), xml = (same: 0, total: 0), apple = (same: 0, total: 0)
        for row in CorpusRowSets.valid {
            let bytes = try FixtureCorpus.contents(of: row)
            let same: Bool
            if case .success(let output)? = await Self.rewrite(bytes) { same = output == bytes } else { same = false }
            let bump = same ? 1 : 0
            if row.scope == .binary {
                binary.total += 1
                binary.same += bump
            } else {
                xml.total += 1
                xml.same += bump
            }
            if row.isAppleWritten {
                apple.total += 1
                apple.same += bump
            }
        }
        print(
            "lossless: binary \(binary.same) of \(binary.total), xml \(xml.same) of \(xml.total); "
                + "Apple-written: \(apple.same) of \(apple.total)")
        #expect(apple.same == apple.total, "Apple-written files must come back byte-identical")
    }

    @Test("Editing one value changes only that value's bytes", arguments: CorpusRowSets.valid.filter(\.isAppleWritten))
    func oneValueEdit(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        let read = await HangGuard.read(bytes, seconds: HangGuard.validDeadline)
        guard case .success(let document)? = read else {
            Issue.record("\(row.path): cannot test an edit, the file does not read: \(String(describing: read))")
            return
        }
        let table = row.scope == .binary ? try BinaryObjectTable(bytes) : nil
        guard let choice = Self.chooseLeaf(in: document.value, table: table) else {
            print("one-value edit: \(row.path) has no editable integer or string leaf; nothing to check")
            return
        }
        let edited = try #require(LeafEdit.replacing(in: document.value, at: choice.leaf.path[...], with: choice.newValue))
        var changedDocument = document
        changedDocument.value = edited
        let toWrite = changedDocument
        let written = await HangGuard.run(seconds: HangGuard.validDeadline) {
            Result { () throws(PlistError) in try Plist.write(toWrite) }
        }
        guard case .success(let output)? = written else {
            Issue.record("\(row.path): writing the edited document failed: \(String(describing: written))")
            return
        }
        let where_ = choice.leaf.path.map(\.description).joined()
        // (a) The output reads back as the edited value.
        do {
            let reread = try Plist.read(output)
            expectPlistEqual(reread.value, edited, context: "\(row.path): after editing root\(where_), the output")
        } catch {
            Issue.record("\(row.path): after editing root\(where_), the output does not read: \(error)")
        }
        if let table, let objectIndex = choice.objectIndex {
            Self.checkOnlyObjectChanged(row: row, before: table, after: output, edited: objectIndex, path: where_)
        } else {
            Self.checkOnlyLineChanged(row: row, before: bytes, after: output, path: where_)
        }
    }

    /// Checks the harness, not the library: the test's own object-table reader parses every valid
    /// binary file, and following a golden value's paths lands on objects holding those values.
    @Test("Harness sanity: the independent object-table reader agrees with the goldens")
    func objectTableReaderAgreesWithGoldens() throws {
        var parsed = 0, leavesChecked = 0
        for row in CorpusRowSets.valid where row.scope == .binary {
            let table: BinaryObjectTable
            do {
                table = try BinaryObjectTable(try FixtureCorpus.contents(of: row))
            } catch {
                // Lenient files (odd trailers, data in the trailer) may be beyond this small reader.
                print("harness: object-table reader skips \(row.path): \(error)")
                continue
            }
            parsed += 1
            guard let golden = try FixtureCorpus.golden(of: row) else { continue }
            for leaf in LeafEdit.leaves(of: golden, limit: 50) {
                guard case .string(let text) = leaf.value else { continue }
                let index = table.objectIndex(at: leaf.path)
                #expect(index.flatMap(table.string) == text, "\(row.path): root\(leaf.path.map(\.description).joined()) does not lead to the string \(text.debugDescription)")
                leavesChecked += 1
            }
        }
        print("harness: object-table reader parsed \(parsed) valid binary files and followed \(leavesChecked) string paths")
        #expect(parsed > 0)
    }

    /// The chosen leaf, its replacement, and (binary) its object.
    struct Choice {
        var leaf: LeafEdit.Leaf
        var newValue: PlistValue
        var objectIndex: Int?
    }

    /// The first integer or string leaf that can be edited in place. In a binary file the leaf's
    /// object must be referenced exactly once and not serve as a key, since CF shares equal
    /// objects and an edit to a shared one must add an object; and the new value must not already
    /// exist, or a writer could rightly share it.
    static func chooseLeaf(in value: PlistValue, table: BinaryObjectTable?) -> Choice? {
        let existing = allScalars(value)
        let counts = table?.referenceCounts()
        let keys = table?.keyObjects()
        for leaf in LeafEdit.leaves(of: value) {
            guard let newValue = LeafEdit.edited(leaf.value), !existing.contains(newValue) else { continue }
            guard let table, let counts, let keys else { return Choice(leaf: leaf, newValue: newValue, objectIndex: nil) }
            guard let index = table.objectIndex(at: leaf.path), counts[index] == 1, !keys.contains(index) else { continue }
            return Choice(leaf: leaf, newValue: newValue, objectIndex: index)
        }
        return nil
    }

    /// Every string (keys included) and integer in a value.
    static func allScalars(_ value: PlistValue) -> Set<PlistValue> {
        var found = Set<PlistValue>()
        func walk(_ v: PlistValue) {
            switch v {
            case .string, .integer: found.insert(v)
            case .array(let items): items.forEach(walk)
            case .dictionary(let dict):
                for (key, item) in dict {
                    found.insert(.string(key))
                    walk(item)
                }
            default: break
            }
        }
        walk(value)
        return found
    }

    /// (b) XML: the same lines, except the one holding the edited value.
    static func checkOnlyLineChanged(row: FixtureRow, before: Data, after: Data, path: String) {
        guard let old = LeafEdit.textLines(before), let new = LeafEdit.textLines(after) else {
            Issue.record("\(row.path): input or output is not text in its BOM's encoding")
            return
        }
        guard old.count == new.count else {
            Issue.record("\(row.path): editing root\(path) changed the line count from \(old.count) to \(new.count)")
            return
        }
        let changed = old.indices.filter { old[$0] != new[$0] }
        if changed.count != 1 {
            let sample = changed.prefix(3).map { "line \($0 + 1): \(old[$0].debugDescription) -> \(new[$0].debugDescription)" }
            Issue.record("\(row.path): editing root\(path) changed \(changed.count) lines, expected 1: \(sample.joined(separator: "; "))")
        }
    }

    /// (c) Binary: the same object table, every object but the edited one byte-identical.
    static func checkOnlyObjectChanged(row: FixtureRow, before: BinaryObjectTable, after output: Data, edited: Int, path: String) {
        let after: BinaryObjectTable
        do {
            after = try BinaryObjectTable(output)
        } catch {
            Issue.record("\(row.path): the edited output's object table does not parse: \(error)")
            return
        }
        guard after.objectCount == before.objectCount else {
            Issue.record("\(row.path): editing root\(path) (object \(edited)) changed the object count from \(before.objectCount) to \(after.objectCount)")
            return
        }
        #expect(after.topObject == before.topObject, "\(row.path): the top object moved from \(before.topObject) to \(after.topObject)")
        let changed = (0..<before.objectCount).filter { $0 != edited && before.objectBytes($0) != after.objectBytes($0) }
        if !changed.isEmpty {
            Issue.record("\(row.path): editing object \(edited) (root\(path)) also changed objects \(changed.prefix(10).map(String.init))")
        }
        #expect(before.objectBytes(edited) != after.objectBytes(edited), "\(row.path): the edited object \(edited) kept its old bytes")
    }
}
