import CTroveFastPaths

/// Decimal text to `Double`, correctly rounded, for the readers whose grammar has already
/// accepted the text as a number (XML `<real>`, JSON numbers).
///
/// The usual numbers (up to 19 significant digits, a modest exponent) are read by exact integer
/// arithmetic in C (``trove_parse_decimal``); the rest by `strtod`, through `Double(_:)`, which
/// also costs a `String` per number. Both round correctly, so which one answers never shows.
enum DecimalReal {
    /// The double `text` spells, or nil when `Double(_:)` cannot read it.
    static func value(of text: UnsafeBufferPointer<UInt8>) -> Double? {
        var fast = 0.0
        if let base = text.baseAddress, trove_parse_decimal(base, text.count, &fast) != 0 { return fast }
        return Double(String(decoding: text, as: UTF8.self))
    }
}
