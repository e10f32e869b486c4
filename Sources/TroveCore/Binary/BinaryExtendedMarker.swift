import Foundation

/// The marker of an object whose count is 15 or more, as CoreFoundation writes it: the type
/// nibble with 0xF, then the smallest integer object holding the count, as the two little-endian
/// words of memory its 3 to 10 bytes occupy.
struct BinaryExtendedMarker {
    var low: UInt64
    var high: UInt64
    var length: Int

    @inline(__always)
    init(type: UInt8, count: Int) {
        let width = count <= 0xFF ? 1 : count <= 0xFFFF ? 2 : count <= 0xFFFF_FFFF ? 4 : 8
        // The count's bytes from the most significant one, after the two marker bytes.
        let bytes = UInt64(count).byteSwapped >> UInt64(64 - 8 * width)
        low = UInt64(type << 4 | 0x0F) | UInt64(0x10 | width.trailingZeroBitCount) << 8 | bytes << 16
        high = width == 8 ? bytes >> 48 : 0
        length = 2 + width
    }

    /// Stores the marker at `p` as sixteen bytes, of which only the first `length` are the
    /// marker: the rest spill onto the bytes the caller writes next (a container's references, a
    /// data object's payload), which must be at least 16 − `length` bytes long.
    @inline(__always)
    func store(at p: UnsafeMutableRawPointer) {
        p.storeBytes(of: low.littleEndian, as: UInt64.self)
        p.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// The marker of a container of `count` entries (type `type`) as the lossless writer spells
    /// it: the count spelled as `note` spelled it while it still fits, else inline below 15 (one
    /// byte) and as CoreFoundation writes it from 15 on.
    @inline(__always)
    init(type: UInt8, count: Int, note: BinaryLayout.EncodingNote?) {
        if let note, note.type == type, let marker = note.extendedCountMarker {
            let power = Int(marker & 0x0F)
            if power >= 3 || count < 1 << (8 << power) {
                // Power 3 at most (the reader refuses more): the count's bytes after the two
                // marker bytes, most significant first.
                let width = 1 << Swift.min(power, 3)
                let bytes = UInt64(count).byteSwapped >> UInt64(64 - 8 * width)
                self.init(
                    low: UInt64(type << 4 | 0x0F) | UInt64(marker) << 8 | bytes << 16, high: width == 8 ? bytes >> 48 : 0,
                    length: 2 + width)
                return
            }
        }
        if count < 15 {
            self.init(low: UInt64(type << 4 | UInt8(count)), high: 0, length: 1)
        } else {
            self.init(type: type, count: count)
        }
    }

    @inline(__always)
    private init(low: UInt64, high: UInt64, length: Int) {
        self.low = low
        self.high = high
        self.length = length
    }
}
