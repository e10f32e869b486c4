/// The validated header of one object: where it is, what it is, and how many units it holds.
///
/// Reading a header checks everything about the object that does not need its children: the
/// marker, the count and that the payload fits before the offset table. It reads nothing else.
struct LazyObjectHeader: Sendable {
    /// The object's index in the offset table.
    let index: Int
    /// The byte offset of its marker.
    let start: Int
    /// The marker byte.
    let marker: UInt8
    /// What the object decodes to.
    let kind: PlistValue.Kind
    /// Elements, entries, bytes or code units, from the marker or the extended count; 0 for
    /// fixed-size scalars.
    let count: Int
    /// The first byte after the marker and any extended count.
    let payload: Int

    var isContainer: Bool { kind == .array || kind == .dictionary }
}

/// A binary plist's object table, read in place: offsets, references and object headers, each
/// validated when it is read, with the same rules and messages as ``BinaryObjectScanner``.
///
/// The class keeps the byte source alive; everything derived from `bytes` is only used while it
/// is. It is immutable after init, which is what makes it safe to share between threads.
final class LazyObjectTable: @unchecked Sendable {
    let source: any PlistByteSource
    let bytes: UnsafeRawBufferPointer
    let trailer: BinaryTrailer
    let limits: PlistLimits
    /// UTF-8 string objects (`0x7n`) are read only outside `bplist00`, as by the full reader.
    let acceptsUTF8Strings: Bool

    init(source: any PlistByteSource, limits: PlistLimits) throws(PlistError) {
        self.source = source
        bytes = source.bytes
        trailer = try BinaryTrailer(bytes)
        self.limits = limits
        acceptsUTF8Strings = trailer.versionByte != UInt8(ascii: "0")
    }

    /// The first byte past the object area.
    var areaEnd: Int { trailer.offsetTableOffset }

    /// The validated start of object `index`; the caller has checked `index < objectCount`.
    // Inlined: every lookup reads several offsets and references; the errors are built out of line.
    @inline(__always)
    func offset(ofObject index: Int) throws(PlistError) -> Int {
        // index < objectCount and objectCount * offsetIntSize is the table's size, so the entry
        // lies inside the table.
        let entry = trailer.offsetTableOffset + index * trailer.offsetIntSize
        let raw = bytes.loadBigEndian(at: entry, width: trailer.offsetIntSize)
        guard raw >= UInt64(BinaryTrailer.headerLength), raw < UInt64(areaEnd) else {
            throw badOffset(index, raw, at: entry)
        }
        return Int(raw)
    }

    @inline(never)
    private func badOffset(_ index: Int, _ raw: UInt64, at entry: Int) -> PlistError {
        BinaryTrailer.error(.badOffset, at: entry, "object \(index) starts at \(raw), outside the object area 8..<\(areaEnd)")
    }

    /// The object index stored in the reference at `position`, which the caller has checked lies
    /// inside a container's validated reference list.
    @inline(__always)
    func reference(at position: Int) throws(PlistError) -> Int {
        let raw = bytes.loadBigEndian(at: position, width: trailer.objectRefSize)
        guard raw < UInt64(trailer.objectCount) else {
            throw badReference(raw, at: position)
        }
        return Int(raw)
    }

    @inline(never)
    private func badReference(_ raw: UInt64, at position: Int) -> PlistError {
        BinaryTrailer.error(.badReference, at: position, "reference \(raw) is not below the object count \(trailer.objectCount)")
    }

    /// The position of reference `slot` of a container whose references start at `refs`.
    func referencePosition(_ refs: Int, slot: Int) -> Int {
        refs + slot * trailer.objectRefSize
    }

    /// The header of the key in entry `slot` of a dictionary whose references start at `refs`.
    /// A key must be a string object; its marker is checked before anything else of it is read,
    /// as in the full reader.
    func keyHeader(_ slot: Int, refs: Int) throws(PlistError) -> LazyObjectHeader {
        let position = referencePosition(refs, slot: slot)
        let index = try reference(at: position)
        let start = try offset(ofObject: index)
        let type = bytes[start] >> 4
        guard type == 0x5 || type == 0x6 || (type == 0x7 && acceptsUTF8Strings) else {
            throw BinaryTrailer.error(
                .badKey, at: position,
                "dictionary key object \(index) is not a string (marker \(Self.hex(bytes[start])))")
        }
        return try header(ofObject: index)
    }

    /// Reads and validates the header of object `index`.
    func header(ofObject index: Int) throws(PlistError) -> LazyObjectHeader {
        let start = try offset(ofObject: index)
        let marker = bytes[start]
        let nibble = Int(marker & 0x0F)
        func fixed(_ kind: PlistValue.Kind, length: Int, _ what: String) throws(PlistError) -> LazyObjectHeader {
            try require(length, at: start, object: index, for: what)
            return LazyObjectHeader(index: index, start: start, marker: marker, kind: kind, count: 0, payload: start + 1)
        }
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return try fixed(.null, length: 1, "null")
            case 0x08, 0x09: return try fixed(.bool, length: 1, "a boolean")
            case 0x0F:
                throw BinaryTrailer.error(.badObject, at: start, "the fill byte 0x0F cannot be used as a value")
            default:
                throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(Self.hex(marker))")
            }
        case 0x1:
            guard nibble <= 4 else {
                throw BinaryTrailer.error(.badObject, at: start, "an integer of 2^\(nibble) bytes is wider than 16")
            }
            return try fixed(.integer, length: 1 + (1 << nibble), "the integer")
        case 0x2:
            guard nibble == 2 || nibble == 3 else {
                throw BinaryTrailer.error(
                    .badObject, at: start, "a real must be 4 or 8 bytes, marker \(Self.hex(marker)) says \(1 << min(nibble, 62))")
            }
            return try fixed(.real, length: 1 + (1 << nibble), "the real")
        case 0x3:
            guard marker == 0x33 else {
                throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(Self.hex(marker)) (dates are 0x33)")
            }
            return try fixed(.date, length: 9, "a date")
        case 0x4, 0x5, 0x7:
            if marker >> 4 == 0x7 && !acceptsUTF8Strings {
                throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(Self.hex(marker))")
            }
            let (count, payload) = try count(index, marker: marker, at: start)
            let kind: PlistValue.Kind = marker >> 4 == 0x4 ? .data : .string
            try require(count, at: payload, object: index, for: kind == .data ? "the data" : "the string")
            return LazyObjectHeader(index: index, start: start, marker: marker, kind: kind, count: count, payload: payload)
        case 0x6:
            let (count, payload) = try count(index, marker: marker, at: start)
            guard count <= (areaEnd - payload) / 2 else {
                throw BinaryTrailer.error(
                    .badCount, at: start,
                    "the UTF-16 string of object \(index) claims \(count) units, more than the \(areaEnd - payload) bytes before the offset table hold")
            }
            return LazyObjectHeader(index: index, start: start, marker: marker, kind: .string, count: count, payload: payload)
        case 0x8:
            guard nibble < 8 else {
                throw BinaryTrailer.error(.badObject, at: start, "a UID of \(nibble + 1) bytes is wider than 8")
            }
            return try fixed(.uid, length: 2 + nibble, "the UID")
        case 0xA, 0xC, 0xD:
            let isDictionary = marker >> 4 == 0xD
            let (count, refs) = try count(index, marker: marker, at: start)
            let room = (areaEnd - refs) / trailer.objectRefSize / (isDictionary ? 2 : 1)
            guard count <= room else {
                throw BinaryTrailer.error(
                    .badCount, at: refs,
                    "\(isDictionary ? "dictionary" : "array") object \(index) claims \(count) elements, more than the \(areaEnd - refs) bytes before the offset table hold")
            }
            return LazyObjectHeader(
                index: index, start: start, marker: marker, kind: isDictionary ? .dictionary : .array,
                count: count, payload: refs)
        default:
            throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(Self.hex(marker))")
        }
    }

    private var area: BinaryObjectArea { BinaryObjectArea(bytes: bytes, end: areaEnd) }

    /// Throws unless `length` bytes from `start` lie inside the object area.
    @inline(__always)
    private func require(_ length: Int, at start: Int, object: Int, for what: @autoclosure () -> String) throws(PlistError) {
        try area.require(length, at: start, object: object, for: what())
    }

    /// The count of a data, string or container object and where its payload starts.
    @inline(__always)
    private func count(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> (Int, Int) {
        let field = try area.count(index, marker: marker, at: start)
        return (field.count, field.payload)
    }
}

extension LazyObjectTable {
    /// `0xAB`-style spelling of a byte for messages.
    static func hex(_ byte: UInt8) -> String { BinaryObjectArea.hex(byte) }
}
