import Foundation
import TroveCore

extension PlistStore {
    /// The kept value decoded as `type` with `decoder`, or nil when nothing is kept yet.
    ///
    /// ```swift
    /// struct Config: Codable { var port = 8080; var hosts: [String] = [] }
    /// let store = PlistStore(path: "config.plist")
    /// var config = try store.load(Config.self) ?? Config()
    /// config.port = 9090
    /// try store.save(config)
    /// ```
    ///
    /// - Throws: ``PlistError`` when the file cannot be read, or `DecodingError` (Foundation's
    ///   cases and coding paths, as ``PlistDecoder`` gives them) when its value does not fit.
    public func load<T: Decodable>(_ type: T.Type, decoder: PlistDecoder = PlistDecoder()) throws -> T? {
        guard let value = try load() else { return nil }
        return try decoder.decode(type, from: value)
    }

    /// Keeps `value`, encoded with `encoder` (its output format is not used: the store's type
    /// decides the file's format), replacing what was there atomically.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded (a top-level scalar, as
    ///   Foundation refuses), or ``PlistError`` when the file cannot be written; the file is
    ///   then as it was.
    // Disfavored so that a literal (`store.save(["k": 1])`) is the value-model save, not a
    // dictionary encoded through Codable.
    @_disfavoredOverload
    public func save<T: Encodable>(_ value: T, encoder: PlistEncoder = PlistEncoder()) throws {
        try save(try encoder.encodeValue(value))
    }
}
