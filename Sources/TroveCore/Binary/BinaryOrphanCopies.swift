import Foundation

/// Which unreferenced objects of a binary file are byte-for-byte copies of referenced ones, so
/// that a lossless rewrite can write each orphan again as the copy it was.
///
/// Writers that do not unique every object leave such copies: an NSKeyedArchiver file from Xcode
/// holds thousands of orphaned UID objects, each equal to a referenced one. Each orphan is paired
/// with the first (lowest-numbered) reachable object of identical bytes.
///
/// Two passes over the object numbers: the first gives each orphan's content a place, in the
/// ``OrphanTwins`` slots when it is a boolean, null or an archive's UID, else as a number of an
/// ``OrphanContents`` table; the second walks the reachable objects in ascending order, measures
/// and looks up only those whose marker byte some orphan shares (read from the encoding notes,
/// not the file), and stops once every content has found its original. The contents table caps
/// its probes: input that makes them collide is paired again through the standard library's
/// `Dictionary` instead.
///
/// A lossless read's scanner has noted the first reachable boolean, null and UID as it decoded
/// them (``BinaryReachableTwins``). A file whose orphans are all of those, as every file of the
/// corpus is, is paired from the notes in one pass over its orphans, and only other files take
/// the two passes.
enum BinaryOrphanCopies {
    /// The copies, and how many orphans have no reachable twin (or could not be measured).
    static func find(_ scanner: borrowing BinaryObjectScanner) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int) {
        let count = scanner.trailer.objectCount
        // Most files have no orphans: the scanner counted the objects it reached.
        guard scanner.reachedCount < count else { return ([], 0) }
        let objects = FileObjects(
            contents: ObjectContents(bytes: scanner.bytes, trailer: scanner.trailer),
            states: scanner.objectStates, encodings: scanner.encodingNotes, objectCount: count,
            reachableTwins: scanner.reachableTwins.view)
        let orphans = count - scanner.reachedCount
        if let notes = objects.reachableTwins, let paired = pairNoted(objects, notes: notes, orphanCount: orphans) { return paired }
        if let paired = pair(objects, orphanCount: orphans, probeLimit: probeLimit, hashed: true) { return paired }
        // The dictionary never gives up.
        return pair(objects, orphanCount: orphans, probeLimit: probeLimit, hashed: false)!
    }

    /// Probes a lookup or insertion may make before the hashed table gives up on its hash.
    static let probeLimit = 64

    /// How many objects the pass lists at a time. The walk over the reachable objects stops
    /// at the end of the stretch where the last content found its original. A stretch's list
    /// of 32-bit numbers fits the 1 KB that `withUnsafeTemporaryAllocation` always takes from
    /// the stack; above that, this toolchain's Linux runtime allocates it on the heap.
    static let stretch = 256

    /// Pairs each orphan of `source` (of which there are `orphanCount`) with the first reachable
    /// object of equal bytes: the copies in ascending order of orphan, and how many orphans
    /// copy nothing or could not be measured. Booleans, null and UIDs take ``OrphanTwins``'
    /// slots; for the other contents `hashed` picks the open-addressing table, which returns nil
    /// once a probe sequence runs past `probeLimit`, over the `Dictionary`.
    // Inlined into `find`, whose concrete source then needs no witness-table call per object.
    @inline(__always)
    static func pair(
        _ source: some OrphanSource, orphanCount: Int, probeLimit: Int, hashed: Bool
    ) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int)? {
        var twins = OrphanTwins(objectCount: source.objectCount)
        var contents = OrphanContents(probeLimit: probeLimit, hashed: hashed)
        var unmatched = 0
        let objectCount = source.objectCount
        // One allocation for three tables: each orphan as its index in the high half and, in
        // the low half, its slot of `twins` or its content's number; the marker set's 256
        // flags; and the objects of one stretch that the pass looks at.
        let orphanCapacity = Swift.max(orphanCount, 1)
        let orphans = UnsafeMutablePointer<UInt64>.allocate(capacity: orphanCapacity + MarkerSet.words + Self.stretch / 2 + 1)
        defer { orphans.deallocate() }
        var orphanTotal = 0
        let wanted = MarkerSet(storage: orphans + orphanCapacity)
        let listed = UnsafeMutableRawPointer(orphans + orphanCapacity + MarkerSet.words)
            .bindMemory(to: UInt32.self, capacity: Self.stretch + 1)
        // A file's short objects are measured in place: through the protocol, each would be a
        // call to a witness too large to inline.
        let fileContents = source.fileContents
        @inline(__always) func shortKey(of index: Int) -> UInt64? {
            if let fileContents { return fileContents.shortKey(of: index) }
            return source.shortKey(of: index)
        }
        @inline(__always) func twin(of index: Int) -> OrphanTwins.Twin? {
            if let fileContents { return fileContents.twin(of: index) }
            return source.content(of: index).flatMap { OrphanTwins.Twin(content: $0) }
        }
        // Each stretch of objects is first listed, and the list then gone through.
        var start = 0
        while start < objectCount {
            let end = Swift.min(start &+ Self.stretch, objectCount)
            let listedCount = listOrphans(of: source, in: start..<end, into: listed)
            start = end
            for position in 0..<listedCount {
                let index = Int(listed[position])
                let code: UInt32
                let marker: UInt8
                if let twin = twin(of: index), let slot = twins.want(twin) {
                    marker = twin.marker
                    code = slot
                } else if hashed, let key = shortKey(of: index) {
                    marker = UInt8(truncatingIfNeeded: key)
                    guard let found = contents.number(ofShortKey: key) else { return nil }
                    code = UInt32(truncatingIfNeeded: found)
                } else {
                    guard let content = source.content(of: index) else {
                        unmatched += 1
                        continue
                    }
                    marker = content[0]
                    guard let found = contents.number(of: content) else { return nil }
                    code = UInt32(truncatingIfNeeded: found)
                }
                precondition(orphanTotal < orphanCount, "more orphans than counted")
                wanted.insert(marker)
                orphans[orphanTotal] = UInt64(truncatingIfNeeded: index) << 32 | UInt64(code)
                orphanTotal += 1
            }
        }
        start = 0
        while twins.unfound + contents.unfound > 0 && start < objectCount {
            let end = Swift.min(start &+ Self.stretch, objectCount)
            var listedCount = 0
            for index in start..<end {
                listed[listedCount] = UInt32(truncatingIfNeeded: index)
                // Both tests made, so that the compiler makes no branch of the `&&`.
                let reachable = !source.isOrphan(index)
                let shared = wanted.contains(source.marker(ofReachable: index))
                listedCount &+= Self.count(reachable) & Self.count(shared)
            }
            start = end
            for position in 0..<listedCount {
                let index = Int(listed[position])
                if let twin = twin(of: index), twins.offer(twin, as: index) {
                    // Held by the twins' slots alone.
                } else if hashed, let key = shortKey(of: index) {
                    guard contents.offer(shortKey: key, as: index) else { return nil }
                } else if let content = source.content(of: index) {
                    guard contents.offer(content, as: index) else { return nil }
                }
            }
        }
        var copyCount = 0
        let copies = [BinaryLayout.OrphanCopy](unsafeUninitializedCapacity: orphanTotal) { copies, initialized in
            for orphan in UnsafeBufferPointer(start: orphans, count: orphanTotal) {
                let code = UInt32(truncatingIfNeeded: orphan)
                let original = OrphanTwins.isSlot(code) ? twins.original(ofCode: code) : contents.original(ofNumber: Int(code))
                (copies.baseAddress! + copyCount).initialize(to: BinaryLayout.OrphanCopy(
                    object: UInt32(truncatingIfNeeded: orphan >> 32), original: UInt32(truncatingIfNeeded: original)))
                copyCount &+= Self.count(original >= 0)
            }
            initialized = copyCount
        }
        unmatched += orphanTotal - copyCount
        return (copies, unmatched)
    }

    /// Pairs every orphan of `objects` (of which there are `orphanCount`) through the scanner's
    /// `notes` alone, as ``pair(_:orphanCount:probeLimit:hashed:)`` would: the copies in ascending
    /// order of orphan, and how many orphans copy nothing. Nil at the first orphan the notes
    /// cannot answer for (not a twin read from the file, see ``ObjectContents/twin(of:)``, or one
    /// ``BinaryReachableTwins/View/original(of:)`` cannot tell), which leaves the file to the
    /// general pairing: no writer known leaves such orphans.
    static func pairNoted(
        _ objects: FileObjects, notes: BinaryReachableTwins.View, orphanCount: Int
    ) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int)? {
        // The stretch's list on the stack: a small file's pass is otherwise mostly allocations.
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.stretch) { listed in
            pairNoted(objects, notes: notes, orphanCount: orphanCount, listing: listed.baseAddress!)
        }
    }

    /// ``pairNoted(_:notes:orphanCount:)`` with room for a stretch's list at `listed`.
    @inline(__always)
    private static func pairNoted(
        _ objects: FileObjects, notes: BinaryReachableTwins.View, orphanCount: Int, listing listed: UnsafeMutablePointer<UInt32>
    ) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int)? {
        let contents = objects.contents
        let objectCount = objects.objectCount
        var seen = 0
        // Appended, which is specialized for the element type: `init(unsafeUninitializedCapacity:)`
        // allocates through the runtime's generic path (see `Array.init(filledWith:count:)`).
        var copies: [BinaryLayout.OrphanCopy] = []
        copies.reserveCapacity(orphanCount)
        var start = 0
        // As in `pair`: each stretch's orphans listed, then gone through.
        while start < objectCount {
            let end = Swift.min(start &+ Self.stretch, objectCount)
            let listedCount = listOrphans(of: objects, in: start..<end, into: listed)
            start = end
            precondition(listedCount <= orphanCount &- seen, "more orphans than counted")
            seen &+= listedCount
            for position in 0..<listedCount {
                let index = Int(listed[position])
                guard let twin = contents.twin(of: index), let original = notes.original(of: twin) else { return nil }
                if original >= 0 {
                    copies.append(BinaryLayout.OrphanCopy(object: UInt32(truncatingIfNeeded: index), original: UInt32(truncatingIfNeeded: original)))
                }
            }
        }
        return (copies, seen - copies.count)
    }

    /// Writes the numbers of the orphans among the objects `range` to `listed` (room for
    /// ``stretch`` of them) and returns how many there are. Without a branch: an orphan's place
    /// among the reachable objects cannot be predicted.
    @inline(__always)
    private static func listOrphans(of source: some OrphanSource, in range: Range<Int>, into listed: UnsafeMutablePointer<UInt32>) -> Int {
        var listedCount = 0
        for index in range {
            listed[listedCount] = UInt32(truncatingIfNeeded: index)
            listedCount &+= count(source.isOrphan(index))
        }
        return listedCount
    }

    /// 1 for true, 0 for false, as a value the compiler does not turn back into a branch.
    @inline(__always)
    private static func count(_ flag: Bool) -> Int { Int(unsafeBitCast(flag, to: UInt8.self)) }

    /// The objects of a file as the pairing sees them: the scanner's states say which are
    /// orphans, its encoding notes give a reachable object's marker without an offset lookup.
    struct FileObjects: OrphanSource {
        let contents: ObjectContents
        /// The scanner's object states and encoding notes, which it keeps alive while the pass runs.
        let states: UnsafePointer<BinaryObjectSlots.State>
        let encodings: UnsafePointer<BinaryLayout.EncodingNote>
        let objectCount: Int
        /// What the scanner noted of the reachable twins, nil when it noted nothing.
        let reachableTwins: BinaryReachableTwins.View?

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
        /// The end of the object area, where the offset table starts.
        let end: Int
        let refSize: Int
        /// The offset table's entry width, and the shift that drops the bytes past an entry from
        /// a word loaded at it.
        private let entryWidth: Int
        private let entryShift: UInt64

        /// The objects of the file `bytes` whose trailer has been read as `trailer`.
        init(bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer) {
            (self.bytes, end, refSize) = (bytes, trailer.offsetTableOffset, trailer.objectRefSize)
            entryWidth = trailer.offsetIntSize
            entryShift = UInt64(64 - 8 * trailer.offsetIntSize)
        }

        /// Where object `index` starts, or nil when its offset lies outside the object area.
        @inline(__always)
        func start(of index: Int) -> Int? {
            // One load whatever the width: eight bytes from any entry are in the file, as the
            // 32-byte trailer follows the table.
            let entry = end &+ index &* entryWidth
            let raw = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: entry, as: UInt64.self)) &>> entryShift
            guard raw &- UInt64(BinaryTrailer.headerLength) < UInt64(end &- BinaryTrailer.headerLength) else { return nil }
            return Int(truncatingIfNeeded: raw)
        }

        /// Where object `index` starts and the eight bytes from there as a little-endian word,
        /// or nil when its offset lies outside the object area. Eight bytes can be loaded: an
        /// object starts before the offset table, which the 32-byte trailer follows.
        @inline(__always)
        private func firstWord(of index: Int) -> (start: Int, word: UInt64)? {
            guard let start = start(of: index) else { return nil }
            return (start, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)))
        }

        /// Object `index`'s bytes, or nil when its offset or length is malformed.
        @inline(__always)
        func content(of index: Int) -> UnsafeRawBufferPointer? {
            guard let start = start(of: index) else { return nil }
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

        /// The twin of object `index` (see ``OrphanTwins``) read straight from the file, nil for
        /// an object of any other kind or a malformed one.
        @inline(__always)
        func twin(of index: Int) -> OrphanTwins.Twin? {
            guard let (start, word) = firstWord(of: index) else { return nil }
            return OrphanTwins.Twin(firstWord: word, room: end &- start)
        }

        /// ``OrphanSource/shortKey(of:)`` read straight from the file for the objects that
        /// have one of their kind's lengths alone (null, booleans, UIDs of up to six bytes),
        /// nil for any other (the caller then takes ``content(of:)``).
        @inline(__always)
        func shortKey(of index: Int) -> UInt64? {
            guard let (start, word) = firstWord(of: index) else { return nil }
            let marker = UInt8(truncatingIfNeeded: word)
            let length: Int
            if marker < 0x10 {
                length = 1
            } else if marker &- 0x80 <= 5 {
                length = Int(marker) &- 0x7E
            } else {
                return nil
            }
            guard length <= end &- start else { return nil }
            return word & (1 &<< UInt64(8 &* length) &- 1) | UInt64(length) &<< 56
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
    /// The file the objects lie in, when there is one: the pairing then reads short keys and
    /// twins straight from it, rather than through ``shortKey(of:)`` and ``content(of:)``.
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
