import Foundation
import Testing
@testable import TroveCore
import TroveTestSupport

/// Opens `bytes` lazily.
private func lazy(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> LazyBinaryPlist {
    try LazyBinaryPlist(source: PlistByteBuffer(copying: bytes), limits: limits)
}

/// The error `body` throws, or nil.
private func thrown(_ body: () throws(PlistError) -> Void) -> PlistError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

/// What ``LazyPlistNode/count()`` should say for a fully decoded value.
private func expectedCount(_ value: PlistValue) -> Int? {
    switch value {
    case .array(let a): return a.count
    case .dictionary(let d): return d.count
    case .data(let d): return d.count
    case .string(let s): return s.utf16.count
    default: return nil
    }
}

/// An ASCII string object.
private func ascii(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    precondition(bytes.count < 15)
    return [0x50 | UInt8(bytes.count)] + bytes
}

/// A UTF-16 string object.
private func utf16(_ text: String) -> [UInt8] {
    let units = Array(text.utf16)
    precondition(units.count < 15)
    return [0x60 | UInt8(units.count)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
}

/// A one-byte integer object.
private func int(_ value: UInt8) -> [UInt8] { [0x10, value] }

/// A file of `objects` with 1-byte references and offsets; the root is object 0.
private func file(_ objects: [[UInt8]], version: UInt8 = UInt8(ascii: "0")) -> [UInt8] {
    var builder = BinaryPlistBuilder()
    builder.version = version
    for object in objects { builder.add(object) }
    return builder.build()
}

// MARK: - Corpus

/// Walks a lazy tree beside the fully decoded one and records every disagreement.
private struct TreeComparison {
    var nodes = 0
    var keyLookups = 0
    var pathLookups = 0
    var mismatches: [String] = []
    /// Cap on the nodes compared per file, so that a file whose shared objects expand hugely still
    /// finishes; every corpus file stays under it.
    static let nodeBudget = 400_000

    mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition && mismatches.count < 20 { mismatches.append(message()) }
    }

    /// Compares `root` with `value` at every reachable key path: kind, count and materialized
    /// value of each node; children both by lookup (key or index) and by iteration; and a lookup
    /// of the whole path from the document root for a spread of the paths.
    mutating func compare(_ plist: LazyBinaryPlist, _ value: PlistValue) throws {
        var pending: [(node: LazyPlistNode, value: PlistValue, path: PlistKeyPath)] =
            [(try plist.root(), value, PlistKeyPath(components: []))]
        while let (node, expected, path) = pending.popLast() {
            nodes += 1
            guard nodes <= Self.nodeBudget else {
                mismatches.append("more than \(Self.nodeBudget) nodes; walk stopped")
                return
            }
            check(node.kind == expected.kind, "\(path): kind \(node.kind) vs \(expected.kind)")
            let count = try node.count()
            check(count == expectedCount(expected), "\(path): count \(String(describing: count)) vs \(String(describing: expectedCount(expected)))")
            check(try node.materialize() == expected, "\(path): materialized value differs")
            // Lookups from the root along the whole path: all of them in small files, a spread in
            // large ones (the lookups are what the CLI does, each costing a walk from the root).
            if nodes % (nodes < 2_000 ? 1 : 37) == 0 {
                pathLookups += 1
                let found = try plist.node(at: path)
                check(found?.objectIndex == node.objectIndex, "\(path): lookup from the root found \(String(describing: found?.objectIndex)), walk found \(node.objectIndex)")
            }
            switch expected {
            case .array(let elements):
                var iterator = node.elements()
                check(iterator.count == elements.count, "\(path): iterator count")
                var index = 0
                while let element = try iterator.next() {
                    guard index < elements.count else { break }
                    let looked = try node.element(at: index)
                    check(looked?.objectIndex == element.objectIndex, "\(path).\(index): element(at:) differs from iteration")
                    pending.append((element, elements[index], path.appending(index: index)))
                    index += 1
                }
                check(index == elements.count, "\(path): iterated \(index) of \(elements.count) elements")
                check(try node.element(at: elements.count) == nil, "\(path): index past the end found something")
            case .dictionary(let dictionary):
                check(try node.keys() == Array(dictionary.keys), "\(path): keys differ")
                var entries = try node.entries()
                var position = 0
                while let (key, child) = try entries.next() {
                    guard position < dictionary.count else { break }
                    check(key == dictionary[position].key, "\(path): key \(position) is \(key)")
                    // Lookups by key cost a scan of the keys, so very wide dictionaries check a spread.
                    if dictionary.count <= 3_000 || position % 53 == 0 {
                        keyLookups += 1
                        let looked = try node.child(forKey: key)
                        check(looked?.objectIndex == child.objectIndex, "\(path).\(key): child(forKey:) differs from iteration")
                    }
                    pending.append((child, dictionary[position].value, path.appending(key: key)))
                    position += 1
                }
                check(position == dictionary.count, "\(path): iterated \(position) of \(dictionary.count) entries")
                check(try node.child(forKey: "trove \u{1F50E} no such key") == nil, "\(path): a missing key was found")
            default:
                check(try node.element(at: 0) == nil && node.child(forKey: "") == nil, "\(path): a scalar has children")
            }
        }
    }
}

/// Walks every node reachable from the root of a possibly hostile file, swallowing errors, to
/// show that no access crashes or hangs. Returns the first error met, if any.
private func walkEverything(_ plist: LazyBinaryPlist, budget: Int = 20_000) -> PlistError? {
    var firstError: PlistError?
    func note(_ error: PlistError) { if firstError == nil { firstError = error } }
    do {
        var pending = [try plist.root()]
        var visited = 0
        while let node = pending.popLast(), visited < budget {
            visited += 1
            do {
                _ = try node.count()
                if node.kind == .dictionary {
                    var entries = try node.entries()
                    while let (key, child) = try entries.next() {
                        _ = try node.child(forKey: key)
                        pending.append(child)
                    }
                } else {
                    var elements = node.elements()
                    while let child = try elements.next() { pending.append(child) }
                }
            } catch {
                note(error)
            }
        }
    } catch {
        note(error)
    }
    return firstError
}

@Suite("Lazy binary plist: corpus")
struct LazyBinaryPlistCorpusTests {
    @Test("every key path of every valid binary fixture answers lazily as the full decode does",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func validFilesAgree() throws {
        let rows = BinaryFixtures.validRows
        #expect(rows.count > 100)
        var totals = TreeComparison()
        var files = 0
        for row in rows {
            let full = try readBinary(row.bytes, keepingLayout: false).value
            var comparison = TreeComparison()
            do {
                try comparison.compare(try lazy(row.bytes), full)
            } catch {
                comparison.mismatches.append("threw \(error)")
            }
            #expect(comparison.mismatches.isEmpty, "\(row.path): \(comparison.mismatches.joined(separator: "; "))")
            totals.nodes += comparison.nodes
            totals.keyLookups += comparison.keyLookups
            totals.pathLookups += comparison.pathLookups
            files += 1
        }
        print("lazy corpus: \(files) valid files, \(totals.nodes) key paths compared (kind, count, value), \(totals.keyLookups) key lookups, \(totals.pathLookups) lookups from the root")
        #expect(totals.nodes > 10_000)
    }

    @Test("every must-reject binary fixture fails on access or on materializing the root, as the full reader does",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func mustRejectFilesFail() {
        let rows = BinaryFixtures.binaryRows.filter { $0.expectation == "must-reject" && $0.category != "keyed-archive" }
        #expect(rows.count > 50)
        var sameCode = 0
        for row in rows {
            let lazyError = thrown { () throws(PlistError) in _ = try lazy(row.bytes).materialize() }
            guard let lazyError else {
                Issue.record("\(row.path): materializing the root succeeded")
                continue
            }
            #expect(lazyError.format == .binary, "\(row.path)")
            #expect(lazyError.location != nil, "\(row.path) has no location")
            if let fullError = binaryReadError(row.bytes) {
                if fullError.code == lazyError.code && fullError.location == lazyError.location {
                    sameCode += 1
                } else {
                    print("lazy must-reject \(row.path): lazy \(lazyError) / full \(fullError)")
                }
            }
            // Walking whatever is reachable must not crash or hang either.
            if let plist = try? lazy(row.bytes) { _ = walkEverything(plist) }
        }
        print("lazy must-reject: \(rows.count) rejected, \(sameCode) with the full reader's code and offset")
        #expect(sameCode == rows.count)
    }

    @Test("no-crash binary fixtures are walked to the end or fail cleanly",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func noCrashFiles() {
        let rows = BinaryFixtures.binaryRows.filter { $0.expectation == "no-crash" }
        #expect(!rows.isEmpty)
        for row in rows {
            let fullOutcome = binaryReadError(row.bytes)
            let lazyOutcome = thrown { () throws(PlistError) in _ = try lazy(row.bytes).materialize() }
            #expect(fullOutcome?.code == lazyOutcome?.code, "\(row.path): full \(String(describing: fullOutcome)) lazy \(String(describing: lazyOutcome))")
            if let plist = try? lazy(row.bytes) { _ = walkEverything(plist) }
        }
    }
}

// MARK: - Lookups on hand-made files

@Suite("Lazy binary plist: lookups")
struct LazyBinaryPlistLookupTests {
    /// {"name": "trove", "list": [1, 2, {"deep": true}], "data": <0102>}
    static let sample = file([
        [0xD3, 1, 2, 3, 4, 5, 6],  // 0: dictionary of 3
        ascii("name"), ascii("list"), ascii("data"),  // 1-3
        ascii("trove"),  // 4
        [0xA3, 7, 8, 9],  // 5: array
        [0x42, 1, 2],  // 6: data
        int(1), int(2),  // 7, 8
        [0xD1, 10, 11],  // 9: {"deep": true}
        ascii("deep"), [0x09],  // 10, 11
    ])

    @Test("key paths, kinds and counts come from the objects on the path")
    func keyPaths() throws {
        let plist = try lazy(Self.sample)
        let root = try plist.root()
        #expect(root.kind == .dictionary)
        #expect(root.depth == 1)
        #expect(try root.count() == 3)
        #expect(try root.keys() == ["name", "list", "data"])
        #expect(try plist.node(at: "name")?.materialize() == "trove")
        #expect(try plist.node(at: "name")?.count() == 5)
        #expect(try plist.node(at: "list")?.kind == .array)
        #expect(try plist.node(at: "list")?.count() == 3)
        #expect(try plist.node(at: "list.1")?.materialize() == 2)
        #expect(try plist.node(at: "list.2.deep")?.materialize() == true)
        #expect(try plist.node(at: "list.2")?.depth == 3)
        #expect(try plist.node(at: "data")?.kind == .data)
        #expect(try plist.node(at: "data")?.count() == 2)
        #expect(try plist.node(at: "data")?.materialize() == .data(Data([1, 2])))
        // What PlistValue's key-path subscript gives nil for, the lazy lookup does too.
        let full = try readBinary(Self.sample).value
        for path in ["missing", "list.3", "list.-1", "list.x", "name.0", "list.2.deep.more", "", "list.+1"] {
            let keyPath = PlistKeyPath(path)
            #expect(try plist.node(at: keyPath)?.materialize() == full[keyPath: keyPath], "\(path)")
        }
        #expect(try plist.node(at: PlistKeyPath(components: []))?.objectIndex == 0)
        #expect(try plist.materialize() == full)
    }

    @Test("iteration yields nodes in file order")
    func iteration() throws {
        let root = try lazy(Self.sample).root()
        var entries = try root.entries()
        #expect(entries.count == 3)
        let collected = try entries.collect()
        #expect(collected.map(\.key) == ["name", "list", "data"])
        #expect(collected.map(\.value.kind) == [.string, .array, .data])
        var elements = try #require(try root.child(forKey: "list")).elements()
        #expect(try elements.collect().map { try $0.materialize() } == [1, 2, ["deep": true]])
        // Iterating a scalar, or the wrong kind of container, yields nothing.
        var none = try #require(try root.child(forKey: "name")).elements()
        #expect(try none.next() == nil)
        #expect(try root.child(forKey: "name")?.entries().count == 0)
        #expect(try root.child(forKey: "name")?.keys() == [])
    }

    @Test("a repeated key answers with its first value and counts once, as the full decode")
    func repeatedKeys() throws {
        let bytes = file([
            [0xD3, 1, 2, 1, 3, 4, 5],  // {"a": 1, "b": 2, "a": 3}
            ascii("a"), ascii("b"), int(1), int(2), int(3),
        ])
        let root = try lazy(bytes).root()
        let full = try readBinary(bytes).value
        #expect(try root.child(forKey: "a")?.materialize() == 1)
        #expect(try root.child(forKey: "a")?.materialize() == full["a"])
        #expect(root.storedCount == 3)
        #expect(try root.count() == 2)
        #expect(try root.keys() == ["a", "b"])
        var entries = try root.entries()
        #expect(try entries.collect().map { try $0.value.materialize() } == [1, 2])
        #expect(try root.materialize() == full)
    }

    @Test("keys match by code units, as the full reader's: UTF-16 and Latin-1 objects match, canonically equivalent spellings do not")
    func keyComparison() throws {
        let bytes = file([
            [0xD5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            utf16("plain"),  // ASCII text in a UTF-16 object
            utf16("\u{212A}elvin"),  // KELVIN SIGN, canonically equivalent to K
            [0x52, 0x63, 0xE9],  // "cé" as a Latin-1 "ASCII" object
            utf16("\u{1F600}"),  // a surrogate pair
            ascii("x"),
            int(1), int(2), int(3), int(4), int(5),
        ])
        let plist = try lazy(bytes)
        let root = try plist.root()
        let full = try readBinary(bytes).value
        for key in ["plain", "Kelvin", "\u{212A}elvin", "c\u{E9}", "ce\u{301}", "\u{1F600}", "x", "X", "plai", "c"] {
            #expect(try root.child(forKey: key)?.materialize() == full[key], "\(key)")
        }
        #expect(try root.child(forKey: "\u{212A}elvin")?.materialize() == 2)
        #expect(try root.child(forKey: "Kelvin") == nil)
        #expect(try root.child(forKey: "c\u{E9}")?.materialize() == 3)
        #expect(try root.child(forKey: "ce\u{301}") == nil)
        #expect(try root.child(forKey: "plain")?.materialize() == 1)
        #expect(try root.keys() == Array(try #require(full.dictionaryValue).keys))
        #expect(try plist.node(at: "\u{1F600}")?.materialize() == 4)
    }

    @Test("UTF-8 string objects are read in bplist0x files and refused in bplist00, as by the full reader")
    func utf8Strings() throws {
        let objects: [[UInt8]] = [[0xD1, 1, 2], [0x72, 0xC3, 0xA9], [0x71, 0x41]]
        let newer = try lazy(file(objects, version: UInt8(ascii: "1")))
        #expect(try newer.node(at: "\u{E9}")?.materialize() == "A")
        #expect(try newer.node(at: "\u{E9}")?.count() == 1)
        let older = try lazy(file(objects))
        let error = thrown { () throws(PlistError) in _ = try older.node(at: "x") }
        #expect(error?.code == .badKey)
        #expect(error?.code == binaryReadError(file(objects))?.code)
    }

    @Test("nodes keep their bytes alive and can be used from other tasks")
    func lifetimeAndSendable() async throws {
        var node: LazyPlistNode?
        do {
            var data = Data(Self.sample)
            node = try LazyBinaryPlist(data).node(at: "list")
            data.resetBytes(in: 0..<data.count)  // the plist copied the bytes
        }
        let list = try #require(node)
        let values = try await withThrowingTaskGroup(of: PlistValue?.self) { group in
            for index in 0..<3 {
                group.addTask { try list.element(at: index)?.materialize() }
            }
            var results: [PlistValue?] = []
            for try await value in group { results.append(value) }
            return results
        }
        #expect(values.count == 3)
        #expect(values.contains { $0 == ["deep": true] })
    }

    @Test("storedCount reads the object; count gives the decoded value's count")
    func counts() throws {
        let bytes = file([
            [0xA4, 1, 2, 3, 4],
            utf16("\u{1F600}a"),  // 3 UTF-16 units
            [0x52, 0x63, 0xE9],  // 2 Latin-1 characters
            [0x3F],  // not a value at all: never touched by count
            [0x33, 0, 0, 0, 0, 0, 0, 0, 0],
        ])
        let root = try lazy(bytes).root()
        #expect(root.storedCount == 4)
        #expect(try root.element(at: 0)?.storedCount == 3)
        #expect(try root.element(at: 0)?.count() == 3)
        #expect(try root.element(at: 1)?.count() == 2)
        #expect(try root.element(at: 3)?.count() == nil)
        #expect(try root.element(at: 3)?.kind == .date)
        #expect(thrown { () throws(PlistError) in _ = try root.element(at: 2) }?.code == .badObject)
    }
}

// MARK: - Hostile files

@Suite("Lazy binary plist: hostile input")
struct LazyBinaryPlistHostileTests {
    /// The lazy error of `body` must exist, be located, and (when `compareWithFull`) match the
    /// full reader's code.
    private func expectFailure(
        _ bytes: [UInt8], _ code: PlistError.Code, limits: PlistLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (LazyBinaryPlist) throws(PlistError) -> Void
    ) {
        let error = thrown { () throws(PlistError) in try body(try lazy(bytes, limits: limits)) }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.format == .binary, sourceLocation: sourceLocation)
        if case .byteOffset(let offset)? = error?.location {
            #expect(offset >= 0 && offset <= bytes.count, sourceLocation: sourceLocation)
        } else {
            Issue.record("no byte offset in \(String(describing: error))", sourceLocation: sourceLocation)
        }
    }

    @Test("an array that contains itself is a cycle on the walked path and in materialize")
    func selfCycle() throws {
        let bytes = file([[0xA2, 1, 0], int(7)])
        #expect(try lazy(bytes).node(at: "0")?.materialize() == 7)
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.node(at: "1") }
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.node(at: "1.1.1.1") }
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.materialize() }
        var elements = try lazy(bytes).root().elements()
        #expect(try elements.next()?.kind == .integer)
        #expect(thrown { () throws(PlistError) in _ = try elements.next() }?.code == .referenceCycle)
        #expect(binaryReadError(bytes)?.code == .referenceCycle)
        let error = thrown { () throws(PlistError) in _ = try lazy(bytes).node(at: "1.0") }
        #expect(error?.keyPath == PlistKeyPath("1"))
    }

    @Test("a cycle through a dictionary and an array is found below the root, and materializing the outer part finds it too")
    func indirectCycle() throws {
        // 0: {"k": 2}, 2: [3], 3: {"back": 2}
        let bytes = file([[0xD1, 1, 2], ascii("k"), [0xA1, 3], [0xD1, 4, 2], ascii("back")])
        let plist = try lazy(bytes)
        #expect(try plist.node(at: "k.0")?.kind == .dictionary)
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.node(at: "k.0.back") }
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.node(at: "k")?.materialize() }
        expectFailure(bytes, .referenceCycle) { plist throws(PlistError) in _ = try plist.node(at: "k.0")?.materialize() }
        #expect(binaryReadError(bytes)?.code == .referenceCycle)
    }

    @Test("shared objects are not cycles; exponential sharing is looked up freely and its expansion is limited as in the full reader")
    func sharing() throws {
        // Object i is [i+1, i+1] for 40 levels: 2^40 paths, 41 objects.
        var objects: [[UInt8]] = (0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append(int(1))
        let bytes = file(objects)
        let plist = try lazy(bytes)
        let path = PlistKeyPath(components: Array(repeating: "1", count: 40))
        #expect(try plist.node(at: path)?.materialize() == 1)
        // A subtree 10 levels from the bottom expands to 2^11 - 1 values: within the limits.
        let small = try #require(try plist.node(at: PlistKeyPath(components: Array(repeating: "0", count: 30))))
        #expect(try small.materialize().arrayValue?.count == 2)
        let clock = ContinuousClock()
        var error: PlistError?
        let elapsed = clock.measure { error = thrown { () throws(PlistError) in _ = try plist.materialize() } }
        #expect(error?.code == .expansionLimit)
        #expect(error?.code == binaryReadError(bytes)?.code)
        #expect(error?.location == binaryReadError(bytes)?.location)
        #expect(elapsed < .seconds(5))
        // With the expansion limit raised, the whole value materializes in linear time.
        let raised = PlistLimits(maxExpandedValues: .max)
        #expect(try lazy(bytes, limits: raised).materialize().arrayValue?.count == 2)
    }

    @Test("materialize honours maxExpandedValues and maxDecodedBytes exactly as the full reader does")
    func expansionAndByteLimits() throws {
        // ["abcdef", ["abcdef", {"key": "abcdef"}], "abcdef"] with the string shared.
        let bytes = file([[0xA3, 1, 2, 1], ascii("abcdef"), [0xA2, 1, 3], [0xD1, 4, 1], ascii("key")])
        var outcomes = Set<String>()
        for limit in 0...24 {
            for limits in [PlistLimits(maxExpandedValues: limit), PlistLimits(maxDecodedBytes: limit)] {
                let full = binaryReadError(bytes, limits: limits)
                let lazyError = thrown { () throws(PlistError) in _ = try lazy(bytes, limits: limits).materialize() }
                #expect(full?.code == lazyError?.code && full?.location == lazyError?.location && full?.message == lazyError?.message,
                        "\(limits): full \(String(describing: full)) lazy \(String(describing: lazyError))")
                outcomes.insert(lazyError?.code.rawValue ?? "accepted")
            }
        }
        #expect(outcomes == ["accepted", "expansion-limit", "byte-limit"])
        // A subtree is measured on its own.
        #expect(try lazy(bytes, limits: PlistLimits(maxDecodedBytes: 6)).node(at: "0")?.materialize() == "abcdef")
    }

    @Test("offsets outside the object area fail on access, not on open")
    func badOffsets() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0xA2, 1, 2])
        builder.add(int(1))
        builder.add(int(2))
        let bytes = builder.build(offsets: [8, 11, 200])
        let plist = try lazy(bytes)
        #expect(try plist.node(at: "0")?.materialize() == 1)
        expectFailure(bytes, .badOffset) { plist throws(PlistError) in _ = try plist.node(at: "1") }
        expectFailure(bytes, .badOffset) { plist throws(PlistError) in _ = try plist.materialize() }
        let inHeader = builder.build(offsets: [8, 3, 13])
        expectFailure(inHeader, .badOffset) { plist throws(PlistError) in _ = try plist.node(at: "0") }
        #expect(binaryReadError(bytes)?.code == .badOffset)
    }

    @Test("references at or beyond the object count fail when followed")
    func badReferences() throws {
        let bytes = file([[0xA2, 1, 9], int(1)])
        #expect(try lazy(bytes).node(at: "0")?.materialize() == 1)
        expectFailure(bytes, .badReference) { plist throws(PlistError) in _ = try plist.node(at: "1") }
        expectFailure(bytes, .badReference) { plist throws(PlistError) in _ = try plist.materialize() }
        let keyed = file([[0xD1, 7, 1], int(1)])
        expectFailure(keyed, .badReference) { plist throws(PlistError) in _ = try plist.node(at: "a") }
        expectFailure(keyed, .badReference) { plist throws(PlistError) in _ = try plist.root().keys() }
    }

    @Test("huge counts are refused from the header, before anything is allocated or scanned")
    func hugeCounts() throws {
        let huge: [UInt8] = [0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        for marker: UInt8 in [0xAF, 0xCF, 0xDF, 0x4F, 0x5F, 0x6F] {
            let bytes = file([[marker] + huge, int(1)])
            expectFailure(bytes, .badCount) { plist throws(PlistError) in _ = try plist.root() }
            #expect(binaryReadError(bytes)?.code == .badCount)
        }
        // A count just past what the area holds, in the nibble.
        expectFailure(file([[0xAE, 1]]), .badCount) { plist throws(PlistError) in _ = try plist.root() }
        // An extended count that is not an integer.
        expectFailure(file([[0xAF, 0x22, 0, 0, 0, 0]]), .badCount) { plist throws(PlistError) in _ = try plist.root() }
        // An element whose header lies: found when it is touched.
        let nested = file([[0xA2, 1, 2], int(5), [0xDF] + huge])
        #expect(try lazy(nested).node(at: "0")?.materialize() == 5)
        expectFailure(nested, .badCount) { plist throws(PlistError) in _ = try plist.node(at: "1") }
    }

    @Test("a trailer that claims more objects or bytes than the file has fails on open")
    func badTrailers() throws {
        var builder = BinaryPlistBuilder()
        builder.add(int(1))
        expectFailure(builder.build(objectCount: 1 << 62), .badTrailer) { _ throws(PlistError) in }
        expectFailure(builder.build(tableOffset: 1 << 40), .badTrailer) { _ throws(PlistError) in }
        expectFailure(Array("bplist00".utf8) + [0, 0], .badTrailer) { _ throws(PlistError) in }
        expectFailure(Array("xplist00".utf8) + Array(repeating: 0, count: 40), .badMagic) { _ throws(PlistError) in }
    }

    @Test("keys that are not strings fail on lookup, listing and materialize")
    func nonStringKeys() throws {
        let bytes = file([[0xD2, 1, 2, 3, 3], int(1), ascii("b"), int(9)])
        expectFailure(bytes, .badKey) { plist throws(PlistError) in _ = try plist.node(at: "missing") }
        expectFailure(bytes, .badKey) { plist throws(PlistError) in _ = try plist.root().keys() }
        expectFailure(bytes, .badKey) { plist throws(PlistError) in _ = try plist.root().count() }
        expectFailure(bytes, .badKey) { plist throws(PlistError) in _ = try plist.materialize() }
        // The lookup scans from the first key on, so a key after the bad one is not reached.
        expectFailure(bytes, .badKey) { plist throws(PlistError) in _ = try plist.node(at: "b") }
        let badKeyLast = file([[0xD2, 1, 2, 3, 3], ascii("b"), int(1), int(9)])
        #expect(try lazy(badKeyLast).node(at: "b")?.materialize() == 9)
        let containerKey = file([[0xD1, 0, 1], int(1)])
        expectFailure(containerKey, .badKey) { plist throws(PlistError) in _ = try plist.node(at: "x") }
        #expect(binaryReadError(bytes)?.code == .badKey)
    }

    @Test("unpaired surrogates in keys and values are bad strings")
    func badStrings() throws {
        let bytes = file([[0xD1, 1, 2], [0x61, 0xD8, 0x00], [0x61, 0xDC, 0x00]])
        expectFailure(bytes, .badString) { plist throws(PlistError) in _ = try plist.node(at: "k") }
        expectFailure(bytes, .badString) { plist throws(PlistError) in _ = try plist.root().keys() }
        let value = file([[0xA1, 1], [0x62, 0x00, 0x41, 0xDC, 0x00]])
        expectFailure(value, .badString) { plist throws(PlistError) in _ = try plist.node(at: "0")?.materialize() }
        expectFailure(value, .badString) { plist throws(PlistError) in _ = try plist.node(at: "0")?.count() }
        #expect(try lazy(value).node(at: "0")?.storedCount == 2)
    }

    @Test("nesting deeper than maxDepth fails on the walked path and in materialize")
    func depthLimit() throws {
        // 600 nested one-element arrays around an integer.
        var objects: [[UInt8]] = (0..<600).map { index in [0xA1] + binaryBigEndian(UInt64(index + 1), width: 2) }
        objects.append(int(3))
        var builder = BinaryPlistBuilder()
        builder.refSize = 2
        builder.offsetSize = 2
        for object in objects { builder.add(object) }
        let bytes = builder.build()
        let path = PlistKeyPath(components: Array(repeating: "0", count: 600))
        expectFailure(bytes, .depthLimit) { plist throws(PlistError) in _ = try plist.node(at: path) }
        expectFailure(bytes, .depthLimit) { plist throws(PlistError) in _ = try plist.materialize() }
        #expect(binaryReadError(bytes)?.code == .depthLimit)
        // Within a raised limit the same file reads, lazily and fully alike.
        let raised = PlistLimits(maxDepth: 700)
        #expect(try lazy(bytes, limits: raised).node(at: path)?.materialize() == 3)
        #expect(try lazy(bytes, limits: raised).materialize() == readBinary(bytes, limits: raised).value)
        // Depth counts from the root when materializing a deep subtree.
        let shallow = PlistLimits(maxDepth: 10)
        let ninth = PlistKeyPath(components: Array(repeating: "0", count: 8))
        #expect(try lazy(bytes, limits: shallow).node(at: ninth)?.depth == 9)
        expectFailure(bytes, .depthLimit, limits: shallow) { plist throws(PlistError) in _ = try plist.node(at: ninth)?.materialize() }
    }

    @Test("materialize honours maxValues")
    func valueLimit() throws {
        let bytes = file([[0xA3, 1, 2, 3], int(1), int(2), int(3)])
        expectFailure(bytes, .sizeLimit, limits: PlistLimits(maxValues: 3)) { plist throws(PlistError) in _ = try plist.materialize() }
        // The lazy count is the full reader's, whatever the setting.
        var accepted = 0
        for maxValues in 1...10 {
            let limits = PlistLimits(maxValues: maxValues)
            let full = binaryReadError(bytes, limits: limits)
            let lazyError = thrown { () throws(PlistError) in _ = try lazy(bytes, limits: limits).materialize() }
            #expect(full?.code == lazyError?.code && full?.location == lazyError?.location, "maxValues \(maxValues)")
            if lazyError == nil { accepted += 1 }
        }
        #expect(accepted > 0 && accepted < 10)
        // A subtree counts only its own values.
        #expect(try lazy(bytes, limits: PlistLimits(maxValues: 1)).node(at: "2")?.materialize() == 3)
    }

    @Test("fill bytes, unknown markers and short objects fail when touched")
    func badObjects() throws {
        for object: [UInt8] in [[0x0F], [0x07], [0x24, 0, 0, 0, 0], [0x34], [0x15], [0x88, 1], [0x70], [0xB0], [0xE0], [0xF0]] {
            let bytes = file([[0xA2, 1, 2], int(1), object])
            #expect(try lazy(bytes).node(at: "0")?.materialize() == 1)
            expectFailure(bytes, .badObject) { plist throws(PlistError) in _ = try plist.node(at: "1") }
            #expect(binaryReadError(bytes)?.code == .badObject, "\(object)")
        }
        // An 8-byte real cut short by the offset table.
        let short = file([[0xA1, 1], [0x23, 0, 0, 0]])
        expectFailure(short, .badCount) { plist throws(PlistError) in _ = try plist.node(at: "0") }
    }

    @Test("random corruptions of a valid file never crash a walk, and agree with the full reader when materialized")
    func corruptions() throws {
        var generator = SplitMix(seed: 0x7A27)
        let base = LazyBinaryPlistLookupTests.sample
        var rejected = 0
        for _ in 0..<3_000 {
            var bytes = base
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            let fullError = binaryReadError(bytes)
            let lazyError = thrown { () throws(PlistError) in _ = try lazy(bytes).materialize() }
            #expect(fullError?.code == lazyError?.code, "\(bytes)")
            if lazyError != nil { rejected += 1 }
            if let plist = try? lazy(bytes) { _ = walkEverything(plist) }
        }
        #expect(rejected > 100)
    }
}
