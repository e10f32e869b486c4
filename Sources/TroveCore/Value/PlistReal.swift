/// A property-list floating-point number.
///
/// Binary plists hold 32-bit (`0x22`) or 64-bit (`0x23`) reals. The width is remembered so a
/// value read from a file is written back in the same width; it takes no part in equality, so
/// converting between formats that cannot keep it still compares equal.
public struct PlistReal: Sendable, Hashable, CustomStringConvertible {
    /// The storage width a real had in a binary plist.
    public enum Width: Sendable, Hashable {
        /// IEEE 754 binary32 (`Float`).
        case single
        /// IEEE 754 binary64 (`Double`).
        case double
    }

    /// The numeric value. A `.single` real holds a value exactly representable as `Float`.
    public let value: Double
    /// The width it is written with in binary plists.
    public let width: Width

    /// A 64-bit real.
    @inlinable
    public init(_ value: Double) {
        self.value = value
        self.width = .double
    }

    /// A 32-bit real.
    @inlinable
    public init(_ value: Float) {
        self.value = Double(value)
        self.width = .single
    }

    /// A real of the given width; a `.single` value is rounded to `Float` precision.
    @inlinable
    public init(_ value: Double, width: Width) {
        self.value = width == .single ? Double(Float(value)) : value
        self.width = width
    }

    /// Equal when the numbers are the same: NaN equals NaN and -0.0 differs from 0.0, so that a
    /// round trip losing either is caught. Width is ignored.
    public static func == (lhs: PlistReal, rhs: PlistReal) -> Bool {
        if lhs.value.isNaN { return rhs.value.isNaN }
        return lhs.value.bitPattern == rhs.value.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
    }

    public var description: String { value.description }
}

extension PlistReal: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self.init(value) }
}
