import Foundation

/// Writes an encoded tree as a binary plist laid out as Foundation's `PropertyListEncoder` lays it
/// out, which is not CoreFoundation's layout (Trove's ``BinaryPlistWriter``):
///
/// * objects are numbered in pre-order, a dictionary's keys all before its values, and a scalar
///   takes its number where it is first met;
/// * strings, numbers, dates and data are stored once per distinct value; equality is Swift's
///   (canonically equivalent strings are one object, as are `0.0` and `-0.0`), except that an
///   ASCII string never matches a non-ASCII one and a NaN date matches nothing. NaN reals of the
///   same bits are one object; NaNs of different bits (`nan` and `-nan`) are two, which is what
///   Foundation's hash set gives unless the two happen to share a bucket, so Foundation's own
///   output for them varies from run to run;
///   `true`, `false` and `nil` are one object each, and `nil` is the ASCII string `$null`;
/// * signed integers take 1, 2, 4 or 8 bytes by their bit pattern (so every negative number takes
///   8), `UInt` and `UInt64` always take 16; `Float` is a 32-bit real;
/// * object references and offsets take the fewest bytes that hold the object count and the
///   offset table's position, any width from 1 to 8 (CoreFoundation rounds to 1, 2, 4 or 8).
///
/// It lives beside the encoder rather than in TroveCore because the spelling of a number depends
/// on its Swift type, which ``PlistValue`` does not keep.
struct CodableBinaryWriter {
    /// One object of the table: a scalar, or a container whose references are
    /// `references[first ..< first + count]`.
    private enum Object {
        case scalar(EncodedNode)
        case array(first: Int, count: Int)
        case dictionary(first: Int, count: Int)
    }

    private var objects: [Object] = []
    private var references: [Int] = []
    private var uniqued = ScalarTable()
    /// For key objects: the dictionary that last took the key, to find a key repeated in one
    /// dictionary; -1 for none. Grown on demand, so not every object has an entry.
    private var keyOwner: [Int] = []
    /// The shared `true`, `false` and `nil` objects of each domain, once met.
    private var shared: [SharedScalar: Int] = [:]

    private struct SharedScalar: Hashable {
        let domain: EncodingDomain
        /// 0 for false, 1 for true, 2 for nil.
        let kind: Int
    }

    /// The document for `top`.
    static func write(_ top: EncodedNode) -> Data {
        var writer = CodableBinaryWriter()
        _ = writer.flatten(top, domain: 0)
        return writer.serialize()
    }

    // MARK: - Numbering

    /// Numbers `node` and what it holds, and returns its object number. `domain` is that of
    /// the container holding it.
    private mutating func flatten(_ node: EncodedNode, domain: EncodingDomain) -> Int {
        switch node {
        case .foreign(let foreign):
            return flatten(foreign.node, domain: foreign.domain)
        case .array(let array):
            let index = objects.count
            let count = array.elements.count
            let first = references.count
            objects.append(.array(first: first, count: count))
            references.append(contentsOf: repeatElement(0, count: count))
            for (i, element) in array.elements.enumerated() {
                references[first + i] = flatten(element, domain: array.domain)
            }
            return index
        case .dictionary(let dictionary):
            let index = objects.count
            let count = dictionary.keys.count
            let first = references.count
            objects.append(.dictionary(first: first, count: count))
            references.append(contentsOf: repeatElement(0, count: 2 * count))
            // A repeated key (see ``EncodedDictionary``) comes back as an object this dictionary
            // already holds; it keeps its first place and takes the later value.
            var kept = 0
            var valueOf: [Int]?
            for (i, key) in dictionary.keys.enumerated() {
                let reference = flatten(.string(key), domain: dictionary.domain)
                if !dictionary.keysAreDistinct {
                    if reference >= keyOwner.count {
                        keyOwner.append(contentsOf: repeatElement(-1, count: objects.count - keyOwner.count))
                    }
                    if keyOwner[reference] == index {
                        let place = (first..<first + kept).first { references[$0] == reference }! - first
                        if valueOf == nil { valueOf = Array(0..<kept) }
                        valueOf![place] = i
                        continue
                    }
                    keyOwner[reference] = index
                    valueOf?.append(i)
                }
                references[first + kept] = reference
                kept += 1
            }
            if kept < count { objects[index] = .dictionary(first: first, count: kept) }
            for i in 0..<kept {
                let value = dictionary.values[valueOf?[i] ?? i]
                references[first + kept + i] = flatten(value, domain: dictionary.domain)
            }
            return index
        case .bool, .null:
            let kind: Int
            if case .bool(let value) = node { kind = value ? 1 : 0 } else { kind = 2 }
            let key = SharedScalar(domain: domain, kind: kind)
            if let existing = shared[key] { return existing }
            let index = append(node)
            shared[key] = index
            return index
        default:
            guard let hash = ScalarTable.hash(node, domain: domain) else { return append(node) }
            if let existing = uniqued.find(node, domain: domain, hash: hash) { return existing }
            let index = append(node)
            uniqued.insert(node, domain: domain, hash: hash, objectIndex: index)
            return index
        }
    }


    private mutating func append(_ node: EncodedNode) -> Int {
        objects.append(.scalar(node))
        return objects.count - 1
    }

    // MARK: - Bytes

    private func serialize() -> Data {
        let refSize = Self.minimumByteCount(UInt64(objects.count))
        var out = OutputBuffer(capacity: 64 + objects.count * 16 + references.count * refSize)
        out.append("bplist00")
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .scalar(let node):
                out.appendScalar(node)
            case let .array(first, count):
                out.appendMarker(0xA0, count: count)
                for i in first..<first + count { out.appendBigEndian(UInt64(references[i]), width: refSize) }
            case let .dictionary(first, count):
                out.appendMarker(0xD0, count: count)
                for i in first..<first + 2 * count { out.appendBigEndian(UInt64(references[i]), width: refSize) }
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.minimumByteCount(UInt64(tableOffset))
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        // Trailer: five unused bytes, the sort version, the two widths, the object count, the
        // top object and the offset table's position.
        out.append(repeating: 0, count: 6)
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        out.appendBigEndian(UInt64(objects.count), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.data()
    }

    /// The bytes needed for `value` without leading zero bytes (at least one).
    static func minimumByteCount(_ value: UInt64) -> Int {
        max(1, 8 - value.leadingZeroBitCount / 8)
    }
}

/// The binary spellings of ``CodableBinaryWriter``.
extension OutputBuffer {
    /// A marker with its count in the low nibble, or 0xF and an integer object after it.
    mutating func appendMarker(_ marker: UInt8, count: Int) {
        if count < 15 {
            append(marker | UInt8(count))
        } else {
            append(marker | 0xF)
            appendSigned(Int64(count))
        }
    }

    /// A signed integer in 1, 2, 4 or 8 bytes, by its bit pattern.
    mutating func appendSigned(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        if bits <= 0xFF {
            append(0x10)
            appendBigEndian(bits, width: 1)
        } else if bits <= 0xFFFF {
            append(0x11)
            appendBigEndian(bits, width: 2)
        } else if bits <= 0xFFFF_FFFF {
            append(0x12)
            appendBigEndian(bits, width: 4)
        } else {
            append(0x13)
            appendBigEndian(bits, width: 8)
        }
    }

    mutating func appendScalar(_ node: EncodedNode) {
        switch node {
        case .string(let string):
            appendString(string)
        case .null:
            appendString(EncodedNode.nullString)
        case .signed(let value):
            appendSigned(value)
        case .unsigned(let value):
            // Foundation's 16-byte form: the high half zero.
            append(0x14)
            appendBigEndian(0, width: 8)
            appendBigEndian(value, width: 8)
        case .float(let value):
            append(0x22)
            appendBigEndian(UInt64(value.bitPattern), width: 4)
        case .double(let value):
            append(0x23)
            appendBigEndian(value.bitPattern, width: 8)
        case .date(let seconds):
            append(0x33)
            appendBigEndian(seconds.bitPattern, width: 8)
        case .data(let data):
            appendMarker(0x40, count: data.count)
            append(data)
        case .bool(let value):
            append(value ? 0x09 : 0x08)
        case .array, .dictionary, .foreign:
            preconditionFailure("containers are written by the table, foreign scalars as their own")
        }
    }

    /// ASCII as bytes, anything else as UTF-16 big-endian.
    mutating func appendString(_ string: String) {
        if string.isASCII {
            appendMarker(0x50, count: string.utf8.count)
            append(utf8: string)
        } else {
            let units = string.utf16.count
            appendMarker(0x60, count: units)
            reserve(2 * units)
            for unit in string.utf16 {
                appendReserved(UInt8(unit >> 8))
                appendReserved(UInt8(truncatingIfNeeded: unit))
            }
        }
    }
}

/// The scalars already numbered, under the equality of Foundation's binary uniquing (see
/// ``CodableBinaryWriter``), in an open-addressing table with a cheap hash: ASCII strings and
/// data hash their bytes, numbers their bits; only non-ASCII strings use Swift's hash, which
/// agrees with canonical equivalence.
private struct ScalarTable {
    private struct Entry {
        let hash: UInt64
        let node: EncodedNode
        let domain: EncodingDomain
        let objectIndex: Int
    }

    private var entries: [Entry] = []
    /// The entries' hashes, apart, so that a probe reads no node until the hashes agree.
    private var hashes: [UInt64] = []
    /// 0 for an empty slot, else an entry's position plus one.
    private var slots = [Int](repeating: 0, count: 64)

    /// The hash of a uniqued scalar in `domain`; nil for what is never uniqued by value (a NaN
    /// date equals nothing, containers and shared scalars are numbered elsewhere).
    static func hash(_ node: EncodedNode, domain: EncodingDomain) -> UInt64? {
        let seed = UInt64(bitPattern: Int64(domain)) &* 0x9E37_79B9_7F4A_7C15
        switch node {
        case .string(let string):
            if string.isASCII { return mix(seed ^ 1, bytesHash(string)) }
            return mix(seed ^ 2, UInt64(bitPattern: Int64(string.hashValue)))
        case .signed(let value): return mix(seed ^ 3, UInt64(bitPattern: value))
        case .unsigned(let value): return mix(seed ^ 4, value)
        case .float(let value): return mix(seed ^ 5, value == 0 ? 0 : UInt64(value.bitPattern))
        case .double(let value): return mix(seed ^ 6, value == 0 ? 0 : value.bitPattern)
        case .date(let value):
            if value.isNaN { return nil }
            return mix(seed ^ 7, value == 0 ? 0 : value.bitPattern)
        case .data(let data): return mix(seed ^ 8, data.withUnsafeBytes { bytesHash($0) })
        default: return nil
        }
    }

    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var h = (a ^ b) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 29)
    }

    private static func bytesHash(_ string: String) -> UInt64 {
        if let hash = string.utf8.withContiguousStorageIfAvailable({ bytesHash(UnsafeRawBufferPointer($0)) }) { return hash }
        var copy = string
        return copy.withUTF8 { bytesHash(UnsafeRawBufferPointer($0)) }
    }

    private static func bytesHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var i = 0
        while i + 8 <= bytes.count {
            h = mix(h, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        return mix(h, tail)
    }

    /// True when Foundation's uniquing calls the two scalars one object.
    private static func same(_ a: EncodedNode, _ b: EncodedNode) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)):
            // Equal strings of equal length are both ASCII or both not (a non-ASCII string equal
            // to an ASCII one is longer), so the ASCII test is needed only across lengths.
            return x == y && (x.utf8.count == y.utf8.count || x.isASCII == y.isASCII)
        case let (.signed(x), .signed(y)): return x == y
        case let (.unsigned(x), .unsigned(y)): return x == y
        case let (.float(x), .float(y)): return x == y || (x.isNaN && x.bitPattern == y.bitPattern)
        case let (.double(x), .double(y)): return x == y || (x.isNaN && x.bitPattern == y.bitPattern)
        case let (.date(x), .date(y)): return x == y
        case let (.data(x), .data(y)): return x == y
        default: return false
        }
    }

    func find(_ node: EncodedNode, domain: EncodingDomain, hash: UInt64) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let occupant = slots[slot]
            if occupant == 0 { return nil }
            if hashes[occupant - 1] == hash {
                let matches = entries.withUnsafeBufferPointer { entries in
                    entries[occupant - 1].domain == domain && Self.same(entries[occupant - 1].node, node)
                }
                if matches { return entries[occupant - 1].objectIndex }
            }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(_ node: EncodedNode, domain: EncodingDomain, hash: UInt64, objectIndex: Int) {
        entries.append(Entry(hash: hash, node: node, domain: domain, objectIndex: objectIndex))
        hashes.append(hash)
        if entries.count * 2 > slots.count {
            slots = [Int](repeating: 0, count: slots.count * 2)
            for position in entries.indices { place(position) }
        } else {
            place(entries.count - 1)
        }
    }

    private mutating func place(_ position: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[position]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = position + 1
    }
}
