/// One of the bounds of ``PlistLimits``, for errors that must say which one was exceeded.
enum PlistLimit: Sendable {
    case depth, values, expandedValues, decodedBytes

    /// The error code readers and writers report for this limit.
    var code: PlistError.Code {
        switch self {
        case .depth: return .depthLimit
        case .values: return .sizeLimit
        case .expandedValues: return .expansionLimit
        case .decodedBytes: return .byteLimit
        }
    }
}

extension PlistLimits {
    /// The configured value of `limit`.
    func value(of limit: PlistLimit) -> Int {
        switch limit {
        case .depth: return maxDepth
        case .values: return maxValues
        case .expandedValues: return maxExpandedValues
        case .decodedBytes: return maxDecodedBytes
        }
    }

    /// A sentence naming the limit and its setting, so that a user knows what to raise.
    func message(exceeding limit: PlistLimit) -> String {
        let bound = value(of: limit)
        switch limit {
        case .depth:
            return "more than \(bound) levels of nesting (PlistLimits.maxDepth)"
        case .values:
            return "more than \(bound) values (PlistLimits.maxValues)"
        case .expandedValues:
            return "more than \(bound) values once shared objects are expanded (PlistLimits.maxExpandedValues)"
        case .decodedBytes:
            return "more than \(bound) bytes of strings and data (PlistLimits.maxDecodedBytes)"
        }
    }

    /// The typed error for exceeding `limit`.
    func error(
        exceeding limit: PlistLimit, format: PlistFormat?, at location: PlistError.Location? = nil,
        keyPath: PlistKeyPath? = nil
    ) -> PlistError {
        PlistError(limit.code, format: format, at: location, keyPath: keyPath, message(exceeding: limit))
    }
}

/// Running totals of one read or write, checked against ``PlistLimits`` as values are counted.
///
/// Callers count once per value, never per byte, and turn a returned ``PlistLimit`` into an error
/// carrying their own location. Sums saturate instead of overflowing, so a hostile count can only
/// ever exceed a limit.
struct LimitMeter {
    let limits: PlistLimits
    /// Values counted so far (in text formats, where nothing is shared, also the expanded count).
    private(set) var values = 0
    /// Bytes of string and data counted so far.
    private(set) var decodedBytes = 0

    init(limits: PlistLimits) { self.limits = limits }

    /// Counts one value that a traversal visits once: checks both the distinct and the expanded
    /// value limits, which coincide when nothing is shared.
    @inline(__always)
    mutating func countValue() -> PlistLimit? {
        values += 1
        if values > limits.maxValues { return .values }
        if values > limits.maxExpandedValues { return .expandedValues }
        return nil
    }

    /// Counts `count` values at once: the elements of a container a traversal is about to visit.
    @inline(__always)
    mutating func countValues(_ count: Int) -> PlistLimit? {
        values = values.saturatingAdd(count)
        if values > limits.maxValues { return .values }
        if values > limits.maxExpandedValues { return .expandedValues }
        return nil
    }

    /// Counts the payload of a string or data value (`count` bytes).
    @inline(__always)
    mutating func countBytes(_ count: Int) -> PlistLimit? {
        decodedBytes = decodedBytes.saturatingAdd(count)
        return decodedBytes > limits.maxDecodedBytes ? .decodedBytes : nil
    }

    /// Counts a value a writer or traversal visits: one value, plus its payload when it is a
    /// string or data, or its keys when it is a dictionary. Elements count when they are visited.
    mutating func count(_ value: PlistValue) -> PlistLimit? {
        if let exceeded = countValue() { return exceeded }
        switch value {
        case .string(let s): return countBytes(s.utf8.count)
        case .data(let d): return countBytes(d.count)
        case .dictionary(let d):
            var keyBytes = 0
            for key in d.keys { keyBytes = keyBytes.saturatingAdd(key.utf8.count) }
            return countBytes(keyBytes)
        default: return nil
        }
    }
}

extension Int {
    /// `self + other`, or `Int.max` when the sum overflows; totals that only need to be compared
    /// against a limit never wrap around.
    @inline(__always)
    func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

/// What a subtree expands to: the values a full traversal visits (the subtree's root included)
/// and the bytes of its strings, data and dictionary keys, a shared object counted once per
/// reference. A reader that decodes each shared object once sums these per object, so that it
/// learns the expanded size of a document without ever expanding it.
struct ExpandedSize {
    var values = 1
    var bytes = 0

    /// A scalar's size: one value and its payload. Inlined: called apart, each call took a
    /// copy of the value (a retain and a release of a string's or data's storage).
    @inline(__always)
    init(scalar value: borrowing PlistValue) {
        switch value {
        case .string(let s): bytes = s.utf8.count
        case .data(let d): bytes = d.count
        default: break
        }
    }

    /// An empty container's size, before its elements are added.
    init() {}

    /// Adds an element's subtree; sums saturate.
    @inline(__always)
    mutating func add(_ element: ExpandedSize) {
        values = values.saturatingAdd(element.values)
        bytes = bytes.saturatingAdd(element.bytes)
    }

    /// The limit this size exceeds, if any.
    func exceeded(_ limits: PlistLimits) -> PlistLimit? {
        if values > limits.maxExpandedValues { return .expandedValues }
        if bytes > limits.maxDecodedBytes { return .decodedBytes }
        return nil
    }
}
