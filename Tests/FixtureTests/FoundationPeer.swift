import Foundation
import Trove
import TroveTestSupport

/// The toolchain's Foundation (`PropertyListSerialization`, CoreFoundation underneath) as a live
/// peer, with conversions between its `Any` graphs and ``PlistValue``.
enum FoundationPeer {
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

    /// Foundation's object for a value (see ``FoundationBridge/object(from:)``).
    static func object(from value: PlistValue) throws -> Any { try FoundationBridge.object(from: value) }

    /// The value of a Foundation object (see ``FoundationBridge/value(from:)``).
    static func value(from object: Any) throws -> PlistValue { try FoundationBridge.value(from: object) }
}
