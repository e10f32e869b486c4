import Trove

/// What a comparison of two values forgives.
///
/// The default is exact equality as `==` has it (reals and dates by exact value, the width of a
/// real ignored) with dictionary key order ignored: the losses a test usually does not care about
/// are opted into one by one.
public struct PlistComparisonOptions: Sendable, Hashable {
    /// Whether dictionaries with the same entries in different orders are equal. True by default;
    /// false also reports, per dictionary, when the keys both sides have come in different orders.
    public var ignoresKeyOrder: Bool
    /// Whether dates are compared after rounding down to the whole second (as XML keeps them).
    public var comparesDatesToTheSecond: Bool
    /// Reals equal within this absolute difference are equal; 0 means exactly.
    public var realTolerance: Double

    /// Options; with no arguments, exact values and any key order.
    public init(ignoresKeyOrder: Bool = true, comparesDatesToTheSecond: Bool = false, realTolerance: Double = 0) {
        self.ignoresKeyOrder = ignoresKeyOrder
        self.comparesDatesToTheSecond = comparesDatesToTheSecond
        self.realTolerance = realTolerance
    }

    /// Exact values, any key order.
    public static let `default` = PlistComparisonOptions()
}

extension PlistCheck {
    /// The differences between `actual` and `expected` that `options` does not forgive, by key
    /// path: `.removed` is only in `expected`, `.added` only in `actual`, `.changed` goes from
    /// the expected value to the actual one. When key order counts, a dictionary whose shared
    /// keys come in another order adds a `.changed` entry at its path, from the expected order to
    /// the actual one, each an array of the keys.
    public static func differences(
        _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions = .default
    ) -> [PlistDifference] {
        let found = compare(actual, expected, options: options)
        return found.values + found.keyOrders
    }

    /// Checks that `actual` equals `expected` under `options`.
    ///
    /// - Throws: ``PlistTestFailure`` of kind ``PlistTestFailure/Kind/valuesDiffer`` whose message
    ///   lists every difference: `- a.b: 1` (expected only), `+ c: "x"` (actual only),
    ///   `~ d: 1 -> 2` (expected, then actual), `~ e: key order ["x", "y"] -> ["y", "x"]`.
    public static func equal(
        _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions = .default
    ) throws(PlistTestFailure) {
        try check(actual, expected, options: options, heading: "values differ")
    }

    /// Checks that `actual` equals the value of the property list at `path` (any format).
    public static func equal(
        _ actual: PlistValue, file path: String, options: PlistComparisonOptions = .default
    ) throws(PlistTestFailure) {
        try check(actual, try readValue(path), options: options, heading: "value differs from \(path)")
    }

    static func check(
        _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions, heading: String,
        kind: PlistTestFailure.Kind = .valuesDiffer, footer: String? = nil
    ) throws(PlistTestFailure) {
        let found = compare(actual, expected, options: options)
        guard !found.values.isEmpty || !found.keyOrders.isEmpty else { return }
        var message = report(heading, found.values, keyOrders: found.keyOrders)
        if let footer { message += "\n" + footer }
        throw PlistTestFailure(kind, message, differences: found.values + found.keyOrders)
    }

    private static func compare(
        _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions
    ) -> (values: [PlistDifference], keyOrders: [PlistDifference]) {
        let values = actual.differenceSequence(from: expected).filter { !forgives($0, options) }
        return (values, options.ignoresKeyOrder ? [] : keyOrderDifferences(actual, expected))
    }

    /// The most difference lines a message shows.
    static let maxLinesShown = 50

    /// A heading with the count and the legend, then one line per difference.
    static func report(_ heading: String, _ differences: [PlistDifference], keyOrders: [PlistDifference] = []) -> String {
        let total = differences.count + keyOrders.count
        let count = total == 1 ? "1 difference" : "\(total) differences"
        var lines = ["\(heading) (\(count); - expected only, + actual only, ~ expected -> actual):"]
        lines += differences.map(\.description)
        lines += keyOrders.map { difference in
            let path = difference.keyPath.isEmpty ? "(root)" : difference.keyPath.description
            return "~ \(path): key order \(difference.oldValue ?? .null) -> \(difference.newValue ?? .null)"
        }
        if lines.count > maxLinesShown + 1 {
            lines.removeLast(lines.count - maxLinesShown - 1)
            lines.append("… and \(total - maxLinesShown) more")
        }
        return lines.joined(separator: "\n")
    }

    /// Reads the value of the file at `path`, as a failure of kind ``PlistTestFailure/Kind/fileError``.
    static func readValue(_ path: String) throws(PlistTestFailure) -> PlistValue {
        do {
            return try PlistFile.load(path, options: PlistReadOptions(keepsLayout: false)).value
        } catch {
            throw PlistTestFailure(.fileError, "cannot read \(path): \(error)")
        }
    }

    private static func forgives(_ difference: PlistDifference, _ options: PlistComparisonOptions) -> Bool {
        guard case .changed(let old, let new) = difference.change else { return false }
        switch (old, new) {
        case let (.date(a), .date(b)) where options.comparesDatesToTheSecond:
            return a.secondsSinceReferenceDate.rounded(.down) == b.secondsSinceReferenceDate.rounded(.down)
        case let (.real(a), .real(b)) where options.realTolerance > 0:
            return abs(a.value - b.value) <= options.realTolerance
        default:
            return false
        }
    }

    /// Dictionaries at the same path on both sides whose shared keys come in different orders.
    private static func keyOrderDifferences(_ actual: PlistValue, _ expected: PlistValue) -> [PlistDifference] {
        var found: [PlistDifference] = []
        var pending: [(PlistKeyPath, PlistValue, PlistValue)] = [(.root, actual, expected)]
        while let (path, a, e) = pending.popLast() {
            switch (a, e) {
            case let (.dictionary(x), .dictionary(y)):
                let xKeys = x.keys.filter { y[$0] != nil }, yKeys = y.keys.filter { x[$0] != nil }
                if xKeys != yKeys {
                    let order = { (keys: [String]) in PlistValue.array(keys.map(PlistValue.string)) }
                    found.append(PlistDifference(keyPath: path, change: .changed(from: order(yKeys), to: order(xKeys))))
                }
                for key in xKeys { pending.append((path.appending(key: key), x[key]!, y[key]!)) }
            case let (.array(x), .array(y)):
                for index in 0..<min(x.count, y.count) { pending.append((path.appending(index: index), x[index], y[index])) }
            default:
                break
            }
        }
        return found
    }
}
