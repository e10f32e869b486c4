import Foundation
import Trove

/// The toolchain's Foundation (`PropertyListSerialization`, CoreFoundation underneath) as a live
/// peer, with conversions between its `Any` graphs and ``PlistValue``.
enum FoundationPeer {
    struct Unrepresentable: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads bytes with `PropertyListSerialization` and converts the result.
    static func read(_ data: Data) throws -> PlistValue {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        return try value(from: object)
    }

    /// Writes a value with `PropertyListSerialization` in XML or binary.
    static func write(_ value: PlistValue, as format: PlistFormat) throws -> Data {
        let target: PropertyListSerialization.PropertyListFormat = format == .binary ? .binary : .xml
        return try PropertyListSerialization.data(fromPropertyList: try object(from: value), format: target, options: 0)
    }

    /// Foundation's object for a value. Reals keep their width (Float for 32-bit), integers above
    /// `Int64.max` become unsigned NSNumbers. Null and UIDs have no public Foundation form.
    static func object(from value: PlistValue) throws -> Any {
        switch value {
        case .string(let s): return s
        case .integer(let n):
            if let signed = n.int64Value { return NSNumber(value: signed) }
            return NSNumber(value: n.magnitude)
        case .real(let r): return r.width == .single ? NSNumber(value: Float(r.value)) : NSNumber(value: r.value)
        case .bool(let b): return b
        case .date(let d): return d.date
        case .data(let d): return d
        case .array(let items): return try items.map(object(from:))
        case .dictionary(let dict):
            var out: [String: Any] = [:]
            for (key, item) in dict { out[key] = try object(from: item) }
            return out
        case .uid: throw Unrepresentable(description: "Foundation has no public UID type")
        case .null: throw Unrepresentable(description: "Foundation property lists have no null")
        }
    }

    /// The value of a Foundation property-list object. Booleans are told from numbers by their
    /// class (`__NSCFBoolean`), integers from reals by `objCType`, so `1`, `true` and `1.0` stay apart.
    static func value(from object: Any) throws -> PlistValue {
        switch object {
        case let s as String:
            return .string(s)
        case let d as Data:
            return .data(d)
        case let d as Date:
            return .date(PlistDate(d))
        case let n as NSNumber:
            return try number(n)
        case let a as [Any]:
            return .array(try a.map(value(from:)))
        case let d as [AnyHashable: Any]:
            var dict = PlistDictionary(minimumCapacity: d.count)
            for (key, item) in d {
                guard let key = key.base as? String else { throw Unrepresentable(description: "non-string key \(key)") }
                dict[key] = try value(from: item)
            }
            return .dictionary(dict)
        default:
            throw Unrepresentable(description: "unexpected Foundation object of type \(type(of: object))")
        }
    }

    private static func number(_ n: NSNumber) throws -> PlistValue {
        if String(describing: type(of: n)).contains("Boolean") { return .bool(n.boolValue) }
        switch String(cString: n.objCType) {
        case "f": return .real(PlistReal(n.floatValue))
        case "d": return .real(PlistReal(n.doubleValue))
        case "Q", "L", "I", "S", "C": return .integer(PlistInteger(n.uint64Value))
        case "q", "l", "i", "s", "c": return .integer(PlistInteger(n.int64Value))
        case let other: throw Unrepresentable(description: "NSNumber with objCType \(other)")
        }
    }
}
