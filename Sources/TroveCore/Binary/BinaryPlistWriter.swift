import Foundation

/// Writes binary property lists (`bplist00`).
///
/// Without layout notes the output follows CoreFoundation's writer: objects in flatten order,
/// strings, numbers, dates and data uniqued by exact value, booleans and UIDs appended once per
/// occurrence with every reference naming the first, minimal integer widths, and 1/2/4/8-byte
/// references and offsets. Checked against the toolchain's `PropertyListSerialization` (the
/// engine of `plutil -convert binary1`), the output is byte-identical except where we differ on
/// purpose:
/// * dictionary keys come out in the value's key order; CoreFoundation uses hash order;
/// * equal strings, reals, dates and data are stored once; the Linux Foundation stores each
///   occurrence separately (a bridging artifact: only integers are uniqued there), while
///   CoreFoundation on macOS uniques them as we do;
/// * uniquing is by exact bits and code units, so a 32- and a 64-bit real of the same number,
///   0.0 and -0.0, an integer and an equal real, or two canonically equivalent strings stay
///   separate objects; CoreFoundation's `CFEqual` could merge some of them and lose a width.
///
/// With the ``BinaryLayout`` notes of the file a value was read from, an unchanged value comes
/// back byte for byte and an edit changes only what depends on it (see ``BinaryLayout``).
public struct BinaryPlistWriter: Sendable {
    /// `maxDepth` bounds the nesting written, since Apple's readers refuse deeper files.
    public var limits: PlistLimits

    /// A writer refusing values nested deeper than `limits.maxDepth` containers.
    public init(limits: PlistLimits = .default) { self.limits = limits }

    /// Encodes `value`, following `layout` where it still applies.
    public func write(_ value: PlistValue, layout: BinaryLayout? = nil) throws(PlistError) -> [UInt8] {
        try encode(value, layout: layout).array
    }

    /// The same document as `Data` that owns the encoder's buffer, so that `Plist.write` does
    /// not copy the whole file twice on its way out.
    func writeData(_ value: PlistValue, layout: BinaryLayout? = nil) throws(PlistError) -> Data {
        try encode(value, layout: layout).data()
    }

    private func encode(_ value: PlistValue, layout: BinaryLayout?) throws(PlistError) -> ByteBuffer {
        var planner = BinaryObjectPlanner(layout: layout, maxDepth: limits.maxDepth)
        planner.meter = LimitMeter(limits: limits)
        let top = try planner.planDocument(value)
        let encoder = BinaryObjectEncoder(planner: planner, layout: layout)
        return encoder.encode(top: top)
    }
}

/// The writer's second pass: numbers the planned objects and writes their bytes, the offset
/// table and the trailer.
struct BinaryObjectEncoder: ~Copyable {
    private let slots: [BinaryObjectPlanner.Slot]
    private let children: [Int]
    private let layout: BinaryLayout?
    /// Output object index of each slot.
    private var objectIndex: [Int]
    /// Slots in output order.
    private var objectSlots: [Int]
    private let refSize: Int
    private var out: ByteBuffer

    init(planner: BinaryObjectPlanner, layout: BinaryLayout?) {
        slots = planner.slots
        out = ByteBuffer(capacity: 64 + planner.slots.count * 8)
        children = planner.children
        self.layout = layout
        // Noted objects keep their relative order; new ones follow in the order they were met.
        let noted = planner.notedObjectCount
        var rankOfNoted = Array(repeating: -1, count: noted)
        for slot in slots.indices where slots[slot].order < noted { rankOfNoted[slots[slot].order] = 0 }
        var rank = 0
        for i in 0..<noted where rankOfNoted[i] == 0 {
            rankOfNoted[i] = rank
            rank += 1
        }
        var index = Array(repeating: 0, count: slots.count)
        var order = Array(repeating: 0, count: slots.count)
        for slot in slots.indices {
            let planned = slots[slot].order
            let i = planned < noted ? rankOfNoted[planned] : rank + (planned - noted)
            index[slot] = i
            order[i] = slot
        }
        objectIndex = index
        objectSlots = order
        let count = slots.count
        if let layout, BinaryTrailer.width(layout.objectRefSize, canAddress: count) {
            refSize = layout.objectRefSize
        } else {
            refSize = BinaryTrailer.powerOfTwoWidth(for: count)
        }
    }

    consuming func encode(top: Int) -> ByteBuffer {
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(layout?.versionByte ?? UInt8(ascii: "0"))
        var offsets: [Int] = []
        offsets.reserveCapacity(objectSlots.count)
        for slot in objectSlots {
            offsets.append(out.count)
            var source = slot
            if case .copy(let original) = slots[slot].content { source = original }
            encodeObject(source)
        }
        let tableOffset = out.count
        let offsetSize: Int
        if let layout, BinaryTrailer.width(layout.offsetIntSize, canAddress: tableOffset) {
            offsetSize = layout.offsetIntSize
        } else {
            offsetSize = BinaryTrailer.powerOfTwoWidth(for: tableOffset)
        }
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize) }
        appendBigEndian(layout?.unusedTrailerBytes ?? 0, width: 5)
        out.append(layout?.sortVersion ?? 0)
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        appendBigEndian(UInt64(objectSlots.count), width: 8)
        appendBigEndian(UInt64(objectIndex[top]), width: 8)
        appendBigEndian(UInt64(tableOffset), width: 8)
        return out
    }

    // MARK: - Objects

    /// Reads the slot's fields in place: copying the whole `Slot` (its value included) cost a
    /// retain and a release per object.
    private mutating func encodeObject(_ slot: Int) {
        let note = slots[slot].note
        switch slots[slot].content {
        case .array(let isSet):
            appendMarker(isSet ? 0xC : 0xA, count: slots[slot].childCount, note: note)
            appendReferences(of: slot)
            return
        case .dictionary:
            appendMarker(0xD, count: slots[slot].childCount / 2, note: note)
            appendReferences(of: slot)
            return
        case .copy, .scalar:
            break
        }
        switch slots[slot].value {
        case .null: out.append(0x00)
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .integer(let i): appendInteger(i, note: note, object: slots[slot].order)
        case .real(let r):
            if r.width == .single {
                out.append(0x22)
                appendBigEndian(UInt64(Float(r.value).bitPattern), width: 4)
            } else {
                out.append(0x23)
                appendBigEndian(r.value.bitPattern, width: 8)
            }
        case .date(let d):
            out.append(0x33)
            appendBigEndian(d.secondsSinceReferenceDate.bitPattern, width: 8)
        case .data(let d):
            appendMarker(0x4, count: d.count, note: note)
            d.withUnsafeBytes { out.append(contentsOf: $0) }
        case .string(let s): appendString(s, note: note)
        case .uid(let u):
            var width = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : u <= 0xFFFF_FFFF ? 4 : 8
            if let note, note.type == 0x8 {
                let noted = Int(note.marker & 0x0F) + 1
                if noted >= 8 || u < UInt64(1) << UInt64(8 * noted) { width = noted }
            }
            out.append(0x80 | UInt8(width - 1))
            appendBigEndian(u, width: width)
        case .array, .dictionary:
            break  // containers are handled above
        }
    }

    /// Writes a container's references in one pass over storage grown once, rather than one
    /// `append(contentsOf:)` of a few bytes per reference.
    private mutating func appendReferences(of slot: Int) {
        let count = slots[slot].childCount
        let first = slots[slot].childStart
        guard count > 0 else { return }
        let width = refSize
        children.withUnsafeBufferPointer { children in
            objectIndex.withUnsafeBufferPointer { objectIndex in
                out.appendUninitialized(count: count * width) { out in
                    var position = 0
                    for k in first..<first + count {
                        var value = UInt64(objectIndex[children[k]])
                        var byte = position + width
                        while byte > position {
                            byte -= 1
                            out[byte] = UInt8(truncatingIfNeeded: value)
                            value >>= 8
                        }
                        position += width
                    }
                }
            }
        }
    }

    /// Writes an integer in its noted width when the value still fits it, otherwise minimally:
    /// 1, 2 or 4 bytes unsigned, 8 bytes signed, 16 bytes for values above `Int64.max`.
    private mutating func appendInteger(_ value: PlistInteger, note: BinaryLayout.EncodingNote?, object: Int) {
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
        if let note, note.type == 0x1, note.marker & 0x0F <= 4 {
            let noted = Int(note.marker & 0x0F)
            if noted > power && !(value.isNegative && noted == 4) { power = noted }
        }
        out.append(0x10 | UInt8(power))
        switch power {
        case 4:
            let high = layout?.int128HighWords[UInt32(truncatingIfNeeded: object)] ?? 0
            appendBigEndian(object < (layout?.objectCount ?? 0) ? high : 0, width: 8)
            appendBigEndian(value.bitPattern, width: 8)
        default:
            appendBigEndian(value.bitPattern, width: 1 << power)
        }
    }

    /// ASCII (`0x5n`) when every scalar is below 0x80, else UTF-16BE (`0x6n`). A noted UTF-16 or
    /// UTF-8 flavour is kept; so is a noted ASCII object that held Latin-1 bytes, while every
    /// scalar stays below 0x100 (CoreFoundation reads such bytes back as Latin-1; other readers
    /// may not, so only a file that already had them gets them).
    private mutating func appendString(_ s: String, note: BinaryLayout.EncodingNote?) {
        let notedType = note?.type
        // Native strings (every decoded one) are contiguous UTF-8: copied and checked in bulk.
        var s = s
        s.makeContiguousUTF8()
        if notedType == 0x7 {
            appendMarker(0x7, count: s.utf8.count, note: note)
            s.withUTF8 { out.append(contentsOf: $0) }
        } else if notedType != 0x6 && Self.isASCII(s) {
            appendMarker(0x5, count: s.utf8.count, note: note)
            s.withUTF8 { out.append(contentsOf: $0) }
        } else if notedType == 0x5 && note?.holdsLatin1 == true && s.unicodeScalars.allSatisfy({ $0.value < 0x100 }) {
            appendMarker(0x5, count: s.unicodeScalars.count, note: note)
            for scalar in s.unicodeScalars { out.append(UInt8(truncatingIfNeeded: scalar.value)) }
        } else {
            let units = s.utf16.count
            appendMarker(0x6, count: units, note: notedType == 0x6 ? note : nil)
            out.appendUninitialized(count: 2 * units) { buffer in
                // `utf16` yields exactly `units` code units, so every store is inside the
                // 2 * units bytes being appended.
                var i = 0
                for unit in s.utf16 {
                    buffer[i] = UInt8(truncatingIfNeeded: unit >> 8)
                    buffer[i + 1] = UInt8(truncatingIfNeeded: unit)
                    i += 2
                }
            }
        }
    }

    /// Whether every byte of the UTF-8 of `s` is below 0x80.
    private static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { UnsafeRawBufferPointer($0).isASCII } ?? s.utf8.allSatisfy { $0 < 0x80 }
    }

    /// A type nibble with its count: inline below 15, else nibble 0xF and an integer object,
    /// keeping the noted spelling while the count fits it.
    private mutating func appendMarker(_ type: UInt8, count: Int, note: BinaryLayout.EncodingNote?) {
        let notedExtension = note?.type == type ? note?.extendedCountMarker : nil
        if let marker = notedExtension {
            let power = Int(marker & 0x0F)
            if power >= 3 || count < 1 << (8 << power) {
                out.append(type << 4 | 0x0F)
                out.append(marker)
                appendBigEndian(UInt64(count), width: 1 << power)
                return
            }
        }
        if count < 15 && notedExtension == nil {
            out.append(type << 4 | UInt8(count))
            return
        }
        out.append(type << 4 | 0x0F)
        let power = count <= 0xFF ? 0 : count <= 0xFFFF ? 1 : count <= 0xFFFF_FFFF ? 2 : 3
        out.append(0x10 | UInt8(power))
        appendBigEndian(UInt64(count), width: 1 << power)
    }

    /// The low `width` bytes of `value`, most significant first; `width` is at most 8.
    @inline(__always)
    private mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
