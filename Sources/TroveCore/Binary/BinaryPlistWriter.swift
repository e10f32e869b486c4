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
        guard let layout else { return try BinaryPlainEncoder(limits: limits).encode(value) }
        return try encodeThroughPlanner(value, layout: layout)
    }

    /// The planner's path, which follows notes; without them it writes what ``BinaryPlainEncoder``
    /// writes (tests compare the two).
    func encodeThroughPlanner(_ value: PlistValue, layout: BinaryLayout?) throws(PlistError) -> ByteBuffer {
        var planner = BinaryObjectPlanner(layout: layout, maxDepth: limits.maxDepth)
        planner.meter = LimitMeter(limits: limits)
        let top = try planner.planDocument(value)
        let encoder = BinaryObjectEncoder(planner: planner, layout: layout)
        return encoder.encode(top: top, scalarsFrom: planner)
    }
}

/// The second pass of a write that follows notes: numbers the planned objects and writes their
/// bytes (a scalar's as the planner encoded them), the offset table and the trailer.
struct BinaryObjectEncoder: ~Copyable {
    private let slots: [BinaryObjectPlanner.Slot]
    private let layout: BinaryLayout?
    /// Output object index of each slot.
    private var objectIndex: [Int]
    /// Slots in output order.
    private var objectSlots: [Int]
    private let refSize: Int
    private var out: ByteBuffer

    init(planner: borrowing BinaryObjectPlanner, layout: BinaryLayout?) {
        slots = planner.slots
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
        // Header and trailer, objects (a container's marker and count, then its references), and
        // an offset table of up to eight bytes an entry.
        out = ByteBuffer(
            capacity: 64 + planner.scalarBytes + 5 * count + planner.children.count * refSize + 8 * count)
    }

    /// Writes the document; the planner holds the scalars' bytes and the containers' children.
    consuming func encode(top: Int, scalarsFrom planner: borrowing BinaryObjectPlanner) -> ByteBuffer {
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(layout?.versionByte ?? UInt8(ascii: "0"))
        var offsets: [Int] = []
        offsets.reserveCapacity(objectSlots.count)
        planner.encoded.withUnsafeBufferPointer { scalars in
            planner.children.withUnsafeBufferPointer { children in
                for slot in objectSlots {
                    offsets.append(out.count)
                    var source = slot
                    if case .copy(let original) = slots[slot].content { source = original }
                    encodeObject(source, scalars: scalars, children: children)
                }
            }
        }
        out.appendBinaryOffsetTableAndTrailer(
            offsets: offsets, refSize: refSize, topObject: objectIndex[top], notedOffsetSize: layout?.offsetIntSize,
            unusedTrailerBytes: layout?.unusedTrailerBytes ?? 0, sortVersion: layout?.sortVersion ?? 0)
        return out
    }

    // MARK: - Objects

    /// Reads the slot's fields in place, rather than copying the whole `Slot`.
    private mutating func encodeObject(_ slot: Int, scalars: UnsafeBufferPointer<UInt8>, children: UnsafeBufferPointer<Int>) {
        let first = slots[slot].first
        let count = slots[slot].count
        switch slots[slot].content {
        case .array(let isSet, _):
            out.appendBinaryMarker(isSet ? 0xC : 0xA, count: count, note: slots[slot].note)
            appendReferences(UnsafeBufferPointer(rebasing: children[first..<first + count]))
        case .dictionary:
            out.appendBinaryMarker(0xD, count: count / 2, note: slots[slot].note)
            appendReferences(UnsafeBufferPointer(rebasing: children[first..<first + count]))
        case .scalar, .spelledScalar:
            out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[first..<first + count]))
        case .copy:
            preconditionFailure("a copy is written as its original")
        }
    }

    private mutating func appendReferences(_ children: UnsafeBufferPointer<Int>) {
        objectIndex.withUnsafeBufferPointer { objectIndex in
            out.appendBigEndian(children, width: refSize) { UInt64(objectIndex[$0]) }
        }
    }
}
