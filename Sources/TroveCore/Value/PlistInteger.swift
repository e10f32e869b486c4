/// A property-list integer: any value from `Int64.min` to `UInt64.max`.
///
/// Binary plists store integers up to `Int64.max` in 1, 2, 4 or 8 bytes and larger unsigned values
/// as 16-byte integers; XML spells them in decimal or hex. This type covers the union of both
/// ranges exactly, so no value read from an Apple file is clamped or wrapped.
public struct PlistInteger: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The magnitude of the value.
    public let magnitude: UInt64
    /// True when the value is below zero. Zero is never negative.
    public let isNegative: Bool

    /// Creates an integer from a signed 64-bit value.
    @inlinable
    public init(_ value: Int64) {
        isNegative = value < 0
        magnitude = value.magnitude
    }

    /// Creates an integer from an unsigned 64-bit value.
    @inlinable
    public init(_ value: UInt64) {
        isNegative = false
        magnitude = value
    }

    /// Creates an integer from a platform `Int`.
    @inlinable
    public init(_ value: Int) { self.init(Int64(value)) }

    /// Creates an integer from a sign and a magnitude; returns nil below `Int64.min`.
    @inlinable
    public init?(isNegative: Bool, magnitude: UInt64) {
        if isNegative && magnitude > UInt64(Int64.max) + 1 { return nil }
        self.isNegative = isNegative && magnitude != 0
        self.magnitude = magnitude
    }

    /// The value as `Int64`, or nil when it is above `Int64.max`.
    @inlinable
    public var int64Value: Int64? {
        if isNegative { return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude) }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The value as `UInt64`, or nil when it is negative.
    @inlinable
    public var uint64Value: UInt64? { isNegative ? nil : magnitude }

    /// The value as `Int`, or nil when it does not fit.
    @inlinable
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The two's-complement low 64 bits: what a binary plist stores for values that fit in 8 bytes
    /// and the low half of a 16-byte integer.
    @inlinable
    public var bitPattern: UInt64 { isNegative ? (~magnitude &+ 1) : magnitude }

    /// The value as a `Double` (rounded when beyond 2^53).
    @inlinable
    public var doubleValue: Double { isNegative ? -Double(magnitude) : Double(magnitude) }

    public static func < (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        switch (lhs.isNegative, rhs.isNegative) {
        case (true, false): return true
        case (false, true): return false
        case (false, false): return lhs.magnitude < rhs.magnitude
        case (true, true): return lhs.magnitude > rhs.magnitude
        }
    }

    /// Decimal, as CoreFoundation and plutil print it.
    public var description: String { isNegative ? "-\(magnitude)" : "\(magnitude)" }
}

extension PlistInteger: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(value) }
}
