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
        var contents = OrphanContents(probeLimit: probeLimit, hashed: hashed, objectCount: source.objectCount)
        var unmatched = 0
        let objectCount = source.objectCount
        // One allocation for three tables: each orphan as its index in the high half and its
        // content's number in the low half; the numbers of the one-byte contents (booleans and
        // null) by their byte, -1 before the first (in memory rather than a SIMD value, which is
        // spilled at every variable index); and the marker set's 256 flags.
        let orphanCapacity = Swift.max(orphanCount, 1)
        let orphans = UnsafeMutablePointer<UInt64>.allocate(capacity: orphanCapacity + 16 + MarkerSet.words)
        defer { orphans.deallocate() }
        var orphanTotal = 0
        let oneByteNumbers = UnsafeMutableRawPointer(orphans + orphanCapacity).bindMemory(to: Int.self, capacity: 16)
        oneByteNumbers.initialize(repeating: -1, count: 16)
        let wanted = MarkerSet(storage: orphans + orphanCapacity + 16)
        // A file's short objects are measured in place: through the protocol, each would be a
        // call to a witness too large to inline.
        let fileContents = source.fileContents
        @inline(__always) func shortKey(of index: Int) -> UInt64? {
            if let fileContents { return fileContents.shortKey(of: index) }
            return source.shortKey(of: index)
        }
        for index in 0..<objectCount where source.isOrphan(index) {
            var number: Int
            let marker: UInt8
            if hashed, let key = shortKey(of: index) {
                // Booleans, null and UIDs, nearly every orphan, by a key of one word.
                marker = UInt8(truncatingIfNeeded: key)
                // Booleans and null are numbered by their one byte without hashing.
                let oneByte = key >> 56 == 1 && marker < 0x10
                number = oneByte ? oneByteNumbers[Int(marker)] : -1
                if number < 0 {
                    guard let found = contents.number(ofShortKey: key) else { return nil }
                    number = found
                    if oneByte { oneByteNumbers[Int(marker)] = number }
                }
            } else {
                guard let content = source.content(of: index) else {
                    unmatched += 1
                    continue
                }
                marker = content[0]
                guard let found = contents.number(of: content) else { return nil }
                number = found
            }
            precondition(orphanTotal < orphanCount, "more orphans than counted")
            wanted.insert(marker)
            orphans[orphanTotal] = UInt64(truncatingIfNeeded: index) << 32 | UInt64(truncatingIfNeeded: number)
            orphanTotal += 1
        }
        var index = 0
        while contents.unfound > 0 && index < objectCount {
            if !source.isOrphan(index) && wanted.contains(source.marker(ofReachable: index)) {
                if hashed, let key = shortKey(of: index) {
                    guard contents.offer(shortKey: key, as: index) else { return nil }
                } else if let content = source.content(of: index) {
                    guard contents.offer(content, as: index) else { return nil }
                }
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

        @inline(__always)
        func shortKey(of index: Int) -> UInt64? { contents.shortKey(of: index) }

        var fileContents: ObjectContents? { contents }
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

        /// ``OrphanSource/shortKey(of:)`` read straight from the file for the objects that
        /// have one of their kind's lengths alone (null, booleans, UIDs of up to six bytes),
        /// nil for any other (the caller then takes ``content(of:)``).
        @inline(__always)
        func shortKey(of index: Int) -> UInt64? {
            guard let start = try? lookup.offset(ofObject: index) else { return nil }
            let marker = bytes[start]
            let length: Int
            switch marker >> 4 {
            case 0x0: length = 1
            case 0x8 where marker & 0x0F <= 5: length = 2 + Int(marker & 0x0F)
            default: return nil
            }
            guard length <= end - start else { return nil }
            // Eight bytes can be loaded: an object starts before the offset table, which the
            // 32-byte trailer follows.
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            return word & (1 << UInt64(8 * length) - 1) | UInt64(length) << 56
        }
    }

    /// A set of marker bytes, as a flag for each: the pass asks for every reachable object, whose
    /// markers vary from one to the next, and one byte load answers, with no branch on the
    /// marker to mispredict and no wide value to spill and reload.
    struct MarkerSet {
        /// The words of storage the flags take.
        static let words = 256 / MemoryLayout<UInt64>.size

        private let flags: UnsafeMutablePointer<Bool>

        /// An empty set kept in `storage`, ``words`` words that outlive it.
        init(storage: UnsafeMutablePointer<UInt64>) {
            flags = UnsafeMutableRawPointer(storage).bindMemory(to: Bool.self, capacity: 256)
            flags.initialize(repeating: false, count: 256)
        }

        @inline(__always)
        func insert(_ marker: UInt8) { flags[Int(marker)] = true }

        @inline(__always)
        func contains(_ marker: UInt8) -> Bool { flags[Int(marker)] }
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
    /// For an object of fewer than eight bytes, its bytes as a little-endian word with the count
    /// in the top byte (``OrphanContents``' key for such a content); nil when a source cannot
    /// tell it more cheaply than ``content(of:)`` (which the caller then asks).
    func shortKey(of index: Int) -> UInt64?
    /// The file the objects lie in, when there is one: the pairing then reads short objects
    /// straight from it rather than through ``shortKey(of:)``.
    var fileContents: BinaryOrphanCopies.ObjectContents? { get }
}

extension OrphanSource {
    var fileContents: BinaryOrphanCopies.ObjectContents? { nil }

    /// The key of ``content(of:)``, for sources with no quicker way to it.
    func shortKey(of index: Int) -> UInt64? {
        guard let content = content(of: index), content.count < 8 else { return nil }
        return OrphanContents.shortKey(of: content)
    }
}
