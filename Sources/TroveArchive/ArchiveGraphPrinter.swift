import Foundation
import TroveCore

/// Prints an archive's object graph for a person: every keyed object with its class and keys,
/// each container or custom object once, marked `#N` (its entry in `$objects`), and referred to
/// as `-> #N Class` wherever it appears again; a reference back to an object still being printed
/// (a cycle) ends in `(cycle)`. Strings, numbers, data, dates, UUIDs, URLs and `NSNull` are
/// values and print in place at each use.
struct ArchiveGraphPrinter {
    let decoder: ArchiveDecoder
    private var printed: Set<Int> = []
    private var onPath: Set<Int> = []
    private var out = ""
    private var depth = 0

    init(decoder: ArchiveDecoder) { self.decoder = decoder }

    mutating func text() throws -> String {
        for entry in decoder.table.topLevel {
            out += "\(entry.key) = "
            try decoder.withPath(.key(entry.key)) { try value(entry.value, indent: "") }
            out += "\n"
        }
        return out
    }

    private mutating func value(_ field: PlistValue, indent: String) throws {
        depth += 1
        defer { depth -= 1 }
        guard depth <= decoder.limits.maxDepth else {
            throw decoder.error(.depthLimit, "objects nest more than \(decoder.limits.maxDepth) deep (KeyedArchiveLimits.maxDepth)")
        }
        switch field {
        case .uid(let reference):
            switch try decoder.resolve(reference: reference) {
            case .null: out += "nil"
            case .inline(let inline): try value(inline, indent: indent)
            case .object(let index, let record, let fields): try object(index, record, fields, indent: indent)
            }
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "[\n"
            for (position, element) in elements.enumerated() {
                out += indent + "  [\(position)] "
                try decoder.withPath(.index(position)) { try value(element, indent: indent + "  ") }
                out += "\n"
            }
            out += indent + "]"
        case .dictionary(let entries):
            out += "{\n"
            for (key, element) in entries {
                out += indent + "  \(key) = "
                try decoder.withPath(.key(key)) { try value(element, indent: indent + "  ") }
                out += "\n"
            }
            out += indent + "}"
        default:
            out += Self.scalar(field)
        }
    }

    private mutating func object(_ index: Int, _ record: ArchiveClass, _ fields: ArchiveFields, indent: String) throws {
        if let leaf = try leafValue(record, fields) {
            out += leaf
            return
        }
        if onPath.contains(index) {
            out += "-> #\(index) \(record.name) (cycle)"
            return
        }
        if printed.contains(index) {
            out += "-> #\(index) \(record.name)"
            return
        }
        printed.insert(index)
        onPath.insert(index)
        defer { onPath.remove(index) }
        let chain = Set(record.chain)
        if !chain.isDisjoint(with: FoundationClass.arrayLike) {
            let references = try decoder.collectionReferences(fields)
            out += "#\(index) \(record.name) (\(references.count)) "
            try value(.array(Array(references)), indent: indent)
            return
        }
        if !chain.isDisjoint(with: FoundationClass.dictionaryLike) {
            let keys = try decoder.collectionReferences(fields, key: "NS.keys", legacyPrefix: "NS.key.")
            let values = try decoder.collectionReferences(fields, key: "NS.objects", legacyPrefix: "NS.object.")
            out += "#\(index) \(record.name) (\(keys.count)) {"
            if keys.isEmpty {
                out += "}"
                return
            }
            out += "\n"
            for (position, key) in keys.enumerated() {
                out += indent + "  "
                try decoder.withPath(.index(position)) { try value(key, indent: indent + "  ") }
                out += " => "
                if position < values.count {
                    try decoder.withPath(.index(position)) { try value(values[position], indent: indent + "  ") }
                }
                out += "\n"
            }
            out += indent + "}"
            return
        }
        out += "#\(index) \(record.name) {"
        let keys = try fields.keys().filter { $0 != "$class" }
        if keys.isEmpty {
            out += "}"
            return
        }
        out += "\n"
        for key in keys {
            guard let stored = try fields[key] else { continue }
            out += indent + "  \(key) = "
            try decoder.withPath(.key(key)) { try value(stored, indent: indent + "  ") }
            out += "\n"
        }
        out += indent + "}"
    }

    /// Foundation's value objects, printed in place.
    private func leafValue(_ record: ArchiveClass, _ fields: ArchiveFields) throws -> String? {
        let chain = Set(record.chain)
        if chain.contains("NSNull") { return "NSNull" }
        if chain.contains("NSDate"), let stored = try fields["NS.time"], let time = try? Double.decodeArchiveField(stored, with: decoder) {
            return "NSDate " + PlistDate(secondsSinceReferenceDate: time).iso8601String
        }
        if chain.contains("NSUUID"), let stored = try fields["NS.uuidbytes"], let bytes = try? Data.decodeArchiveField(stored, with: decoder),
            bytes.count == 16
        {
            var raw = UUID().uuid
            withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
            return "NSUUID " + UUID(uuid: raw).uuidString
        }
        if chain.contains("NSURL"), let url = try? URL.decodeArchiveField(.uid(0), orFields: fields, with: decoder) {
            return "NSURL " + url.absoluteString
        }
        if !chain.isDisjoint(with: FoundationClass.stringLike), case .string(let s)? = try decoder.plainField(try fields["NS.string"]) {
            return record.name + " " + Self.scalar(.string(s))
        }
        if !chain.isDisjoint(with: FoundationClass.dataLike), let bytes = try decoder.plainField(try fields["NS.data"])?.dataValue {
            return record.name + " " + Self.scalar(.data(bytes))
        }
        return nil
    }

    static func scalar(_ value: PlistValue) -> String {
        switch value {
        case .string(let s): return DisplayEscaping.quoted(s)
        case .integer(let i): return i.description
        case .real(let r): return r.value.description
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return d.iso8601String
        case .data(let bytes):
            let shown = bytes.prefix(24).map { String(format: "%02x", $0) }.joined()
            return "<\(shown)\(bytes.count > 24 ? "..." : "")> (\(bytes.count) bytes)"
        case .null: return "null"
        case .uid(let u): return "UID(\(u))"
        case .array, .dictionary: return value.kind.rawValue
        }
    }
}

extension KeyedUnarchiver {
    /// The archive's object graph as readable text (see `trove archive print`): one line per key,
    /// every container or custom object once, marked `#N`, and `-> #N Class` where it appears
    /// again (`(cycle)` when it contains itself).
    public func describe(_ archive: KeyedArchive) throws -> String {
        var printer = ArchiveGraphPrinter(decoder: makeDecoder(archive.table))
        return try printer.text()
    }
}
