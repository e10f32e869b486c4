import Foundation

/// One property-list value: the model every format reads into and writes from.
///
/// The cases cover everything Apple's formats can hold, plus the two that only binary files and
/// keyed archives use: ``uid(_:)`` (the `CF$UID` references of `NSKeyedArchiver`) and ``null``
/// (marker `0x00` in `bplist0x` files). Null is a case of its own, never a sentinel string, so a
/// real string such as `"$null"` can never be mistaken for it.
///
/// Values are plain Swift values: `Equatable`, `Hashable` and `Sendable`. Dictionaries keep the
/// order their keys were read or inserted in, but compare equal regardless of order.
public enum PlistValue: Sendable {
    /// A Unicode string (`<string>`, binary ASCII / UTF-16 string objects).
    case string(String)
    /// An integer in the range `Int64.min ... UInt64.max`.
    case integer(PlistInteger)
    /// A floating-point number that remembers whether it was stored as 32 or 64 bits.
    case real(PlistReal)
    /// `true` or `false`.
    case bool(Bool)
    /// A point in time, kept as the exact `Double` the file held.
    case date(PlistDate)
    /// Raw bytes.
    case data(Data)
    /// An ordered list of values.
    case array([PlistValue])
    /// String-keyed entries that keep their order.
    case dictionary(PlistDictionary)
    /// A keyed-archive object reference (binary marker `0x8N`, XML `CF$UID` dictionaries).
    case uid(UInt64)
    /// The binary format's explicit null object.
    case null
}

extension PlistValue {
    /// The kind of a value, without its payload; used in errors and type queries.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case string, integer, real, bool, date, data, array, dictionary, uid, null

        /// The kind's name as `plutil -type` prints it (`dictionary`, `float`, `bool`, ...).
        public var plutilName: String {
            switch self {
            case .real: return "float"
            default: return rawValue
            }
        }

        public var description: String { rawValue }
    }

    /// The kind of this value.
    @inlinable
    public var kind: Kind {
        switch self {
        case .string: return .string
        case .integer: return .integer
        case .real: return .real
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .array: return .array
        case .dictionary: return .dictionary
        case .uid: return .uid
        case .null: return .null
        }
    }

    /// True for arrays and dictionaries.
    @inlinable
    public var isContainer: Bool {
        switch self {
        case .array, .dictionary: return true
        default: return false
        }
    }
}

// MARK: - Equality and hashing

extension PlistValue: Equatable {
    /// Values are equal when they have the same kind and equal payloads. Dictionaries compare
    /// without regard to key order; reals and dates compare by value (NaN equals NaN, and -0.0
    /// differs from 0.0, so a round trip that loses the sign is caught) but not by width.
    ///
    /// The comparison walks nesting with an explicit stack, so any depth is safe, and compares
    /// each pair of shared containers once: a binary plist's shared objects cost their size, not
    /// the number of paths to them.
    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        PlistValueEquality.equal(lhs, rhs)
    }
}

extension PlistValue: Hashable {
    /// Hashes the whole value, consistently with `==`, with an explicit stack and each shared
    /// container hashed once.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(PlistValueDigest.digest(self))
    }
}
