import Foundation

extension PlistValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PlistValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(PlistInteger(value)) }
}

extension PlistValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(PlistReal(value)) }
}

extension PlistValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PlistValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
}

extension PlistValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dictionary(PlistDictionary(elements))
    }
}

extension PlistValue {
    /// An integer value.
    @inlinable public static func int(_ v: Int) -> PlistValue { .integer(PlistInteger(v)) }
    /// An integer value from a signed 64-bit number.
    @inlinable public static func int64(_ v: Int64) -> PlistValue { .integer(PlistInteger(v)) }
    /// An integer value from an unsigned 64-bit number.
    @inlinable public static func uint64(_ v: UInt64) -> PlistValue { .integer(PlistInteger(v)) }
    /// A 64-bit real.
    @inlinable public static func double(_ v: Double) -> PlistValue { .real(PlistReal(v)) }
    /// A 32-bit real.
    @inlinable public static func float(_ v: Float) -> PlistValue { .real(PlistReal(v)) }
    /// A date from Foundation's `Date`.
    public static func date(_ d: Date) -> PlistValue { .date(PlistDate(d)) }
    /// A data value from bytes.
    public static func bytes<S: Sequence>(_ b: S) -> PlistValue where S.Element == UInt8 { .data(Data(b)) }
}
