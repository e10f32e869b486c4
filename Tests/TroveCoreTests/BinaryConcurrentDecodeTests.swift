import Foundation
import Testing
@testable import TroveCore

/// A two-thread decode forced on every input (threshold 0) against the one-thread decode.
private struct TwoReads {
    let sequential: Result<PlistValue, PlistError>
    let parallel: Result<PlistValue, PlistError>
    let split: Bool
    let decodedAgain: Bool
    let jobsTakenByCaller: Int

    /// `schedule` says who takes the split container's later jobs. The default, the worker
    /// alone, is deterministic: with both threads taking jobs, which objects each scanner keeps,
    /// and so how often a value limit counts a shared object, depends on timing.
    init(_ bytes: [UInt8], limits: PlistLimits = .default, schedule: BinaryConcurrentDecode.SplitSchedule = .workerOnly) {
        sequential = bytes.withUnsafeBytes { raw in
            var reader = BinaryPlistReader(limits: limits)
            reader.decodesInParallel = false
            return Result { () throws(PlistError) in try reader.read(raw, keepingLayout: false).value }
        }
        var outcome = BinaryConcurrentDecode.Outcome()
        outcome.schedule = schedule
        parallel = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in
                let trailer = try BinaryTrailer(raw)
                return try BinaryConcurrentDecode.decode(raw, trailer: trailer, limits: limits, outcome: &outcome)
            }
        }
        split = outcome.split
        decodedAgain = outcome.decodedAgain
        jobsTakenByCaller = outcome.jobsTakenByCaller
    }

    /// Nil when both reads agree: the same value with every dictionary's keys in the same
    /// order, or the same error.
    var difference: String? {
        readsDifference(sequential, parallel) { a, b in sameInOrder(a, b) ? nil : "values differ" }
    }
}

/// Nil when a one-thread and a two-thread read agree: both succeed with results `same` finds
/// no difference between (else its description), or both fail with the same error.
private func readsDifference<Read>(
    _ sequential: Result<Read, PlistError>, _ parallel: Result<Read, PlistError>, same: (Read, Read) -> String?
) -> String? {
    switch (sequential, parallel) {
    case (.success(let a), .success(let b)):
        return same(a, b)
    case (.failure(let a), .failure(let b)):
        return a == b ? nil : "errors differ: \(a) vs \(b)"
    case (.success, .failure(let b)):
        return "only the two-thread read failed: \(b)"
    case (.failure(let a), .success):
        return "only the one-thread read failed: \(a)"
    }
}

/// Equal values whose dictionaries list their keys in the same order (`==` ignores order).
private func sameInOrder(_ a: PlistValue, _ b: PlistValue) -> Bool {
    switch (a, b) {
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameInOrder($0, $1) }
    case (.dictionary(let x), .dictionary(let y)):
        return x.keys == y.keys && zip(x.keys, y.keys).allSatisfy { key, _ in sameInOrder(x[key]!, y[key]!) }
    default:
        return a == b
    }
}

// MARK: - Hand-built files

/// A marker byte with a count, followed by an extended count when it does not fit the nibble.
private func counted(_ kind: UInt8, _ count: Int) -> [UInt8] {
    count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F, 0x12] + binaryBigEndian(UInt64(count), width: 4)
}

private func refs(_ indices: [Int]) -> [UInt8] { indices.flatMap { binaryBigEndian(UInt64($0), width: 2) } }
private func ascii(_ text: String) -> [UInt8] { counted(0x5, text.utf8.count) + Array(text.utf8) }
private func array(_ children: [Int]) -> [UInt8] { counted(0xA, children.count) + refs(children) }
private func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] { counted(0xD, keys.count) + refs(keys) + refs(values) }
private func integer(_ value: Int) -> [UInt8] { [0x11] + binaryBigEndian(UInt64(value), width: 2) }

/// A builder with two-byte references and four-byte offsets, whose object 0 (the top) is set
/// last, once its children's numbers are known.
private func file(_ body: (inout BinaryPlistBuilder) -> [UInt8]) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.refSize = 2
    builder.offsetSize = 4
    builder.add([])
    builder.objects[0] = body(&builder)
    return builder.build()
}

/// An array of `count` records `{name: "record i", id: i}`, the two key strings shared, each
/// record's objects numbered after it; `record` may replace any record.
private func records(_ count: Int, _ builder: inout BinaryPlistBuilder, record: ((Int, inout BinaryPlistBuilder) -> Int?)? = nil) -> [Int] {
    let name = builder.add(ascii("name"))
    let id = builder.add(ascii("id"))
    return (0..<count).map { i in
        if let special = record?(i, &builder) { return special }
        let index = builder.add([])
        let text = builder.add(ascii("record \(i)"))
        let number = builder.add(integer(i))
        builder.objects[index] = dictionary([name, id], [text, number])
        return index
    }
}

/// Every way the jobs of a split container can be taken.
private let schedules: [BinaryConcurrentDecode.SplitSchedule] = [.shared, .callerOnly, .workerOnly]

/// `{before: shared, list: [300 records, every 37th of them shared], after: shared}`: one
/// container reached before the split container, in both halves, and after it.
private func sharedContainerFile() -> [UInt8] {
    file { b in
        let shared = b.add([])
        let sharedText = b.add(ascii("shared text"))
        let inner = b.add(array([sharedText]))
        b.objects[shared] = array([inner, sharedText])
        let list = b.add([])
        let children = records(300, &b) { i, _ in i % 37 == 0 ? shared : nil }
        b.objects[list] = array(children)
        let keys = [b.add(ascii("before")), b.add(ascii("list")), b.add(ascii("after"))]
        return dictionary(keys, [shared, list, shared])
    }
}

/// A value of one of the generated shapes the split tests write and read back.
private func generatedValue(_ shape: String) -> PlistValue {
    switch shape {
    case "dictionary":
        return .dictionary(PlistDictionary((0..<5000).map { ("key \($0)", $0 % 3 == 0 ? .string("value \($0 % 700)") : .integer(PlistInteger($0))) }))
    case "array":
        return .array((0..<3000).map { i in
            i % 4 == 0 ? .array([.integer(PlistInteger(i)), .string("s\(i % 50)")]) : .real(PlistReal(Double(i) / 7))
        })
    case "nested":
        let records: [PlistValue] = (0..<800).map { i in
            .dictionary(["id": .integer(PlistInteger(i)), "tags": .array([.string("t\(i % 7)"), .bool(i % 2 == 0)]), "name": .string("n\(i)")])
        }
        return .dictionary(["version": .integer(3), "records": .array(records), "title": .string("nested")])
    case "large dictionaries":
        // More large dictionaries than either thread keeps key segments for, each with keys
        // of its own, half of them shared with the next one.
        return .array((0..<20).map { j in
            .dictionary(PlistDictionary((0..<4200).map { i in ("d\(i < 2100 ? j / 2 : j) k\(i)", .integer(PlistInteger(i % 5))) }))
        })
    default:
        return .array((0..<40).map { j in .dictionary(PlistDictionary((0..<60).map { ("k\($0)", .integer(PlistInteger($0 * j))) })) })
    }
}

/// A malformed file of the kind named, whose error the split and one-thread reads must agree on,
/// with the limits to read it under.
private func malformedFile(_ kind: String) -> (bytes: [UInt8], limits: PlistLimits) {
    var limits = PlistLimits.default
    let bytes: [UInt8]
    switch kind {
    case "cycle through the split container":
        bytes = file { b in array(records(300, &b) { i, _ in i == 250 ? 0 : nil }) }
    case "cycle in the worker's half":
        bytes = file { b in
            array(records(300, &b) { i, b in
                guard i == 280 else { return nil }
                let x = b.add([])
                let y = b.add(array([x]))
                b.objects[x] = array([y])
                return x
            })
        }
    case "non-string key in the first half", "non-string key in the worker's half":
        let bad = kind.contains("first") ? 10 : 290
        bytes = file { b in
            let keys = (0..<300).map { i in b.add(i == bad ? integer(i) : ascii("k\(i)")) }
            return dictionary(keys, (0..<300).map { b.add(integer($0)) })
        }
    case "too deep in the worker's half":
        limits.maxDepth = 8
        bytes = file { b in
            array(records(300, &b) { i, b in
                guard i == 290 else { return nil }
                let top = b.add([])
                var previous = top
                for _ in 0..<10 {
                    let next = b.add([])
                    b.objects[previous] = array([next])
                    previous = next
                }
                b.objects[previous] = array([])
                return top
            })
        }
    case "bad value in the first half, bad key in the worker's half":
        // One thread reads every key before any value, so the key's error comes first,
        // although the calling thread's half fails first.
        bytes = file { b in
            let keys = (0..<300).map { i in b.add(i == 290 ? integer(i) : ascii("k\(i)")) }
            return dictionary(keys, (0..<300).map { i in b.add(i == 10 ? array([60000]) : integer(i)) })
        }
    default:
        // The first half's error comes first in walk order, as on one thread.
        bytes = file { b in
            array(records(300, &b) { i, b in
                guard i == 20 || i == 280 else { return nil }
                return b.add(array([60000 + i]))
            })
        }
    }
    return (bytes, limits)
}

@Suite("Binary decode on two threads")
struct BinaryConcurrentDecodeTests {
    @Test("every binary fixture reads the same on two threads as on one",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func corpus() {
        var splits = 0
        for row in BinaryFixtures.binaryRows {
            for schedule in schedules {
                let reads = TwoReads(row.bytes, schedule: schedule)
                if reads.split && schedule == .shared { splits += 1 }
                #expect(reads.difference == nil, "\(row.path), \(schedule): \(reads.difference ?? "")")
            }
        }
        // Most fixtures are too small to offer a container worth splitting; many are not.
        #expect(splits > 20)
    }

    @Test("generated documents split and read the same", arguments: [
        "dictionary", "array", "nested", "wide dictionaries",
    ], schedules)
    func generated(_ shape: String, _ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let value = generatedValue(shape)
        let bytes = try BinaryPlistWriter().write(value)
        let reads = TwoReads(bytes, schedule: schedule)
        #expect(reads.split)
        #expect(!reads.decodedAgain)
        #expect(reads.difference == nil)
        #expect(sameInOrder(try reads.parallel.get(), value))
        switch schedule {
        case .callerOnly: #expect(reads.jobsTakenByCaller == BinarySplitJobs.count)
        case .workerOnly: #expect(reads.jobsTakenByCaller == 0)
        case .shared: #expect(reads.jobsTakenByCaller <= BinarySplitJobs.count)
        }
    }

    @Test("objects referenced from both halves and after the split container", arguments: schedules)
    func sharedObjects(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = sharedContainerFile()
        let reads = TwoReads(bytes, schedule: schedule)
        #expect(reads.split)
        #expect(!reads.decodedAgain)
        #expect(reads.difference == nil)
    }

    @Test("a key repeated across the two halves keeps its first entry", arguments: schedules)
    func repeatedKeysAcrossHalves(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = file { b in
            let keys = (0..<200).map { b.add(ascii("k\($0)")) }
            // The second half repeats the first half's keys as separate objects.
            let repeats = (0..<200).map { b.add(ascii("k\($0)")) }
            let values = (0..<400).map { b.add(integer($0)) }
            return dictionary(keys + repeats, values)
        }
        let reads = TwoReads(bytes, schedule: schedule)
        #expect(reads.split)
        #expect(reads.difference == nil)
        guard case .dictionary(let read) = try reads.parallel.get() else { Issue.record("not a dictionary"); return }
        #expect(read.count == 200)
        #expect(read.keys.first == "k0" && read.keys.last == "k199")
        #expect(read["k5"] == .integer(5))
    }

    @Test("malformed input fails with the one-thread read's error", arguments: [
        "cycle through the split container", "cycle in the worker's half", "non-string key in the first half",
        "non-string key in the worker's half", "too deep in the worker's half", "bad reference in each half",
        "bad value in the first half, bad key in the worker's half",
    ], schedules)
    func malformed(_ kind: String, _ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let (bytes, limits) = malformedFile(kind)
        let reads = TwoReads(bytes, limits: limits, schedule: schedule)
        #expect(reads.split)
        guard case .failure = reads.sequential else { Issue.record("\(kind) was read"); return }
        #expect(reads.difference == nil)
    }

    @Test("the value limit holds over both halves together")
    func valueLimitOverBothHalves() throws {
        // The list (1 + 300 references), the two key strings, and 300 records of 5 values (the
        // dictionary, its 2 entries, 2 strings or numbers): 1,803 values.
        let bytes = file { b in array(records(300, &b)) }
        var limits = PlistLimits.default
        limits.maxValues = 1802
        // Each half alone stays under the limit: only the sum exceeds it.
        let reads = TwoReads(bytes, limits: limits)
        #expect(reads.split)
        guard case .failure(let error) = reads.sequential else { Issue.record("read under a limit of 1802"); return }
        #expect(error.code == PlistLimit.values.code)
        #expect(reads.difference == nil)
        // At the limit: the halves' sum counts the two key strings twice, so only the decode
        // on one thread that follows confirms the file is within it.
        limits.maxValues = 1803
        let atLimit = TwoReads(bytes, limits: limits)
        #expect(atLimit.difference == nil)
        #expect(atLimit.decodedAgain)
        limits.maxValues = 1805
        let within = TwoReads(bytes, limits: limits)
        #expect(within.difference == nil)
        #expect(!within.decodedAgain)
        // The jobs the calling thread takes count into its own count, once, as on one thread:
        // alone, it fails under the limit and reads the file at it without a second decode.
        limits.maxValues = 1802
        let aloneUnder = TwoReads(bytes, limits: limits, schedule: .callerOnly)
        #expect(aloneUnder.difference == nil)
        #expect(aloneUnder.jobsTakenByCaller == BinarySplitJobs.count)
        limits.maxValues = 1803
        let aloneAtLimit = TwoReads(bytes, limits: limits, schedule: .callerOnly)
        #expect(aloneAtLimit.difference == nil)
        #expect(!aloneAtLimit.decodedAgain)
    }

    @Test("objects both halves reach count once, as on one thread")
    func valueLimitWithSharedObjects() throws {
        // Every record is one shared dictionary: the halves each count it, the file once.
        let bytes = file { b in
            let shared = b.add([])
            let children = records(300, &b) { _, _ in shared }
            // Objects 2 and 3 are the strings "name" and "id" `records` adds first.
            b.objects[shared] = dictionary([2], [3])
            return array(children)
        }
        var limits = PlistLimits.default
        // top (1 + 300 references), the two key strings, the shared dictionary (1 + 1 entry).
        limits.maxValues = 305
        let reads = TwoReads(bytes, limits: limits)
        #expect(reads.split)
        #expect(reads.decodedAgain)
        #expect(reads.difference == nil)
        #expect(throws: Never.self) { try reads.sequential.get() }
    }

    @Test("the option turns the two threads off, and reads agree either way")
    func option() throws {
        #expect(PlistReadOptions().decodesBinaryInParallel)
        #expect(BinaryPlistReader().decodesInParallel)
        let value = PlistValue.array((0..<60000).map { .string("string number \($0)") })
        let data = Data(try BinaryPlistWriter().write(value))
        #expect(data.count >= BinaryConcurrentDecode.defaultMinimumSize)
        var options = PlistReadOptions(keepsLayout: false)
        let on = try Plist.read(data, options: options).value
        options.decodesBinaryInParallel = false
        let off = try Plist.read(data, options: options).value
        #expect(sameInOrder(on, value) && sameInOrder(off, value))
        var reader = BinaryPlistReader()
        #expect(reader.splits(data.count, objects: 60001) == BinaryConcurrentDecode.hasTwoProcessors)
        #expect(!reader.splits(data.count, objects: 100))
        reader.decodesInParallel = false
        #expect(!reader.splits(data.count, objects: 60001))
    }
}

// MARK: - Layout notes on two threads

/// A lossless read forced to split (threshold 0) against the one-thread lossless read.
private struct TwoLosslessReads {
    let sequential: Result<(value: PlistValue, layout: BinaryLayout?), PlistError>
    let parallel: Result<(value: PlistValue, layout: BinaryLayout?), PlistError>
    let split: Bool
    let decodedAgain: Bool
    let jobsTakenByCaller: Int

    init(_ bytes: [UInt8], limits: PlistLimits = .default, schedule: BinaryConcurrentDecode.SplitSchedule = .workerOnly) {
        sequential = bytes.withUnsafeBytes { raw in
            var reader = BinaryPlistReader(limits: limits)
            reader.decodesInParallel = false
            return Result { () throws(PlistError) in try reader.read(raw, keepingLayout: true) }
        }
        var outcome = BinaryConcurrentDecode.Outcome()
        outcome.schedule = schedule
        parallel = bytes.withUnsafeBytes { raw in
            Result { () throws(PlistError) in
                try BinaryPlistReader.decodeSplitting(
                    raw, trailer: try BinaryTrailer(raw), limits: limits, keepingLayout: true, outcome: &outcome)
            }
        }
        split = outcome.split
        decodedAgain = outcome.decodedAgain
        jobsTakenByCaller = outcome.jobsTakenByCaller
    }

    /// The two-thread read, once checked to have split, joined without decoding again, and
    /// agreed with the one-thread read.
    func joinedRead(sourceLocation: SourceLocation = #_sourceLocation) throws -> (value: PlistValue, layout: BinaryLayout?) {
        #expect(split, sourceLocation: sourceLocation)
        #expect(!decodedAgain, sourceLocation: sourceLocation)
        #expect(difference == nil, sourceLocation: sourceLocation)
        return try parallel.get()
    }

    /// Nil when both reads agree: the same value in the same order and the same notes, or the
    /// same error.
    var difference: String? {
        readsDifference(sequential, parallel) { a, b in
            guard sameInOrder(a.value, b.value) else { return "values differ" }
            guard let x = a.layout, let y = b.layout else { return "a layout is missing" }
            return layoutDifference(x, y)
        }
    }
}

/// The first field in which two layouts differ, or nil. Key texts are compared object by
/// object: the order the threads noted them in is not part of the notes' meaning.
private func layoutDifference(_ a: BinaryLayout, _ b: BinaryLayout) -> String? {
    if a.versionByte != b.versionByte || a.unusedTrailerBytes != b.unusedTrailerBytes || a.sortVersion != b.sortVersion
        || a.offsetIntSize != b.offsetIntSize || a.objectRefSize != b.objectRefSize { return "trailer notes differ" }
    if a.encodings != b.encodings { return "encodings differ" }
    if a.walkObjects != b.walkObjects { return "walks differ (\(a.walkObjects.count) and \(b.walkObjects.count) steps)" }
    if a.walkExtents != b.walkExtents { return "walk extents differ" }
    if a.keptOrphans != b.keptOrphans { return "kept orphans differ (\(a.keptOrphans.count) and \(b.keptOrphans.count))" }
    if a.copies != b.copies { return "orphan copies differ (\(a.copies.count) and \(b.copies.count))" }
    if a.unmatchedOrphanCount != b.unmatchedOrphanCount { return "unmatched orphans differ" }
    if a.int128HighWords != b.int128HighWords { return "16-byte integers' high words differ" }
    if Set(a.repeatedKeys.keys) != Set(b.repeatedKeys.keys) { return "repeated keys noted at different steps" }
    for (step, x) in a.repeatedKeys {
        let y = b.repeatedKeys[step]!
        if x.keys != y.keys || x.hiddenValues != y.hiddenValues { return "repeated keys at step \(step) differ" }
    }
    for object in 0..<a.objectCount where a.keyTexts[UInt32(object)] != b.keyTexts[UInt32(object)] {
        return "key text of object \(object) differs"
    }
    return nil
}

@Suite("Lossless binary read on two threads")
struct BinaryConcurrentLayoutTests {
    @Test("every binary fixture gets the same value and notes on two threads as on one",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func corpus() throws {
        var splits = 0
        var joined = 0
        for row in BinaryFixtures.binaryRows {
            for schedule in schedules {
                let reads = TwoLosslessReads(row.bytes, schedule: schedule)
                if reads.split && schedule == .workerOnly {
                    splits += 1
                    if !reads.decodedAgain { joined += 1 }
                }
                #expect(reads.difference == nil, "\(row.path), \(schedule): \(reads.difference ?? "")")
                // The notes of the two-thread read write the file back byte for byte.
                if case .success(let read) = reads.parallel, let layout = read.layout, layout.reproducesSource,
                   case .success(let one) = reads.sequential, try BinaryPlistWriter().write(one.value, layout: one.layout) == row.bytes {
                    #expect(try BinaryPlistWriter().write(read.value, layout: layout) == row.bytes, "\(row.path), \(schedule)")
                }
            }
        }
        #expect(splits > 20)
        // Files whose threads both reach one container are read again on one thread; few are.
        #expect(joined * 10 >= splits * 9, "\(joined) of \(splits) splits joined")
    }

    @Test("generated documents split, join and write back byte for byte", arguments: [
        "dictionary", "array", "nested", "wide dictionaries", "large dictionaries",
    ], schedules)
    func generated(_ shape: String, _ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let value = generatedValue(shape)
        let bytes = try BinaryPlistWriter().write(value)
        let read = try TwoLosslessReads(bytes, schedule: schedule).joinedRead()
        #expect(sameInOrder(read.value, value))
        #expect(try BinaryPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("a container both threads reach is read again on one thread, with the same notes", arguments: schedules)
    func containerBothThreadsReach(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = sharedContainerFile()
        let reads = TwoLosslessReads(bytes, schedule: schedule)
        #expect(reads.split)
        #expect(reads.difference == nil)
        // Every job holds a record that is `shared`: the read goes again on one thread as soon
        // as the worker took one. Alone, the calling thread's scanner knows every part.
        #expect(reads.decodedAgain == (reads.jobsTakenByCaller < BinarySplitJobs.count))
        if schedule == .workerOnly { #expect(reads.decodedAgain) }
        if schedule == .callerOnly { #expect(!reads.decodedAgain) }
    }

    @Test("a container first reached in the worker's part and met again after it joins", arguments: schedules)
    func containerReachedByTheWorkerFirst(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = file { b in
            let shared = b.add([])
            let sharedText = b.add(ascii("shared text"))
            let inner = b.add(array([sharedText, b.add(integer(7))]))
            b.objects[shared] = array([inner, sharedText])
            let list = b.add([])
            let children = records(300, &b) { i, _ in i == 280 ? shared : nil }
            b.objects[list] = array(children)
            let keys = [b.add(ascii("list")), b.add(ascii("after"))]
            return dictionary(keys, [list, shared])
        }
        let read = try TwoLosslessReads(bytes, schedule: schedule).joinedRead()
        #expect(try BinaryPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("repeated keys, in the split dictionary and inside a part", arguments: ["split dictionary", "worker's part"], schedules)
    func repeatedKeys(_ place: String, _ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes: [UInt8]
        if place == "split dictionary" {
            bytes = file { b in
                let keys = (0..<200).map { b.add(ascii("k\($0)")) }
                let repeats = (0..<200).map { b.add(ascii("k\($0 * 3)")) }
                let values = (0..<400).map { b.add(integer($0)) }
                return dictionary(keys + repeats, values)
            }
        } else {
            bytes = file { b in
                array(records(300, &b) { i, b in
                    guard i == 250 else { return nil }
                    let index = b.add([])
                    let key = b.add(ascii("twice"))
                    b.objects[index] = dictionary([key, key], [b.add(integer(1)), b.add(integer(2))])
                    return index
                })
            }
        }
        let reads = TwoLosslessReads(bytes, schedule: schedule)
        #expect(reads.split)
        #expect(reads.difference == nil)
        let read = try reads.parallel.get()
        #expect(read.layout?.repeatedKeys.count == 1)
        #expect(try BinaryPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("orphaned booleans and 16-byte integers in the worker's part", arguments: schedules)
    func orphansAndWideIntegers(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = file { b in
            let flag = b.add([0x09])
            let children = records(300, &b) { i, b in
                guard i % 50 == 49 else { return nil }
                let index = b.add([])
                // A true the file repeats unreferenced, as CoreFoundation does, and an integer
                // whose high half is not zero.
                _ = b.add([0x09])
                let wide = b.add([0x14] + binaryBigEndian(UInt64(i), width: 8) + binaryBigEndian(UInt64(i), width: 8))
                b.objects[index] = array([flag, wide])
                return index
            }
            return array(children)
        }
        let read = try TwoLosslessReads(bytes, schedule: schedule).joinedRead()
        #expect(read.layout?.keptOrphans.map(\.marker) == [UInt8](repeating: 0x09, count: 6))
        #expect(read.layout?.int128HighWords.count == 6)
        #expect(try BinaryPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("orphans whose only reachable twins are in one part are kept or paired as on one thread", arguments: schedules)
    func twinsInOnePart(_ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let bytes = file { b in
            let children = records(300, &b) { i, b in
                guard i % 40 == 39 else { return nil }
                let index = b.add([])
                // An orphan before its twins, which the array names higher one first; a UID of
                // the same value in another width; a one-byte object (the last record's null,
                // which only it holds), each with an orphan copy. The four-byte UIDs are paired,
                // the others kept.
                let value = UInt8(i / 40)
                _ = b.add([0x83, 0, 0, 0, value])
                let low = b.add([0x83, 0, 0, 0, value])
                let high = b.add([0x83, 0, 0, 0, value])
                let wide = b.add([0x81, 0, value])
                _ = b.add([0x81, 0, value])
                let oneByte: [UInt8] = i == 279 ? [0x00] : [0x08]
                let single = b.add(oneByte)
                _ = b.add(oneByte)
                b.objects[index] = array([high, low, wide, single])
                return index
            }
            return array(children)
        }
        let read = try TwoLosslessReads(bytes, schedule: schedule).joinedRead()
        let expected = try #require(slowOrphans(bytes))
        let layout = try #require(read.layout)
        #expect(layout.copies.map { [Int($0.object), Int($0.original)] } == expected.copies)
        #expect(keptOrphanRows(layout) == expected.kept)
        #expect(layout.unmatchedOrphanCount == expected.unmatched)
        #expect(expected.copies.count == 7 && expected.kept.count == 14 && expected.unmatched == 0)
        #expect(try BinaryPlistWriter().write(read.value, layout: read.layout) == bytes)
    }

    @Test("malformed input fails with the one-thread lossless read's error", arguments: [
        "cycle in the worker's half", "non-string key in the worker's half", "bad reference in each half",
    ], schedules)
    func malformed(_ kind: String, _ schedule: BinaryConcurrentDecode.SplitSchedule) throws {
        let (bytes, limits) = malformedFile(kind)
        let reads = TwoLosslessReads(bytes, limits: limits, schedule: schedule)
        #expect(reads.split)
        guard case .failure = reads.sequential else { Issue.record("\(kind) was read"); return }
        #expect(reads.difference == nil)
    }
}
