import Foundation
import Testing

@testable import TroveCore

/// What the text-format lossless tests share: the corpus rows, edits by key path, and the checks
/// that an edit changed only the text it had to.
enum TextLossless {
    /// Every valid old-style file of the corpus: the `openstep/` files and the big Xcode projects
    /// and `.strings` files in `large/`.
    static let openStepRows: [TextFixtures.Row] = TextFixtures.rows.filter { row in
        row.expectation.hasPrefix("valid")
            && (row.category == "openstep"
                || (row.category == "large" && (row.path.hasSuffix(".pbxproj") || row.path.hasSuffix(".strings"))))
    }

    /// Every valid JSON file of the corpus.
    static let jsonRows: [TextFixtures.Row] = TextFixtures.rows.filter {
        $0.category == "json" && $0.expectation.hasPrefix("valid")
    }

    /// The document as UTF-8, decoded the way its format's reader decodes it.
    static func utf8(_ bytes: [UInt8], _ format: PlistFormat) throws -> [UInt8] {
        try bytes.withUnsafeBytes { raw in
            let encoding: UnicodeTextEncoding = format == .json ? .sniffed(raw) : .fromByteOrderMark(raw)
            return try UnicodeTranscoder.utf8Text(raw, encoding: encoding, format: format)
        }
    }

    /// The length of the longest common prefix and of the longest common suffix of two texts,
    /// the suffix not overlapping the prefix in either.
    static func commonEnds(_ a: [UInt8], _ b: [UInt8]) -> (prefix: Int, suffix: Int) {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let shorter = min(a.count, b.count)
                var prefix = 0
                while prefix < shorter, a[prefix] == b[prefix] { prefix += 1 }
                var suffix = 0
                while suffix < shorter - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
                return (prefix, suffix)
            }
        }
    }

    /// How often `needle` occurs in `text`.
    static func occurrences(of needle: String, in text: [UInt8]) -> Int {
        let n = Array(needle.utf8)
        return text.withUnsafeBufferPointer { t in
            n.withUnsafeBufferPointer { p in
                guard let tb = t.baseAddress, let pb = p.baseAddress, t.count >= p.count else { return 0 }
                var count = 0
                var i = 0
                while i + p.count <= t.count {
                    if tb[i] == pb[0], memcmp(tb + i, pb, p.count) == 0 { count += 1 }
                    i += 1
                }
                return count
            }
        }
    }

    // MARK: Values by path

    /// Every scalar with its path, in document order.
    static func leaves(of value: PlistValue) -> [(path: [PlistKeyPath.Component], value: PlistValue)] {
        var found: [(path: [PlistKeyPath.Component], value: PlistValue)] = []
        var pending: [([PlistKeyPath.Component], PlistValue)] = [([], value)]
        while let (path, next) = pending.popLast() {
            switch next {
            case .array(let items):
                for (i, item) in items.enumerated().reversed() { pending.append((path + [.index(i)], item)) }
            case .dictionary(let entries):
                for (key, item) in entries.reversed() { pending.append((path + [.key(key)], item)) }
            default:
                found.append((path, next))
            }
        }
        return found
    }

    /// Every container with its path, in document order.
    static func containers(of value: PlistValue) -> [(path: [PlistKeyPath.Component], value: PlistValue)] {
        var found: [(path: [PlistKeyPath.Component], value: PlistValue)] = []
        var pending: [([PlistKeyPath.Component], PlistValue)] = [([], value)]
        while let (path, next) = pending.popLast() {
            switch next {
            case .array(let items):
                found.append((path, next))
                for (i, item) in items.enumerated().reversed() { pending.append((path + [.index(i)], item)) }
            case .dictionary(let entries):
                found.append((path, next))
                for (key, item) in entries.reversed() { pending.append((path + [.key(key)], item)) }
            default:
                break
            }
        }
        return found
    }

    /// `value` with the value at `path` passed through `change` (nil removes it); with
    /// `inserting`, an array index names the place a new element goes.
    static func editing(
        _ value: PlistValue, at path: ArraySlice<PlistKeyPath.Component>, inserting: Bool = false,
        _ change: (PlistValue?) -> PlistValue?
    ) -> PlistValue? {
        guard let first = path.first else { return change(value) }
        switch (value, first) {
        case (.dictionary(var entries), .key(let key)):
            let rest = path.dropFirst()
            if rest.isEmpty {
                entries[key] = change(entries[key])
            } else {
                guard let child = entries[key], let edited = editing(child, at: rest, inserting: inserting, change) else {
                    return nil
                }
                entries[key] = edited
            }
            return .dictionary(entries)
        case (.array(var items), .index(let i)):
            let rest = path.dropFirst()
            if rest.isEmpty {
                if inserting {
                    guard i <= items.count, let added = change(nil) else { return nil }
                    items.insert(added, at: i)
                } else if i < items.count, let changed = change(items[i]) {
                    items[i] = changed
                } else if i < items.count {
                    items.remove(at: i)
                } else {
                    return nil
                }
            } else {
                guard i < items.count, let edited = editing(items[i], at: rest, inserting: inserting, change) else { return nil }
                items[i] = edited
            }
            return .array(items)
        default:
            return nil
        }
    }

    /// A different value of the same kind, which a text format can hold as it holds `value`.
    static func changed(_ value: PlistValue) -> PlistValue {
        switch value {
        case .string(let s): return .string(s + " (edited)")
        case .data(let d): return .data(d + [0xAB])
        case .integer(let i): return .integer(PlistInteger(i.int64Value.map { $0 == Int64.max ? 0 : $0 + 1 } ?? 1))
        case .real(let r):
            // Not a whole number, which JSON would spell as an integer.
            let next = r.value.rounded() == r.value ? r.value + 0.5 : r.value + 1
            return .real(PlistReal(next.rounded() == next ? next + 0.25 : next))
        case .bool(let b): return .bool(!b)
        default: return .string("edited")
        }
    }

    /// The text range node `path` was read from, found through the notes.
    static func textRange(_ notes: TextLayoutNotes, path: [PlistKeyPath.Component]) -> Range<Int>? {
        var node: Int32 = 0
        var value = notes.value
        for component in path {
            let children = notes.children(of: node)
            switch (component, value) {
            case (.index(let i), .array(let items)):
                node = children[i]
                value = items[i]
            case (.key(let key), .dictionary(let entries)):
                guard let p = entries.index(forKey: key) else { return nil }
                let positions = notes.entryPositions[node]?.map(Int.init) ?? Array(children.indices)
                guard let i = positions.lastIndex(of: p) else { return nil }
                node = children[i]
                value = entries.values[p]
            default:
                return nil
            }
        }
        return Int(notes.nodes[Int(node)].start)..<Int(notes.nodes[Int(node)].end)
    }
}
