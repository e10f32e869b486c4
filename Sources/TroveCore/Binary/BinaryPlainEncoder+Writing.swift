/// The plain encoder's second pass: every object, its offset and the trailer written straight
/// into their places in a buffer of the file's exact size (see ``BinaryPlainEncoder/emit()``).
extension BinaryPlainEncoder {
    /// The bytes of a container's marker: the type nibble with the count inline below 15, else
    /// an extended marker.
    @inline(__always)
    static func markerSize(count: Int) -> Int {
        count < 15 ? 1 : BinaryExtendedMarker(type: 0, count: count).length
    }

    /// Writes the objects, each at the offset the table gives it, then the offset table and the
    /// trailer, into a buffer allocated once at the file's exact size.
    consuming func emit() -> ByteBuffer {
        let objectCount = objects.count
        let refSize = BinaryTrailer.powerOfTwoWidth(for: objectCount)
        let tableOffset = 8 + scalarBytes.count + (largeData?.encodedBytes ?? 0) + containerMarkerBytes + references.count * refSize
        let offsetSize = BinaryTrailer.powerOfTwoWidth(for: tableOffset)
        let size = tableOffset + objectCount * offsetSize + 32
        var out = ByteBuffer(capacity: size)
        out.append(contentsOf: BinaryTrailer.magic)
        out.append(UInt8(ascii: "0"))
        out.appendUninitialized(count: size - 8 - 32) { buffer in
            // Never nil: the area holds at least one offset.
            let area = UnsafeMutableRawPointer(buffer.baseAddress!)
            objects.withUnsafeBufferPointer { objects in
                references.withUnsafeBufferPointer { references in
                    scalarBytes.withUnsafeBufferPointer { scalars in
                        Self.writeObjects(
                            objects, references: references, scalars: scalars, largeData: largeData, refSize: refSize,
                            offsetSize: offsetSize, into: area, tableAt: tableOffset - 8)
                    }
                }
            }
        }
        out.appendBinaryTrailer(
            offsetSize: offsetSize, refSize: refSize, objectCount: objectCount, topObject: 0, tableOffset: tableOffset)
        return out
    }

    /// Writes every object and its offset into `area`, which starts at file offset 8 and holds
    /// the objects and, from `tableAt` on, the offset table.
    ///
    /// A scalar lands at its place in `scalars` moved by the container and large data bytes
    /// written before it (`containerBytes`); the scalars between two such objects are copied
    /// together when the next one (or the end) is reached. Every store is of the exact width, or
    /// spills only onto bytes written after it, so nothing written is overwritten.
    static func writeObjects(
        _ objects: UnsafeBufferPointer<Object>, references: UnsafeBufferPointer<UInt32>,
        scalars: UnsafeBufferPointer<UInt8>, largeData: borrowing BinaryLargeDataTable?, refSize: Int, offsetSize: Int,
        into area: UnsafeMutableRawPointer, tableAt tableStart: Int
    ) {
        // Offsets and counts here are bounded by the size of the output, which is allocated, so
        // the arithmetic wraps rather than checks for an overflow that cannot happen.
        var containerBytes = 0
        var scalarEnd = 0
        var copied = 0
        var entry = area + tableStart
        func copyScalars(upTo end: Int) {
            guard end > copied, let base = scalars.baseAddress else { return }
            (area + (copied &+ containerBytes)).copyMemory(from: base + copied, byteCount: end &- copied)
            copied = end
        }
        for object in objects {
            let offset: Int
            if object.kind == Object.scalar {
                offset = 8 &+ object.first &+ containerBytes
                scalarEnd = object.first &+ object.count
            } else if object.kind == Object.largeData {
                copyScalars(upTo: scalarEnd)
                offset = 8 &+ scalarEnd &+ containerBytes
                // Never nil: a large data object was listed through the table.
                containerBytes &+= largeData!.write(object.first, to: area + (offset &- 8))
            } else {
                copyScalars(upTo: scalarEnd)
                offset = 8 &+ scalarEnd &+ containerBytes
                let start = area + (offset &- 8)
                var p = start
                let isArray = object.kind == Object.array
                let entries = isArray ? object.count : object.count >> 1
                let type: UInt8 = isArray ? 0xA : 0xD
                if entries < 15 {
                    p.storeBytes(of: type << 4 | UInt8(truncatingIfNeeded: entries), as: UInt8.self)
                    p += 1
                } else {
                    // Sixteen bytes stored for at most ten: the rest lies where the container's
                    // fifteen or more references are written next.
                    let marker = BinaryExtendedMarker(type: type, count: entries)
                    marker.store(at: p)
                    p += marker.length
                }
                // Never nil: the list of references is allocated when the encoder is made.
                p = storeReferences(
                    UnsafeBufferPointer(start: references.baseAddress! + object.first, count: object.count), width: refSize, at: p)
                containerBytes &+= p - start
            }
            entry.storeBigEndian(UInt64(truncatingIfNeeded: offset), width: offsetSize)
            entry += offsetSize
        }
        copyScalars(upTo: scalars.count)
    }

    /// Stores `references` big-endian at `p`, `width` bytes each (1, 2 or 4: references are
    /// `UInt32`s), and returns where they end; a loop per width, so that the width is not
    /// decided again for every reference.
    @inline(__always)
    private static func storeReferences(
        _ references: UnsafeBufferPointer<UInt32>, width: Int, at start: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        var p = start
        switch width {
        case 1:
            for reference in references {
                p.storeBytes(of: UInt8(truncatingIfNeeded: reference), as: UInt8.self)
                p += 1
            }
        case 2:
            for reference in references {
                p.storeBytes(of: UInt16(truncatingIfNeeded: reference).bigEndian, as: UInt16.self)
                p += 2
            }
        default:
            for reference in references {
                p.storeBytes(of: reference.bigEndian, as: UInt32.self)
                p += 4
            }
        }
        return p
    }
}

extension UnsafeMutableRawPointer {
    /// Stores the low `width` bytes (1, 2, 4 or 8) of `value` here, most significant first, and
    /// nothing past them.
    @inline(__always)
    func storeBigEndian(_ value: UInt64, width: Int) {
        switch width {
        case 1: storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
        case 2: storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, as: UInt16.self)
        case 4: storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, as: UInt32.self)
        default: storeBytes(of: value.bigEndian, as: UInt64.self)
        }
    }
}
