import Foundation

/// Decodes a large binary plist on two threads: the calling thread and one worker share the
/// children of one large container, each with its own ``BinaryObjectScanner`` (own slots, stacks
/// and key classes) over the same bytes, and the calling thread assembles the container from the
/// two halves.
///
/// The result is the sequential decode's, for every input:
/// - A value is a function of the bytes alone, so two scanners that succeed deliver the same
///   children one scanner would, in file order. A split dictionary's table is checked for
///   repeats over all its keys (the calling thread's half first, the worker's after the join),
///   and a repeated key keeps its first entry, CoreFoundation's binary rule, as
///   ``BinaryObjectScanner/finish(_:values:keyClasses:)`` does.
/// - Each scanner knows less than the sequential one at every step (nothing of the other
///   half), so it keeps fewer objects and walks at least the references the sequential decode
///   walks at the same depth: every error the sequential decode meets, one of the threads meets
///   too (or another error first). The reverse does not hold (a container the sequential
///   decode keeps and meets again too deep is a leaf there, but walked again by a scanner that
///   never saw it), and the halves walk a dictionary's keys and values in another order than
///   the sequential decode. So once a split has begun, any error, whichever thread found it,
///   makes the read decode the file again on the calling thread, whose error is the exact one.
/// - Limits hold for the whole document: the halves' value counts are added when they join
///   (an object both halves reach counts twice, never less than once) and the split container's
///   expanded size is the sum of the halves'. A limit is then enforced with up to twice the work
///   before the read fails: both halves may run to their ends before the sum is checked, and a
///   failure is followed by the sequential decode.
enum BinaryConcurrentDecode {
    /// Files smaller than this are decoded on one thread. With ``minimumObjects`` it bounds the
    /// cost of a split (starting and joining a thread, a second object table: tens of
    /// microseconds) to a small part of the decode: files of 150–250 KB and 10,000–18,000
    /// objects decode 1.6–1.7 times faster on two threads.
    static let defaultMinimumSize = 64 * 1024

    /// Files of fewer objects are decoded on one thread: a large file of few objects is mostly
    /// data or long strings, which a split by objects does not share out (a 310 KB web archive
    /// of 21 objects took twice as long split).
    static let minimumObjects = 4096

    /// Whether the machine can run the two halves at once.
    static let hasTwoProcessors = ProcessInfo.processInfo.activeProcessorCount >= 2

    /// What a decode did, for tests: whether it split a container, and whether it then decoded
    /// the file again on one thread after an error.
    struct Outcome: ~Copyable {
        /// Who may take the jobs of a split container's later children (set before the decode).
        var schedule = SplitSchedule.shared
        var split = false
        var decodedAgain = false
        /// How many jobs the calling thread took from the worker's part.
        var jobsTakenByCaller = 0
    }

    /// Who takes the jobs of a split container's later children (see ``BinarySplitJobs``); all
    /// but ``shared`` are for tests, which cannot make a thread run late on demand.
    enum SplitSchedule {
        /// Both threads, first come first served.
        case shared
        /// The calling thread alone, the worker never started: a machine too busy to run it.
        case callerOnly
        /// The worker alone; the calling thread waits for it after its own half.
        case workerOnly
    }

    /// Decodes the top object of the validated file `bytes`, splitting one large container's
    /// children with a worker thread when the file's shape offers one.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, outcome: inout Outcome
    ) throws(PlistError) -> PlistValue {
        try decode(bytes, trailer: trailer, limits: limits, keepsLayout: false, outcome: &outcome) { _, value in value }
    }

    /// Decodes the top object as ``decode(_:trailer:limits:outcome:)`` does, and hands the value
    /// and the scanner that decoded it (with its layout notes when `keepsLayout`) to `finish`.
    ///
    /// With layout notes, each thread records the walk of its own parts, and the calling thread
    /// puts the split container's walk together in file order and takes over what the worker
    /// learned of each object (see ``BinaryObjectScanner/joinSplitLayout(_:ownWalk:ownKeys:repeatedKeysBefore:)``).
    /// Where that cannot give the one-thread walk (a container both threads reached, whose
    /// later visit the one-thread walk notes as one step), the read decodes again on one thread.
    static func decode<Decoded>(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, keepsLayout: Bool,
        outcome: inout Outcome, finish: (inout BinaryObjectScanner, PlistValue) -> Decoded
    ) throws(PlistError) -> Decoded {
        do {
            // The first scanner's slots are released before any second decode allocates its own.
            var scanner = BinaryObjectScanner(bytes: bytes, trailer: trailer, limits: limits, keepsLayout: keepsLayout)
            scanner.planSplit()
            scanner.splitSchedule = outcome.schedule
            let first = Result { () throws(PlistError) in try scanner.decodeTop() }
            outcome.split = scanner.splitBegan
            outcome.jobsTakenByCaller = scanner.splitJobsTakenByCaller
            switch first {
            case .success(let value): return finish(&scanner, value)
            case .failure(let error): if !outcome.split { throw error }
            }
        }
        outcome.decodedAgain = true
        var scanner = BinaryObjectScanner(bytes: bytes, trailer: trailer, limits: limits, keepsLayout: keepsLayout)
        let value = try scanner.decodeTop()
        return finish(&scanner, value)
    }
}

/// The children of one container in order, each with its weight in objects, as
/// ``BinaryObjectScanner/planSplit()`` estimates it from object numbers: a child that starts a
/// subtree (numbered above every earlier child) weighs the objects up to the next such child,
/// and is given when that child is read (the last one, up to `upper`, at the end); a shared child
/// weighs one, at once. A dictionary's children count their keys too (`keyWeight`).
///
/// The references are read without a check, for speed: they lie in the object area (the
/// container's count was checked against it), and `largest` says afterwards whether any named an
/// object past the file's, which makes every weight meaningless; the arithmetic wraps so that
/// such weights cannot trap.
struct ChildWeights {
    let bytes: UnsafeRawBufferPointer
    let references: Int
    let refSize: Int
    let count: Int
    let keyWeight: Int
    let upper: Int
    /// The largest reference read so far.
    private(set) var largest: UInt64 = 0
    private var i = 0
    private var open = -1
    private var openFirst = 0

    init(bytes: UnsafeRawBufferPointer, references: Int, refSize: Int, count: Int, keyWeight: Int, upper: Int) {
        (self.bytes, self.references, self.refSize, self.count, self.keyWeight, self.upper) =
            (bytes, references, refSize, count, keyWeight, upper)
    }

    /// The next child whose weight is known, and the weight; nil after the last.
    @inline(__always)
    mutating func next() -> (child: Int, weight: Int)? {
        while i < count {
            let raw = bytes.loadBigEndian(at: references &+ i &* refSize, width: refSize)
            if raw > largest { largest = raw }
            let first = Int(truncatingIfNeeded: raw)
            let child = i
            i &+= 1
            guard open < 0 || first > openFirst else { return (child, keyWeight &+ 1) }
            let previous = (open, openFirst)
            (open, openFirst) = (child, first)
            if previous.0 >= 0 { return (previous.0, keyWeight &+ first &- previous.1) }
        }
        guard open >= 0 else { return nil }
        defer { open = -1 }
        return (open, keyWeight &+ Swift.max(upper &- openFirst, 1))
    }
}

/// Where a concurrent decode splits: the container whose children two threads share, the
/// containers on the path from the top object to it, and the first entry of the worker's half.
struct BinarySplitPlan {
    var ancestors: [Int]
    var target: Int
    var firstOfWorker: Int

    static let none = BinarySplitPlan(ancestors: [], target: -1, firstOfWorker: 0)
}

extension BinaryObjectScanner {
    /// How deep ``planSplit()`` looks for a container to split.
    static let deepestSplit = 16

    /// Chooses the container to split: from the top object down through any child that holds
    /// most of its parent's work, to the first container whose work is spread over its
    /// children, and there the entry that halves it.
    ///
    /// CoreFoundation and Trove number objects in pre-order, so a child's subtree is the
    /// objects from its own number up to the next sibling numbered above every earlier one; a
    /// child numbered below an earlier sibling is an object shared with an earlier subtree, and
    /// adds little. That is only an estimate (another writer may number objects any way); the
    /// decode's result never depends on it. Any doubt, such as a reference out of range, and
    /// there is no split.
    mutating func planSplit() {
        splitPlan = (try? findSplit()) ?? .none
        splitTarget = splitPlan.target
    }

    private func findSplit() throws(PlistError) -> BinarySplitPlan {
        var ancestors: [Int] = []
        var index = trailer.topObject
        var upper = trailer.objectCount
        let refSize = trailer.objectRefSize
        while ancestors.count < Swift.min(Self.deepestSplit, limits.maxDepth - 1) {
            let start = try lookup.offset(ofObject: index)
            let kind = bytes[start] >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else { return .none }
            let field = try area.containerCount(index, marker: bytes[start], at: start)
            let count = field.count
            guard count > 0 else { return .none }
            // A dictionary entry's key is work of its own, numbered apart from the values.
            let keyWeight = kind == 0xD ? 1 : 0
            let valueRefs = field.payload + (kind == 0xD ? count * refSize : 0)
            func weights() -> ChildWeights {
                ChildWeights(bytes: bytes, references: valueRefs, refSize: refSize, count: count, keyWeight: keyWeight, upper: upper)
            }
            var total = 0
            var heaviest = 0
            var heaviestWeight = 0
            var all = weights()
            while let (i, w) = all.next() {
                total &+= w
                if w > heaviestWeight { (heaviest, heaviestWeight) = (i, w) }
            }
            // Any reference out of range, and there is no plan (the weights were meaningless).
            guard all.largest < UInt64(trailer.objectCount) else { return .none }
            let next = try lookup.reference(at: valueRefs + heaviest * refSize)
            if heaviestWeight * 4 > total * 3, next != index, !ancestors.contains(next) {
                // One child holds most of the work: split inside it.
                ancestors.append(index)
                upper = Swift.min(next + heaviestWeight - keyWeight, trailer.objectCount)
                index = next
                continue
            }
            // A container holding a small part of the file is not worth a thread.
            guard count >= 2, total * 4 >= trailer.objectCount else { return .none }
            // The calling thread also builds a dictionary's table over its own keys before the
            // join: it takes a little less of a dictionary's work.
            let share = kind == 0xD ? 9 : 10
            var firstOfWorker = count / 2
            var sum = 0
            var prefix = weights()
            while let (i, w) = prefix.next() {
                sum &+= w
                if 20 &* sum >= share &* total {
                    firstOfWorker = i + 1
                    break
                }
            }
            return BinarySplitPlan(ancestors: ancestors, target: index, firstOfWorker: Swift.max(1, Swift.min(firstOfWorker, count - 1)))
        }
        return .none
    }

    /// Called as the target container opens (its depth counted, its state open): keeps the split
    /// only at the target's first decode, reached through the planned path, whose containers the
    /// worker then marks open (see ``decodeHalf(_:of:open:valueCount:)``). Otherwise
    /// the target is decoded as any container, and no split happens.
    @inline(never)
    mutating func confirmSplit(again: Bool) {
        let onPath = !again && depth == splitPlan.ancestors.count + 1
            && splitPlan.ancestors.allSatisfy { objects.state($0) == .open || objects.state($0) == .reopened }
        // A muted walk notes nothing beneath the container, which the parts would record.
        if !onPath || (keepsLayout && walkMuted) { splitTarget = -1 }
    }

    /// Decodes the target container `container`, just opened, with a worker thread: the calling
    /// thread decodes the children before ``BinarySplitPlan/firstOfWorker``, and the two threads
    /// share the rest as ``BinarySplitJobs``. Returns the container's value, as
    /// ``finish(_:values:keyClasses:)`` would.
    mutating func decodeSplit(
        _ container: Frame, values: inout PlistValueStack, keyClasses: inout BinaryKeyClasses
    ) throws(PlistError) -> PlistValue {
        splitTarget = -1
        splitBegan = true
        // The plan read the same count, so this is the planned entry; clamped all the same.
        let split = Swift.max(1, Swift.min(splitPlan.firstOfWorker, container.count - 1))
        let jobs = BinarySplitJobs(
            bytes: bytes, trailer: trailer, limits: limits, keepsLayout: keepsLayout, open: splitPlan.ancestors + [container.index],
            container: container, workerStart: split, valueCount: valueCount)
        if splitSchedule != .callerOnly { jobs.startWorker() }
        var mine = container
        mine.end = split
        var ancestors = newAncestors()
        let keysBase = values.count
        // The calling thread's own steps follow the container's: its keys', then its values'.
        let ownWalkStart = recorder.walkCount
        let repeatedKeysBefore = repeatedKeys.count
        do {
            try decodeKeys(of: &mine, values: &values)
            try walk(&mine, ancestors: &ancestors, values: &values, keyClasses: &keyClasses)
        } catch {
            // The worker reads the caller's bytes: it must be done before the read returns.
            jobs.takeAllRemaining()
            jobs.waitForWorker()
            throw error
        }
        let ownWalk = ownWalkStart..<recorder.walkCount
        // A dictionary's keys leave the stack now, and the calling thread starts its table with
        // its own half while the worker may still be decoding.
        var keys: [String] = []
        var hashes: [UInt64] = []
        var table: PlistKeyIndex?
        var repeats = false
        if container.isDictionary {
            keys.reserveCapacity(container.count)
            hashes.reserveCapacity(container.count)
            Self.appendKeyHashes(split, at: keysBase, of: values, to: &hashes)
            Self.takeKeys(split, at: keysBase, of: &values, into: &keys)
            if container.count > PlistDictionary.linearSearchLimit {
                let index = PlistKeyIndex(capacity: container.count)
                repeats = Self.insertChecking(0..<split, of: keys, hashes: hashes, into: index)
                table = index
            }
        }
        // Then the jobs the worker has not taken, each onto a stack of its own: the worker may
        // hold the jobs between them.
        if splitSchedule != .workerOnly {
            while let job = jobs.takeForCaller() {
                do {
                    jobs.record(try decodeJob(jobs.ranges[job], of: container, keyClasses: &keyClasses), ofJob: job)
                } catch {
                    // The jobs still untaken do not matter now: the read decodes again on one thread.
                    jobs.record(error, ofJob: job)
                    jobs.takeAllRemaining()
                }
                splitJobsTakenByCaller += 1
            }
        }
        jobs.waitForWorker()
        // On an error, the empty places the taken keys left below the values are dropped too.
        if let error = jobs.firstFailure {
            Self.drop(from: keysBase, below: mine.base, of: &values)
            throw error
        }
        if keepsLayout {
            do {
                try joinSplitLayout(jobs, ownWalk: ownWalk, ownKeys: container.isDictionary ? split : 0, repeatedKeysBefore: repeatedKeysBefore)
            } catch {
                Self.drop(from: keysBase, below: mine.base, of: &values)
                throw error
            }
        }
        var expanded = mine.expanded
        for job in jobs.ranges.indices {
            var part = jobs.takeHalf(ofJob: job)
            valueCount += part.addedValues
            expanded.add(part.expanded)
            if container.isDictionary {
                Self.takeKeys(part.keyCount, at: 0, of: &part.values, into: &keys)
                hashes.append(contentsOf: part.keyHashes)
            }
            values.push(movingFrom: &part.values, from: part.keyCount)
            part.values.dropLast(part.keyCount)
        }
        guard valueCount <= limits.maxValues else {
            Self.drop(from: keysBase, below: mine.base, of: &values)
            throw Self.limitError(.values, limits, at: container.refs)
        }
        let value: PlistValue
        if container.isDictionary {
            let entries = values.popArray(from: mine.base)
            values.dropLast(split)
            if keepsLayout { noteKeyTexts(keys, of: container) }
            if let table, !repeats, !Self.insertChecking(split..<container.count, of: keys, hashes: hashes, into: table) {
                value = .dictionary(PlistDictionary(keys: keys, values: entries, index: table))
            } else {
                // A repeated key, or too few keys for a table: CoreFoundation keeps the first entry.
                let assembled = PlistDictionaryAssembler().assemble(keys: keys, values: entries, keeping: .firstValue)
                if keepsLayout && assembled.repeated {
                    noteRepeatedKeys(keys: keys, values: entries, walkPosition: container.walkIndex)
                }
                value = .dictionary(assembled.dictionary)
            }
        } else {
            value = .array(values.popArray(from: mine.base))
        }
        if keepsLayout { recorder.closeWalk(at: container.walkIndex) }
        try checkExpansion(expanded, at: container.refs)
        depth -= 1
        // The split happens at the container's first decode (see `confirmSplit`).
        objects.setState(container.index, .builtOnce)
        deliveredSize = expanded
        return value
    }

    /// Decodes the children `range` of the split container `container` on the calling thread,
    /// with this scanner (which has the container open and may hold objects its own half kept):
    /// a job the worker had not taken. Its values count into this scanner's own count.
    mutating func decodeJob(
        _ range: Range<Int>, of container: Frame, keyClasses: inout BinaryKeyClasses
    ) throws(PlistError) -> BinarySplitHalf {
        try decodePart(range, of: container, keyClasses: &keyClasses, addsCountedValues: false)
    }

    /// Decodes one of the worker's jobs, the children `range` of a container the calling thread
    /// has open, beneath the open containers `open` (the path to it and the container itself),
    /// with a scanner of the worker's own, which may hold objects an earlier job kept. Its
    /// values are counted from `start`, the calling thread's count at the split.
    ///
    /// The path's containers are marked open, as they are in the calling thread's scanner, so
    /// a reference back to one of them is the cycle it is rather than a walk through the whole
    /// container again; and the depth starts at the container's.
    mutating func decodeHalf(
        _ range: Range<Int>, of container: Frame, open: [Int], valueCount start: Int
    ) throws(PlistError) -> BinarySplitHalf {
        for index in open { objects.setState(index, .open) }
        depth = open.count
        valueCount = start
        var keyClasses = BinaryKeyClasses(objectCount: trailer.objectCount)
        return try decodePart(range, of: container, keyClasses: &keyClasses, addsCountedValues: true)
    }

    /// Decodes the children `range` of the split container `container` onto a stack of their
    /// own, a dictionary's keys below its values, and hashes the keys. `addsCountedValues` says
    /// whether the values this counts are still to be added to the calling thread's count (a
    /// worker's scanner) or are in it already (the calling thread's own).
    private mutating func decodePart(
        _ range: Range<Int>, of container: Frame, keyClasses: inout BinaryKeyClasses, addsCountedValues: Bool
    ) throws(PlistError) -> BinarySplitHalf {
        let counted = valueCount
        let walkStart = recorder.walkCount
        var part = container
        part.next = range.lowerBound
        part.end = range.upperBound
        part.base = 0
        // The container itself is counted in the calling thread's half.
        part.expanded.values = 0
        var values = PlistValueStack(capacity: container.isDictionary ? 2 * range.count : range.count)
        try decodeKeys(of: &part, values: &values)
        // The keys lie below `part.base`, which is 0 for an array.
        let keyCount = part.base
        var ancestors = newAncestors()
        try walk(&part, ancestors: &ancestors, values: &values, keyClasses: &keyClasses)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(keyCount)
        Self.appendKeyHashes(keyCount, at: 0, of: values, to: &hashes)
        return BinarySplitHalf(
            values: values, keyCount: keyCount, keyHashes: hashes, expanded: part.expanded,
            addedValues: addsCountedValues ? valueCount - counted : 0,
            walkSegment: BinarySplitHalf.WalkSegment(
                walk: walkStart..<recorder.walkCount, keyCount: keyCount, fromWorker: addsCountedValues))
    }

    /// Decodes the keys of the entries `half.next..<half.end` of a split dictionary onto
    /// `values`, as a dictionary too large to keep its keys does, and sets the half's values to
    /// start above them. Does nothing for an array.
    mutating func decodeKeys(of half: inout Frame, values: inout PlistValueStack) throws(PlistError) {
        guard half.isDictionary else { return }
        values.reserve(2 * (half.end - half.next))
        for i in half.next..<half.end {
            let keyBytes = try decodeUnkeptKey(referencedAt: half.refs + i * trailer.objectRefSize, onto: &values)
            half.expanded.bytes = half.expanded.bytes.saturatingAdd(keyBytes)
        }
        half.base = values.count
    }

    /// Appends the ``SeededByteHash`` of each of the `count` key texts on `values` from `start`
    /// to `hashes`: each thread hashes its own half of a split dictionary's keys.
    static func appendKeyHashes(_ count: Int, at start: Int, of values: borrowing PlistValueStack, to hashes: inout [UInt64]) {
        for i in start..<start + count {
            guard case .string(let text) = values[i] else { preconditionFailure("a dictionary key that is not a string") }
            hashes.append(SeededByteHash.hash(text, seed: SeededByteHash.processSeed).hash)
        }
    }

    /// Removes the calling thread's half from `values`: its values from `base` up, and below
    /// them from `start` the places its taken keys left empty.
    static func drop(from start: Int, below base: Int, of values: inout PlistValueStack) {
        _ = values.popArray(from: base)
        values.dropLast(base - start)
    }

    /// Adds the keys at `range` to `table`; true when one repeats an earlier key.
    static func insertChecking(_ range: Range<Int>, of keys: [String], hashes: [UInt64], into table: PlistKeyIndex) -> Bool {
        keys.withUnsafeBufferPointer { keys in
            hashes.withUnsafeBufferPointer { table.insertChecking(range, of: keys, knownHashes: $0) != nil }
        }
    }

    /// Moves `count` key texts from `values`, starting at `start`, into `keys`, leaving their
    /// places empty for the caller to drop.
    static func takeKeys(_ count: Int, at start: Int, of values: inout PlistValueStack, into keys: inout [String]) {
        for i in start..<start + count {
            guard case .string(let text) = values.take(at: i) else { preconditionFailure("a dictionary key that is not a string") }
            keys.append(text)
        }
    }
}

/// The children of one job of a split container: their key texts (for a dictionary) and then
/// their values on one stack, with what the limits need.
struct BinarySplitHalf: ~Copyable {
    /// Where a part's steps lie in the walk of the scanner that decoded it: the keys' steps
    /// (one each) and then the values' subtrees. The walk is empty when the read keeps no
    /// layout notes.
    struct WalkSegment {
        var walk: Range<Int>
        var keyCount: Int
        /// Whether the worker's scanner decoded the part, rather than the calling thread's.
        var fromWorker: Bool
    }

    var values: PlistValueStack
    let keyCount: Int
    /// The ``SeededByteHash`` of each key text, under the process's seed.
    let keyHashes: [UInt64]
    let expanded: ExpandedSize
    /// The values the job counted that the calling thread's count does not hold yet.
    let addedValues: Int
    let walkSegment: WalkSegment
}
