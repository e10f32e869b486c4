/// The object area of a binary plist (the bytes before the offset table) and the reads that both
/// the full scanner and the lazy reader make of it, so that both refuse the same input with the
/// same code, offset and message. Reading an object's marker is in `BinaryObjectMarker.swift`,
/// decoding a scalar's payload in `BinaryScalarObjects.swift`.
struct BinaryObjectArea {
    let bytes: UnsafeRawBufferPointer
    /// Where the offset table starts; no object may reach past it.
    let end: Int
    /// The width of a container's references, which bounds how many fit before the table.
    let objectRefSize: Int
    /// UTF-8 string objects (`0x7n`) are a `bplist1x` feature CoreFoundation rejects in
    /// `bplist00` files; they are read when the header's version character is anything else.
    let acceptsUTF8Strings: Bool

    @inline(__always)
    init(bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer) {
        self.bytes = bytes
        end = trailer.offsetTableOffset
        objectRefSize = trailer.objectRefSize
        acceptsUTF8Strings = trailer.versionByte != UInt8(ascii: "0")
    }

    /// Throws unless `length` bytes from `start` lie inside the area.
    // Inlined, as `count`'s common case is: both run for every object read. Errors are built out
    // of line, by static functions given what they need, so that a caller's copy of the area can
    // stay in registers.
    @inline(__always)
    func require(_ length: Int, at start: Int, object: Int, for what: @autoclosure () -> String) throws(PlistError) {
        guard length <= end - start else { throw Self.shortObject(length, at: start, end: end, object: object, for: what()) }
    }

    @inline(never)
    private static func shortObject(_ length: Int, at start: Int, end: Int, object: Int, for what: String) -> PlistError {
        BinaryTrailer.error(
            .badCount, at: start,
            "\(what) of object \(object) needs \(length) bytes but only \(end - start) remain before the offset table")
    }

    /// The count of a data, string or container object whose marker is at `start`, and where
    /// its payload begins. Counts of 15 and more follow the marker as an integer object of 1, 2,
    /// 4 or 8 bytes; that integer's marker is returned so lossless writing can repeat it.
    @inline(__always)
    func count(
        _ index: Int, marker: UInt8, at start: Int
    ) throws(PlistError) -> (count: Int, payload: Int, extendedMarker: UInt8?) {
        let nibble = marker & 0x0F
        guard nibble == 0x0F else { return (Int(nibble), start + 1, nil) }
        // A one-byte count (15 to 255 units: most strings that have an extended count) is read
        // here; the other widths, and every error, out of line.
        if end - start >= 3 && bytes[start + 1] == 0x10 {
            let count = Int(bytes[start + 2])
            if count <= end { return (count, start + 3, 0x10) }
        }
        return try Self.extendedCount(bytes, end: end, index, at: start)
    }

    /// The count that follows the marker of the object at `start` as an integer object.
    @inline(never)
    private static func extendedCount(
        _ bytes: UnsafeRawBufferPointer, end: Int, _ index: Int, at start: Int
    ) throws(PlistError) -> (count: Int, payload: Int, extendedMarker: UInt8?) {
        guard 2 <= end - start else { throw shortObject(2, at: start, end: end, object: index, for: "the extended count") }
        let countMarker = bytes[start + 1]
        let power = countMarker & 0x0F
        guard countMarker >> 4 == 0x1, power <= 3 else {
            throw BinaryTrailer.error(
                .badCount, at: start + 1,
                "the count of object \(index) must be an integer of 1, 2, 4 or 8 bytes, found marker \(hex(countMarker))")
        }
        let width = 1 << Int(power)
        guard 2 + width <= end - start else {
            throw shortObject(2 + width, at: start, end: end, object: index, for: "the extended count")
        }
        let raw = bytes.loadBigEndian(at: start + 2, width: width)
        // Every counted unit takes at least one byte, so a count beyond the object area is false;
        // this also keeps every later product of the count below the file size.
        guard raw <= UInt64(end) else {
            throw BinaryTrailer.error(
                .badCount, at: start + 1, "object \(index) claims \(raw) elements, more than the file holds")
        }
        return (Int(raw), start + 2 + width, countMarker)
    }

    /// The element count of an array, set or dictionary object (`0xA`, `0xC`, `0xD`) whose marker
    /// is at `start`, and where its references begin; throws unless they all lie before the
    /// offset table (two per entry for a dictionary).
    @inline(__always)
    func containerCount(
        _ index: Int, marker: UInt8, at start: Int
    ) throws(PlistError) -> (count: Int, payload: Int, extendedMarker: UInt8?) {
        let field = try count(index, marker: marker, at: start)
        let isDictionary = marker >> 4 == 0xD
        // The references must fit before the offset table. Multiplied rather than divided (the
        // same test for positive numbers): a division by the reference size is the slowest
        // instruction of reading a header. No overflow: a count is at most the file's size.
        guard field.count &* (objectRefSize &<< (isDictionary ? 1 : 0)) <= end - field.payload else {
            throw Self.tooManyElements(isDictionary ? "dictionary" : "array", index, field.count, at: field.payload, end: end)
        }
        return field
    }

    @inline(never)
    private static func tooManyElements(_ what: String, _ index: Int, _ count: Int, at refs: Int, end: Int) -> PlistError {
        BinaryTrailer.error(
            .badCount, at: refs,
            "\(what) object \(index) claims \(count) elements, more than the \(end - refs) bytes before the offset table hold")
    }

    /// `0xAB`-style spelling of a byte for messages.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }
}
