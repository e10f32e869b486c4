import Foundation

/// The bytes of single binary-plist objects, shared by the writer's two encoders (the plain one and
/// the one that follows layout notes): markers with their counts, scalars, references and the
/// trailer. With a note, a scalar keeps the noted spelling while the value still fits it; without
/// one, every encoding is CoreFoundation's minimal one.
extension ByteBuffer {
    /// Writes a scalar object (anything but an array or a dictionary, which the encoders write
    /// themselves). `int128HighWord` is asked only when the integer comes out 16 bytes wide: the
    /// high word a noted 16-byte integer held, which Apple's readers ignore.
    ///
    /// Returns whether the bytes are the scalar's canonical encoding, the one written without a
    /// note: the planner uniques scalars by canonical encoding, and needs a second, canonical
    /// copy only of a scalar the note spelled differently.
    @inline(__always)
    @discardableResult
    mutating func appendBinaryScalar(
        _ value: PlistValue, note: BinaryLayout.EncodingNote?, int128HighWord: () -> UInt64
    ) -> Bool {
        switch value {
        case .null: append(0x00)
        case .bool(let b): append(b ? 0x09 : 0x08)
        case .integer(let i): return appendBinaryInteger(i, note: note, int128HighWord: int128HighWord)
        case .real(let r):
            if r.width == .single {
                append(0x22)
                appendBigEndian(UInt64(Float(r.value).bitPattern), width: 4)
            } else {
                append(0x23)
                appendBigEndian(r.value.bitPattern, width: 8)
            }
        case .date(let d):
            append(0x33)
            appendBigEndian(d.secondsSinceReferenceDate.bitPattern, width: 8)
        case .data(let d):
            let canonical = appendBinaryMarker(0x4, count: d.count, note: note)
            d.withUnsafeBytes { append(contentsOf: $0) }
            return canonical
        case .string(let s): return appendBinaryString(s, note: note)
        case .uid(let u):
            let minimal = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : u <= 0xFFFF_FFFF ? 4 : 8
            var width = minimal
            if let note, note.type == 0x8 {
                let noted = Int(note.marker & 0x0F) + 1
                if noted >= 8 || u < UInt64(1) << UInt64(8 * noted) { width = noted }
            }
            append(0x80 | UInt8(width - 1))
            appendBigEndian(u, width: width)
            return width == minimal
        case .array, .dictionary:
            preconditionFailure("containers are written by the encoders")
        }
        return true
    }

    /// Writes an integer in its noted width when the value still fits it, otherwise minimally:
    /// 1, 2 or 4 bytes unsigned, 8 bytes signed, 16 bytes for values above `Int64.max`. Returns
    /// whether that is the minimal encoding (a 16-byte one only with a zero high word).
    @inline(__always)
    private mutating func appendBinaryInteger(
        _ value: PlistInteger, note: BinaryLayout.EncodingNote?, int128HighWord: () -> UInt64
    ) -> Bool {
        var power: Int
        if value.isNegative {
            power = 3
        } else if value.magnitude <= 0xFF {
            power = 0
        } else if value.magnitude <= 0xFFFF {
            power = 1
        } else if value.magnitude <= 0xFFFF_FFFF {
            power = 2
        } else if value.magnitude <= UInt64(Int64.max) {
            power = 3
        } else {
            power = 4
        }
        let minimal = power
        if let note, note.type == 0x1, note.marker & 0x0F <= 4 {
            let noted = Int(note.marker & 0x0F)
            if noted > power && !(value.isNegative && noted == 4) { power = noted }
        }
        append(0x10 | UInt8(power))
        if power == 4 {
            let highWord = int128HighWord()
            appendBigEndian(highWord, width: 8)
            appendBigEndian(value.bitPattern, width: 8)
            return power == minimal && highWord == 0
        }
        appendBigEndian(value.bitPattern, width: 1 << power)
        return power == minimal
    }

    /// ASCII (`0x5n`) when every scalar is below 0x80, else UTF-16BE (`0x6n`). A noted UTF-16 or
    /// UTF-8 flavour is kept; so is a noted ASCII object that held Latin-1 bytes, while every
    /// scalar stays below 0x100 (CoreFoundation reads such bytes back as Latin-1; other readers
    /// may not, so only a file that already had them gets them). Returns whether that is the
    /// encoding without a note (ASCII or UTF-16, count spelled minimally).
    @discardableResult
    mutating func appendBinaryString(_ s: String, note: BinaryLayout.EncodingNote?) -> Bool {
        // Without a note, text in contiguous storage (every native string) is checked once: ASCII
        // is copied in the same visit to its bytes, anything else can only be UTF-16.
        if note == nil, let wroteASCII = s.utf8.withContiguousStorageIfAvailable({ appendBinaryASCII($0) }) {
            if !wroteASCII { appendBinaryUTF16(s, note: nil) }
            return true
        }
        let notedType = note?.type
        // So goes ASCII text noted as ASCII, the common case of a lossless rewrite; anything else
        // takes the general path below.
        if notedType == 0x5, let canonical = s.utf8.withContiguousStorageIfAvailable({ appendBinaryASCII($0, note: note) }),
            let canonical
        {
            return canonical
        }
        // Native strings (every decoded one) are contiguous UTF-8: copied and checked in bulk.
        var s = s
        s.makeContiguousUTF8()
        if notedType == 0x7 {
            appendBinaryMarker(0x7, count: s.utf8.count, note: note)
            s.withUTF8 { append(contentsOf: $0) }
            return false
        } else if notedType != 0x6 && Self.isASCII(s) {
            let canonical = appendBinaryMarker(0x5, count: s.utf8.count, note: note)
            s.withUTF8 { append(contentsOf: $0) }
            return canonical
        } else if notedType == 0x5 && note?.holdsLatin1 == true && s.unicodeScalars.allSatisfy({ $0.value < 0x100 }) {
            appendBinaryMarker(0x5, count: s.unicodeScalars.count, note: note)
            for scalar in s.unicodeScalars { append(UInt8(truncatingIfNeeded: scalar.value)) }
            return false
        } else if notedType == 0x6 {
            // ASCII text the file held as UTF-16 is not canonical, whatever its count.
            return appendBinaryUTF16(s, note: note) && !Self.isASCII(s)
        } else {
            return appendBinaryUTF16(s, note: nil)
        }
    }

    /// Writes `s` as a UTF-16BE string object (`0x6n`); `note` is a noted UTF-16 object's, or nil.
    /// Returns whether the count is spelled minimally.
    @discardableResult
    mutating func appendBinaryUTF16(_ s: String, note: BinaryLayout.EncodingNote?) -> Bool {
        let units = s.utf16.count
        let canonical = appendBinaryMarker(0x6, count: units, note: note)
        appendUninitialized(count: 2 * units) { buffer in
            // `utf16` yields exactly `units` code units, so every store is inside the
            // 2 * units bytes being appended.
            var i = 0
            for unit in s.utf16 {
                buffer[i] = UInt8(truncatingIfNeeded: unit >> 8)
                buffer[i + 1] = UInt8(truncatingIfNeeded: unit)
                i += 2
            }
        }
        return canonical
    }

    /// Writes `utf8` as an ASCII string object when every byte is below 0x80; false otherwise,
    /// having written nothing.
    @inline(__always)
    private mutating func appendBinaryASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard UnsafeRawBufferPointer(utf8).isASCII else { return false }
        appendBinaryMarker(0x5, count: utf8.count)
        append(contentsOf: utf8)
        return true
    }

    /// Writes `utf8` as an ASCII string object with its count spelled as `note` spelled it, when
    /// every byte is below 0x80, and returns whether the count is spelled minimally; nil
    /// otherwise, having written nothing.
    @inline(__always)
    mutating func appendBinaryASCII(_ utf8: UnsafeBufferPointer<UInt8>, note: BinaryLayout.EncodingNote?) -> Bool? {
        guard UnsafeRawBufferPointer(utf8).isASCII else { return nil }
        let canonical = appendBinaryMarker(0x5, count: utf8.count, note: note)
        append(contentsOf: utf8)
        return canonical
    }

    /// Whether every byte of the UTF-8 of `s` is below 0x80.
    private static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { UnsafeRawBufferPointer($0).isASCII } ?? s.utf8.allSatisfy { $0 < 0x80 }
    }

    /// A type nibble with its count: inline below 15, else nibble 0xF and an integer object,
    /// keeping the noted spelling while the count fits it. Returns whether the spelling is the
    /// minimal one.
    @inline(__always)
    @discardableResult
    mutating func appendBinaryMarker(_ type: UInt8, count: Int, note: BinaryLayout.EncodingNote?) -> Bool {
        if let note, note.type == type, let marker = note.extendedCountMarker {
            let power = Int(marker & 0x0F)
            if power >= 3 || count < 1 << (8 << power) {
                appendBigEndian(UInt64(type << 4 | 0x0F) << 8 | UInt64(marker), width: 2)
                appendBigEndian(UInt64(count), width: 1 << power)
                return count >= 15 && 2 + (1 << power) == BinaryExtendedMarker(type: type, count: count).length
            }
        }
        appendBinaryMarker(type, count: count)
        return true
    }

    /// A type nibble with its count as CoreFoundation writes it: inline below 15, else nibble
    /// 0xF and the smallest integer object holding the count, stored together in one append.
    @inline(__always)
    mutating func appendBinaryMarker(_ type: UInt8, count: Int) {
        if count < 15 {
            append(type << 4 | UInt8(count))
            return
        }
        let marker = BinaryExtendedMarker(type: type, count: count)
        append(marker.low, marker.high, count: marker.length)
    }

    /// The offset table and the 32-byte trailer after the last object; the object area ends at
    /// `count`. The offset width is kept from the notes (`notedOffsetSize`) while it can still
    /// address the table, else the smallest power of two that can.
    mutating func appendBinaryOffsetTableAndTrailer(
        offsets: [Int], refSize: Int, topObject: Int, notedOffsetSize: Int?,
        unusedTrailerBytes: UInt64 = 0, sortVersion: UInt8 = 0
    ) {
        let tableOffset = count
        let offsetSize: Int
        if let notedOffsetSize, BinaryTrailer.width(notedOffsetSize, canAddress: tableOffset) {
            offsetSize = notedOffsetSize
        } else {
            offsetSize = BinaryTrailer.powerOfTwoWidth(for: tableOffset)
        }
        offsets.withUnsafeBufferPointer { offsets in
            appendBigEndian(offsets, width: offsetSize) { UInt64($0) }
        }
        appendBinaryTrailer(
            offsetSize: offsetSize, refSize: refSize, objectCount: offsets.count, topObject: topObject,
            tableOffset: tableOffset, unusedTrailerBytes: unusedTrailerBytes, sortVersion: sortVersion)
    }

    /// The 32-byte trailer: five unused bytes, the sort version, the offset and reference widths,
    /// the object count, the top object and where the offset table starts.
    mutating func appendBinaryTrailer(
        offsetSize: Int, refSize: Int, objectCount: Int, topObject: Int, tableOffset: Int,
        unusedTrailerBytes: UInt64 = 0, sortVersion: UInt8 = 0
    ) {
        appendBigEndian(unusedTrailerBytes, width: 5)
        append(sortVersion)
        append(UInt8(offsetSize))
        append(UInt8(refSize))
        appendBigEndian(UInt64(objectCount), width: 8)
        appendBigEndian(UInt64(topObject), width: 8)
        appendBigEndian(UInt64(tableOffset), width: 8)
    }
}
