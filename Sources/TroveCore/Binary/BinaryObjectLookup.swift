/// The two lookups every object read makes: an object's start from the offset table, and the
/// object index a container's reference names. Both are validated here.
///
/// Plain values only, so that a hot loop can hold a copy in registers: calling a method of the
/// whole scanner from its own mutating methods makes Swift copy the scanner for each call.
struct BinaryObjectLookup {
    let bytes: UnsafeRawBufferPointer
    /// Where the offset table starts, which is also the end of the object area.
    let offsetTableOffset: Int
    let offsetIntSize: Int
    let objectRefSize: Int
    let objectCount: Int

    init(bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer) {
        self.bytes = bytes
        offsetTableOffset = trailer.offsetTableOffset
        offsetIntSize = trailer.offsetIntSize
        objectRefSize = trailer.objectRefSize
        objectCount = trailer.objectCount
    }

    /// The validated start of object `index` (which the caller has checked is in range).
    @inline(__always)
    func offset(ofObject index: Int) throws(PlistError) -> Int {
        let entry = offsetTableOffset + index * offsetIntSize
        let raw = bytes.loadBigEndian(at: entry, width: offsetIntSize)
        guard raw >= UInt64(BinaryTrailer.headerLength), raw < UInt64(offsetTableOffset) else {
            throw Self.badOffset(index, raw, at: entry, areaEnd: offsetTableOffset)
        }
        return Int(raw)
    }

    /// The object index stored in the reference at `position`.
    @inline(__always)
    func reference(at position: Int) throws(PlistError) -> Int {
        let raw = bytes.loadBigEndian(at: position, width: objectRefSize)
        guard raw < UInt64(objectCount) else { throw Self.badReference(raw, at: position, objectCount: objectCount) }
        return Int(raw)
    }

    @inline(never)
    private static func badOffset(_ index: Int, _ raw: UInt64, at entry: Int, areaEnd: Int) -> PlistError {
        BinaryTrailer.error(.badOffset, at: entry, "object \(index) starts at \(raw), outside the object area 8..<\(areaEnd)")
    }

    @inline(never)
    private static func badReference(_ raw: UInt64, at position: Int, objectCount: Int) -> PlistError {
        BinaryTrailer.error(.badReference, at: position, "reference \(raw) is not below the object count \(objectCount)")
    }
}
