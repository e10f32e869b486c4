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
    private var uniqued: [UniquedScalar: Int] = [:]
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
            let count = dictionary.count
            let first = references.count
            objects.append(.dictionary(first: first, count: count))
            references.append(contentsOf: repeatElement(0, count: 2 * count))
            for (i, key) in dictionary.keys.enumerated() {
                references[first + i] = flatten(.string(key), domain: dictionary.domain)
            }
            for (i, value) in dictionary.values.enumerated() {
                references[first + count + i] = flatten(value, domain: dictionary.domain)
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
            guard let key = UniquedScalar(node, domain: domain) else { return append(node) }
            if let existing = uniqued[key] { return existing }
            let index = append(node)
            uniqued[key] = index
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
        var out = BinaryOutput()
        out.bytes.reserveCapacity(64 + objects.count * 12 + references.count * refSize)
        out.append(contentsOf: Array("bplist00".utf8))
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.bytes.count)
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
        let tableOffset = out.bytes.count
        let offsetSize = Self.minimumByteCount(UInt64(tableOffset))
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        // Trailer: five unused bytes, the sort version, the two widths, the object count, the
        // top object and the offset table's position.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        out.appendBigEndian(UInt64(objects.count), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return Data(out.bytes)
    }

    /// The bytes needed for `value` without leading zero bytes (at least one).
    static func minimumByteCount(_ value: UInt64) -> Int {
        max(1, 8 - value.leadingZeroBitCount / 8)
    }
}

/// The output of ``CodableBinaryWriter``.
private struct BinaryOutput {
    var bytes: [UInt8] = []

    mutating func append(contentsOf other: [UInt8]) { bytes.append(contentsOf: other) }

    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// A marker with its count in the low nibble, or 0xF and an integer object after it.
    mutating func appendMarker(_ marker: UInt8, count: Int) {
        if count < 15 {
            bytes.append(marker | UInt8(count))
        } else {
            bytes.append(marker | 0xF)
            appendSigned(Int64(count))
        }
    }

    /// A signed integer in 1, 2, 4 or 8 bytes, by its bit pattern.
    mutating func appendSigned(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        if bits <= 0xFF {
            bytes.append(0x10)
            appendBigEndian(bits, width: 1)
        } else if bits <= 0xFFFF {
            bytes.append(0x11)
            appendBigEndian(bits, width: 2)
        } else if bits <= 0xFFFF_FFFF {
            bytes.append(0x12)
            appendBigEndian(bits, width: 4)
        } else {
            bytes.append(0x13)
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
            bytes.append(0x14)
            appendBigEndian(0, width: 8)
            appendBigEndian(value, width: 8)
        case .float(let value):
            bytes.append(0x22)
            appendBigEndian(UInt64(value.bitPattern), width: 4)
        case .double(let value):
            bytes.append(0x23)
            appendBigEndian(value.bitPattern, width: 8)
        case .date(let seconds):
            bytes.append(0x33)
            appendBigEndian(seconds.bitPattern, width: 8)
        case .data(let data):
            appendMarker(0x40, count: data.count)
            bytes.append(contentsOf: data)
        case .bool(let value):
            bytes.append(value ? 0x09 : 0x08)
        case .array, .dictionary, .foreign:
            preconditionFailure("containers are written by the table, foreign scalars as their own")
        }
    }

    /// ASCII as bytes, anything else as UTF-16 big-endian.
    mutating func appendString(_ string: String) {
        if string.isASCII {
            appendMarker(0x50, count: string.utf8.count)
            bytes.append(contentsOf: string.utf8)
        } else {
            appendMarker(0x60, count: string.utf16.count)
            for unit in string.utf16 {
                bytes.append(UInt8(unit >> 8))
                bytes.append(UInt8(truncatingIfNeeded: unit))
            }
        }
    }
}

/// A scalar under the equality of Foundation's binary uniquing (see ``CodableBinaryWriter``).
private struct UniquedScalar: Hashable {
    let domain: EncodingDomain
    let value: Value

    enum Value: Hashable {
        case ascii(String)
        case unicode(String)
        case signed(Int64)
        case unsigned(UInt64)
        /// Bits with zero made canonical: equal when `==` holds, or for NaNs of the same bits.
        case float(UInt32)
        case double(UInt64)
        case date(UInt64)
        case data(Data)
    }

    /// The key of a uniqued scalar; nil for a value that equals nothing (a NaN date) and for
    /// the kinds that are not uniqued by value.
    init?(_ node: EncodedNode, domain: EncodingDomain) {
        self.domain = domain
        switch node {
        case .string(let string): value = string.isASCII ? .ascii(string) : .unicode(string)
        case .signed(let number): value = .signed(number)
        case .unsigned(let number): value = .unsigned(number)
        case .float(let number):
            value = .float(number == 0 ? 0 : number.bitPattern)
        case .double(let number):
            value = .double(number == 0 ? 0 : number.bitPattern)
        case .date(let seconds):
            if seconds.isNaN { return nil }
            value = .date(seconds == 0 ? 0 : seconds.bitPattern)
        case .data(let data): value = .data(data)
        default: return nil
        }
    }
}
