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
    public func write(_ value: PlistValue, layout: consuming BinaryLayout? = nil) throws(PlistError) -> [UInt8] {
        try encode(value, layout: layout).array
    }

    /// The same document as `Data` that owns the encoder's buffer, so that `Plist.write` does
    /// not copy the whole file twice on its way out.
    ///
    /// The notes are consumed down to the planner, which keeps them: a copy would retain each
    /// of their arrays.
    func writeData(_ value: PlistValue, layout: consuming BinaryLayout? = nil) throws(PlistError) -> Data {
        try encode(value, layout: layout).data()
    }

    private func encode(_ value: PlistValue, layout: consuming BinaryLayout?) throws(PlistError) -> ByteBuffer {
        switch consume layout {
        case nil: return try BinaryPlainEncoder(limits: limits, for: value).encode(value)
        case let notes?: return try encodeThroughPlanner(value, layout: notes)
        }
    }

    /// The planner's path, which follows notes; without them it writes what ``BinaryPlainEncoder``
    /// writes (tests compare the two).
    func encodeThroughPlanner(_ value: PlistValue, layout: consuming BinaryLayout?) throws(PlistError) -> ByteBuffer {
        var planner = BinaryObjectPlanner(layout: layout, maxDepth: limits.maxDepth)
        planner.meter = LimitMeter(limits: limits)
        let top = try planner.planDocument(value)
        return planner.emit(top: top)
    }
}

/// The second pass of a write that follows notes: the planned objects in output order, their
/// bytes (a scalar's as the planner encoded them), the offset table and the trailer, written into
/// a buffer of the file's exact size.
///
/// References name output orders (``BinaryObjectPlanner/Object``). When every noted object was
/// claimed again, as in an unchanged rewrite, an order is the object's index and references are
/// written as they are; otherwise the orders are ranked first, closing the gaps the dropped
/// objects left. A run of scalars that lie one after another in the planner's buffer, as the
/// objects of a file written in flatten order do, is copied in one piece.
extension BinaryObjectPlanner {
    consuming func emit(top: Int) -> ByteBuffer {
        let orders = objects.count
        let objectCount = filledNotedCount + (orders - notedObjectCount)
        // Output index of each order; empty when every order holds an object (an order is then
        // its own index).
        var indexOfOrder: [UInt32] = []
        if objectCount < orders {
            indexOfOrder = Array(repeating: 0, count: orders)
            var next: UInt32 = 0
            for order in 0..<orders where objects.isClaimed(order) {
                indexOfOrder[order] = next
                next += 1
            }
        }
        let refSize: Int
        if let layout, BinaryTrailer.width(layout.objectRefSize, canAddress: objectCount) {
            refSize = layout.objectRefSize
        } else {
            refSize = BinaryTrailer.powerOfTwoWidth(for: objectCount)
        }
        let tableOffset = 8 + scalarBytes + containerMarkerBytes + (children.count + copiedReferences) * refSize
        let offsetSize: Int
        if let layout, BinaryTrailer.width(layout.offsetIntSize, canAddress: tableOffset) {
            offsetSize = layout.offsetIntSize
        } else {
            offsetSize = BinaryTrailer.powerOfTwoWidth(for: tableOffset)
        }
        let size = tableOffset + objectCount * offsetSize + 32
        var out = ByteBuffer(capacity: size)
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(layout?.versionByte ?? UInt8(ascii: "0"))
        out.appendUninitialized(count: size - 8 - 32) { area in
            // Never nil: the area holds at least one offset.
            let area = UnsafeMutableRawPointer(area.baseAddress!)
            encoded.withUnsafeBufferPointer { scalars in
                children.withUnsafeBufferPointer { children in
                    indexOfOrder.withUnsafeBufferPointer { indexOfOrder in
                        objects.withUnsafeBuffers { objects, states in
                            writeObjects(
                                objects, states: states, into: area, tableAt: tableOffset - 8, offsetSize: offsetSize, refSize: refSize,
                                scalars: scalars, children: children, indexOfOrder: indexOfOrder)
                        }
                    }
                }
            }
        }
        out.appendBinaryTrailer(
            offsetSize: offsetSize, refSize: refSize, objectCount: objectCount,
            topObject: indexOfOrder.isEmpty ? top : Int(indexOfOrder[top]), tableOffset: tableOffset,
            unusedTrailerBytes: layout?.unusedTrailerBytes ?? 0, sortVersion: layout?.sortVersion ?? 0)
        return out
    }

    /// Writes every object in output order into `area` (file offset 8 on), each offset into the
    /// table at `tableStart`. Every store is of the exact width, so nothing written is
    /// overwritten. The loop is made once per offset width the notes may keep, so that storing an
    /// offset (one per object) is a single store rather than a choice of width.
    private func writeObjects(
        _ objects: UnsafeBufferPointer<Object>, states: UnsafeBufferPointer<UInt8>, into area: UnsafeMutableRawPointer, tableAt tableStart: Int, offsetSize: Int, refSize: Int,
        scalars: UnsafeBufferPointer<UInt8>, children: UnsafeBufferPointer<UInt32>, indexOfOrder: UnsafeBufferPointer<UInt32>
    ) {
        switch offsetSize {
        case 1:
            writeObjects(
                objects, states: states, into: area, tableAt: tableStart, offsetWidth: 1, refSize: refSize, scalars: scalars,
                children: children, indexOfOrder: indexOfOrder)
        case 2:
            writeObjects(
                objects, states: states, into: area, tableAt: tableStart, offsetWidth: 2, refSize: refSize, scalars: scalars,
                children: children, indexOfOrder: indexOfOrder)
        case 3:
            writeObjects(
                objects, states: states, into: area, tableAt: tableStart, offsetWidth: 3, refSize: refSize, scalars: scalars,
                children: children, indexOfOrder: indexOfOrder)
        case 4:
            writeObjects(
                objects, states: states, into: area, tableAt: tableStart, offsetWidth: 4, refSize: refSize, scalars: scalars,
                children: children, indexOfOrder: indexOfOrder)
        default:
            writeObjects(
                objects, states: states, into: area, tableAt: tableStart, offsetWidth: offsetSize, refSize: refSize,
                scalars: scalars, children: children, indexOfOrder: indexOfOrder)
        }
    }

    /// The loop of ``writeObjects(_:states:into:tableAt:offsetSize:refSize:scalars:children:indexOfOrder:)``
    /// for offsets of `offsetWidth` bytes, a constant once inlined.
    @inline(__always)
    private func writeObjects(
        _ objects: UnsafeBufferPointer<Object>, states: UnsafeBufferPointer<UInt8>, into area: UnsafeMutableRawPointer,
        tableAt tableStart: Int, offsetWidth: Int, refSize: Int, scalars: UnsafeBufferPointer<UInt8>,
        children: UnsafeBufferPointer<UInt32>, indexOfOrder: UnsafeBufferPointer<UInt32>
    ) {
        // Never nil: the planner's buffer is allocated up front.
        let scalarBase = UnsafeRawPointer(scalars.baseAddress!)
        let notedCount = states.count
        var p = area
        var entry = area + tableStart
        // Scalar bytes `scalars[runStart ..< runEnd]` not yet copied, which go to `p` next.
        var runStart = 0
        var runEnd = 0
        for order in 0..<objects.count {
            if order < notedCount && states[order] == 0 { continue }
            var object = objects[order]
            entry.storeBigEndian(anyWidth: UInt64(truncatingIfNeeded: 8 &+ (p - area) &+ (runEnd &- runStart)), offsetWidth)
            entry += offsetWidth
            var noted = order
            if object.kind == Object.copy {
                noted = object.extra
                object = objects[noted]
            }
            let kind = object.kind
            if kind == Object.scalar || kind == Object.spelledScalar {
                if object.first != runEnd {
                    p = Self.copyRun(from: scalarBase, runStart, runEnd, to: p)
                    runStart = object.first
                }
                runEnd = object.first &+ object.count
                continue
            }
            p = Self.copyRun(from: scalarBase, runStart, runEnd, to: p)
            runStart = runEnd
            if kind == Object.largeData {
                p.copyMemory(from: scalarBase + object.first, byteCount: object.count)
                p += object.count
                largePayloads[object.extra].withUnsafeBytes { payload in
                    if let base = payload.baseAddress { p.copyMemory(from: base, byteCount: payload.count) }
                    p += payload.count
                }
                continue
            }
            let marker = object.shortMarker
            if marker != 0 {
                p.storeBytes(of: marker, as: UInt8.self)
                p += 1
            } else {
                let note: BinaryLayout.EncodingNote? = noted < notedObjectCount ? encodings[noted] : nil
                let type: UInt8 = kind == Object.array ? 0xA : kind == Object.set ? 0xC : 0xD
                let entries = kind == Object.dictionary ? object.count / 2 : object.count
                p = Self.storeMarker(type: type, count: entries, note: note, at: p)
            }
            // Never nil: the children are allocated up front.
            let references = UnsafeBufferPointer(start: children.baseAddress! + object.first, count: object.count)
            p = Self.storeReferences(references, width: refSize, indexOfOrder: indexOfOrder, at: p)
        }
        _ = Self.copyRun(from: scalarBase, runStart, runEnd, to: p)
    }

    /// Copies the scalar bytes `scalars[start ..< end]` to `p`; returns where they end.
    @inline(__always)
    private static func copyRun(from scalars: UnsafeRawPointer, _ start: Int, _ end: Int, to p: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        guard end > start else { return p }
        p.copyMemory(from: scalars + start, byteCount: end &- start)
        return p + (end &- start)
    }

    /// Stores `references` at `p`, each as its output index in `width` bytes; returns where they
    /// end.
    @inline(__always)
    private static func storeReferences(
        _ references: UnsafeBufferPointer<UInt32>, width: Int, indexOfOrder: UnsafeBufferPointer<UInt32>,
        at start: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        var p = start
        if !indexOfOrder.isEmpty {
            for reference in references {
                p.storeBigEndian(anyWidth: UInt64(indexOfOrder[Int(reference)]), width)
                p += width
            }
        } else if width == 1 {
            for reference in references {
                p.storeBytes(of: UInt8(truncatingIfNeeded: reference), as: UInt8.self)
                p += 1
            }
        } else if width == 2 {
            for reference in references {
                p.storeBytes(of: UInt16(truncatingIfNeeded: reference).bigEndian, as: UInt16.self)
                p += 2
            }
        } else {
            for reference in references {
                p.storeBigEndian(anyWidth: UInt64(reference), width)
                p += width
            }
        }
        return p
    }

    /// Stores a container's marker at `p` as ``markerLength(type:count:note:)`` counts it, and
    /// nothing past it; returns where it ends.
    @inline(never)
    private static func storeMarker(
        type: UInt8, count: Int, note: BinaryLayout.EncodingNote?, at p: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        let marker = BinaryExtendedMarker(type: type, count: count, note: note)
        withUnsafeBytes(of: (marker.low.littleEndian, marker.high.littleEndian)) { bytes in
            // Never nil: a tuple has storage.
            p.copyMemory(from: bytes.baseAddress!, byteCount: marker.length)
        }
        return p + marker.length
    }
}

extension UnsafeMutableRawPointer {
    /// Stores the low `width` bytes (1...8) of `value` here, most significant first, and nothing
    /// past them: the widths a file's notes may keep (three-byte offsets among them), not only
    /// the powers of two CoreFoundation writes.
    @inline(__always)
    func storeBigEndian(anyWidth value: UInt64, _ width: Int) {
        switch width {
        case 1, 2, 4, 8:
            storeBigEndian(value, width: width)
        case 3:
            storeBytes(of: UInt16(truncatingIfNeeded: value >> 8).bigEndian, as: UInt16.self)
            storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: 2, as: UInt8.self)
        default:
            for i in 0..<width {
                storeBytes(of: UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - i))), toByteOffset: i, as: UInt8.self)
            }
        }
    }
}
