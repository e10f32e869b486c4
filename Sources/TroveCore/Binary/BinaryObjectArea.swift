/// The object area of a binary plist (the bytes before the offset table) and the two reads that
/// both the full scanner and the lazy reader make of it, so that both refuse the same input with
/// the same code, offset and message.
struct BinaryObjectArea {
    let bytes: UnsafeRawBufferPointer
    /// Where the offset table starts; no object may reach past it.
    let end: Int

    /// Throws unless `length` bytes from `start` lie inside the area.
    // Inlined, as `count`'s common case is: both run for every object read; errors are built
    // out of line.
    @inline(__always)
    func require(_ length: Int, at start: Int, object: Int, for what: @autoclosure () -> String) throws(PlistError) {
        guard length <= end - start else { throw shortObject(length, at: start, object: object, for: what()) }
    }

    @inline(never)
    private func shortObject(_ length: Int, at start: Int, object: Int, for what: String) -> PlistError {
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
        return try extendedCount(index, at: start)
    }

    /// The count that follows the marker of the object at `start` as an integer object.
    @inline(never)
    private func extendedCount(_ index: Int, at start: Int) throws(PlistError) -> (count: Int, payload: Int, extendedMarker: UInt8?) {
        try require(2, at: start, object: index, for: "the extended count")
        let countMarker = bytes[start + 1]
        let power = countMarker & 0x0F
        guard countMarker >> 4 == 0x1, power <= 3 else {
            throw BinaryTrailer.error(
                .badCount, at: start + 1,
                "the count of object \(index) must be an integer of 1, 2, 4 or 8 bytes, found marker \(Self.hex(countMarker))")
        }
        let width = 1 << Int(power)
        try require(2 + width, at: start, object: index, for: "the extended count")
        let raw = bytes.loadBigEndian(at: start + 2, width: width)
        // Every counted unit takes at least one byte, so a count beyond the object area is false;
        // this also keeps every later product of the count below the file size.
        guard raw <= UInt64(end) else {
            throw BinaryTrailer.error(
                .badCount, at: start + 1, "object \(index) claims \(raw) elements, more than the file holds")
        }
        return (Int(raw), start + 2 + width, countMarker)
    }

    /// `0xAB`-style spelling of a byte for messages.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }
}
