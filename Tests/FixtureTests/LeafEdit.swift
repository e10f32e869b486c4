import Foundation
import Trove

/// Finding and changing one scalar inside a value, for the one-value-edit layout checks.
enum LeafEdit {
    /// An integer or string leaf (never a dictionary key) and where it is.
    struct Leaf {
        var path: [PathStep]
        var value: PlistValue
    }

    /// Integer and string leaves in document order (array order; dictionary entries in key order).
    static func leaves(of value: PlistValue, limit: Int = 10_000) -> [Leaf] {
        var found: [Leaf] = []
        var path: [PathStep] = []
        func walk(_ v: PlistValue) {
            guard found.count < limit else { return }
            switch v {
            case .integer, .string:
                found.append(Leaf(path: path, value: v))
            case .array(let items):
                for (i, item) in items.enumerated() {
                    path.append(.index(i))
                    walk(item)
                    path.removeLast()
                }
            case .dictionary(let dict):
                for (key, item) in dict {
                    path.append(.key(key))
                    walk(item)
                    path.removeLast()
                }
            default:
                break
            }
        }
        walk(value)
        return found
    }

    /// The edited form of a leaf: an integer plus one, a string with "x" appended; nil when the
    /// integer is already `UInt64.max`.
    static func edited(_ leaf: PlistValue) -> PlistValue? {
        switch leaf {
        case .integer(let n):
            if n.isNegative {
                // -m + 1 == -(m - 1); magnitude is at least 1 for a negative value.
                return PlistInteger(isNegative: true, magnitude: n.magnitude - 1).map(PlistValue.integer)
            }
            guard n.magnitude < UInt64.max else { return nil }
            return .integer(PlistInteger(n.magnitude + 1))
        case .string(let s):
            return .string(s + "x")
        default:
            return nil
        }
    }

    /// `value` with the value at `path` replaced; nil when the path does not lead anywhere.
    static func replacing(in value: PlistValue, at path: ArraySlice<PathStep>, with replacement: PlistValue) -> PlistValue? {
        guard let step = path.first else { return replacement }
        switch (value, step) {
        case (.array(var items), .index(let i)) where items.indices.contains(i):
            guard let inner = replacing(in: items[i], at: path.dropFirst(), with: replacement) else { return nil }
            items[i] = inner
            return .array(items)
        case (.dictionary(var dict), .key(let key)):
            guard let current = dict[key], let inner = replacing(in: current, at: path.dropFirst(), with: replacement)
            else { return nil }
            dict[key] = inner
            return .dictionary(dict)
        default:
            return nil
        }
    }

    /// The text lines of an XML document in whatever Unicode encoding its BOM names, or nil when
    /// the bytes are not text in that encoding.
    static func textLines(_ data: Data) -> [String]? {
        let b = [UInt8](data.prefix(4))
        func has(_ prefix: [UInt8]) -> Bool { b.starts(with: prefix) }
        let text: String?
        if has([0x00, 0x00, 0xFE, 0xFF]) {
            text = String(data: data.dropFirst(4), encoding: .utf32BigEndian)
        } else if has([0xFF, 0xFE, 0x00, 0x00]) {
            text = String(data: data.dropFirst(4), encoding: .utf32LittleEndian)
        } else if has([0xFE, 0xFF]) {
            text = String(data: data.dropFirst(2), encoding: .utf16BigEndian)
        } else if has([0xFF, 0xFE]) {
            text = String(data: data.dropFirst(2), encoding: .utf16LittleEndian)
        } else if has([0xEF, 0xBB, 0xBF]) {
            text = String(data: data.dropFirst(3), encoding: .utf8)
        } else {
            text = String(data: data, encoding: .utf8)
        }
        // Split on LF scalars only (a CR LF pair is one Character), so CRs stay part of each line.
        return text.map { $0.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) } }
    }
}
