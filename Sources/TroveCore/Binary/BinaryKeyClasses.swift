/// Proves the keys of a binary plist's dictionaries distinct without hashing them per dictionary.
///
/// A binary plist names each key by object reference, and writers unique strings, so a file with
/// thousands of dictionaries typically has a few dozen key objects. Each key object is given a
/// class the first time it is used as a key — equal texts, one class — and a dictionary's keys
/// are then distinct exactly when their classes are, which a stamp per class checks with one
/// load and one store per key. Hashing every dictionary's keys again (what
/// ``PlistDictionaryAssembler`` does for the text formats, whose keys are not shared) was
/// about an eighth of decoding a typical file.
///
/// Texts are one class when their bytes are equal, which is exactly when they are one key (see
/// ``PlistDictionary``). A dictionary whose keys really repeat is left to the assembler, which
/// resolves the repeats. The texts are hashed with ``SeededByteHash`` under a probe budget; once
/// crafted input spends it, new texts get no class and their dictionaries take the assembler's
/// path, which has its own protection, so no input makes this quadratic.
///
/// Invariants: `bucketCount` is a power of two and at least twice `classCount`; a
/// bucket is zero when empty, else the high 32 bits of the text's hash above the class number.
/// A class's stamp is the serial of the last dictionary that held it; serials only grow (a wrap
/// clears every stamp).
struct BinaryKeyClasses: ~Copyable {
    /// One class: its text, the text's hash, and the stamp of the last dictionary that held it.
    private struct Class {
        var text: String
        var hash: UInt64
        var stamp: UInt32
    }

    // The three tables are allocated by `prepare()` when the first dictionary completes: a file
    // without dictionaries, or a small file read many times, should not pay three allocations.
    private var classOfStorage: UnsafeMutablePointer<UInt32>?
    private var classesStorage: UnsafeMutablePointer<Class>?
    private var bucketsStorage: UnsafeMutablePointer<UInt64>?
    private let objectCount: Int

    /// The class of each object index: `unassigned` until it is first used as a key, and
    /// `usedUnclassified` while it has been a key only of dictionaries that were not classified.
    private var classOf: UnsafeMutablePointer<UInt32> {
        @inline(__always) get { classOfStorage.unsafelyUnwrapped }
    }
    /// The classes, by class number minus one; the first `classCount` are initialized. Raw
    /// storage rather than arrays: a file of 200,000 distinct keys paid more for the arrays'
    /// uniqueness checks on every append than for the hashing.
    private var classes: UnsafeMutablePointer<Class> {
        @inline(__always) get { classesStorage.unsafelyUnwrapped }
    }
    private var classCount = 0
    private var classCapacity = 16
    private var buckets: UnsafeMutablePointer<UInt64> {
        @inline(__always) get { bucketsStorage.unsafelyUnwrapped }
    }
    private var bucketCount = 32
    private var serial: UInt32 = 0
    private var probeBudget = 64
    /// The seed the texts are hashed under.
    let seed: UInt64

    /// The most entries a dictionary may have for its keys to be classified whatever came
    /// before it (see ``classifies(count:firstKey:)``).
    static let largestAlwaysClassified = 4096

    private static let unassigned: UInt32 = 0
    /// A key object used by a large dictionary that was not classified.
    private static let usedUnclassified = UInt32.max - 1
    /// A key whose text has no class: met after the probe budget ran out.
    private static let unclassified = UInt32.max

    /// A table for a file of `objectCount` objects; tests pass a fixed `seed`.
    init(objectCount: Int, seed: UInt64 = SeededByteHash.processSeed) {
        self.objectCount = max(objectCount, 1)
        self.seed = seed
    }

    deinit {
        guard classOfStorage != nil else { return }
        classOf.deallocate()
        classes.deinitialize(count: classCount)
        classes.deallocate()
        buckets.deallocate()
    }

    /// Allocates the tables. Call it for every dictionary before the other methods; after the
    /// first call it only tests.
    @inline(__always)
    mutating func prepare() {
        if classOfStorage == nil { allocateTables() }
    }

    @inline(never)
    private mutating func allocateTables() {
        classOfStorage = .allocate(capacity: objectCount)
        classOf.initialize(repeating: Self.unassigned, count: objectCount)
        classesStorage = .allocate(capacity: classCapacity)
        bucketsStorage = .allocate(capacity: bucketCount)
        buckets.initialize(repeating: 0, count: bucketCount)
    }

    /// Whether the keys of a dictionary of `count` entries, the first of them key object
    /// `firstKey`, should be classified, or left to ``PlistDictionaryAssembler``.
    ///
    /// A dictionary of thousands of keys is usually a table of its own, whose key objects no other
    /// dictionary shares: classes then only add a second hash table to the one the dictionary
    /// builds for itself, and at a million keys each table costs a cache miss per key (decoding
    /// one such dictionary took a quarter less time without them, a 200,000-key one an eighth).
    /// So a large dictionary is classified only when its first key object was a key before,
    /// which is how a file of many large dictionaries sharing their keys shows itself: the first
    /// is left to the assembler, every later one is classified. Either way the keys are checked
    /// exactly.
    @inline(__always)
    func classifies(count: Int, firstKey: Int) -> Bool {
        count <= Self.largestAlwaysClassified || classOf[firstKey] != Self.unassigned
    }

    /// Records that key object `object` was a key of a dictionary that was not classified.
    @inline(__always)
    mutating func markUsedUnclassified(_ object: Int) {
        if classOf[object] == Self.unassigned { classOf[object] = Self.usedUnclassified }
    }

    /// Starts checking the keys of one dictionary of `count` entries.
    @inline(__always)
    mutating func beginDictionary(count: Int) {
        // Room for every key to be new, made at once: growing a step at a time rehashed a
        // 200,000-key dictionary's keys eighteen times over.
        if 2 * (classCount + count) > bucketCount { reserve(classCount + count) }
        if serial == UInt32.max {
            // Never reached by real files; restarting the stamps keeps the check exact anyway.
            serial = 0
            for i in 0..<classCount { classes[i].stamp = 0 }
        }
        serial &+= 1
    }

    /// Adds the key object `object`, whose decoded text is `text`, to the dictionary begun last.
    /// Returns false when its text is already among the dictionary's keys, or may be: the caller
    /// must then decide with string comparison.
    @inline(__always)
    mutating func admit(_ object: Int, text: String) -> Bool {
        var c = classOf[object]
        if c == Self.unassigned || c == Self.usedUnclassified {
            c = assignClass(text)
            classOf[object] = c
        }
        guard c != Self.unclassified else { return false }
        let entry = classes + Int(c &- 1)
        if entry.pointee.stamp == serial { return false }
        entry.pointee.stamp = serial
        return true
    }

    /// The ``SeededByteHash`` under ``seed`` of the text of key object `object`, which
    /// ``admit(_:text:)`` has admitted.
    @inline(__always)
    func hash(ofAdmitted object: Int) -> UInt64 {
        classes[Int(classOf[object] &- 1)].hash
    }

    @inline(never)
    private mutating func assignClass(_ text: String) -> UInt32 {
        let h = SeededByteHash.hash(text, seed: seed).hash
        guard classCount < Int(UInt32.max) - 2 else { return Self.unclassified }
        probeBudget &+= 8
        let tag = h & 0xFFFF_FFFF_0000_0000
        let mask = bucketCount &- 1
        var bucket = Int(truncatingIfNeeded: h) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { break }
            if entry & 0xFFFF_FFFF_0000_0000 == tag {
                let c = UInt32(truncatingIfNeeded: entry)
                if classes[Int(c &- 1)].text.hasSameUTF8(as: text) { return c }
            }
            probeBudget &-= 1
            if probeBudget < 0 { return Self.unclassified }
            bucket = (bucket &+ 1) & mask
        }
        // `beginDictionary(count:)` made room for every key of the dictionary being checked.
        (classes + classCount).initialize(to: Class(text: text, hash: h, stamp: 0))
        classCount += 1
        let c = UInt32(truncatingIfNeeded: classCount)
        buckets[bucket] = tag | UInt64(c)
        return c
    }

    /// Makes room for `total` classes: the class storage and a table at most half full.
    @inline(never)
    private mutating func reserve(_ total: Int) {
        if total > classCapacity {
            (classesStorage, classCapacity) = classes.movedToLarger(count: classCount, capacity: classCapacity, toHold: total)
        }
        var size = bucketCount
        while size < 2 * total { size *= 2 }
        guard size > bucketCount else { return }
        buckets.deallocate()
        bucketCount = size
        bucketsStorage = .allocate(capacity: bucketCount)
        buckets.initialize(repeating: 0, count: bucketCount)
        let mask = bucketCount &- 1
        for i in 0..<classCount {
            let h = classes[i].hash
            var bucket = Int(truncatingIfNeeded: h) & mask
            while buckets[bucket] != 0 { bucket = (bucket &+ 1) & mask }
            buckets[bucket] = h & 0xFFFF_FFFF_0000_0000 | UInt64(i + 1)
        }
    }
}
