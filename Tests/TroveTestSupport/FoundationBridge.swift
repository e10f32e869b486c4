import Foundation
import TroveCore

/// Conversions between Foundation's property-list objects (what `PropertyListSerialization` and
/// `JSONSerialization` take and return) and ``PlistValue``, for tests that compare with the
/// toolchain's Foundation as a live peer.
public enum FoundationBridge {
    /// A value Foundation has no object for, or an object that is not a property list.
    public struct Unrepresentable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Foundation's object for a value. Reals keep their width (Float for 32-bit), integers
    /// above `Int64.max` become unsigned numbers, null is `NSNull` (JSON's null). UIDs have no
    /// public Foundation form.
    public static func object(from value: PlistValue) throws -> Any {
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
        case .null: return NSNull()
        case .uid: throw Unrepresentable(description: "Foundation has no public UID type")
        }
    }

    /// The value of a Foundation property-list object. Booleans are told from numbers by their
    /// type (`Bool`, `__NSCFBoolean`), integers from reals by `objCType`, so `1`, `true` and `1.0`
    /// stay apart; `NSNull` is null.
    public static func value(from object: Any) throws -> PlistValue {
        if type(of: object) == Bool.self, let flag = object as? Bool { return .bool(flag) }
        switch object {
        case let s as String:
            return .string(s)
        case let d as Data:
            return .data(d)
        case let d as Date:
            return .date(PlistDate(d))
        case is NSNull:
            return .null
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
        case "B": return .bool(n.boolValue)
        case "f": return .real(PlistReal(n.floatValue))
        case "d": return .real(PlistReal(n.doubleValue))
        case "Q", "L", "I", "S", "C": return .integer(PlistInteger(n.uint64Value))
        case "q", "l", "i", "s", "c": return .integer(PlistInteger(n.int64Value))
        case let other: throw Unrepresentable(description: "NSNumber with objCType \(other)")
        }
    }
}
