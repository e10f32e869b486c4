import Foundation
import TroveCore

/// Encodes `Encodable` values as property lists, with the results of Foundation's
/// `PropertyListEncoder`.
///
/// For XML and binary output the bytes are Foundation's, byte for byte: the same key order
/// (encoding order in binary, sorted in XML), `nil` spelled as the string `"$null"`, the same
/// integer widths (a `UInt64` is always a 16-byte integer, a `Float` a 32-bit real), the same
/// object sharing and table widths in binary, and dates in whole seconds in XML. `Date` and `Data`
/// are plist dates and data; `[String: T]` has its keys sorted; a `URL` is its Codable form (a
/// dictionary). OpenStep and JSON output, which Foundation does not write, go through Trove's
/// writers (``Plist/write(_:as:limits:)``) from the same value.
///
/// As with Foundation, the top level must be an array, a dictionary or data: a value that
/// encodes as a single number, string, `nil`, boolean or date, or that encodes nothing, is
/// refused with `EncodingError.invalidValue`. Every error, including one the value throws, comes
/// out as `EncodingError.invalidValue` with the message "Unable to encode the given top-level value
/// as a property list" and the original error as `underlyingError`, as Foundation reports it.
///
/// An encoder is a value: copy it to vary options, and use it from any thread.
public struct PlistEncoder: Sendable {
    /// The format ``encode(_:)`` writes. Binary by default, as with Foundation.
    public var outputFormat: PlistFormat = .binary

    /// Context for the values' `encode(to:)` methods, under `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// What the encoding machinery needs from the options.
    struct Options {
        let userInfo: [CodingUserInfoKey: Any]
    }

    /// An encoder writing binary property lists.
    public init() {}

    /// An encoder writing `outputFormat`.
    public init(outputFormat: PlistFormat) {
        self.outputFormat = outputFormat
    }

    /// The property list of `value` in ``outputFormat``.
    /// - Throws: `EncodingError.invalidValue` when the value cannot be a property list (see the
    ///   type's notes), with the cause as its underlying error.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        try topLevel(value) { node in
            switch outputFormat {
            case .binary: return CodableBinaryWriter.write(node)
            case .xml: return CodableXMLWriter.write(node)
            case .openStep, .json: return try Plist.write(node.plistValue, as: outputFormat)
            }
        }
    }

    /// The value model of what ``encode(_:)`` would write: `nil` is the string `"$null"`, and
    /// integers no longer say which Swift type they came from. Refuses the same top-level values.
    public func encodeValue<T: Encodable>(_ value: T) throws -> PlistValue {
        try topLevel(value) { $0.plistValue }
    }

    /// Encodes `value`, checks its top level and hands the tree to `finish`, wrapping every
    /// error as Foundation does.
    private func topLevel<T: Encodable, R>(_ value: T, _ finish: (EncodedNode) throws -> R) throws -> R {
        do {
            let context = EncodingContext(options: Options(userInfo: userInfo))
            guard let node = try context.wrapGeneric(value, parent: nil, step: nil) else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
            }
            if node.isTopLevelFragment {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: [],
                    debugDescription: "Top-level \(T.self) encoded as \(node.fragmentName) property list fragment."))
            }
            return try finish(node)
        } catch {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Unable to encode the given top-level value as a property list",
                underlyingError: error))
        }
    }
}
