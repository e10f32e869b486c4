import Foundation
import TroveCore

/// Decodes `Decodable` values from property lists, with the results of Foundation's
/// `PropertyListDecoder`.
///
/// The document is read whole by ``Plist/read(_:options:)`` (any format: XML, binary, OpenStep,
/// and JSON, which Foundation's decoder cannot read) and decoded from the value tree. Values,
/// error cases and coding paths are Foundation's:
///
/// * the string `"$null"` (what Foundation's encoders write for `nil`) and the binary null
///   object decode as `nil`; a non-optional value there is `valueNotFound`;
/// * numbers convert only exactly: a real decodes as an integer when it is a whole number in
///   range, an integer as a real by rounding; a number that does not fit is `dataCorrupted`
///   ("Parsed property list number <300> does not fit in Int8."). From XML a real decodes as
///   `Float` by rounding, as Foundation parses the text; from binary a 64-bit real that `Float`
///   cannot hold exactly is an error, as it is there;
/// * there is no other conversion: `Bool` from an integer, or a number from a string, is
///   `typeMismatch` ("Expected to decode Bool but found an integer instead.");
/// * a document that does not parse is `dataCorrupted` with the message "The given data was not
///   a valid property list." and the ``PlistError`` (code, format, position) as the underlying
///   error.
///
/// A decoder is a value: copy it to vary options, and use it from any thread.
public struct PlistDecoder: Sendable {
    /// Context for the types' `init(from:)` methods, under `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Limits applied while reading the document (nesting depth, sizes); see ``PlistLimits``.
    public var limits: PlistLimits = .default

    /// A decoder with the default limits.
    public init() {}

    /// Decodes a `T` from a property list in any format.
    /// - Throws: `DecodingError`; `.dataCorrupted` with the ``PlistError`` as underlying error
    ///   when the data is not a property list.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        var format = PlistFormat.binary
        return try decode(type, from: data, format: &format)
    }

    /// Decodes a `T` from a property list in any format, and sets `format` to the format read.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, format: inout PlistFormat) throws -> T {
        let document: PlistDocument
        do {
            document = try Plist.read(data, options: PlistReadOptions(limits: limits, keepsLayout: false))
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not a valid property list.", underlyingError: error))
        }
        let flavor: DecodingFlavor
        switch document.format {
        case .binary, .json: flavor = .binary
        case .xml: flavor = .xml
        case .openStep: flavor = .openStep
        }
        let result = try decode(type, from: document.value, flavor: flavor)
        format = document.format
        return result
    }

    /// Decodes a `T` from a value, with the conversions of a binary document (exact ones only).
    public func decode<T: Decodable>(_ type: T.Type, from value: PlistValue) throws -> T {
        try decode(type, from: value, flavor: .binary)
    }

    private func decode<T: Decodable>(_ type: T.Type, from value: PlistValue, flavor: DecodingFlavor) throws -> T {
        let userInfo: [CodingUserInfoKey: Any] = userInfo
        let context = DecodingContext(value: value, node: nil, userInfo: userInfo, flavor: flavor)
        return try context.unwrap(value, as: type, parent: nil, step: nil)
    }
}
