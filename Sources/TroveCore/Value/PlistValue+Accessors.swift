import Foundation

extension PlistValue {
    /// The string, if this is a string.
    @inlinable public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The integer, if this is an integer.
    @inlinable public var integerValue: PlistInteger? { if case .integer(let i) = self { return i } else { return nil } }
    /// The integer as `Int`, if this is an integer that fits.
    @inlinable public var intValue: Int? { integerValue?.intValue }
    /// The integer as `Int64`, if this is an integer that fits.
    @inlinable public var int64Value: Int64? { integerValue?.int64Value }
    /// The integer as `UInt64`, if this is a non-negative integer.
    @inlinable public var uint64Value: UInt64? { integerValue?.uint64Value }
    /// The real, if this is a real.
    @inlinable public var realValue: PlistReal? { if case .real(let r) = self { return r } else { return nil } }
    /// A number as `Double`: reals as they are, integers converted.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .real(let r): return r.value
        case .integer(let i): return i.doubleValue
        default: return nil
        }
    }
    /// The boolean, if this is a bool.
    @inlinable public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The date, if this is a date.
    @inlinable public var dateValue: PlistDate? { if case .date(let d) = self { return d } else { return nil } }
    /// The bytes, if this is data.
    @inlinable public var dataValue: Data? { if case .data(let d) = self { return d } else { return nil } }
    /// The elements, if this is an array.
    @inlinable public var arrayValue: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The entries, if this is a dictionary.
    @inlinable public var dictionaryValue: PlistDictionary? { if case .dictionary(let d) = self { return d } else { return nil } }
    /// The reference number, if this is a UID.
    @inlinable public var uidValue: UInt64? { if case .uid(let u) = self { return u } else { return nil } }
    /// True for the null value.
    @inlinable public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The value for `key` when this is a dictionary; nil otherwise. Setting a value on a
    /// non-dictionary does nothing; setting nil removes the entry.
    public subscript(key: String) -> PlistValue? {
        get {
            guard case .dictionary(let d) = self else { return nil }
            return d[key]
        }
        set {
            guard case .dictionary(var d) = self else { return }
            self = .null  // drop the second reference so the dictionary is mutated in place
            d[key] = newValue
            self = .dictionary(d)
        }
    }

    /// The element at `index` when this is an array and the index is in range; nil otherwise.
    /// Setting replaces an element in range and does nothing otherwise.
    public subscript(index: Int) -> PlistValue? {
        get {
            guard case .array(let a) = self, a.indices.contains(index) else { return nil }
            return a[index]
        }
        set {
            guard case .array(var a) = self, a.indices.contains(index), let newValue else { return }
            self = .null
            a[index] = newValue
            self = .array(a)
        }
    }

    /// The number of elements or entries for containers, nil for scalars.
    public var count: Int? {
        switch self {
        case .array(let a): return a.count
        case .dictionary(let d): return d.count
        default: return nil
        }
    }
}
