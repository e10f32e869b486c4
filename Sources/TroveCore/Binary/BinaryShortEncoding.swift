/// The encoding of a scalar of at most nine bytes: `marker` followed by the low `width` bytes
/// (0...8) of a payload, most significant first. Every number, date, UID, boolean and null
/// has one, but integers above `Int64.max`; it is put together in two words and hashed from
/// them, rather than written and read back a byte at a time.
struct BinaryShortEncoding {
    /// The encoding as it lies in memory, read as two little-endian words.
    var low: UInt64
    var high: UInt64
    var length: Int
    /// Booleans and UIDs, which CoreFoundation lists again at every occurrence.
    var listsRepeats: Bool

    @inline(__always)
    init(_ marker: UInt8, _ payload: UInt64, width: Int, listsRepeats: Bool = false) {
        let swapped = width == 0 ? 0 : payload.byteSwapped >> UInt64(64 - 8 * width)
        low = UInt64(marker) | swapped << 8
        high = width == 8 ? swapped >> 56 : 0
        length = 1 + width
        self.listsRepeats = listsRepeats
    }

    /// The short encoding of `value`, or nil for strings, data, containers and integers
    /// above `Int64.max`.
    @inline(__always)
    init?(_ value: PlistValue) {
        switch value {
        case .integer(let integer):
            let magnitude = integer.magnitude
            if integer.isNegative {
                self.init(0x13, integer.bitPattern, width: 8)
            } else if magnitude <= 0xFF {
                self.init(0x10, magnitude, width: 1)
            } else if magnitude <= 0xFFFF {
                self.init(0x11, magnitude, width: 2)
            } else if magnitude <= 0xFFFF_FFFF {
                self.init(0x12, magnitude, width: 4)
            } else if magnitude <= UInt64(Int64.max) {
                self.init(0x13, magnitude, width: 8)
            } else {
                return nil
            }
        case .real(let real):
            if real.width == .single {
                self.init(0x22, UInt64(Float(real.value).bitPattern), width: 4)
            } else {
                self.init(0x23, real.value.bitPattern, width: 8)
            }
        case .date(let date):
            self.init(0x33, date.secondsSinceReferenceDate.bitPattern, width: 8)
        case .bool(let bool):
            self.init(bool ? 0x09 : 0x08, 0, width: 0, listsRepeats: true)
        case .uid(let uid):
            // A UID's marker holds its width less one, not the power of two an integer's holds.
            let width = uid <= 0xFF ? 1 : uid <= 0xFFFF ? 2 : uid <= 0xFFFF_FFFF ? 4 : 8
            self.init(0x80 | UInt8(width - 1), uid, width: width, listsRepeats: true)
        case .null:
            self.init(0x00, 0, width: 0)
        case .string, .data, .array, .dictionary:
            return nil
        }
    }

    @inline(__always)
    func hash(seed: UInt64) -> Int {
        Int(truncatingIfNeeded: SeededByteHash.finalized(SeededByteHash.mix(SeededByteHash.mix(seed ^ low) ^ high)))
    }
}
