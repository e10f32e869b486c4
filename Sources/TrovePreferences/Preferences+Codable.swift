import Foundation
import TroveCore
import TroveStore

extension Preferences {
    /// Sets `key` in the application domain to a `Codable` value, encoded as ``PlistEncoder``
    /// encodes it (a struct becomes a dictionary, readable by `trove defaults read`).
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded; nothing is written then.
    public func set<T: Encodable>(encoding value: T, forKey key: String, encoder: PlistEncoder = PlistEncoder()) throws {
        set(try encoder.encodeValue(value), forKey: key)
    }

    /// The value of `key` through the search list, decoded as `type`; nil when no domain has
    /// the key.
    ///
    /// - Throws: `DecodingError` (Foundation's cases and coding paths) when the value does not
    ///   fit the type.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: String, decoder: PlistDecoder = PlistDecoder()) throws -> T? {
        guard let value = value(forKey: key) else { return nil }
        return try decoder.decode(type, from: value)
    }
}
