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

/// The second pass of a write that follows notes: puts the planned objects in output order and
/// writes their bytes (a scalar's as the planner encoded them), the offset table and the trailer.
///
/// The planner's references name output orders (``BinaryObjectPlanner/Slot/order``). When every
/// noted object was claimed again, as in an unchanged rewrite, an order is the object's index and
/// references are written as they are; otherwise the orders are ranked first, closing the gaps the
/// dropped objects left. A run of scalars that lie one after another in the planner's buffer, as
/// the objects of a file written in flatten order do, is copied in one piece.
struct BinaryObjectEncoder: ~Copyable {
    private let slots: [BinaryObjectPlanner.Slot]
    private let layout: BinaryLayout?
    /// The slot of each order, or -1 for a noted object nothing claimed.
    private var slotOfOrder: [Int]
    /// Output index of each order; empty when no order was left unclaimed (an order is then its
    /// own index).
    private var indexOfOrder: [Int] = []
    private let objectCount: Int
    private let refSize: Int
    private var out: ByteBuffer

    init(planner: borrowing BinaryObjectPlanner, layout: BinaryLayout?) {
        let slots = planner.slots
        self.slots = slots
        self.layout = layout
        let orders = planner.orderCount
        var slotOfOrder = Array(repeating: -1, count: orders)
        slotOfOrder.withUnsafeMutableBufferPointer { slotOfOrder in
            slots.withUnsafeBufferPointer { slots in
                for slot in slots.indices { slotOfOrder[slots[slot].order] = slot }
            }
        }
        if slots.count < orders {
            // Noted objects nothing claimed are dropped; the rest keep their relative order.
            var index = Array(repeating: 0, count: orders)
            var next = 0
            for order in 0..<orders where slotOfOrder[order] >= 0 {
                index[order] = next
                next += 1
            }
            indexOfOrder = index
        }
        self.slotOfOrder = slotOfOrder
        objectCount = slots.count
        if let layout, BinaryTrailer.width(layout.objectRefSize, canAddress: objectCount) {
            refSize = layout.objectRefSize
        } else {
            refSize = BinaryTrailer.powerOfTwoWidth(for: objectCount)
        }
        // Header and trailer, objects (a container's marker and count, then its references), and
        // an offset table of up to eight bytes an entry.
        out = ByteBuffer(
            capacity: 64 + planner.scalarBytes + 5 * objectCount + planner.children.count * refSize + 8 * objectCount)
    }

    /// Writes the document; the planner holds the scalars' bytes and the containers' children.
    consuming func encode(top: Int, scalarsFrom planner: borrowing BinaryObjectPlanner) -> ByteBuffer {
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(layout?.versionByte ?? UInt8(ascii: "0"))
        var offsets = [Int](repeating: 0, count: objectCount)
        planner.encoded.withUnsafeBufferPointer { scalars in
            planner.children.withUnsafeBufferPointer { children in
                offsets.withUnsafeMutableBufferPointer { offsets in
                    writeObjects(scalars: scalars, children: children, payloads: planner.largePayloads, offsets: offsets)
                }
            }
        }
        let topOrder = slots[top].order
        out.appendBinaryOffsetTableAndTrailer(
            offsets: offsets, refSize: refSize, topObject: indexOfOrder.isEmpty ? topOrder : indexOfOrder[topOrder],
            notedOffsetSize: layout?.offsetIntSize, unusedTrailerBytes: layout?.unusedTrailerBytes ?? 0,
            sortVersion: layout?.sortVersion ?? 0)
        return out
    }

    // MARK: - Objects

    /// Writes every object in output order, recording where each starts.
    private mutating func writeObjects(
        scalars: UnsafeBufferPointer<UInt8>, children: UnsafeBufferPointer<Int>, payloads: [Data],
        offsets: UnsafeMutableBufferPointer<Int>
    ) {
        // Scalar bytes `scalars[runStart ..< runEnd]` not yet copied, which go to `out` next.
        var runStart = 0
        var runEnd = 0
        var index = 0
        for order in slotOfOrder.indices {
            var slot = slotOfOrder[order]
            guard slot >= 0 else { continue }
            let pending = runEnd - runStart
            offsets[index] = out.count + pending
            index += 1
            if case .copy(let original) = slots[slot].content { slot = original }
            let first = slots[slot].first
            let count = slots[slot].count
            switch slots[slot].content {
            case .scalar, .spelledScalar:
                if first == runEnd && pending > 0 {
                    runEnd += count
                } else {
                    if pending > 0 { out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[runStart..<runEnd])) }
                    runStart = first
                    runEnd = first + count
                }
            case .array(let isSet, _):
                if pending > 0 { out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[runStart..<runEnd])) }
                runStart = runEnd
                out.appendBinaryMarker(isSet ? 0xC : 0xA, count: count, note: slots[slot].note)
                appendReferences(UnsafeBufferPointer(rebasing: children[first..<first + count]))
            case .dictionary:
                if pending > 0 { out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[runStart..<runEnd])) }
                runStart = runEnd
                out.appendBinaryMarker(0xD, count: count / 2, note: slots[slot].note)
                appendReferences(UnsafeBufferPointer(rebasing: children[first..<first + count]))
            case .largeData(let payload):
                if pending > 0 { out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[runStart..<runEnd])) }
                runStart = runEnd
                out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[first..<first + count]))
                payloads[payload].withUnsafeBytes { out.append(contentsOf: $0) }
            case .copy:
                preconditionFailure("a copy is written as its original")
            }
        }
        if runEnd > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: scalars[runStart..<runEnd])) }
    }

    /// Writes references to the orders `children`.
    private mutating func appendReferences(_ children: UnsafeBufferPointer<Int>) {
        if indexOfOrder.isEmpty {
            out.appendBigEndian(children, width: refSize) { UInt64($0) }
        } else {
            indexOfOrder.withUnsafeBufferPointer { indexOfOrder in
                out.appendBigEndian(children, width: refSize) { UInt64(indexOfOrder[$0]) }
            }
        }
    }
}
