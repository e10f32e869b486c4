/// The fixed parts of a `bplist0?` file: the 8-byte header and the 32-byte trailer, validated with
/// CoreFoundation's rules so that everything the object scanner later reads is known to lie inside
/// the buffer.
struct BinaryTrailer {
    /// The header is `bplist0` plus one version character, which Apple does not check.
    static let headerLength = 8
    /// Five unused bytes, sortVersion, two size bytes and three big-endian 64-bit fields.
    static let length = 32
    /// The magic every binary plist starts with, before the version character.
    static let magic: [UInt8] = Array("bplist0".utf8)

    /// The version character after `bplist0` (`0` in everything Apple writes).
    var versionByte: UInt8
    /// The five bytes before `sortVersion`, packed big-endian into the low 40 bits.
    var unusedBytes: UInt64
    /// A byte CoreFoundation writes as zero and never reads.
    var sortVersion: UInt8
    /// Width of each offset-table entry, 1...8.
    var offsetIntSize: Int
    /// Width of each object reference inside containers, 1...8.
    var objectRefSize: Int
    /// Number of objects (entries of the offset table).
    var objectCount: Int
    /// Index of the root object.
    var topObject: Int
    /// Byte offset of the offset table; also the end of the object area.
    var offsetTableOffset: Int

    /// Parses and validates the header and trailer of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) throws(PlistError) {
        guard bytes.count >= Self.headerLength,
            zip(Self.magic, bytes).allSatisfy({ $0 == $1 })
        else {
            throw Self.error(.badMagic, at: 0, "the file does not start with \"bplist0\"")
        }
        // The smallest possible file holds the header, one 1-byte object, a 1-byte offset table
        // entry and the trailer.
        guard bytes.count >= Self.headerLength + 2 + Self.length else {
            throw Self.error(
                .badTrailer, at: bytes.count,
                "the file is \(bytes.count) bytes long, too short for a binary plist trailer")
        }
        let start = bytes.count - Self.length
        versionByte = bytes[7]
        var unused: UInt64 = 0
        for i in 0..<5 { unused = unused << 8 | UInt64(bytes[start + i]) }
        unusedBytes = unused
        sortVersion = bytes[start + 5]
        offsetIntSize = Int(bytes[start + 6])
        objectRefSize = Int(bytes[start + 7])
        let rawCount = bytes.loadBigEndianUInt64(at: start + 8)
        let rawTop = bytes.loadBigEndianUInt64(at: start + 16)
        let rawTable = bytes.loadBigEndianUInt64(at: start + 24)

        guard (1...8).contains(offsetIntSize), (1...8).contains(objectRefSize) else {
            throw Self.error(
                .badTrailer, at: start + 6,
                "offset size \(offsetIntSize) and reference size \(objectRefSize) must be between 1 and 8")
        }
        // The offset table sits between the header and the trailer, and fills that space exactly.
        guard rawTable >= UInt64(Self.headerLength + 1), rawTable < UInt64(start) else {
            throw Self.error(
                .badTrailer, at: start + 24,
                "the offset table offset \(rawTable) is outside the object area (9..<\(start))")
        }
        let tableOffset = Int(rawTable)
        let tableBytes = start - tableOffset
        guard rawCount >= 1, rawCount <= UInt64(tableBytes),
            Int(rawCount) * offsetIntSize == tableBytes
        else {
            throw Self.error(
                .badTrailer, at: start + 8,
                "\(rawCount) objects with \(offsetIntSize)-byte offsets do not fill the \(tableBytes) bytes between the offset table and the trailer")
        }
        let count = Int(rawCount)
        guard rawTop < rawCount else {
            throw Self.error(
                .badTrailer, at: start + 16, "the top object \(rawTop) is not below the object count \(count)")
        }
        if objectRefSize < 8 && UInt64(1) << UInt64(8 * objectRefSize) <= rawCount {
            throw Self.error(
                .badTrailer, at: start + 7,
                "\(objectRefSize)-byte references cannot address \(count) objects")
        }
        if offsetIntSize < 8 && UInt64(1) << UInt64(8 * offsetIntSize) <= rawTable {
            throw Self.error(
                .badTrailer, at: start + 6,
                "\(offsetIntSize)-byte offsets cannot address the offset table at \(tableOffset)")
        }
        objectCount = count
        topObject = Int(rawTop)
        offsetTableOffset = tableOffset
    }

    /// Smallest width in bytes, among 1, 2, 4 and 8, whose unsigned range holds `value`: how
    /// CoreFoundation sizes references (by object count) and offsets (by table offset).
    static func powerOfTwoWidth(for value: Int) -> Int {
        if value < 1 << 8 { return 1 }
        if value < 1 << 16 { return 2 }
        if value < 1 << 32 { return 4 }
        return 8
    }

    /// True when `width`-byte unsigned integers can express `value` (CoreFoundation's test for
    /// reference and offset sizes: `2^(8*width) > value`).
    static func width(_ width: Int, canAddress value: Int) -> Bool {
        width >= 8 || UInt64(value) < UInt64(1) << UInt64(8 * width)
    }

    static func error(_ code: PlistError.Code, at offset: Int, _ message: String) -> PlistError {
        PlistError(code, format: .binary, at: .byteOffset(offset), message)
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian `UInt64` at `offset`; the caller guarantees 8 bytes are there.
    @inline(__always)
    func loadBigEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The big-endian unsigned integer of `width` bytes (1...8) at `offset`; the caller
    /// guarantees the bytes are there.
    @inline(__always)
    func loadBigEndian(at offset: Int, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(self[offset])
        case 2: return UInt64(UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return loadBigEndianUInt64(at: offset)
        default:
            var value: UInt64 = 0
            for i in 0..<width { value = value << 8 | UInt64(self[offset + i]) }
            return value
        }
    }
}
