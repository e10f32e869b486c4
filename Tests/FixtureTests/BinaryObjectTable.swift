import Foundation

/// A deliberately small, independent reading of a binary plist's object table: the trailer, the
/// offset table, and the exact byte range of every object. It decodes no values except the
/// strings needed to follow dictionary keys.
///
/// It exists so that tests can judge the library's binary writer at the level of objects
/// ("every object but the edited one kept its bytes") without trusting the library's own reader.
struct BinaryObjectTable {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The whole file.
    let bytes: [UInt8]
    /// Bytes per offset-table entry.
    let offsetSize: Int
    /// Bytes per object reference.
    let referenceSize: Int
    /// The index of the root object.
    let topObject: Int
    /// Where each object starts.
    let offsets: [Int]
    /// Each object's byte range (marker included).
    let ranges: [Range<Int>]
    /// The references each container holds: arrays and sets in order; dictionaries keys first,
    /// then values, as stored.
    let references: [[Int]]

    var objectCount: Int { offsets.count }

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        self.bytes = bytes
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist".utf8)) else {
            throw Malformed(description: "not a binary plist of at least 40 bytes")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = try Self.bigEndian(bytes, at: trailer + 8, width: 8)
        let top = try Self.bigEndian(bytes, at: trailer + 16, width: 8)
        let tableOffset = try Self.bigEndian(bytes, at: trailer + 24, width: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count <= UInt64(bytes.count),
            top < count, tableOffset < UInt64(trailer)
        else { throw Malformed(description: "trailer fields out of range") }
        topObject = Int(top)
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let (position, overflow) = Int(tableOffset).addingReportingOverflow(i * offsetSize)
            guard !overflow else { throw Malformed(description: "offset table overflows") }
            let offset = try Self.bigEndian(bytes, at: position, width: offsetSize)
            guard offset >= 8, offset < tableOffset else { throw Malformed(description: "object \(i) offset \(offset) out of range") }
            offsets.append(Int(offset))
        }
        self.offsets = offsets
        var ranges: [Range<Int>] = []
        var references: [[Int]] = []
        for (i, start) in offsets.enumerated() {
            let (range, refs) = try Self.object(in: bytes, at: start, referenceSize: referenceSize, limit: Int(tableOffset))
            guard refs.allSatisfy({ $0 < offsets.count }) else { throw Malformed(description: "object \(i) references past the table") }
            ranges.append(range)
            references.append(refs)
        }
        self.ranges = ranges
        self.references = references
    }

    /// The bytes of object `index`.
    func objectBytes(_ index: Int) -> ArraySlice<UInt8> { bytes[ranges[index]] }

    /// The marker byte of object `index`.
    func marker(_ index: Int) -> UInt8 { bytes[ranges[index].lowerBound] }

    /// True for dictionary objects.
    func isDictionary(_ index: Int) -> Bool { marker(index) >> 4 == 0xD }

    /// True for array and set objects.
    func isArray(_ index: Int) -> Bool { [0xA, 0xB, 0xC].contains(marker(index) >> 4) }

    /// A string object's text (ASCII or UTF-16BE), or nil for other objects.
    func string(_ index: Int) -> String? {
        let m = marker(index)
        guard let (payloadStart, _) = try? Self.countAndStart(bytes, at: ranges[index].lowerBound) else { return nil }
        let payload = bytes[payloadStart..<ranges[index].upperBound]
        switch m >> 4 {
        case 0x5: return String(decoding: payload, as: UTF8.self)
        case 0x6:
            var units: [UInt16] = []
            var i = payload.startIndex
            while i + 1 < payload.endIndex {
                units.append(UInt16(payload[i]) << 8 | UInt16(payload[i + 1]))
                i += 2
            }
            return String(decoding: units, as: UTF16.self)
        default: return nil
        }
    }

    /// How many times each object is referenced, counting the top-object slot.
    func referenceCounts() -> [Int] {
        var counts = [Int](repeating: 0, count: objectCount)
        counts[topObject] += 1
        for refs in references { for r in refs { counts[r] += 1 } }
        return counts
    }

    /// Objects used as dictionary keys anywhere.
    func keyObjects() -> Set<Int> {
        var keys = Set<Int>()
        for i in 0..<objectCount where isDictionary(i) {
            let refs = references[i]
            keys.formUnion(refs.prefix(refs.count / 2))
        }
        return keys
    }

    /// Follows a path of array indexes and dictionary keys from the top object.
    func objectIndex(at path: [PathStep]) -> Int? {
        var current = topObject
        for step in path {
            let refs = references[current]
            switch step {
            case .index(let i):
                guard isArray(current), i < refs.count else { return nil }
                current = refs[i]
            case .key(let key):
                guard isDictionary(current) else { return nil }
                let half = refs.count / 2
                // The first entry with a key wins when keys repeat, as in CoreFoundation's binary reader.
                guard let slot = (0..<half).first(where: { string(refs[$0]) == key }) else { return nil }
                current = refs[half + slot]
            }
        }
        return current
    }

    // MARK: - Decoding helpers

    private static func bigEndian(_ bytes: [UInt8], at position: Int, width: Int) throws -> UInt64 {
        guard position >= 0, width <= 8, position <= bytes.count - width else {
            throw Malformed(description: "\(width)-byte field at \(position) runs past the end")
        }
        var value: UInt64 = 0
        for b in bytes[position..<(position + width)] { value = value << 8 | UInt64(b) }
        return value
    }

    /// The start of an object's payload after its marker and optional extended count, and the count.
    private static func countAndStart(_ bytes: [UInt8], at start: Int) throws -> (Int, Int) {
        let low = Int(bytes[start] & 0x0F)
        if low != 0x0F { return (start + 1, low) }
        guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1 else {
            throw Malformed(description: "object at \(start) has a bad extended count")
        }
        let width = 1 << Int(bytes[start + 1] & 0x0F)
        let count = try bigEndian(bytes, at: start + 2, width: width)
        guard count <= UInt64(bytes.count) else { throw Malformed(description: "count \(count) at \(start) is too large") }
        return (start + 2 + width, Int(count))
    }

    /// One object's byte range and the references it holds.
    private static func object(in bytes: [UInt8], at start: Int, referenceSize: Int, limit: Int) throws -> (Range<Int>, [Int]) {
        let marker = bytes[start]
        var refs: [Int] = []
        let end: Int
        switch marker >> 4 {
        case 0x0:
            end = start + 1
        case 0x1, 0x2:
            end = start + 1 + (1 << Int(marker & 0x0F))
        case 0x3:
            end = start + 9
        case 0x4, 0x5, 0x6:
            let (payload, count) = try countAndStart(bytes, at: start)
            end = payload + (marker >> 4 == 0x6 ? 2 * count : count)
        case 0x8:
            end = start + 2 + Int(marker & 0x0F)
        case 0xA, 0xB, 0xC, 0xD:
            let (payload, count) = try countAndStart(bytes, at: start)
            let refCount = marker >> 4 == 0xD ? 2 * count : count
            end = payload + refCount * referenceSize
            guard end <= limit else { throw Malformed(description: "container at \(start) runs past the objects") }
            for k in 0..<refCount {
                refs.append(Int(try bigEndian(bytes, at: payload + k * referenceSize, width: referenceSize)))
            }
        default:
            throw Malformed(description: String(format: "unknown marker 0x%02x at %d", marker, start))
        }
        guard end <= limit else { throw Malformed(description: "object at \(start) runs past the objects") }
        return (start..<end, refs)
    }
}

/// One step of a path from the root of a value to a value inside it.
enum PathStep: Hashable, Sendable, CustomStringConvertible {
    case index(Int)
    case key(String)

    var description: String {
        switch self {
        case .index(let i): return "[\(i)]"
        case .key(let k): return ".\(k)"
        }
    }
}
