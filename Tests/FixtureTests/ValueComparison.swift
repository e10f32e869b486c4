import Foundation
import Trove

/// What a comparison forgives: only the losses a format or a peer is known to cause.
struct ComparisonRules: Sendable {
    /// Dates may differ by this many seconds (plistlib keeps microseconds). Far from 2001 a
    /// `Double` cannot hold every microsecond, so two ulps of the expected value are always allowed.
    var dateTolerance: Double = 0
    /// Compare dates floored to the whole second (XML spells dates in whole seconds).
    var floorsDatesToSecond = false
    /// Let -0.0 match 0.0: Apple's XML writer (and ours, which follows it) prints either zero as `0.0`.
    var zeroSignMayBeLost = false
    /// Compare UIDs by their low 32 bits: CF's UID is 32-bit, so a wider UID from a binary file
    /// comes back from an XML `CF$UID` dictionary truncated, as it does through Foundation.
    var uidsKeepLow32Bits = false

    /// Exact equality, as ``PlistValue``'s `==` (reals by value, ignoring width).
    static let exact = ComparisonRules()
    /// plistlib's reading of binary dates: rounded to the microsecond.
    static let microsecondDates = ComparisonRules(dateTolerance: 1e-6)
    /// A value that went through XML: dates lose their fraction.
    static let wholeSecondDates = ComparisonRules(floorsDatesToSecond: true)
    /// Everything a value loses in Apple's XML: date fractions, the sign of zero, UID bits above 32.
    static let throughXML = ComparisonRules(floorsDatesToSecond: true, zeroSignMayBeLost: true, uidsKeepLow32Bits: true)
}

/// Finds where two values differ and says how, for messages that name the key path.
enum ValueComparison {
    /// Nil when `actual` matches `expected` under `rules`, else a description of the first difference.
    static func firstDifference(_ actual: PlistValue, _ expected: PlistValue, rules: ComparisonRules = .exact) -> String? {
        difference(actual, expected, rules: rules, path: "root")
    }

    private static func difference(_ a: PlistValue, _ e: PlistValue, rules: ComparisonRules, path: String) -> String? {
        switch (a, e) {
        case let (.array(x), .array(y)):
            guard x.count == y.count else { return "\(path): array has \(x.count) items, expected \(y.count)" }
            for i in x.indices {
                if let d = difference(x[i], y[i], rules: rules, path: "\(path)[\(i)]") { return d }
            }
            return nil
        case let (.dictionary(x), .dictionary(y)):
            let missing = y.keys.filter { x[$0] == nil }
            let extra = x.keys.filter { y[$0] == nil }
            if !missing.isEmpty || !extra.isEmpty {
                return "\(path): keys differ; missing \(missing.prefix(5).map { $0.debugDescription }), unexpected \(extra.prefix(5).map { $0.debugDescription })"
            }
            for (key, expectedValue) in y {
                guard let actualValue = x[key] else { continue }
                if let d = difference(actualValue, expectedValue, rules: rules, path: "\(path).\(key)") { return d }
            }
            return nil
        case let (.date(x), .date(y)):
            return dateDifference(x.secondsSinceReferenceDate, y.secondsSinceReferenceDate, rules: rules, path: path)
        case let (.real(x), .real(y)) where rules.zeroSignMayBeLost && x.value == 0 && y.value == 0:
            return nil
        case let (.uid(x), .uid(y)) where rules.uidsKeepLow32Bits && UInt32(truncatingIfNeeded: x) == UInt32(truncatingIfNeeded: y):
            return nil
        case let (.data(x), .data(y)):
            if x == y { return nil }
            let firstDiff = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)
            return "\(path): data differs at byte \(firstDiff) (\(x.count) bytes, expected \(y.count))"
        default:
            return a == e ? nil : "\(path): found \(brief(a)), expected \(brief(e))"
        }
    }

    private static func dateDifference(_ a: Double, _ e: Double, rules: ComparisonRules, path: String) -> String? {
        var x = a, y = e
        if rules.floorsDatesToSecond {
            x = x.rounded(.down)
            y = y.rounded(.down)
        }
        if x.isNaN && y.isNaN { return nil }
        if x.bitPattern == y.bitPattern { return nil }
        let tolerance = max(rules.dateTolerance, rules.dateTolerance > 0 ? 2 * y.ulp : 0)
        if tolerance > 0, abs(x - y) <= tolerance { return nil }
        return "\(path): date \(a) (\(PlistDate(secondsSinceReferenceDate: a))) differs from expected \(e) (\(PlistDate(secondsSinceReferenceDate: e)))"
            + (rules.floorsDatesToSecond ? " after flooring to whole seconds" : "")
    }

    /// A one-line rendering that keeps the type visible.
    static func brief(_ v: PlistValue) -> String {
        switch v {
        case .string(let s): return "string \(String(s.prefix(60)).debugDescription)\(s.count > 60 ? "…(\(s.count) chars)" : "")"
        case .integer(let i): return "integer \(i)"
        case .real(let r): return "real \(r.value) (\(r.width == .single ? "32" : "64")-bit)"
        case .bool(let b): return "bool \(b)"
        case .date(let d): return "date \(d.secondsSinceReferenceDate)"
        case .data(let d): return "data (\(d.count) bytes)"
        case .array(let a): return "array (\(a.count) items)"
        case .dictionary(let d): return "dictionary (\(d.count) entries)"
        case .uid(let u): return "uid \(u)"
        case .null: return "null"
        }
    }

    /// True when the value holds `.null` anywhere (XML cannot express it).
    static func containsNull(_ v: PlistValue) -> Bool { contains(v) { if case .null = $0 { return true } else { return false } } }

    /// True when the value holds a UID anywhere.
    static func containsUID(_ v: PlistValue) -> Bool { contains(v) { if case .uid = $0 { return true } else { return false } } }

    /// True when any value in the tree satisfies `predicate`.
    static func contains(_ v: PlistValue, where predicate: (PlistValue) -> Bool) -> Bool {
        if predicate(v) { return true }
        switch v {
        case .array(let items): return items.contains { contains($0, where: predicate) }
        case .dictionary(let dict): return dict.values.contains { contains($0, where: predicate) }
        default: return false
        }
    }
}
