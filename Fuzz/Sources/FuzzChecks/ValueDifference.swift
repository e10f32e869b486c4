import Trove

/// Where two values differ, for a failure message that points into the document.
enum ValueDifference {
    /// Nil when `actual` equals `expected`, else the key path and both values of the first difference.
    ///
    /// - Parameter integralRealsMayBecomeIntegers: accept an integer where an integral real was
    ///   expected. JSON has one number type, so `10.0` is written `10` and reads back as an
    ///   integer, in Foundation as here.
    static func first(_ actual: PlistValue, _ expected: PlistValue, integralRealsMayBecomeIntegers: Bool = false) -> String? {
        var pending: [(PlistValue, PlistValue, String)] = [(actual, expected, "root")]
        while let (a, e, path) = pending.popLast() {
            switch (a, e) {
            case let (.array(x), .array(y)):
                guard x.count == y.count else { return "\(path): \(x.count) items, expected \(y.count)" }
                for i in x.indices.reversed() { pending.append((x[i], y[i], "\(path)[\(i)]")) }
            case let (.dictionary(x), .dictionary(y)):
                guard x.count == y.count else { return "\(path): \(x.count) entries, expected \(y.count)" }
                for (key, value) in y {
                    guard let found = x[key] else { return "\(path): key \(key.debugDescription) is missing" }
                    pending.append((found, value, "\(path).\(key)"))
                }
            case let (.integer(n), .real(r)) where integralRealsMayBecomeIntegers:
                if !(r.value == r.value.rounded() && n.doubleValue == r.value) { return "\(path): integer \(n), expected real \(r.value)" }
            default:
                if a != e { return "\(path): \(a), expected \(e)" }
            }
        }
        return nil
    }
}
