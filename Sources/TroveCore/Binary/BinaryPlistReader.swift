/// Reads binary property lists (`bplist0?`) with CoreFoundation's validation rules.
///
/// Malformed input fails with a ``PlistError`` carrying the byte offset of the problem; no input
/// can crash the reader, exhaust its stack (nesting is followed with an explicit stack and cut off
/// at `limits.maxDepth`), or make it allocate more than the file's size suggests.
///
/// Apple's rules are followed, with one version-dependent choice: UTF-8 string objects (`0x7n`,
/// a `bplist1x` feature) are refused in files headed `bplist00`, as CoreFoundation refuses them,
/// and read in files with any other `bplist0?` version character.
public struct BinaryPlistReader: Sendable {
    /// Bounds on nesting depth and value count.
    public var limits: PlistLimits

    /// Whether a large file may be decoded on two threads: the calling thread and one worker
    /// share the children of the file's largest container, and the worker has finished before
    /// ``read(_:keepingLayout:)`` returns or throws. Used for files of 64 KB and 4,096 objects
    /// or more on a machine with two or more active processors, with or without layout notes.
    ///
    /// The value, the layout notes, and the error for malformed input are the same as on one
    /// thread. A limit is checked over the whole document when the halves join, so a file over a
    /// limit may cost up to twice the work before the read fails (each half runs on, and a
    /// failure is confirmed by decoding again on one thread). On by default; off keeps every read
    /// on the calling thread.
    public var decodesInParallel = true

    /// The smallest file decoded on two threads; tests and the fuzz checks lower it to split
    /// small documents, and then skip the processor-count check.
    @_spi(Testing) public var parallelMinimumSize: Int?

    /// A reader with the given limits.
    public init(limits: PlistLimits = .default) { self.limits = limits }

    /// Decodes `bytes`, and when `keepingLayout` is true also returns the notes that let
    /// ``BinaryPlistWriter`` write the value back byte for byte.
    public func read(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool = true) throws(PlistError) -> (value: PlistValue, layout: BinaryLayout?) {
        let trailer = try BinaryTrailer(bytes)
        // Layout notes index objects with 32 bits; a file with more objects is read without them.
        let keeps = keepingLayout && trailer.objectCount <= Int(UInt32.max)
        if splits(bytes.count, objects: trailer.objectCount) {
            var outcome = BinaryConcurrentDecode.Outcome()
            return try Self.decodeSplitting(bytes, trailer: trailer, limits: limits, keepingLayout: keeps, outcome: &outcome)
        }
        var scanner = BinaryObjectScanner(bytes: bytes, trailer: trailer, limits: limits, keepsLayout: keeps)
        let value = try scanner.decodeTop()
        return (value, keeps ? Self.layout(of: &scanner, trailer: trailer) : nil)
    }

    /// ``read(_:keepingLayout:)`` for a file large enough to split over two threads.
    static func decodeSplitting(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, keepingLayout: Bool,
        outcome: inout BinaryConcurrentDecode.Outcome
    ) throws(PlistError) -> (value: PlistValue, layout: BinaryLayout?) {
        try BinaryConcurrentDecode.decode(
            bytes, trailer: trailer, limits: limits, keepsLayout: keepingLayout, outcome: &outcome
        ) { scanner, value in
            (value, keepingLayout ? layout(of: &scanner, trailer: trailer) : nil)
        }
    }

    /// The layout notes of a read that kept them, once `scanner` has decoded the top object.
    private static func layout(of scanner: inout BinaryObjectScanner, trailer: BinaryTrailer) -> BinaryLayout {
        let orphans = BinaryOrphanCopies.find(scanner)
        let notes = scanner.layoutNotes()
        return BinaryLayout(
            versionByte: trailer.versionByte,
            unusedTrailerBytes: trailer.unusedBytes,
            sortVersion: trailer.sortVersion,
            offsetIntSize: trailer.offsetIntSize,
            objectRefSize: trailer.objectRefSize,
            encodings: notes.encodings,
            walkObjects: notes.walkObjects,
            walkExtents: notes.walkExtents,
            keptOrphans: orphans.kept,
            copies: orphans.copies,
            int128HighWords: scanner.int128HighWords,
            repeatedKeys: scanner.repeatedKeys,
            keyTexts: notes.keyTexts,
            unmatchedOrphanCount: orphans.unmatched)
    }

    /// Whether a read of a file of `size` bytes and `objects` objects may split its decode (see
    /// ``decodesInParallel``).
    func splits(_ size: Int, objects: Int) -> Bool {
        guard decodesInParallel else { return false }
        if let parallelMinimumSize { return size >= parallelMinimumSize }
        return size >= BinaryConcurrentDecode.defaultMinimumSize && objects >= BinaryConcurrentDecode.minimumObjects
            && BinaryConcurrentDecode.hasTwoProcessors
    }

    /// The byte length of the object at `start`, or nil when it is malformed or runs past `end`.
    static func objectLength(_ bytes: UnsafeRawBufferPointer, at start: Int, end: Int, refSize: Int) -> Int? {
        let marker = bytes[start]
        let nibble = Int(marker & 0x0F)
        var length: Int
        switch marker >> 4 {
        case 0x0: length = 1
        case 0x1: length = nibble <= 4 ? 1 + (1 << nibble) : 0
        case 0x2: length = nibble == 2 ? 5 : nibble == 3 ? 9 : 0
        case 0x3: length = marker == 0x33 ? 9 : 0
        case 0x8: length = 2 + nibble
        case 0x4, 0x5, 0x6, 0x7, 0xA, 0xC, 0xD:
            var count = nibble
            var header = 1
            if nibble == 0x0F {
                guard end - start >= 2 else { return nil }
                let power = Int(bytes[start + 1] & 0x0F)
                guard bytes[start + 1] >> 4 == 0x1, power <= 3 else { return nil }
                let width = 1 << power
                guard end - start >= 2 + width else { return nil }
                let raw = bytes.loadBigEndian(at: start + 2, width: width)
                guard raw <= UInt64(end) else { return nil }
                count = Int(raw)
                header = 2 + width
            }
            let unit: Int
            switch marker >> 4 {
            case 0x6: unit = 2
            case 0xA, 0xC: unit = refSize
            case 0xD: unit = 2 * refSize
            default: unit = 1
            }
            let (payload, overflow) = count.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            length = header + payload
        default: length = 0
        }
        guard length > 0, length <= end - start else { return nil }
        return length
    }
}
