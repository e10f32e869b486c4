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
        let objects = 0..<scanner.trailer.objectCount
        let orphans = objects.filter { !scanner.isReached($0) }
        guard !orphans.isEmpty else { return ([], 0) }
        let bytes = scanner.bytes
        let end = scanner.trailer.offsetTableOffset
        let refSize = scanner.trailer.objectRefSize
        func content(_ index: Int) -> UnsafeRawBufferPointer? {
            guard let start = try? scanner.lookup.offset(ofObject: index),
                let length = BinaryPlistReader.objectLength(bytes, at: start, end: end, refSize: refSize)
            else { return nil }
            return UnsafeRawBufferPointer(rebasing: bytes[start..<start + length])
        }
        var orphanContents: [(object: Int, content: UnsafeRawBufferPointer)] = []
        orphanContents.reserveCapacity(orphans.count)
        var orphanMarkers = [Bool](repeating: false, count: 256)
        var unmatched = 0
        for orphan in orphans {
            guard let content = content(orphan) else {
                unmatched += 1
                continue
            }
            orphanMarkers[Int(content[0])] = true
            orphanContents.append((orphan, content))
        }
        func reachedCandidates(_ body: (Int, UnsafeRawBufferPointer) -> Bool) {
            for index in objects where scanner.isReached(index) {
                guard let start = try? scanner.lookup.offset(ofObject: index), orphanMarkers[Int(bytes[start])],
                    let content = content(index)
                else { continue }
                guard body(index, content) else { return }
            }
        }
        let originals = hashedOriginals(of: orphanContents.map(\.content), candidates: reachedCandidates)
            ?? dictionaryOriginals(of: orphanContents.map(\.content), candidates: reachedCandidates)
        var copies: [BinaryLayout.OrphanCopy] = []
        for (orphan, original) in zip(orphanContents, originals) {
            if let original {
                copies.append(BinaryLayout.OrphanCopy(
                    object: UInt32(truncatingIfNeeded: orphan.object), original: UInt32(truncatingIfNeeded: original)))
            } else {
                unmatched += 1
            }
        }
        return (copies, unmatched)
    }

    /// Probes a lookup or insertion may make before the table gives up on its hash.
    static let probeLimit = 64

    /// For each of `contents`, the first candidate of equal bytes, found through an
    /// open-addressing table of the distinct contents; nil when some probe sequence ran past
    /// `probeLimit`. `candidates` hands out reachable objects in ascending order until its body
    /// returns false.
    static func hashedOriginals(
        of contents: [UnsafeRawBufferPointer],
        candidates: ((Int, UnsafeRawBufferPointer) -> Bool) -> Void,
        probeLimit: Int = probeLimit
    ) -> [Int?]? {
        let seed = SeededByteHash.processSeed
        var capacity = 16
        while capacity < 2 * contents.count { capacity *= 2 }
        let mask = capacity - 1
        // slots[i]: 1 + the distinct content's number, 0 for an empty slot.
        var slots = [Int32](repeating: 0, count: capacity)
        var distinct: [UnsafeRawBufferPointer] = []
        var distinctHashes: [UInt64] = []
        var contentNumbers: [Int] = []
        contentNumbers.reserveCapacity(contents.count)
        // The probe for `content`: its distinct number, or the empty slot where it belongs; nil
        // past the probe limit.
        func probe(_ content: UnsafeRawBufferPointer, hash: UInt64) -> (found: Int?, slot: Int)? {
            var slot = Int(truncatingIfNeeded: hash) & mask
            for _ in 0..<probeLimit {
                let entry = Int(slots[slot])
                if entry == 0 { return (nil, slot) }
                if distinctHashes[entry - 1] == hash && distinct[entry - 1].elementsEqualBytes(content) { return (entry - 1, slot) }
                slot = (slot + 1) & mask
            }
            return nil
        }
        for content in contents {
            let hash = SeededByteHash.hash(content, seed: seed).hash
            guard let (found, slot) = probe(content, hash: hash) else { return nil }
            if let found {
                contentNumbers.append(found)
            } else {
                slots[slot] = Int32(truncatingIfNeeded: distinct.count + 1)
                contentNumbers.append(distinct.count)
                distinct.append(content)
                distinctHashes.append(hash)
            }
        }
        var originals = [Int?](repeating: nil, count: distinct.count)
        var unfound = distinct.count
        var overran = false
        candidates { index, content in
            guard let (found, _) = probe(content, hash: SeededByteHash.hash(content, seed: seed).hash) else {
                overran = true
                return false
            }
            if let found, originals[found] == nil {
                originals[found] = index
                unfound -= 1
            }
            return unfound > 0
        }
        return overran ? nil : contentNumbers.map { originals[$0] }
    }

    /// ``hashedOriginals(of:candidates:)`` through the standard library's `Dictionary`, whose
    /// seeded SipHash no input can make collide on purpose.
    static func dictionaryOriginals(
        of contents: [UnsafeRawBufferPointer],
        candidates: ((Int, UnsafeRawBufferPointer) -> Bool) -> Void
    ) -> [Int?] {
        var originals: [RawBytesKey: Int?] = [:]
        for content in contents { originals[RawBytesKey(bytes: content)] = .some(nil) }
        var unfound = originals.count
        candidates { index, content in
            let key = RawBytesKey(bytes: content)
            if let original = originals[key], original == nil {
                originals[key] = index
                unfound -= 1
            }
            return unfound > 0
        }
        return contents.map { originals[RawBytesKey(bytes: $0)] ?? nil }
    }
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
