import Foundation

/// Which unreferenced objects of a binary file are byte-for-byte copies of referenced ones, so
/// that a lossless rewrite can write each orphan again as the copy it was.
///
/// Writers that do not unique every object leave such copies: an NSKeyedArchiver file from Xcode
/// holds thousands of orphaned UID objects, each equal to a referenced one. Each orphan is paired
/// with the first (lowest-numbered) reachable object of identical bytes.
///
/// The orphans' contents go into a table hashed with ``SeededByteHash``; a reachable object is
/// measured and looked up only when some orphan shares its marker byte, and the pass stops once
/// every orphan content has found its original. The table caps its probes: input that makes them
/// collide is answered by the same pairing built on the standard library's `Dictionary` instead.
enum BinaryOrphanCopies {
    /// The copies, and how many orphans have no reachable twin (or could not be measured).
    static func find(_ scanner: borrowing BinaryObjectScanner) -> (copies: [BinaryLayout.OrphanCopy], unmatched: Int) {
        let count = scanner.trailer.objectCount
        // Most files have no orphans: the scanner counted the objects it reached.
        guard scanner.reachedCount < count else { return ([], 0) }
        let states = scanner.objectStates
        let objects = ObjectContents(
            bytes: scanner.bytes, lookup: scanner.lookup,
            end: scanner.trailer.offsetTableOffset, refSize: scanner.trailer.objectRefSize)
        var orphanObjects: [Int] = []
        var orphanContents: [UnsafeRawBufferPointer] = []
        orphanObjects.reserveCapacity(count - scanner.reachedCount)
        orphanContents.reserveCapacity(count - scanner.reachedCount)
        var markers = [Bool](repeating: false, count: 256)
        var unmatched = 0
        for orphan in 0..<count where states[orphan] == .unseen {
            guard let content = objects.content(of: orphan) else {
                unmatched += 1
                continue
            }
            markers[Int(content[0])] = true
            orphanObjects.append(orphan)
            orphanContents.append(content)
        }
        assert(orphanObjects.count + unmatched == count - scanner.reachedCount, "the scanner's count of reached objects is off")
        let candidates = Candidates(objects: objects, states: states, count: count, markers: markers)
        let originals = hashedOriginals(of: orphanContents, candidates: candidates)
            ?? dictionaryOriginals(of: orphanContents, candidates: candidates)
        var copies: [BinaryLayout.OrphanCopy] = []
        copies.reserveCapacity(orphanObjects.count)
        for (orphan, original) in zip(orphanObjects, originals) {
            if let original {
                copies.append(BinaryLayout.OrphanCopy(
                    object: UInt32(truncatingIfNeeded: orphan), original: UInt32(truncatingIfNeeded: original)))
            } else {
                unmatched += 1
            }
        }
        return (copies, unmatched)
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
            return content(at: start)
        }

        /// The bytes of the object at `start`, a validated object offset; nil when its length is
        /// malformed.
        @inline(__always)
        func content(at start: Int) -> UnsafeRawBufferPointer? {
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

    /// The reachable objects an orphan may copy, in ascending order: those whose marker byte
    /// some orphan shares.
    struct Candidates: OrphanCandidates {
        let objects: ObjectContents
        /// The scanner's object states, which it keeps alive while the pass runs.
        let states: UnsafePointer<BinaryObjectSlots.State>
        let count: Int
        let markers: [Bool]

        /// The first candidate at or after `index`, and its bytes; nil past the last.
        @inline(__always)
        func next(from index: Int) -> (index: Int, content: UnsafeRawBufferPointer)? {
            var index = index
            while index < count {
                if states[index] != .unseen, let start = try? objects.lookup.offset(ofObject: index),
                    markers[Int(objects.bytes[start])], let content = objects.content(at: start) {
                    return (index, content)
                }
                index += 1
            }
            return nil
        }
    }

    /// Probes a lookup or insertion may make before the table gives up on its hash.
    static let probeLimit = 64

    /// For each of `contents`, the first candidate of equal bytes, found through open-addressing
    /// tables of the distinct contents; nil when some probe sequence ran past `probeLimit`. The
    /// walk over the candidates stops once every distinct content is found.
    ///
    /// Contents of at most eight bytes (the orphaned UIDs and booleans that make up nearly all
    /// orphans) go into a table of words: an object's bytes say how long it is, so the word of
    /// its bytes, zero-padded, stands for the content itself, and is hashed and compared as one
    /// number. Longer contents go into a table of byte strings.
    static func hashedOriginals(of contents: [UnsafeRawBufferPointer], candidates: some OrphanCandidates, probeLimit: Int = probeLimit) -> [Int?]? {
        var longCount = 0
        for content in contents where content.count > WordTable.longestContent { longCount += 1 }
        var short = WordTable(capacityFor: contents.count - longCount, probeLimit: probeLimit)
        var long = ContentTable(capacityFor: longCount, probeLimit: probeLimit)
        // A long content's number, or for a short one -1 minus its number.
        var numbers: [Int] = []
        numbers.reserveCapacity(contents.count)
        for content in contents {
            if content.count <= WordTable.longestContent {
                guard let number = short.insert(WordTable.word(of: content)) else { return nil }
                numbers.append(-1 - number)
            } else {
                guard let number = long.insert(content) else { return nil }
                numbers.append(number)
            }
        }
        var shortOriginals = [Int](repeating: -1, count: short.distinctCount)
        var longOriginals = [Int](repeating: -1, count: long.distinctCount)
        var unfound = short.distinctCount + long.distinctCount
        var position = 0
        while unfound > 0, let (index, content) = candidates.next(from: position) {
            position = index + 1
            if content.count <= WordTable.longestContent {
                guard let found = short.find(WordTable.word(of: content)) else { return nil }
                if let number = found, shortOriginals[number] < 0 {
                    shortOriginals[number] = index
                    unfound -= 1
                }
            } else {
                guard let found = long.find(content) else { return nil }
                if let number = found, longOriginals[number] < 0 {
                    longOriginals[number] = index
                    unfound -= 1
                }
            }
        }
        return numbers.map { number in
            let original = number < 0 ? shortOriginals[-1 - number] : longOriginals[number]
            return original < 0 ? nil : original
        }
    }

    /// ``hashedOriginals(of:candidates:probeLimit:)`` through the standard library's
    /// `Dictionary`, whose seeded SipHash no input can make collide on purpose.
    static func dictionaryOriginals(of contents: [UnsafeRawBufferPointer], candidates: some OrphanCandidates) -> [Int?] {
        var originals: [RawBytesKey: Int?] = [:]
        for content in contents { originals[RawBytesKey(bytes: content)] = .some(nil) }
        var unfound = originals.count
        var position = 0
        while unfound > 0, let (index, content) = candidates.next(from: position) {
            position = index + 1
            let key = RawBytesKey(bytes: content)
            if let original = originals[key], original == nil {
                originals[key] = index
                unfound -= 1
            }
        }
        return contents.map { originals[RawBytesKey(bytes: $0)] ?? nil }
    }

    /// Distinct contents of at most eight bytes, each as the word of its bytes, in an
    /// open-addressing table with linear probing; each gets a number in order of insertion.
    struct WordTable {
        /// The longest content the table takes.
        static let longestContent = 8

        private let seed = SeededByteHash.processSeed
        private let mask: Int
        private let probeLimit: Int
        /// 1 + the number of the word in each slot; 0 for an empty slot.
        private var slots: [Int32]
        private var words: [UInt64] = []

        init(capacityFor count: Int, probeLimit: Int) {
            let capacity = openAddressingCapacity(for: count)
            mask = capacity - 1
            self.probeLimit = probeLimit
            slots = [Int32](repeating: 0, count: capacity)
        }

        var distinctCount: Int { words.count }

        /// The bytes of `content` (at most eight) as a little-endian word, zero above them. Two
        /// objects' contents are equal exactly when their words are: the bytes up to its count
        /// fix an object's length, so equal words mean equal lengths.
        @inline(__always)
        static func word(of content: UnsafeRawBufferPointer) -> UInt64 {
            content.count == 8 ? content.loadUnaligned(as: UInt64.self) : SeededByteHash.word(ofShort: content)
        }

        /// The number of `word`, or of the empty slot where it belongs (negated, minus one); nil
        /// past the probe limit.
        @inline(__always)
        private func probe(_ word: UInt64) -> Int? {
            var slot = Int(truncatingIfNeeded: SeededByteHash.hash(word: word, seed: seed)) & mask
            return slots.withUnsafeBufferPointer { slots in
                words.withUnsafeBufferPointer { words in
                    for _ in 0..<probeLimit {
                        let entry = Int(slots[slot]) - 1
                        if entry < 0 { return -1 - slot }
                        if words[entry] == word { return entry }
                        slot = (slot + 1) & mask
                    }
                    return nil
                }
            }
        }

        /// The number of `word`, added when new; nil past the probe limit.
        mutating func insert(_ word: UInt64) -> Int? {
            guard let found = probe(word) else { return nil }
            if found >= 0 { return found }
            slots[-1 - found] = Int32(truncatingIfNeeded: words.count + 1)
            words.append(word)
            return words.count - 1
        }

        /// The number of `word`, `.some(nil)` when absent; nil past the probe limit.
        @inline(__always)
        func find(_ word: UInt64) -> Int?? {
            guard let found = probe(word) else { return nil }
            return .some(found >= 0 ? found : nil)
        }
    }

    /// Distinct byte strings in an open-addressing table with linear probing, hashed with
    /// ``SeededByteHash``; each gets a number in order of insertion.
    struct ContentTable {
        private let seed = SeededByteHash.processSeed
        private let mask: Int
        private let probeLimit: Int
        /// 1 + the number of the content in each slot; 0 for an empty slot.
        private var slots: [Int32]
        private var contents: [UnsafeRawBufferPointer] = []
        private var hashes: [UInt64] = []

        init(capacityFor count: Int, probeLimit: Int) {
            let capacity = openAddressingCapacity(for: count)
            mask = capacity - 1
            self.probeLimit = probeLimit
            slots = [Int32](repeating: 0, count: capacity)
        }

        var distinctCount: Int { contents.count }

        /// The number of `content`, or of the empty slot where it belongs (negated, minus one);
        /// nil past the probe limit.
        @inline(__always)
        private func probe(_ content: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
            var slot = Int(truncatingIfNeeded: hash) & mask
            for _ in 0..<probeLimit {
                let entry = Int(slots[slot]) - 1
                if entry < 0 { return -1 - slot }
                if hashes[entry] == hash && contents[entry].elementsEqualBytes(content) { return entry }
                slot = (slot + 1) & mask
            }
            return nil
        }

        /// The number of `content`, added when new; nil past the probe limit.
        mutating func insert(_ content: UnsafeRawBufferPointer) -> Int? {
            let hash = SeededByteHash.hash(content, seed: seed).hash
            guard let found = probe(content, hash: hash) else { return nil }
            if found >= 0 { return found }
            slots[-1 - found] = Int32(truncatingIfNeeded: contents.count + 1)
            contents.append(content)
            hashes.append(hash)
            return contents.count - 1
        }

        /// The number of `content`, `.some(nil)` when absent; nil past the probe limit.
        func find(_ content: UnsafeRawBufferPointer) -> Int?? {
            guard let found = probe(content, hash: SeededByteHash.hash(content, seed: seed).hash) else { return nil }
            return .some(found >= 0 ? found : nil)
        }
    }
}

/// Reachable objects in ascending order, as ``BinaryOrphanCopies`` walks them.
protocol OrphanCandidates {
    /// The first candidate at or after `index`, and its bytes; nil past the last.
    func next(from index: Int) -> (index: Int, content: UnsafeRawBufferPointer)?
}

/// Hashable view of a byte range of the input, compared by content.
private struct RawBytesKey: Hashable {
    let bytes: UnsafeRawBufferPointer

    static func == (a: RawBytesKey, b: RawBytesKey) -> Bool {
        a.bytes.elementsEqualBytes(b.bytes)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: bytes)
    }
}

extension UnsafeRawBufferPointer {
    /// True when both ranges hold the same bytes.
    fileprivate func elementsEqualBytes(_ other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}

/// The slot count of an open-addressing table for `count` entries: a power of two, at least 16,
/// that keeps the table at most half full.
private func openAddressingCapacity(for count: Int) -> Int {
    var capacity = 16
    while capacity < 2 * count { capacity *= 2 }
    return capacity
}
