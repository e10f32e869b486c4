/// An object's marker byte and what it says, validated: what the object decodes to, how many units
/// it holds and where they lie.
///
/// Reading it checks everything about the object that does not need its children: the marker, the
/// count and that the payload fits before the offset table. It reads nothing else, so the lazy
/// reader can hold one per node and decode the value only when asked. It is kept to four words
/// and two bytes: keyed-archive decoding copies it with every field lookup.
struct BinaryObjectMarker: Sendable {
    /// The object's index in the offset table.
    let index: Int
    /// The byte offset of its marker.
    let start: Int
    /// The marker byte: the type in the high nibble, a size or count in the low one.
    let byte: UInt8
    /// What the object decodes to.
    let kind: PlistValue.Kind
    /// Elements, entries, bytes or code units, from the marker or the extended count; 0 for
    /// fixed-size scalars.
    let count: Int
    /// The first byte after the marker and any extended count.
    let payload: Int

    var isContainer: Bool { kind == .array || kind == .dictionary }

    /// How a message names the payload of a real or a string that the offset table cuts short.
    /// The full reader names the real's width and the string's encoding (`an 8-byte real`,
    /// `the ASCII string`); the lazy reader names the kind alone (`the real`, `the string`).
    /// A reader's messages are part of its behaviour, so each keeps its own.
    enum PayloadNaming {
        case byEncoding, byKind
    }
}

extension BinaryObjectArea {
    /// Reads and validates the marker of object `index`, which starts at `start` (an offset the
    /// offset table gave, inside the area), without decoding the value.
    @inline(__always)
    func marker(ofObject index: Int, at start: Int, naming: BinaryObjectMarker.PayloadNaming) throws(PlistError) -> BinaryObjectMarker {
        var holdsLatin1 = false
        return try read(index, at: start, naming: naming, decoding: false, holdsLatin1: &holdsLatin1).marker
    }

    /// Reads and validates the marker of scalar object `index` and decodes its value; nil for an
    /// array or dictionary, whose elements the caller decodes. `extendedCountMarker` is the
    /// marker of the integer object that holds a count of 15 or more, which lossless writing
    /// repeats; nil when the count is in the marker. `holdsLatin1` is true for an "ASCII" string
    /// object with bytes above 0x7F, which lossless writing records (the decode finds it out,
    /// and asking the text again would cost a retain).
    @inline(__always)
    func scalar(
        ofObject index: Int, at start: Int, naming: BinaryObjectMarker.PayloadNaming
    ) throws(PlistError) -> (marker: BinaryObjectMarker, extendedCountMarker: UInt8?, value: PlistValue?, holdsLatin1: Bool) {
        var holdsLatin1 = false
        let (marker, extendedCountMarker, value) = try read(index, at: start, naming: naming, decoding: true, holdsLatin1: &holdsLatin1)
        return (marker, extendedCountMarker, value, holdsLatin1)
    }

    /// The one reading of a marker: the type nibble, the count, the bounds, the errors, and when
    /// `decoding` the scalar's value. Both entry points inline it with `decoding` a constant, so
    /// neither pays for what it does not use.
    @inline(__always)
    private func read(
        _ index: Int, at start: Int, naming: BinaryObjectMarker.PayloadNaming, decoding: Bool, holdsLatin1: inout Bool
    ) throws(PlistError) -> (marker: BinaryObjectMarker, extendedCountMarker: UInt8?, value: PlistValue?) {
        let byte = bytes[start]
        @inline(__always) func fixed(
            _ kind: PlistValue.Kind, _ value: @autoclosure () -> PlistValue
        ) -> (BinaryObjectMarker, UInt8?, PlistValue?) {
            (BinaryObjectMarker(index: index, start: start, byte: byte, kind: kind, count: 0, payload: start + 1), nil,
             decoding ? value() : nil)
        }
        @inline(__always) func counted(
            _ kind: PlistValue.Kind, _ field: (count: Int, payload: Int, extendedMarker: UInt8?),
            _ value: (BinaryObjectMarker) throws(PlistError) -> PlistValue?
        ) throws(PlistError) -> (BinaryObjectMarker, UInt8?, PlistValue?) {
            let object = BinaryObjectMarker(index: index, start: start, byte: byte, kind: kind, count: field.count, payload: field.payload)
            return (object, field.extendedMarker, decoding ? try value(object) : nil)
        }
        switch byte >> 4 {
        case 0x0:
            switch byte {
            case 0x00: return fixed(.null, .null)
            case 0x08, 0x09: return fixed(.bool, .bool(byte == 0x09))
            default: throw Self.badMarker(byte, at: start)
            }
        case 0x1:
            let width = try integerWidth(index, marker: byte, at: start)
            return fixed(.integer, .integer(integer(at: start, width: width)))
        case 0x2:
            switch byte {
            case 0x22: try require(5, at: start, object: index, for: naming == .byKind ? "the real" : "a 4-byte real")
            case 0x23: try require(9, at: start, object: index, for: naming == .byKind ? "the real" : "an 8-byte real")
            default: throw Self.badMarker(byte, at: start)
            }
            return fixed(.real, .real(real(byte, at: start)))
        case 0x3:
            guard byte == 0x33 else { throw Self.badMarker(byte, at: start) }
            try require(9, at: start, object: index, for: "a date")
            return fixed(.date, .date(date(at: start)))
        case 0x4:
            let field = try count(index, marker: byte, at: start)
            try require(field.count, at: field.payload, object: index, for: "the data")
            return try counted(.data, field) { .data(data($0)) }
        case 0x5:
            let field = try count(index, marker: byte, at: start)
            try require(field.count, at: field.payload, object: index, for: naming == .byKind ? "the string" : "the ASCII string")
            return try counted(.string, field) { object in
                let (text, isLatin1) = Self.asciiString(payload(object))
                holdsLatin1 = isLatin1
                return .string(text)
            }
        case 0x6:
            let field = try count(index, marker: byte, at: start)
            guard field.count <= (end - field.payload) / 2 else { throw Self.utf16TooLong(index, field.count, at: start, room: end - field.payload) }
            return try counted(.string, field) { (object) throws(PlistError) in
                .string(try Self.utf16String(bytes, at: object.payload, units: object.count))
            }
        case 0x7 where acceptsUTF8Strings:
            let field = try count(index, marker: byte, at: start)
            try require(field.count, at: field.payload, object: index, for: naming == .byKind ? "the string" : "the UTF-8 string")
            return try counted(.string, field) { (object) throws(PlistError) in
                .string(try Self.utf8String(payload(object), object: index, at: object.payload))
            }
        case 0x8:
            let width = Int(byte & 0x0F) + 1
            guard width <= 8 else { throw Self.badMarker(byte, at: start) }
            try require(1 + width, at: start, object: index, for: "the UID")
            return fixed(.uid, .uid(uid(byte, at: start)))
        case 0xA, 0xC, 0xD:
            return try counted(byte >> 4 == 0xD ? .dictionary : .array, try containerCount(index, marker: byte, at: start)) { _ in nil }
        default:
            throw Self.badMarker(byte, at: start)
        }
    }

    /// The width in bytes of an integer object (`0x1n`, 2^n bytes) at `start`, checked: at most
    /// 16, and all of it before the offset table.
    @inline(__always)
    func integerWidth(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> Int {
        let power = marker & 0x0F
        guard power <= 4 else { throw Self.badMarker(marker, at: start) }
        let width = 1 << Int(power)
        try require(1 + width, at: start, object: index, for: "the integer")
        return width
    }

    /// The error for a marker byte that names no object, or a size its type does not have.
    @inline(never)
    private static func badMarker(_ byte: UInt8, at start: Int) -> PlistError {
        let nibble = Int(byte & 0x0F)
        let message = switch byte >> 4 {
        case 0x0 where byte == 0x0F: "the fill byte 0x0F cannot be used as a value"
        case 0x1: "an integer of 2^\(nibble) bytes is wider than 16"
        case 0x2: "a real must be 4 or 8 bytes, marker \(hex(byte)) says \(1 << min(nibble, 62))"
        case 0x3: "unknown object marker \(hex(byte)) (dates are 0x33)"
        case 0x8: "a UID of \(nibble + 1) bytes is wider than 8"
        default: "unknown object marker \(hex(byte))"
        }
        return BinaryTrailer.error(.badObject, at: start, message)
    }

    @inline(never)
    private static func utf16TooLong(_ index: Int, _ count: Int, at start: Int, room: Int) -> PlistError {
        BinaryTrailer.error(
            .badCount, at: start,
            "the UTF-16 string of object \(index) claims \(count) units, more than the \(room) bytes before the offset table hold")
    }

    // MARK: - Dictionary keys

    /// Throws unless the object at `start`, named as a key by the reference at `position`, is a
    /// string object. Checked before anything else of the key is read, so that a container used
    /// as a key is never descended into.
    @inline(__always)
    func requireStringKey(_ key: Int, at start: Int, referencedAt position: Int) throws(PlistError) {
        let type = bytes[start] >> 4
        guard type == 0x5 || type == 0x6 || (type == 0x7 && acceptsUTF8Strings) else {
            throw BinaryTrailer.error(
                .badKey, at: position, "dictionary key object \(key) is not a string (marker \(Self.hex(bytes[start])))")
        }
    }

    /// The error for a key object that decoded to something other than a string.
    @inline(never)
    static func notAStringKey(_ key: Int, referencedAt position: Int) -> PlistError {
        BinaryTrailer.error(.badKey, at: position, "dictionary key object \(key) is not a string")
    }
}
