import Foundation
import Testing

@testable import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deeply nested values through every operation: equality, hashing, description, every reader
/// (the XML layout scan included) and every writer are iterative, readers and writers stop at the
/// depth limit, and the depth ceiling keeps the one thing that does recurse (Swift's release of
/// nested enums) inside a 512 KB thread stack.
@Suite("Deep values")
struct DeepValueTests {
    /// The smallest thread stack the library promises to work on: Foundation's default for
    /// secondary threads.
    static let smallStack = 512 * 1024

    @Test("==, hash and description of 100,000 levels need no recursion")
    func iterativeOperationsOnHostileDepth() {
        let outcome = DeepOutcome()
        runOnThread(stackSize: Self.smallStack) {
            let a = nestedArrays(100_000, seed: "x")
            let b = nestedArrays(100_000, seed: "x")
            let c = nestedArrays(100_000, seed: "y")
            outcome.record("equal", a == b)
            outcome.record("unequal", a != c)
            outcome.record("hash", a.hashValue == b.hashValue)
            outcome.record("hash differs", a.hashValue != c.hashValue)
            let text = a.description
            outcome.record("description", text.hasPrefix("[[[[") && text.contains("\"x\"") && text.hasSuffix("]]]]"))
            // Releasing this deep a value would recurse; take it apart a level at a time.
            dismantle(consume a)
            dismantle(consume b)
            dismantle(consume c)
        }
        #expect(outcome.failures() == [])
    }

    @Test("writers refuse 100,000 levels with a depth error")
    func writersStopAtTheLimit() {
        let outcome = DeepOutcome()
        runOnThread(stackSize: Self.smallStack) {
            let deep = nestedArrays(100_000, seed: "x")
            for format in PlistFormat.allCases {
                do throws(PlistError) {
                    _ = try Plist.write(deep, as: format)
                    outcome.record("\(format) wrote", false)
                } catch {
                    outcome.record("\(format) code", error.code == .depthLimit)
                    outcome.record("\(format) names the limit", error.message.contains("PlistLimits.maxDepth"))
                }
            }
            for (language, write) in literalWriters(maxDepth: PlistLimits.default.maxDepth) {
                do throws(PlistError) {
                    _ = try write(deep)
                    outcome.record("\(language) wrote", false)
                } catch {
                    outcome.record("\(language) code", error.code == .depthLimit)
                }
            }
            dismantle(consume deep)
        }
        #expect(outcome.failures() == [])
    }

    @Test("a value at the depth ceiling is written, read, compared, hashed, described and released on a 512 KB stack")
    func ceilingDepthOnSmallStack() throws {
        let depth = PlistLimits.depthCeiling
        let limits = PlistLimits(maxDepth: depth)
        let outcome = DeepOutcome()
        runOnThread(stackSize: Self.smallStack) {
            // A dictionary in the middle exercises both container kinds.
            let value = nestedArrays(depth - 1, seed: .dictionary(["k": "v"]))
            let copy = nestedArrays(depth - 1, seed: .dictionary(["k": "v"]))
            outcome.record("==", value == copy)
            outcome.record("hash", value.hashValue == copy.hashValue)
            outcome.record("description", value.description.count > 2 * depth)
            for format in PlistFormat.allCases {
                guard let bytes = try? Plist.write(value, as: format, limits: limits) else {
                    outcome.record("\(format) was not written", false)
                    continue
                }
                for keepsLayout in [false, true] {
                    let options = PlistReadOptions(limits: limits, keepsLayout: keepsLayout)
                    do throws(PlistError) {
                        let document = try Plist.read(bytes, options: options)
                        outcome.record("\(format) reads back (layout: \(keepsLayout))", document.value == value)
                    } catch {
                        outcome.record("\(format) (layout: \(keepsLayout)): \(error)", false)
                    }
                }
                do throws(PlistError) {
                    _ = try Plist.read(bytes, options: PlistReadOptions(limits: PlistLimits(maxDepth: depth - 1)))
                    outcome.record("\(format) read past the limit", false)
                } catch {
                    outcome.record("\(format) depth error", error.code == .depthLimit)
                }
            }
            // `value`, `copy` and what was read are released here, recursively, on this stack.
        }
        #expect(outcome.failures() == [])
    }

    @Test("a value at the depth ceiling round-trips through every writer, losslessly")
    func ceilingDepthThroughWriters() {
        let depth = PlistLimits.depthCeiling
        let limits = PlistLimits(maxDepth: depth)
        let outcome = DeepOutcome()
        runOnThread(stackSize: Self.smallStack) {
            let value = nestedArrays(depth - 1, seed: .dictionary(["k": "v"]))
            for format in PlistFormat.allCases {
                do throws(PlistError) {
                    let bytes = try Plist.write(value, as: format, limits: limits)
                    let document = try Plist.read(bytes, options: PlistReadOptions(limits: limits))
                    outcome.record("\(format) round trip", document.value == value)
                    outcome.record("\(format) lossless", try Plist.write(document, limits: limits) == bytes)
                    let tooShallow = PlistLimits(maxDepth: depth - 1)
                    do throws(PlistError) {
                        _ = try Plist.read(bytes, options: PlistReadOptions(limits: tooShallow))
                        outcome.record("\(format) read past the limit", false)
                    } catch {
                        outcome.record("\(format) depth error", error.code == .depthLimit)
                    }
                } catch {
                    outcome.record("\(format): \(error)", false)
                }
            }
        }
        #expect(outcome.failures() == [])
    }

    @Test("the Swift and Objective-C literal writers lay out a value at the depth ceiling on a 512 KB stack")
    func ceilingDepthThroughLiteralWriters() {
        let depth = PlistLimits.depthCeiling
        let outcome = DeepOutcome()
        runOnThread(stackSize: Self.smallStack) {
            // depth - 1 arrays around a dictionary: `depth` levels of containers.
            let value = nestedArrays(depth - 1, seed: .dictionary(["k": "v"]))
            for (language, write) in literalWriters(maxDepth: depth) {
                do throws(PlistError) {
                    let text = try write(value)
                    outcome.record("\(language) layout", text.contains(expectedLiteral(language, depth: depth)))
                } catch {
                    outcome.record("\(language): \(error)", false)
                }
                do throws(PlistError) {
                    _ = try write(.array([value]))
                    outcome.record("\(language) wrote past the limit", false)
                } catch {
                    outcome.record("\(language) depth error", error.code == .depthLimit)
                }
            }
        }
        #expect(outcome.failures() == [])
    }

    /// The literal plutil writes for `depth - 1` nested arrays around `{"k": "v"}`, spelled
    /// independently of the writers: one container per line, four spaces per level.
    private func expectedLiteral(_ language: PlistSourceLanguage, depth: Int) -> String {
        let objc = language == .objc
        let indent = { (level: Int) in String(repeating: "    ", count: level) }
        var text = ""
        for level in 0..<depth {
            let isDictionary = level == depth - 1
            text += indent(level) + (objc ? (isDictionary ? "@{" : "@[") : "[") + "\n"
        }
        text += indent(depth) + (objc ? "@\"k\" : @\"v\"" : "\"k\" : \"v\"") + ",\n"
        for level in (0..<depth).reversed() {
            let isDictionary = level == depth - 1
            text += indent(level) + (objc && isDictionary ? "}" : "]") + (level > 0 ? ",\n" : "")
        }
        return text
    }

    @Test("no configuration raises maxDepth past the ceiling")
    func depthIsClamped() {
        #expect(PlistLimits(maxDepth: .max).maxDepth == PlistLimits.depthCeiling)
        var limits = PlistLimits()
        limits.maxDepth = 1_000_000
        #expect(limits.maxDepth == PlistLimits.depthCeiling)
        limits.maxDepth = -5
        #expect(limits.maxDepth == 0)
        #expect(JSONPlistWriter(maxDepth: .max).maxDepth == PlistLimits.depthCeiling)
        #expect(XMLPlistWriter(maxDepth: .max).maxDepth == PlistLimits.depthCeiling)
        #expect(OpenStepPlistWriter(maxDepth: .max).maxDepth == PlistLimits.depthCeiling)
    }

    /// Measures, on a stack painted with a pattern, how many bytes each level of nesting costs
    /// the operations that recurse, and checks that the ceiling keeps them inside a small stack.
    @Test("stack cost per level times the ceiling fits a 512 KB stack")
    func stackCostPerLevel() throws {
        let shallow = 200
        let deep = 1_000
        let limits = PlistLimits(maxDepth: deep + 1)
        var costs: [String: Double] = [:]
        /// The growth of the peak from `shallow` to `deep` levels, per level. Values are built and
        /// kept alive outside the measured thread, so only `operation` is measured.
        func perLevel(_ name: String, _ operation: @escaping @Sendable (PlistValue) -> Void) {
            let low = nestedArrays(shallow, seed: "x")
            let high = nestedArrays(deep, seed: "x")
            warmUp { operation(low); operation(high) }
            let lowPeak = paintedStackPeak { operation(low) }
            let highPeak = paintedStackPeak { operation(high) }
            costs[name] = Double(highPeak - lowPeak) / Double(deep - shallow)
        }
        let release = { (depth: Int) -> Int in
            let box = ValueBox(nestedArrays(depth, seed: "x"))
            return paintedStackPeak { box.value = nil }
        }
        costs["release"] = Double(release(deep) - release(shallow)) / Double(deep - shallow)
        let twin = nestedArrays(deep, seed: "x")
        perLevel("==") { value in _ = value == twin }
        perLevel("hash") { value in _ = value.hashValue }
        perLevel("description") { value in _ = value.description }
        for format in PlistFormat.allCases {
            perLevel("write \(format)") { value in _ = try? Plist.write(value, as: format, limits: limits) }
        }
        for (language, write) in literalWriters(maxDepth: limits.maxDepth) {
            perLevel("write \(language)") { value in _ = try? write(value) }
        }
        for format in PlistFormat.allCases {
            let low = try Plist.write(nestedArrays(shallow, seed: "x"), as: format, limits: limits)
            let high = try Plist.write(nestedArrays(deep, seed: "x"), as: format, limits: limits)
            for keepsLayout in [false, true] {
                let results = ResultBox()
                let options = PlistReadOptions(limits: limits, keepsLayout: keepsLayout)
                let read = { (bytes: Data) -> Int in
                    paintedStackPeak { results.keep(try? Plist.read(bytes, options: options)) }
                }
                warmUp { _ = try? Plist.read(low, options: options); _ = try? Plist.read(high, options: options) }
                let name = "read \(format)" + (keepsLayout ? " with layout" : "")
                costs[name] = Double(read(high) - read(low)) / Double(deep - shallow)
                #expect(results.count == 2, "\(name) did not read back")
            }
        }
        let report = costs.sorted { $0.key < $1.key }.map { "\($0.key): \(Int($0.value.rounded())) B/level" }
            .joined(separator: ", ")
        print("stack cost per level of nesting: \(report)")
        // Everything must fit the ceiling's worst case plus 128 KB for the caller's own frames
        // into a 512 KB stack, and everything but the release (Swift's, recursive) must not grow
        // the stack with depth at all.
        let worst = costs.values.max() ?? 0
        #expect(worst * Double(PlistLimits.depthCeiling) + 128 * 1024 <= Double(Self.smallStack), "\(report)")
        // release, ==, hash, description, two literal writers, and a write and two reads per format.
        #expect(costs.count == 6 + 3 * PlistFormat.allCases.count, "\(report)")
        for (name, cost) in costs where name != "release" {
            #expect(cost < 8, "\(name) should not grow the stack per level: \(report)")
        }
    }
}

// MARK: - Helpers

/// `depth` arrays each holding the next, the innermost holding `seed`. Built bottom-up, so no
/// recursion.
func nestedArrays(_ depth: Int, seed: PlistValue) -> PlistValue {
    var value = seed
    for _ in 0..<depth { value = .array([value]) }
    return value
}

/// `depth` dictionaries each holding the next under key "k".
func nestedDictionaries(_ depth: Int) -> PlistValue {
    var value: PlistValue = "leaf"
    for _ in 0..<depth { value = .dictionary(["k": value]) }
    return value
}

/// Each source-code literal writer, as a function of the value, refusing nesting past `maxDepth`.
func literalWriters(maxDepth: Int) -> [(PlistSourceLanguage, @Sendable (PlistValue) throws(PlistError) -> String)] {
    PlistSourceLanguage.allCases.map { language in
        switch language {
        case .swift:
            return (language, { value throws(PlistError) in
                try SwiftLiteralWriter(sourcePath: "Deep.plist", maxDepth: maxDepth).write(value)
            })
        case .objc:
            return (language, { value throws(PlistError) in
                let writer = ObjCLiteralWriter(sourcePath: "Deep.plist", outputPath: nil, maxDepth: maxDepth)
                return try writer.implementation(value)
            })
        }
    }
}

/// Releases a deeply nested value one level at a time, so that no release recurses.
func dismantle(_ value: consuming PlistValue) {
    var current: PlistValue? = consume value
    while let node = current.take() {
        switch node {
        case .array(let elements): current = elements.first
        case .dictionary(let entries): current = entries.values.first
        default: current = nil
        }
    }
}

/// A value released on whichever thread clears it.
final class ValueBox: @unchecked Sendable {
    var value: PlistValue?
    init(_ value: PlistValue) { self.value = value }
}

/// Read results kept alive past the measured thread, so that releasing them is not measured.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [PlistDocument] = []

    func keep(_ document: PlistDocument?) {
        guard let document else { return }
        lock.lock()
        defer { lock.unlock() }
        kept.append(document)
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return kept.count
    }
}

/// Results recorded on another thread, read back on the test's.
final class DeepOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var failed: [String] = []

    func record(_ check: String, _ passed: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if !passed { failed.append(check) }
    }

    func failures() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return failed
    }
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and waits for it.
func runOnThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
}

/// The most stack `body` used, in bytes: it runs on a thread whose 16 MB stack was filled with a
/// pattern beforehand, and the lowest overwritten byte marks the peak.
/// Runs `body` once on a thread of its own, unmeasured, before a pair of measurements, so that
/// one-time work on a path (binding library functions, one-time initializers), which runs on the
/// stack of whichever thread gets there first, falls on neither measurement. In a full, parallel
/// test run, paths that do not grow the stack at all showed -12 to +10 B/level without it.
func warmUp(_ body: @escaping @Sendable () -> Void) {
    _ = paintedStackPeak(body)
}

func paintedStackPeak(_ body: @escaping @Sendable () -> Void) -> Int {
    let size = 16 << 20
    let pattern: UInt8 = 0xA5
    guard let stack = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
        stack != MAP_FAILED
    else { return Int.max }
    defer { munmap(stack, size) }
    memset(stack, Int32(pattern), size)
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstack(&attributes, stack, size)
    let context = Unmanaged.passRetained(StackProbeBody(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, &attributes, { raw in
        guard let raw else { return nil }
        Unmanaged<StackProbeBody>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, context)
    guard created == 0 else { return Int.max }
    pthread_join(thread, nil)
    let bytes = stack.assumingMemoryBound(to: UInt8.self)
    var untouched = 0
    while untouched < size, bytes[untouched] == pattern { untouched += 1 }
    return size - untouched
}

private final class StackProbeBody: @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
