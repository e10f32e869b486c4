import Foundation

/// Which unreferenced objects of a binary file are byte-for-byte copies of referenced ones, so
/// that a lossless rewrite can write each orphan again as the copy it was.
///
/// Writers that do not unique every object leave such copies: an NSKeyedArchiver file from Xcode
/// holds thousands of orphaned UID objects, each equal to a referenced one. Each orphan is paired
/// with the first (lowest-numbered) reachable object of identical bytes.
///
/// Two passes over the object numbers: the first numbers the orphans' distinct contents in an
/// ``OrphanContents`` table; the second walks the reachable objects in ascending order, measures
/// and looks up only those whose marker byte some orphan shares (read from the encoding notes,
/// not the file), and stops once every content has found its original. The table caps its
/// probes: input that makes them collide is paired again through the standard library's
/// `Dictionary` instead.
enum BinaryOrphanCopies {
    /// The copies, and how many orphans have no reachable twin (or could not be measured).
    static func find(_ scanner: borrowing BinaryObjectScanner) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int) {
        let count = scanner.trailer.objectCount
        // Most files have no orphans: the scanner counted the objects it reached.
        guard scanner.reachedCount < count else { return ([], 0) }
        let objects = FileObjects(
            contents: ObjectContents(
                bytes: scanner.bytes, lookup: scanner.lookup,
                end: scanner.trailer.offsetTableOffset, refSize: scanner.trailer.objectRefSize),
            states: scanner.objectStates, encodings: scanner.encodingNotes, objectCount: count)
        let orphans = count - scanner.reachedCount
        if let paired = pair(objects, orphanCount: orphans, probeLimit: probeLimit, hashed: true) { return paired }
        // The dictionary never gives up.
        return pair(objects, orphanCount: orphans, probeLimit: probeLimit, hashed: false)!
    }

    /// Probes a lookup or insertion may make before the hashed table gives up on its hash.
    static let probeLimit = 64

    /// Pairs each orphan of `source` (of which there are `orphanCount`) with the first reachable
    /// object of equal bytes: the copies in ascending order of orphan, and how many orphans
    /// copy nothing or could not be measured. `hashed` picks the open-addressing table, which
    /// returns nil once a probe sequence runs past `probeLimit`, over the `Dictionary`.
    // Inlined into `find`, whose concrete source then needs no witness-table call per object.
    @inline(__always)
    static func pair(
        _ source: some OrphanSource, orphanCount: Int, probeLimit: Int, hashed: Bool
    ) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int)? {
        var contents = OrphanContents(probeLimit: probeLimit, hashed: hashed)
        var unmatched = 0
        var wanted = MarkerSet()
        let objectCount = source.objectCount
        // Each orphan as its index in the high half and its content's number in the low half.
        let orphans = UnsafeMutablePointer<UInt64>.allocate(capacity: Swift.max(orphanCount, 1))
        defer { orphans.deallocate() }
        var orphanTotal = 0
        var oneByteNumbers = SIMD16<Int>(repeating: -1)
        for index in 0..<objectCount where source.isOrphan(index) {
            guard let content = source.content(of: index) else {
                unmatched += 1
                continue
            }
            // Booleans and null, most orphans, are numbered by their one byte without hashing.
            let oneByte = content.count == 1 && content[0] < 0x10
            var number = oneByte ? oneByteNumbers[Int(content[0])] : -1
            if number < 0 {
                guard let hashed = contents.number(of: content) else { return nil }
                number = hashed
                if oneByte { oneByteNumbers[Int(content[0])] = number }
            }
            precondition(orphanTotal < orphanCount, "more orphans than counted")
            wanted.insert(content[0])
            orphans[orphanTotal] = UInt64(truncatingIfNeeded: index) << 32 | UInt64(truncatingIfNeeded: number)
            orphanTotal += 1
        }
        var index = 0
        while contents.unfound > 0 && index < objectCount {
            if !source.isOrphan(index) && wanted.contains(source.marker(ofReachable: index)),
                let content = source.content(of: index) {
                guard contents.offer(content, as: index) else { return nil }
            }
            index += 1
        }
        var copies: [BinaryLayout.OrphanCopy] = []
        copies.reserveCapacity(orphanTotal)
        for orphan in UnsafeBufferPointer(start: orphans, count: orphanTotal) {
            let original = contents.original(ofNumber: Int(truncatingIfNeeded: orphan & 0xFFFF_FFFF))
            if original >= 0 {
                copies.append(BinaryLayout.OrphanCopy(
                    object: UInt32(truncatingIfNeeded: orphan >> 32), original: UInt32(truncatingIfNeeded: original)))
            } else {
                unmatched += 1
            }
        }
        return (copies, unmatched)
    }

    /// The objects of a file as the pairing sees them: the scanner's states say which are
    /// orphans, its encoding notes give a reachable object's marker without an offset lookup.
    struct FileObjects: OrphanSource {
        let contents: ObjectContents
        /// The scanner's object states and encoding notes, which it keeps alive while the pass runs.
        let states: UnsafePointer<BinaryObjectSlots.State>
        let encodings: UnsafePointer<BinaryLayout.EncodingNote>
        let objectCount: Int

        @inline(__always)
        func isOrphan(_ index: Int) -> Bool { states[index] == .unseen }

        @inline(__always)
        func marker(ofReachable index: Int) -> UInt8 { encodings[index].marker }

        @inline(__always)
        func content(of index: Int) -> UnsafeRawBufferPointer? { contents.content(of: index) }
    }

    /// The bytes of each object of a file.
    struct ObjectContents {
        let bytes: UnsafeRawBufferPointer
        let lookup: BinaryObjectLookup
        let end: Int
        let refSize: Int

        /// Object `index`'s bytes, or nil when its offset or length is malformed.
        @inline(__always)
        func content(of index: Int) -> UnsafeRawBufferPointer? {
            guard let start = try? lookup.offset(ofObject: index) else { return nil }
            let marker = bytes[start]
            let length: Int
            // Booleans and UIDs, nearly every orphan, measured here rather than in the general call.
            switch marker >> 4 {
            case 0x0: length = 1
            case 0x8: length = 2 + Int(marker & 0x0F)
            default:
                guard let measured = BinaryPlistReader.objectLength(bytes, at: start, end: end, refSize: refSize) else { return nil }
                length = measured
            }
            guard length <= end - start else { return nil }
            return UnsafeRawBufferPointer(start: bytes.baseAddress! + start, count: length)
        }
    }

    /// A set of marker bytes, as four words of bits.
    struct MarkerSet {
        private var low: UInt64 = 0, lowMiddle: UInt64 = 0, highMiddle: UInt64 = 0, high: UInt64 = 0

        @inline(__always)
        mutating func insert(_ marker: UInt8) {
            let bit: UInt64 = 1 << UInt64(marker & 63)
            switch marker >> 6 {
            case 0: low |= bit
            case 1: lowMiddle |= bit
            case 2: highMiddle |= bit
            default: high |= bit
            }
        }

        @inline(__always)
        func contains(_ marker: UInt8) -> Bool {
            let word = switch marker >> 6 {
            case 0: low
            case 1: lowMiddle
            case 2: highMiddle
            default: high
            }
            return word & 1 << UInt64(marker & 63) != 0
        }
    }
}

/// The objects whose orphans ``BinaryOrphanCopies`` pairs, by object number.
protocol OrphanSource {
    var objectCount: Int { get }
    /// Whether no reference reaches object `index`.
    func isOrphan(_ index: Int) -> Bool
    /// The first byte of reachable object `index`.
    func marker(ofReachable index: Int) -> UInt8
    /// Object `index`'s bytes (at least one), or nil when they cannot be measured.
    func content(of index: Int) -> UnsafeRawBufferPointer?
}
