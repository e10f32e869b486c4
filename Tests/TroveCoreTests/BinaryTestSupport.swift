import Foundation
import Testing
@testable import TroveCore

/// Locates the shared fixture corpus and lists its binary rows.
enum BinaryFixtures {
    /// `TROVE_FIXTURES`, else `../shared/fixtures` beside the package root.
    static let root: URL? = {
        if let env = ProcessInfo.processInfo.environment["TROVE_FIXTURES"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidate = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("MANIFEST.tsv").path)
            ? candidate : nil
    }()

    static var available: Bool { root != nil }

    struct Row {
        let path: String
        let category: String
        let expectation: String
        let bytes: [UInt8]
    }

    /// Manifest rows whose file starts with `bplist`.
    static let binaryRows: [Row] = {
        guard let root,
            let manifest = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        var rows: [Row] = []
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6,
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(fields[0]).path),
                data.starts(with: Array("bplist".utf8))
            else { continue }
            rows.append(Row(path: fields[0], category: fields[1], expectation: fields[5], bytes: [UInt8](data)))
        }
        return rows
    }()

    /// Valid binary plists of the binary, keyed-archive and large categories.
    static var validRows: [Row] {
        binaryRows.filter {
            ["binary", "keyed-archive", "large"].contains($0.category)
                && ($0.expectation == "valid" || $0.expectation == "valid-lenient")
        }
    }
}

/// Reads `bytes` with the binary reader.
func readBinary(
    _ bytes: [UInt8], limits: PlistLimits = .default, keepingLayout: Bool = true
) throws(PlistError) -> (value: PlistValue, layout: BinaryLayout?) {
    let result: Result<(value: PlistValue, layout: BinaryLayout?), PlistError> = bytes.withUnsafeBytes { raw in
        Result { () throws(PlistError) in try BinaryPlistReader(limits: limits).read(raw, keepingLayout: keepingLayout) }
    }
    return try result.get()
}

/// The error reading `bytes` throws, or nil when it reads.
func binaryReadError(_ bytes: [UInt8], limits: PlistLimits = .default) -> PlistError? {
    do {
        _ = try readBinary(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// Builds binary plists by hand from object bytes, for malformed and edge-case inputs.
struct BinaryPlistBuilder {
    var objects: [[UInt8]] = []
    var offsetSize = 1
    var refSize = 1
    var top: UInt64 = 0
    var version: UInt8 = UInt8(ascii: "0")

    /// Appends an object's bytes; returns its index.
    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    /// The file, with any trailer field overridable.
    func build(objectCount: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [UInt64]? = nil) -> [UInt8] {
        var out = Array("bplist0".utf8) + [version]
        var starts: [UInt64] = []
        for object in objects {
            starts.append(UInt64(out.count))
            out += object
        }
        let table = UInt64(out.count)
        for start in offsets ?? starts { out += binaryBigEndian(start, width: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += binaryBigEndian(objectCount ?? UInt64(objects.count), width: 8)
        out += binaryBigEndian(top, width: 8)
        out += binaryBigEndian(tableOffset ?? table, width: 8)
        return out
    }
}

func binaryBigEndian(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) }
}

/// The orphans of a binary plist worked out the slow way, to check the reader's notes against:
/// the objects the top object reaches through container references; then, for each other object
/// in ascending order, its index and bytes when it is a boolean, null or UID of up to three
/// bytes (kept), else its index and the lowest-numbered reachable object of identical bytes (a
/// copy); nil when the trailer does not read.
func slowOrphans(_ bytes: [UInt8]) -> (kept: [[Int]], copies: [[Int]], unmatched: Int)? {
    bytes.withUnsafeBytes { raw -> (kept: [[Int]], copies: [[Int]], unmatched: Int)? in
        guard let trailer = try? BinaryTrailer(raw) else { return nil }
        let contents = BinaryOrphanCopies.ObjectContents(bytes: raw, trailer: trailer)
        let refSize = trailer.objectRefSize
        func reference(at position: Int) -> Int {
            (0..<refSize).reduce(0) { $0 << 8 | Int(raw[position + $1]) }
        }
        var reached = [Bool](repeating: false, count: trailer.objectCount)
        var pending = [trailer.topObject]
        while let index = pending.popLast() {
            guard index < trailer.objectCount, !reached[index] else { continue }
            reached[index] = true
            guard let content = contents.content(of: index), [0xA, 0xC, 0xD].contains(content[0] >> 4) else { continue }
            var count = Int(content[0] & 0x0F)
            var refs = 1
            if count == 0x0F {
                let width = 1 << Int(content[1] & 0x0F)
                count = (0..<width).reduce(0) { $0 << 8 | Int(content[2 + $1]) }
                refs = 2 + width
            }
            if content[0] >> 4 == 0xD { count *= 2 }
            let start = content.baseAddress! - raw.baseAddress!
            for i in 0..<count { pending.append(reference(at: start + refs + i * refSize)) }
        }
        var firsts: [[UInt8]: Int] = [:]
        for index in 0..<trailer.objectCount where reached[index] {
            if let content = contents.content(of: index), firsts[Array(content)] == nil { firsts[Array(content)] = index }
        }
        var kept: [[Int]] = []
        var copies: [[Int]] = []
        var unmatched = 0
        for index in 0..<trailer.objectCount where !reached[index] {
            if let content = contents.content(of: index),
               content.count == 1 && content[0] < 0x10 || (0x80...0x82).contains(content[0]) {
                kept.append([index] + content.map(Int.init))
            } else if let content = contents.content(of: index), let original = firsts[Array(content)] {
                copies.append([index, original])
            } else {
                unmatched += 1
            }
        }
        return (kept, copies, unmatched)
    }
}

/// The kept orphans of `layout` as ``slowOrphans(_:)`` lists them: each index, then its bytes.
func keptOrphanRows(_ layout: BinaryLayout) -> [[Int]] {
    layout.keptOrphans.map { orphan in
        [Int(orphan.object)] + (0..<orphan.length).map { Int(UInt8(truncatingIfNeeded: orphan.bytes >> (8 * UInt32($0)))) }
    }
}
