import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting

/// Three-way merges over corpus files: two generated edits of each file merge into the value with
/// both applied, and the merged changes written back into one side's layout read back as that
/// value; two different edits of one entry are found as a conflict at its key path.
@Suite("Corpus: three-way merge", .enabled(if: FixtureCorpus.isAvailable, FixtureCorpus.unavailableReason))
struct CorpusMergeTests {
    /// Files small enough to merge several times each in a test run.
    static let rows: [FixtureRow] = CorpusRowSets.valid.filter { row in
        guard let root = FixtureCorpus.root,
            let size = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(row.path).path)[.size]
                as? Int
        else { return false }
        return size < 512 * 1024
    }

    /// A seed that depends on the file's path only (FNV-1a), so that each file gets its own edits
    /// and every run the same ones.
    static func seed(_ row: FixtureRow) -> UInt64 {
        row.path.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Integer and string leaves (the ones ``LeafEdit/edited(_:)`` can change), by key path.
    static func leaves(of value: PlistValue, limit: Int = 2_000) -> [(PlistKeyPath, PlistValue)] {
        var found: [(PlistKeyPath, PlistValue)] = []
        var pending: [(PlistKeyPath, PlistValue)] = [(.root, value)]
        while let (path, item) = pending.popLast(), found.count < limit {
            switch item {
            case .integer, .string: found.append((path, item))
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() { pending.append((path.appending(index: index), element)) }
            case .dictionary(let entries):
                for entry in entries.reversed() { pending.append((path.appending(key: entry.key), entry.value)) }
            default: break
            }
        }
        return found
    }

    @Test("edits of different entries merge, in the value and in OURS's layout", arguments: rows)
    func differentEntriesMerge(_ row: FixtureRow) throws {
        let bytes = try FixtureCorpus.contents(of: row)
        guard let document = try? Plist.read(bytes), document.format == .xml || document.format == .binary else { return }
        let base = document.value
        let leaves = Self.leaves(of: base).filter { LeafEdit.edited($0.1) != nil }
        var generator = SplitMix(seed: Self.seed(row))
        var ours = base, theirs = base, expected = base
        if leaves.count >= 2 {
            let first = generator.below(leaves.count)
            var second = generator.below(leaves.count - 1)
            if second >= first { second += 1 }
            let (ourPath, ourLeaf) = leaves[first], (theirPath, theirLeaf) = leaves[second]
            try ours.replaceLeaf(at: ourPath, with: LeafEdit.edited(ourLeaf)!)
            try expected.replaceLeaf(at: ourPath, with: LeafEdit.edited(ourLeaf)!)
            try theirs.replaceLeaf(at: theirPath, with: LeafEdit.edited(theirLeaf)!)
            try expected.replaceLeaf(at: theirPath, with: LeafEdit.edited(theirLeaf)!)
        }
        if case .dictionary = base {
            try theirs.insert("added by theirs", at: [.key("trove merge test: theirs")])
            try expected.insert("added by theirs", at: [.key("trove merge test: theirs")])
            try ours.insert(["nested": 1], at: [.key("trove merge test: ours")])
            try expected.insert(["nested": 1], at: [.key("trove merge test: ours")])
        }
        let merge = PlistMerge.merge(base: base, ours: ours, theirs: theirs)
        #expect(merge.conflicts.isEmpty, "\(row.path): \(merge.conflicts)")
        expectPlistEqual(merge.value, expected, context: "\(row.path): the merged value")

        // OURS on disk in the file's own format and layout, patched with the merged changes.
        var ourDocument = try Plist.read(try Plist.write(PlistDocument(value: ours, format: document.format, layout: nil)))
        try ourDocument.value.apply(merge.value.differences(from: ourDocument.value))
        let reread = try Plist.read(try Plist.write(ourDocument), options: PlistReadOptions(keepsLayout: false))
        expectPlistEqual(reread.value, expected, context: "\(row.path): OURS patched and written")
    }

    @Test("two different edits of one entry are a conflict at its key path", arguments: rows)
    func sameEntryConflicts(_ row: FixtureRow) throws {
        let bytes = try FixtureCorpus.contents(of: row)
        guard let document = try? Plist.read(bytes, options: PlistReadOptions(keepsLayout: false)) else { return }
        let base = document.value
        let leaves = Self.leaves(of: base)
        var generator = SplitMix(seed: Self.seed(row) &* 7919)
        guard !leaves.isEmpty else { return }
        let (path, leaf) = leaves[generator.below(leaves.count)]
        guard leaf != "ours" else { return }
        var ours = base, theirs = base
        try ours.replaceLeaf(at: path, with: "ours")
        try theirs.replaceLeaf(at: path, with: .data(Data([0xFE])))  // never a leaf: leaves are integers and strings
        let merge = PlistMerge.merge(base: base, ours: ours, theirs: theirs)
        #expect(merge.conflicts.map(\.keyPath) == [path], "\(row.path)")
        #expect(merge.conflicts.first?.ours == "ours" && merge.conflicts.first?.theirs == .data(Data([0xFE])))
    }
}

extension PlistValue {
    /// Overwrites an existing leaf at an exact key path (an array index overwrites the element).
    fileprivate mutating func replaceLeaf(at path: PlistKeyPath, with value: PlistValue) throws(PlistError) {
        if path.isEmpty {
            self = value
            return
        }
        try apply([PlistDifference(keyPath: path, change: .changed(from: .null, to: value))])
    }
}
