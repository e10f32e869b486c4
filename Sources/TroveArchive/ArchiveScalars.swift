import Foundation
import TroveCore

// Numbers and booleans: stored in place in the object's own dictionary when they are a field
// (as `encodeInteger(_:forKey:)`, `encodeDouble(_:forKey:)` and `encodeBool(_:forKey:)` store
// them), and as an `NSNumber` entry of `$objects` when they are an element of a collection.

extension ArchiveRepresentable where Self: FixedWidthInteger {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        if Self.isSigned, let signed = Int64(exactly: self) { return .integer(PlistInteger(signed)) }
        guard let unsigned = UInt64(exactly: self) else {
            throw PlistError(.unsupportedValue, "\(self) does not fit in a property-list integer")
        }
        return .integer(PlistInteger(unsigned))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Self {
        let value = try decoder.numberValue(field, as: Self.self)
        let converted: Self?
        switch value {
        case .integer(let i):
            converted = i.isNegative ? i.int64Value.flatMap { Self(exactly: $0) } : Self(exactly: i.magnitude)
        case .real(let r):
            converted = Self(exactly: r.value)
        case .bool(let b):
            converted = b ? 1 : 0
        default:
            converted = nil
        }
        guard let converted else {
            throw decoder.error(.typeMismatch, "\(ArchiveDecoder.describe(value)) does not fit in \(Self.self)")
        }
        return converted
    }
}

extension Int: ArchiveRepresentable {}
extension Int8: ArchiveRepresentable {}
extension Int16: ArchiveRepresentable {}
extension Int32: ArchiveRepresentable {}
extension Int64: ArchiveRepresentable {}
extension UInt: ArchiveRepresentable {}
extension UInt8: ArchiveRepresentable {}
extension UInt16: ArchiveRepresentable {}
extension UInt32: ArchiveRepresentable {}
extension UInt64: ArchiveRepresentable {}

extension Double: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue { .real(PlistReal(self)) }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Double {
        let value = try decoder.numberValue(field, as: Double.self)
        switch value {
        case .real(let r): return r.value
        case .integer(let i): return i.doubleValue
        case .bool(let b): return b ? 1 : 0
        default: throw decoder.error(.typeMismatch, "expected a number, found \(ArchiveDecoder.describe(value))")
        }
    }
}

extension Float: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue { .real(PlistReal(self)) }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Float {
        Float(try Double.decodeArchiveField(field, with: decoder))
    }
}

extension Bool: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue { .bool(self) }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Bool {
        let value = try decoder.numberValue(field, as: Bool.self)
        switch value {
        case .bool(let b): return b
        case .integer(let i): return i.magnitude != 0
        case .real(let r): return r.value != 0
        default: throw decoder.error(.typeMismatch, "expected a boolean, found \(ArchiveDecoder.describe(value))")
        }
    }
}

extension ArchiveDecoder {
    /// The number a field holds, in place or through a reference to an `NSNumber` entry; from a
    /// keyed dictionary tree read from text, also a string that spells one.
    func numberValue(_ field: PlistValue, as type: Any.Type) throws -> PlistValue {
        var value = field
        if case .uid(let reference) = field {
            switch try resolve(reference: reference) {
            case .inline(let inline): value = inline
            case .null: throw error(.archiveMissingKey, "expected \(type), found $null")
            case .object(let index, let record, _):
                throw error(.typeMismatch, "expected \(type), found object \(index) of class \(record.name)")
            }
        }
        switch value {
        case .integer, .real, .bool: return value
        case .string(let text) where acceptsTextScalars:
            if let parsed = Self.parseTextNumber(text) { return parsed }
            throw error(.typeMismatch, "expected \(type), found \(Self.describe(value))")
        default:
            throw error(.typeMismatch, "expected \(type), found \(Self.describe(value))")
        }
    }

    /// A number or boolean spelled as OpenStep text spells it (`42`, `-1.5`, `YES`, `NO`).
    static func parseTextNumber(_ text: String) -> PlistValue? {
        switch text {
        case "YES", "true": return .bool(true)
        case "NO", "false": return .bool(false)
        default: break
        }
        if let i = Int64(text) { return .integer(PlistInteger(i)) }
        if let u = UInt64(text) { return .integer(PlistInteger(u)) }
        if let d = Double(text) { return .real(PlistReal(d)) }
        return nil
    }
}
