import Foundation
import Testing
import Trove
import TroveTestSupport

/// The round-trip property over thousands of seeded random values: whatever a writer writes, our
/// reader of that format reads back as the value written (up to what the format cannot hold, each
/// loss named in a comparison rule), a second lossless write repeats the bytes, and for binary and
/// XML Python's `plistlib` reads the same value too.
///
/// The values come from ``GeneratedValues/randomValue(depth:using:)`` under a seed of this suite's
/// own, after the fixed edge catalogue, so a failure names a case that every run reproduces.
@Suite("Property: every writer's output reads back as the value written", .serialized)
struct PropertyRoundTripTests {
    static let seed: UInt64 = 0x7A0E_2026_0005_0001
    static let randomCount = 3_000

    static let cases: [GeneratedValues.Case] = {
        var cases = GeneratedValues.edgeScalars.map { GeneratedValues.Case(id: 0, name: $0.0, value: $0.1) }
        cases += GeneratedValues.edgeContainers.map { GeneratedValues.Case(id: 0, name: $0.0, value: $0.1) }
        var rng = SplitMix(seed: seed)
        for _ in 0..<randomCount {
            cases.append(GeneratedValues.Case(id: 0, name: "random tree", value: GeneratedValues.randomValue(depth: 0, using: &rng)))
        }
        for index in cases.indices { cases[index].id = index }
        return cases
    }()

    /// Checks every case with `body` (nil when it holds, else what went wrong), records up to 25
    /// failures by case, and returns how many cases were checked.
    @discardableResult
    static func check(_ label: String, _ body: (GeneratedValues.Case) -> String?) -> Int {
        var failures: [String] = []
        for c in cases {
            if let failure = body(c) { failures.append("\(c): \(failure)") }
        }
        print("\(label): \(cases.count - failures.count) of \(cases.count) cases hold")
        for failure in failures.prefix(25) { Issue.record(Comment(rawValue: "\(label): \(failure)")) }
        if failures.count > 25 { Issue.record(Comment(rawValue: "\(label): \(failures.count - 25) more failures")) }
        return cases.count
    }

    /// Writes, reads back with the same format's reader, compares, and for the formats with layout
    /// notes checks that writing the re-read document repeats the bytes.
    static func roundTrip(
        _ value: PlistValue, format: PlistFormat, write: (PlistValue) throws(PlistError) -> Data,
        read: (Data) throws(PlistError) -> PlistDocument, compare: (PlistValue, PlistValue) -> String?
    ) -> String? {
        let bytes: Data
        do { bytes = try write(value) } catch { return "the \(format.displayName) writer refused it: \(error.code.rawValue): \(error)" }
        let document: PlistDocument
        do { document = try read(bytes) } catch { return "our reader refused our \(format.displayName) output: \(error)" }
        if let difference = compare(document.value, value) { return difference }
        guard document.layout != nil else { return nil }
        do {
            let again = try Plist.write(document)
            return again == bytes ? nil : "re-writing the re-read \(format.displayName) document changed its bytes (\(bytes.count) -> \(again.count))"
        } catch {
            return "re-writing the re-read \(format.displayName) document failed: \(error)"
        }
    }

    /// Reads with content detection, requiring the format the bytes were written in.
    static func detectedRead(_ format: PlistFormat) -> (Data) throws(PlistError) -> PlistDocument {
        { (data: Data) throws(PlistError) -> PlistDocument in
            let document = try Plist.read(data)
            guard document.format == format else {
                throw PlistError(.unknownFormat, "\(format.displayName) output was detected as \(document.format.displayName)")
            }
            return document
        }
    }

    /// Expects the writer to refuse a value the format cannot hold, with `unsupported-value`.
    static func refusal(_ format: PlistFormat, _ write: () throws(PlistError) -> Data) -> String? {
        do {
            let bytes = try write()
            return "the \(format.displayName) writer accepted a value the format cannot hold (\(bytes.count) bytes)"
        } catch {
            return error.code == .unsupportedValue ? nil : "refused with \(error.code.rawValue) instead of unsupported-value: \(error)"
        }
    }

    // MARK: - Our writers, our readers

    @Test("Binary: every value comes back exactly, and a lossless re-write repeats the bytes")
    func binaryRoundTrip() {
        let checked = Self.check("binary round trip") { c in
            Self.roundTrip(
                c.value, format: .binary, write: { v throws(PlistError) in try Plist.write(v, as: .binary) },
                read: Self.detectedRead(.binary), compare: { ValueComparison.firstDifference($0, $1) })
        }
        #expect(checked >= Self.randomCount)
    }

    @Test("XML: every value without null comes back as XML keeps it; null is refused")
    func xmlRoundTrip() {
        Self.check("XML round trip") { c in
            if ValueComparison.containsNull(c.value) {
                return Self.refusal(.xml) { () throws(PlistError) in try Plist.write(c.value, as: .xml) }
            }
            return Self.roundTrip(
                c.value, format: .xml, write: { v throws(PlistError) in try Plist.write(v, as: .xml) },
                read: Self.detectedRead(.xml), compare: { ValueComparison.firstDifference($0, $1, rules: .throughXML) })
        }
    }

    @Test("OpenStep: every value without null or UID comes back, scalars as the strings that spell them")
    func openStepRoundTrip() {
        Self.check("OpenStep round trip") { c in
            if ValueComparison.containsNull(c.value) || ValueComparison.containsUID(c.value) {
                return Self.refusal(.openStep) { () throws(PlistError) in Data(try OpenStepPlistWriter().write(c.value)) }
            }
            return Self.roundTrip(
                c.value, format: .openStep, write: { v throws(PlistError) in Data(try OpenStepPlistWriter().write(v)) },
                read: { d throws(PlistError) in PlistDocument(value: try OpenStepPlistReader().read([UInt8](d)), format: .openStep) },
                compare: { OpenStepComparison.stringified($0, $1, path: "root") })
        }
    }

    @Test("OpenStep with GNUstep types: every value without null or UID comes back typed, dates to the second")
    func gnustepTypedRoundTrip() {
        let reader = OpenStepPlistReader(options: .gnustepExtensions)
        let writer = OpenStepPlistWriter(.gnustepTyped)
        // Typed text keeps the kind but not a real's width: a 32-bit real is written as its
        // shortest decimal, which reads back as the double nearest that decimal.
        let rules = TextComparison(integralRealsMayBecomeIntegers: false, dates: .wholeSecondDates)
        Self.check("GNUstep typed round trip") { c in
            if ValueComparison.containsNull(c.value) || ValueComparison.containsUID(c.value) {
                return Self.refusal(.openStep) { () throws(PlistError) in Data(try writer.write(c.value)) }
            }
            return Self.roundTrip(
                c.value, format: .openStep, write: { v throws(PlistError) in Data(try writer.write(v)) },
                read: { d throws(PlistError) in PlistDocument(value: try reader.read([UInt8](d)), format: .openStep) },
                compare: { rules.difference($0, $1, path: "root") })
        }
    }

    @Test("JSON: every value JSON can hold comes back; dates, data, UIDs, NaN and infinities are refused")
    func jsonRoundTrip() {
        let writer = JSONPlistWriter(.allowsFragments)
        Self.check("JSON round trip") { c in
            if TextComparison.jsonCannotHold(c.value) {
                return Self.refusal(.json) { () throws(PlistError) in Data(try writer.write(c.value)) }
            }
            return Self.roundTrip(
                c.value, format: .json, write: { v throws(PlistError) in Data(try writer.write(v)) },
                read: { d throws(PlistError) in PlistDocument(value: try JSONPlistReader().read([UInt8](d)), format: .json) },
                compare: { TextComparison.json.difference($0, $1, path: "root") })
        }
    }

    // MARK: - Our writers, plistlib's readers

    static let python: Result<[Int: PythonPeer.CaseResult], any Error> = Result {
        var binary: [Int: Data] = [:], xml: [Int: Data] = [:]
        for c in cases {
            binary[c.id] = try? Plist.write(c.value, as: .binary)
            xml[c.id] = try? Plist.write(c.value, as: .xml)
        }
        return try PythonPeer.run(cases: cases, ourBinary: binary, ourXML: xml)
    }

    @Test("plistlib reads our binary and XML output as the value written",
          .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"),
          arguments: [PeerCheck.plistlibReadsOurBinary, .plistlibReadsOurXML])
    func plistlibReadsOurOutput(_ check: PeerCheck) throws {
        let results = try Self.python.get()
        var excluded: [PeerLimit: Int] = [:]
        let checked = Self.check(check.rawValue) { c in
            let limits = check.limits(for: c.value)
            if !limits.isEmpty {
                for limit in limits { excluded[limit, default: 0] += 1 }
                return nil
            }
            switch check.isXML ? results[c.id]?.readOurXML : results[c.id]?.readOurBinary {
            case .ok(let value)?: return ValueComparison.firstDifference(value, c.value, rules: check.rules)
            case .failed(let why)?: return "plistlib rejected our output: \(why)"
            case nil: return "plistlib read nothing (did our writer fail?)"
            }
        }
        let excludedCount = excluded.values.reduce(0, +)
        let reasons = excluded.map { "\($0.value) for \"\($0.key.rawValue)\"" }.sorted()
        print("\(check.rawValue): of those, \(excludedCount) left out (known format or peer limits): \(reasons.isEmpty ? "none" : reasons.joined(separator: ", "))")
        #expect(checked - excludedCount >= Self.randomCount / 2, "most random values must reach plistlib")
    }
}

/// What the OpenStep format keeps: it has only strings, data, arrays and dictionaries, so other
/// scalars come back as strings that must read as the value written.
enum OpenStepComparison {
    static func stringified(_ actual: PlistValue, _ expected: PlistValue, path: String) -> String? {
        switch (actual, expected) {
        case let (.array(a), .array(e)):
            guard a.count == e.count else { return "\(path): \(a.count) items, expected \(e.count)" }
            for i in a.indices {
                if let d = stringified(a[i], e[i], path: "\(path)[\(i)]") { return d }
            }
            return nil
        case let (.dictionary(a), .dictionary(e)):
            guard Set(a.keys) == Set(e.keys) else { return "\(path): keys differ" }
            for (key, value) in e {
                if let found = a[key], let d = stringified(found, value, path: "\(path).\(key)") { return d }
            }
            return nil
        case let (.string(text), .integer(n)):
            return PlistInteger(parsing: text) == n ? nil : "\(path): \(text.debugDescription) does not read as integer \(n)"
        case let (.string(text), .bool(b)):
            return text == (b ? "YES" : "NO") ? nil : "\(path): \(text.debugDescription) for bool \(b)"
        case let (.string(text), .real(r)):
            let same: Bool
            if r.width == .single {
                same = Float(text).map { $0.bitPattern == Float(r.value).bitPattern || ($0.isNaN && r.value.isNaN) } ?? false
            } else {
                same = Double(text).map { PlistReal($0) == r } ?? false
            }
            return same ? nil : "\(path): \(text.debugDescription) does not read as real \(r.value)"
        case let (.string(text), .date(d)):
            // Apple's description of a date: the ISO form of the whole second, with a space and +0000.
            let iso = PlistDate(secondsSinceReferenceDate: d.secondsSinceReferenceDate.rounded(.down)).iso8601String
            let expectedText = iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
            return text == expectedText ? nil : "\(path): \(text.debugDescription) for date \(iso)"
        default:
            return ValueComparison.firstDifference(actual, expected).map { "\(path): \($0)" }
        }
    }
}

extension PlistInteger {
    /// A decimal integer with an optional minus sign, as the stringified OpenStep scalars spell it.
    init?(parsing text: String) {
        let negative = text.hasPrefix("-")
        guard let magnitude = UInt64(negative ? String(text.dropFirst()) : text) else { return nil }
        self.init(isNegative: negative, magnitude: magnitude)
    }
}

/// What the text formats with typed numbers keep (JSON, GNUstep's typed OpenStep): a real's width
/// is gone, so a 32-bit real comes back as the double nearest its shortest decimal and is compared
/// as a `Float`; in JSON an integral real may come back as an integer (`3.0` is written `3`).
struct TextComparison {
    var integralRealsMayBecomeIntegers: Bool
    var dates: ComparisonRules

    static let json = TextComparison(integralRealsMayBecomeIntegers: true, dates: .exact)

    /// JSON has no dates, data, UIDs or non-finite reals.
    static func jsonCannotHold(_ value: PlistValue) -> Bool {
        ValueComparison.contains(value) {
            switch $0 {
            case .date, .data, .uid: return true
            case .real(let r): return !r.value.isFinite
            default: return false
            }
        }
    }

    func difference(_ actual: PlistValue, _ expected: PlistValue, path: String) -> String? {
        switch (actual, expected) {
        case let (.array(a), .array(e)):
            guard a.count == e.count else { return "\(path): \(a.count) items, expected \(e.count)" }
            for i in a.indices {
                if let d = difference(a[i], e[i], path: "\(path)[\(i)]") { return d }
            }
            return nil
        case let (.dictionary(a), .dictionary(e)):
            guard Set(a.keys) == Set(e.keys) else { return "\(path): keys differ" }
            for (key, value) in e {
                if let found = a[key], let d = difference(found, value, path: "\(path).\(key)") { return d }
            }
            return nil
        case let (.integer(n), .real(r)) where integralRealsMayBecomeIntegers:
            let same = r.value == r.value.rounded() && (n.doubleValue == r.value)
            return same ? nil : "\(path): integer \(n) for real \(r.value)"
        case let (.real(a), .real(e)) where e.width == .single:
            let same = Float(a.value).bitPattern == Float(e.value).bitPattern || (a.value.isNaN && e.value.isNaN)
            return same ? nil : "\(path): real \(a.value) for 32-bit real \(e.value)"
        default:
            return ValueComparison.firstDifference(actual, expected, rules: dates).map { "\(path): \($0)" }
        }
    }
}
