import Foundation

/// What a lossless rewrite writes again for each unreferenced object of a binary file.
///
/// Writers that do not unique every object leave copies: CoreFoundation writes a boolean or a
/// keyed archive's UID at every occurrence and references the first, and an NSKeyedArchiver
/// file from Xcode holds thousands of such orphans. A boolean, null or UID of up to three bytes
/// is kept as its own bytes (``BinaryLayout/KeptOrphan``): they take no more room than the
/// number of an original would, and need nothing looked up. Any other orphan (no writer known
/// leaves one) is paired with the first (lowest-numbered) reachable object of identical bytes.
///
/// One pass over the object numbers keeps the short orphans and gives each other orphan's
/// content a number of an ``OrphanContents`` table. Only when there are such orphans does a
/// second pass walk the reachable objects in ascending order, measure and look up those whose
/// marker byte some orphan shares (read from the encoding notes, not the file), and stop once
/// every content has found its original. The contents table caps its probes: input that makes
/// them collide is paired again through the standard library's `Dictionary` instead.
enum BinaryOrphanCopies {
    /// What ``find(_:)`` and ``pair(_:orphanCount:probeLimit:hashed:)`` give: the kept orphans
    /// and the copies, each in ascending order of orphan, and how many orphans are neither (no
    /// reachable twin, or not measurable).
    typealias Orphans = (kept: [BinaryLayout.KeptOrphan], copies: [BinaryLayout.OrphanCopy], unmatched: Int)

    /// The orphans of the file `scanner` decoded.
    static func find(_ scanner: borrowing BinaryObjectScanner) -> Orphans {
        let count = scanner.trailer.objectCount
        // Most files have no orphans: the scanner counted the objects it reached.
        guard scanner.reachedCount < count else { return ([], [], 0) }
        let objects = FileObjects(
            contents: ObjectContents(bytes: scanner.bytes, trailer: scanner.trailer),
            states: scanner.objectStates, encodings: scanner.encodingNotes, objectCount: count)
        let orphans = count - scanner.reachedCount
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

    /// Keeps the short orphans of `source` (of which there are `orphanCount`) and pairs each
    /// other one with the first reachable object of equal bytes. For the contents `hashed` picks
    /// the open-addressing table, which returns nil once a probe sequence runs past
    /// `probeLimit`, over the `Dictionary`.
    // Inlined into `find`, whose concrete source then needs no witness-table call per object.
    @inline(__always)
    static func pair(_ source: some OrphanSource, orphanCount: Int, probeLimit: Int, hashed: Bool) -> Orphans? {
        // The stretch's list on the stack: a small file's pass is otherwise mostly allocations.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.stretch) { listed in
            pair(source, orphanCount: orphanCount, probeLimit: probeLimit, hashed: hashed, listing: listed.baseAddress!)
        }
    }

    /// ``pair(_:orphanCount:probeLimit:hashed:)`` with room for a stretch's list at `listed`.
    @inline(__always)
    private static func pair(
        _ source: some OrphanSource, orphanCount: Int, probeLimit: Int, hashed: Bool, listing listed: UnsafeMutablePointer<UInt32>
    ) -> Orphans? {
        let objectCount = source.objectCount
        // Appended, which is specialized for the element type: `init(unsafeUninitializedCapacity:)`
        // allocates through the runtime's generic path (see `Array.init(zeroedCount:)`).
        var kept: [BinaryLayout.KeptOrphan] = []
        kept.reserveCapacity(orphanCount)
        // The other orphans, listed at the first.
        var others: UnsafeMutablePointer<UInt32>? = nil
        defer { others?.deallocate() }
        var otherCount = 0
        // A file's objects are measured in place: through the protocol, each would be a call to
        // a witness too large to inline.
        let fileContents = source.fileContents
        @inline(__always) func shortKey(of index: Int) -> UInt64? {
            if let fileContents { return fileContents.shortKey(of: index) }
            return source.shortKey(of: index)
        }
        @inline(__always) func keptOrphan(_ index: Int) -> BinaryLayout.KeptOrphan? {
            if let fileContents { return fileContents.keptOrphan(index) }
            return source.content(of: index).flatMap { BinaryLayout.KeptOrphan(object: index, content: $0) }
        }
        // Each stretch of objects is first listed, and the list then gone through.
        var start = 0
        var seen = 0
        while start < objectCount {
            let end = Swift.min(start &+ Self.stretch, objectCount)
            let listedCount = listOrphans(of: source, in: start..<end, into: listed)
            start = end
            precondition(listedCount <= orphanCount &- seen, "more orphans than counted")
            seen &+= listedCount
            for position in 0..<listedCount {
                let index = Int(listed[position])
                if let orphan = keptOrphan(index) {
                    kept.append(orphan)
                } else {
                    let list = others ?? .allocate(capacity: orphanCount)
                    others = list
                    list[otherCount] = UInt32(truncatingIfNeeded: index)
                    otherCount &+= 1
                }
            }
        }
        guard let others else { return (kept, [], 0) }
        var paired = PairedOrphans(capacity: otherCount, probeLimit: probeLimit, hashed: hashed)
        var unmatched = 0
        for index in UnsafeBufferPointer(start: others, count: otherCount).lazy.map(Int.init) {
            if hashed, let key = shortKey(of: index) {
                guard let number = paired.contents.number(ofShortKey: key) else { return nil }
                paired.add(index, number: number, marker: UInt8(truncatingIfNeeded: key))
            } else if let content = source.content(of: index) {
                guard let number = paired.contents.number(of: content) else { return nil }
                paired.add(index, number: number, marker: content[0])
            } else {
                unmatched += 1
            }
        }
        start = 0
        while paired.contents.unfound > 0 && start < objectCount {
            let end = Swift.min(start &+ Self.stretch, objectCount)
            var listedCount = 0
            for index in start..<end {
                listed[listedCount] = UInt32(truncatingIfNeeded: index)
                // Both tests made, so that the compiler makes no branch of the `&&`.
                let reachable = !source.isOrphan(index)
                let shared = paired.wanted.contains(source.marker(ofReachable: index))
                listedCount &+= Self.count(reachable) & Self.count(shared)
            }
            start = end
            for position in 0..<listedCount {
                let index = Int(listed[position])
                if hashed, let key = shortKey(of: index) {
                    guard paired.contents.offer(shortKey: key, as: index) else { return nil }
                } else if let content = source.content(of: index) {
                    guard paired.contents.offer(content, as: index) else { return nil }
                }
            }
        }
        let copies = paired.copies()
        return (kept, copies, unmatched + paired.count - copies.count)
    }

    /// The orphans of a pass that are not kept, with the contents they hold and the set of their
    /// markers.
    private struct PairedOrphans: ~Copyable {
        var contents: OrphanContents
        /// Each orphan as its index in the high half and its content's number in the low half,
        /// followed by the marker set's flags.
        private let orphans: UnsafeMutablePointer<UInt64>
        private let capacity: Int
        private(set) var count = 0
        let wanted: MarkerSet

        init(capacity: Int, probeLimit: Int, hashed: Bool) {
            contents = OrphanContents(probeLimit: probeLimit, hashed: hashed)
            self.capacity = capacity
            orphans = .allocate(capacity: capacity + MarkerSet.words)
            wanted = MarkerSet(storage: orphans + capacity)
        }

        deinit { orphans.deallocate() }

        @inline(__always)
        mutating func add(_ index: Int, number: Int, marker: UInt8) {
            precondition(count < capacity, "more orphans than counted")
            wanted.insert(marker)
            orphans[count] = UInt64(truncatingIfNeeded: index) << 32 | UInt64(truncatingIfNeeded: number)
            count += 1
        }

        /// The orphans whose content found an original, with it.
        func copies() -> [BinaryLayout.OrphanCopy] {
            var copyCount = 0
            return [BinaryLayout.OrphanCopy](unsafeUninitializedCapacity: count) { copies, initialized in
                for orphan in UnsafeBufferPointer(start: orphans, count: count) {
                    let original = contents.original(ofNumber: Int(UInt32(truncatingIfNeeded: orphan)))
                    (copies.baseAddress! + copyCount).initialize(to: BinaryLayout.OrphanCopy(
                        object: UInt32(truncatingIfNeeded: orphan >> 32), original: UInt32(truncatingIfNeeded: original)))
                    copyCount &+= BinaryOrphanCopies.count(original >= 0)
                }
                initialized = copyCount
            }
        }
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
    fileprivate static func count(_ flag: Bool) -> Int { Int(unsafeBitCast(flag, to: UInt8.self)) }

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

        /// Object `index` as a kept orphan, read straight from the file; nil for an object of
        /// any other kind or a malformed one.
        @inline(__always)
        func keptOrphan(_ index: Int) -> BinaryLayout.KeptOrphan? {
            guard let (start, word) = firstWord(of: index) else { return nil }
            return BinaryLayout.KeptOrphan(object: index, firstWord: word, room: end &- start)
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
    /// kept orphans straight from it, rather than through ``shortKey(of:)`` and ``content(of:)``.
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
