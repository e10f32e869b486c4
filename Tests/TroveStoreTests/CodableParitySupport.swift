import Foundation
import Trove

/// Foundation's property-list format for one of ours (XML or binary).
func foundationFormat(_ format: PlistFormat) -> PropertyListDecoder.PropertyListFormat {
    format == .xml ? .xml : .binary
}

/// Foundation's encoding of `value`, or its error.
func foundationEncode<T: Encodable>(_ value: T, as format: PlistFormat) -> Result<Data, any Error> {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = foundationFormat(format)
    return Result { try encoder.encode(value) }
}

/// Trove's encoding of `value`, or its error.
func troveEncode<T: Encodable>(_ value: T, as format: PlistFormat) -> Result<Data, any Error> {
    let encoder = PlistEncoder(outputFormat: format)
    return Result { try encoder.encode(value) }
}

/// A decoded value, compared through Foundation's binary encoding read back as a value, so
/// that NaN, -0.0 and every bit of a real count but the order of a Swift dictionary (which
/// differs between two dictionaries of the same entries) does not; a value Foundation cannot
/// encode compares by its error.
enum Fingerprint: Equatable, CustomStringConvertible {
    case value(PlistValue)
    case failure(String)

    var description: String {
        switch self {
        case .value(let value): return "value \(value)"
        case .failure(let text): return text
        }
    }
}

func fingerprint<T: Encodable>(_ value: T) -> Fingerprint {
    do {
        return .value(try Plist.read(PropertyListEncoder().encode(value)).value)
    } catch {
        return .failure("unencodable: \(describe(error))")
    }
}

/// An outcome: the fingerprint of a value, or the error's case, coding path (string and
/// integer values of every key) and message.
func outcome<T: Encodable>(_ result: Result<T, any Error>) -> Fingerprint {
    switch result {
    case .success(let value): return fingerprint(value)
    case .failure(let error): return .failure(describe(error))
    }
}

/// A coding path as `key/#3/key`, integer keys by their value, plus their string values.
func describe(_ path: [any CodingKey]) -> String {
    path.map { key in key.intValue.map { "#\($0)(\(key.stringValue))" } ?? key.stringValue }.joined(separator: "/")
}

/// The parts of an error both coders must agree on. Underlying errors are named by kind only
/// (Foundation's are `CocoaError`s, Trove's `PlistError`s).
func describe(_ error: any Error, messages: Bool = true) -> String {
    func context(_ c: DecodingError.Context) -> String {
        "[\(describe(c.codingPath))]" + (messages ? " \(c.debugDescription)" : "")
            + (c.underlyingError == nil ? "" : " (underlying)")
    }
    switch error {
    case DecodingError.typeMismatch(let type, let c): return "typeMismatch(\(type)) \(context(c))"
    case DecodingError.valueNotFound(let type, let c): return "valueNotFound(\(type)) \(context(c))"
    case DecodingError.keyNotFound(let key, let c): return "keyNotFound(\(key.stringValue)) \(context(c))"
    case DecodingError.dataCorrupted(let c): return "dataCorrupted \(context(c))"
    case EncodingError.invalidValue(let value, let c):
        var text = "invalidValue(\(type(of: value))) [\(describe(c.codingPath))] \(c.debugDescription)"
        if let underlying = c.underlyingError { text += " <- " + describe(underlying, messages: messages) }
        return text
    default:
        return "other error"
    }
}

/// Decodes `T` with both decoders from the same bytes.
func decodeBoth<T: Codable>(_ type: T.Type, from data: Data) -> (foundation: Fingerprint, trove: Fingerprint) {
    let foundation = Result { try PropertyListDecoder().decode(type, from: data) }
    let trove = Result { try PlistDecoder().decode(type, from: data) }
    return (outcome(foundation), outcome(trove))
}

/// An XML document around `body`.
func xmlDocument(_ body: String) -> Data {
    Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """.utf8)
}

/// The same document in binary, as CoreFoundation writes it.
func binaryDocument(_ body: String) throws -> Data {
    let value = try PropertyListSerialization.propertyList(from: xmlDocument(body), format: nil)
    return try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
}

/// `{ "v": body }`, the wrapper of the decoding tests.
struct Wrapped<T: Codable>: Codable {
    var v: T
}
