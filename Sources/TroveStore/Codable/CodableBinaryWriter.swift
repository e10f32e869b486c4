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
struct CodableBinaryWriter: ~Copyable {
    /// One object of the table: a scalar, whose bytes are `scalars[first ..< first + count]`,
    /// or a container, whose references are `references[first ..< first + count]` (twice
    /// `count` for a dictionary). Plain numbers, so that numbering retains nothing.
    private struct Object {
        enum Kind: UInt8 { case scalar, array, dictionary }
        var kind: Kind
        var first: Int
        var count: Int
    }

    private var objects: [Object] = []
    private var references: [Int] = []
    /// The scalars' bytes, written as each is first met, in object order.
    private var scalars = OutputBuffer(capacity: 1 << 14)
    private var uniqued = ScalarTable()
    private var keyCache = KeyCache()
    /// For key objects: the dictionary that last took the key, to find a key repeated in one
    /// dictionary; -1 for none. Grown on demand, so not every object has an entry.
    private var keyOwner: [Int] = []
    /// The shared `false`, `true` and `nil` objects at `3 * domain + kind`, -1 until met.
    private var shared: [Int] = []

    /// The document for `top`.
    static func write(_ top: EncodedNode) -> Data {
        var writer = CodableBinaryWriter()
        // Sized once for the whole tree: grown by doubling, the tables of a large document were
        // copied a dozen times and each copy touched fresh pages.
        let (nodes, references) = top.treeSize
        writer.objects.reserveCapacity(nodes)
        writer.references.reserveCapacity(references)
        writer.uniqued.reserve(nodes)
        // Reserved address space costs nothing until written: most scalars take under 16 bytes.
        writer.scalars = OutputBuffer(capacity: max(1 << 14, nodes * 16))
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
            objects.append(Object(kind: .array, first: first, count: count))
            appendReferenceSlots(count)
            for (i, element) in array.elements.enumerated() {
                references[first + i] = flatten(element, domain: array.domain)
            }
            return index
        case .dictionary(let dictionary):
            let index = objects.count
            let count = dictionary.keys.count
            let first = references.count
            objects.append(Object(kind: .dictionary, first: first, count: count))
            appendReferenceSlots(2 * count)
            // A repeated key (see ``EncodedDictionary``) comes back as an object this dictionary
            // already holds; it keeps its first place and takes the later value.
            var kept = 0
            var valueOf: [Int]?
            for (i, key) in dictionary.keys.enumerated() {
                let reference = flattenKey(key, domain: dictionary.domain)
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
            if kept < count { objects[index].count = kept }
            for i in 0..<kept {
                let value = dictionary.values[valueOf?[i] ?? i]
                references[first + kept + i] = flatten(value, domain: dictionary.domain)
            }
            return index
        case .bool(let value):
            return sharedObject(domain: domain, kind: value ? 1 : 0, node)
        case .null:
            return sharedObject(domain: domain, kind: 2, node)
        case .string(let string):
            return flattenString(string, domain: domain)
        case .date(let seconds) where seconds.isNaN:
            // A NaN date equals nothing, not even itself: never uniqued.
            let start = scalars.count
            scalars.appendScalar(node)
            return appendScalarObject(from: start)
        default:
            let start = scalars.count
            scalars.appendScalar(node)
            return unique(from: start, domain: domain, kind: ScalarTable.Kind(node), string: nil)
        }
    }

    @inline(__always)
    private mutating func flattenString(_ string: String, domain: EncodingDomain) -> Int {
        let start = scalars.count
        let ascii = scalars.appendString(string)
        return unique(from: start, domain: domain, kind: ascii ? .bytes : .utf16, string: ascii ? nil : string)
    }

    /// A dictionary key's object. Records repeat the same few key strings (a `CodingKey`'s
    /// `stringValue`, often the very same string), so keys are first looked up by the string's
    /// two words: equal words are the same string, since the tree keeps every key alive while
    /// it is written and no storage can be reused for another. Other keys take the full path.
    @inline(__always)
    private mutating func flattenKey(_ key: String, domain: EncodingDomain) -> Int {
        let words = unsafeBitCast(key, to: (UInt64, UInt64).self)
        if let found = keyCache.find(words, domain: domain) { return found }
        let object = flattenString(key, domain: domain)
        keyCache.insert(words, domain: domain, object: object)
        return object
    }

    /// The object of the scalar just written at `scalars[start...]`: an equal one numbered
    /// before (the new bytes are dropped), or a new object.
    @inline(__always)
    private mutating func unique(from start: Int, domain: EncodingDomain, kind: ScalarTable.Kind, string: String?) -> Int {
        let bytes = scalars.bytes(from: start)
        let hash = ScalarTable.hash(bytes, kind: kind, string: string, domain: domain)
        let found = uniqued.find(hash: hash) { entry in
            guard entry.domain == domain && entry.kind == kind else { return false }
            let other = objects[entry.objectIndex]
            let otherBytes = scalars.bytes(from: other.first, count: other.count)
            return ScalarTable.same(kind, bytes, string, otherBytes, entry.stringIndex < 0 ? nil : uniqued.strings[entry.stringIndex])
        }
        if let found {
            scalars.truncate(to: start)
            return found
        }
        let index = appendScalarObject(from: start)
        uniqued.insert(hash: hash, objectIndex: index, domain: domain, kind: kind, string: string)
        return index
    }

    private mutating func sharedObject(domain: EncodingDomain, kind: Int, _ node: EncodedNode) -> Int {
        let slot = 3 * domain + kind
        if slot >= shared.count { shared.append(contentsOf: repeatElement(-1, count: slot + 3 - shared.count)) }
        if shared[slot] >= 0 { return shared[slot] }
        let start = scalars.count
        scalars.appendScalar(node)
        shared[slot] = appendScalarObject(from: start)
        return shared[slot]
    }

    /// Room for `count` references, filled in as the children are numbered.
    @inline(__always)
    private mutating func appendReferenceSlots(_ count: Int) {
        references.append(contentsOf: repeatElement(0, count: count))
    }

    private mutating func appendScalarObject(from start: Int) -> Int {
        objects.append(Object(kind: .scalar, first: start, count: scalars.count - start))
        return objects.count - 1
    }

    // MARK: - Bytes

    private func serialize() -> Data {
        let refSize = Self.minimumByteCount(UInt64(objects.count))
        var out = OutputBuffer(capacity: 64 + scalars.count + objects.count * 8 + references.count * refSize)
        out.append("bplist00")
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object.kind {
            case .scalar:
                out.append(scalars.bytes(from: object.first, count: object.count))
            case .array:
                out.appendMarker(0xA0, count: object.count)
                out.appendReferences(references, object.first..<object.first + object.count, width: refSize)
            case .dictionary:
                out.appendMarker(0xD0, count: object.count)
                out.appendReferences(references, object.first..<object.first + 2 * object.count, width: refSize)
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.minimumByteCount(UInt64(tableOffset))
        out.appendReferences(offsets, offsets.indices, width: offsetSize)
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

    /// `numbers[range]`, each in `width` bytes, big-endian: references and offsets.
    mutating func appendReferences(_ numbers: [Int], _ range: Range<Int>, width: Int) {
        reserve(range.count * width)
        numbers.withUnsafeBufferPointer { numbers in
            switch width {
            case 1:
                for i in range { appendReserved(UInt8(truncatingIfNeeded: numbers[i])) }
            case 2:
                for i in range {
                    appendReserved(UInt8(truncatingIfNeeded: numbers[i] >> 8))
                    appendReserved(UInt8(truncatingIfNeeded: numbers[i]))
                }
            default:
                for i in range { appendBigEndian(UInt64(numbers[i]), width: width) }
            }
        }
    }

    /// ASCII as bytes, anything else as UTF-16 big-endian. Returns true for ASCII.
    @discardableResult
    mutating func appendString(_ string: String) -> Bool {
        var string = string
        let ascii = string.withUTF8 { bytes in
            guard String.allASCII(bytes) else { return false }
            appendMarker(0x50, count: bytes.count)
            append(UnsafeRawBufferPointer(bytes))
            return true
        }
        if ascii {
            return true
        } else {
            let units = string.utf16.count
            appendMarker(0x60, count: units)
            reserve(2 * units)
            for unit in string.utf16 {
                appendReserved(UInt8(unit >> 8))
                appendReserved(UInt8(truncatingIfNeeded: unit))
            }
            return false
        }
    }
}

/// The scalars already numbered, under the equality of Foundation's binary uniquing (see
/// ``CodableBinaryWriter``), in an open-addressing table. Scalars are compared by their written
/// bytes, which for ASCII strings, integers and data are equal exactly when the values are;
/// reals and dates also equal across the sign of zero, and non-ASCII strings compare as Swift
/// strings (canonical equivalence), so they hash by Swift's hash.
struct ScalarTable {
    /// What decides equality, beside the domain.
    enum Kind: UInt8 {
        /// Equal bytes: ASCII strings, integers, data.
        case bytes
        /// Non-ASCII strings.
        case utf16
        /// 32-bit reals, 64-bit reals and dates: their value, written after one marker byte.
        case float, double, date

        init(_ node: EncodedNode) {
            switch node {
            case .float: self = .float
            case .double: self = .double
            case .date: self = .date
            default: self = .bytes
            }
        }
    }

    struct Entry {
        let objectIndex: Int
        let domain: EncodingDomain
        let kind: Kind
        /// Where the string of a ``Kind/utf16`` entry is in ``strings``; -1 for other kinds.
        let stringIndex: Int
    }

    /// Plain numbers, so that growing the table copies no references.
    private var entries: [Entry] = []
    /// The entries' hashes, apart, so that a probe reads no entry until the hashes agree.
    private var hashes: [UInt64] = []
    /// The strings of the ``Kind/utf16`` entries.
    private(set) var strings: [String] = []
    /// 0 for an empty slot, else an entry's position plus one.
    /// 32 bits a slot, half the table of full-width positions: on a document of mostly distinct
    /// scalars every lookup of a new one misses the cache here, and a smaller table misses less.
    private var slots = [UInt32](repeating: 0, count: 1024)

    init() {
        entries.reserveCapacity(512)
        hashes.reserveCapacity(512)
    }

    /// Room for `count` entries without growing the lists (the slots still grow with the entries).
    mutating func reserve(_ count: Int) {
        entries.reserveCapacity(count)
        hashes.reserveCapacity(count)
    }

    static func hash(_ bytes: UnsafeRawBufferPointer, kind: Kind, string: String?, domain: EncodingDomain) -> UInt64 {
        let seed = UInt64(bitPattern: Int64(domain)) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(kind.rawValue)
        switch kind {
        case .bytes: return mix(seed, bytesHash(bytes))
        case .utf16: return mix(seed, UInt64(bitPattern: Int64(string!.hashValue)))
        case .float, .double, .date:
            // Zero of either sign hashes alike, since they are equal.
            let value = realValue(kind, bytes)
            return mix(seed, value == 0 ? 0 : value.bitPattern)
        }
    }

    /// The value of a real or date written at `bytes` (a marker, then big-endian bits).
    private static func realValue(_ kind: Kind, _ bytes: UnsafeRawBufferPointer) -> Double {
        if kind == .float {
            return Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt32.self))))
        }
        return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
    }

    /// True when Foundation's uniquing calls the two scalars of `kind` one object.
    @inline(__always)
    static func same(_ kind: Kind, _ a: UnsafeRawBufferPointer, _ aString: String?,
                     _ b: UnsafeRawBufferPointer, _ bString: String?) -> Bool {
        switch kind {
        case .bytes:
            return a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
        case .utf16:
            return aString! == bString!
        case .float, .double, .date:
            // Equal bits (a NaN of the same bits too: NaN dates never get here), or both zero.
            if a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 { return true }
            return realValue(kind, a) == 0 && realValue(kind, b) == 0
        }
    }

    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var h = (a ^ b) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 29)
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

    /// The object number of the first entry of `hash` that `matches`, if any.
    @inline(__always)
    func find(hash: UInt64, _ matches: (Entry) -> Bool) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let occupant = Int(slots[slot])
            if occupant == 0 { return nil }
            if hashes[occupant - 1] == hash {
                let entry = entries[occupant - 1]
                if matches(entry) { return entry.objectIndex }
            }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(hash: UInt64, objectIndex: Int, domain: EncodingDomain, kind: Kind, string: String?) {
        var stringIndex = -1
        if let string {
            stringIndex = strings.count
            strings.append(string)
        }
        entries.append(Entry(objectIndex: objectIndex, domain: domain, kind: kind, stringIndex: stringIndex))
        hashes.append(hash)
        if entries.count * 2 > slots.count {
            slots = [UInt32](repeating: 0, count: slots.count * 2)
            for position in entries.indices { place(position) }
        } else {
            place(entries.count - 1)
        }
    }

    private mutating func place(_ position: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[position]) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        // A document of 4 billion distinct scalars does not fit in memory to begin with.
        slots[slot] = UInt32(truncatingIfNeeded: position + 1)
    }
}

/// The key cache of ``CodableBinaryWriter``: object numbers by a key string's two words and
/// domain, in a fixed open-addressing table that stops taking keys when half full.
private struct KeyCache {
    private struct Slot {
        var words: (UInt64, UInt64)
        var domain: EncodingDomain
        /// -1 for an empty slot.
        var object: Int
    }

    private static let capacity = 512
    private var slots = [Slot](repeating: Slot(words: (0, 0), domain: 0, object: -1), count: capacity)
    private var count = 0

    @inline(__always)
    private static func start(_ words: (UInt64, UInt64), _ domain: EncodingDomain) -> Int {
        var h = (words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15)) &+ UInt64(bitPattern: Int64(domain))
        h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: h >> 32) & (capacity - 1)
    }

    @inline(__always)
    func find(_ words: (UInt64, UInt64), domain: EncodingDomain) -> Int? {
        var slot = Self.start(words, domain)
        while true {
            let candidate = slots[slot]
            if candidate.object < 0 { return nil }
            if candidate.words == words && candidate.domain == domain { return candidate.object }
            slot = (slot + 1) & (Self.capacity - 1)
        }
    }

    mutating func insert(_ words: (UInt64, UInt64), domain: EncodingDomain, object: Int) {
        guard count < Self.capacity / 2 else { return }
        var slot = Self.start(words, domain)
        while slots[slot].object >= 0 { slot = (slot + 1) & (Self.capacity - 1) }
        slots[slot] = Slot(words: words, domain: domain, object: object)
        count += 1
    }
}
