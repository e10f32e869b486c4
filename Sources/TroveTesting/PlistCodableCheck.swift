import Foundation
import Trove

extension PlistCheck {
    /// Decodes a `T` from the fixture at `path` and checks that encoding it again gives back the
    /// same value (and, with `sameBytes`, the same bytes), in the fixture's own format.
    ///
    /// This catches the usual Codable fixture rot: a property the type no longer decodes (it
    /// is missing from the re-encoded value), a renamed key, a number or date that changes on
    /// the way through. The fixture may be in any format; it is re-encoded in that format
    /// (``PlistEncoder`` writes Foundation's bytes for XML and binary, so `sameBytes` holds for
    /// fixtures Foundation wrote).
    ///
    /// - Returns: The decoded value, for further checks.
    /// - Throws: ``PlistTestFailure``: ``PlistTestFailure/Kind/decodingFailed`` or
    ///   ``PlistTestFailure/Kind/encodingFailed`` with the coding path and the error's message;
    ///   ``PlistTestFailure/Kind/valuesDiffer`` naming the coding path of the first difference
    ///   and listing them all by key path (`-` only in the fixture, `+` only re-encoded);
    ///   ``PlistTestFailure/Kind/bytesDiffer`` with the first differing byte.
    @discardableResult
    public static func codableRoundTrip<T: Codable>(
        _ type: T.Type, fixture path: String, sameBytes: Bool = false, decoder: PlistDecoder = PlistDecoder(),
        encoder: PlistEncoder = PlistEncoder(), options: PlistComparisonOptions = .default
    ) throws(PlistTestFailure) -> T {
        let bytes: Data
        do {
            bytes = try FileReader.read(path)
        } catch {
            throw PlistTestFailure(.fileError, "cannot read \(path): \(error)")
        }
        return try codableRoundTrip(type, bytes, name: path, sameBytes: sameBytes, decoder: decoder, encoder: encoder, options: options)
    }

    /// ``codableRoundTrip(_:fixture:sameBytes:decoder:encoder:options:)`` for fixture bytes in
    /// memory; `name` says which fixture it is in messages.
    @discardableResult
    public static func codableRoundTrip<T: Codable>(
        _ type: T.Type, _ bytes: Data, name: String = "fixture", sameBytes: Bool = false,
        decoder: PlistDecoder = PlistDecoder(), encoder: PlistEncoder = PlistEncoder(),
        options: PlistComparisonOptions = .default
    ) throws(PlistTestFailure) -> T {
        var format = PlistFormat.binary
        let decoded: T
        do {
            decoded = try decoder.decode(type, from: bytes, format: &format)
        } catch {
            throw PlistTestFailure(.decodingFailed, "decoding \(T.self) from \(name) failed: \(describe(error))")
        }
        var encoder = encoder
        encoder.outputFormat = format
        let encoded: Data
        do {
            encoded = try encoder.encode(decoded)
        } catch {
            throw PlistTestFailure(.encodingFailed, "encoding \(T.self) decoded from \(name) failed: \(describe(error))")
        }
        let original: PlistValue, again: PlistValue
        do {
            original = try Plist.read(bytes, options: PlistReadOptions(keepsLayout: false)).value
            again = try Plist.read(encoded, options: PlistReadOptions(keepsLayout: false)).value
        } catch {
            throw PlistTestFailure(.fileError, "\(name) does not read back: \(error)")
        }
        let found = differences(again, original, options: options)
        if let first = found.first {
            throw PlistTestFailure(
                .valuesDiffer,
                report("re-encoding \(T.self) decoded from \(name) changes the value; first at coding path "
                    + "\(codingPath(first.keyPath))", found),
                differences: found)
        }
        if sameBytes, let offset = PlistRoundtripReport.firstDifference(encoded, bytes) {
            throw PlistTestFailure(
                .bytesDiffer,
                "re-encoding \(T.self) decoded from \(name) as \(format.rawValue) gives other bytes from byte \(offset) "
                    + "(\(encoded.count) bytes encoded, \(bytes.count) in the fixture); the values are equal")
        }
        return decoded
    }

    /// A key path as Codable names it: keys, and `Index N` for array positions, as in
    /// `DecodingError`'s coding paths; `[]` for the root.
    public static func codingPath(_ keyPath: PlistKeyPath) -> String {
        let names = keyPath.components.map { component -> String in
            switch component {
            case .key(let key): return key
            case .index(let index): return "Index \(index)"
            }
        }
        return "[" + names.joined(separator: ", ") + "]"
    }

    /// A Codable error in one line: its coding path and message, and the underlying error.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            "[" + codingPath.map { $0.intValue.map { "Index \($0)" } ?? $0.stringValue }.joined(separator: ", ") + "]"
        }
        func context(_ context: DecodingError.Context) -> String {
            "at coding path \(path(context.codingPath)): \(context.debugDescription)"
                + (context.underlyingError.map { " (\($0))" } ?? "")
        }
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
            DecodingError.keyNotFound(_, let c), DecodingError.dataCorrupted(let c):
            return context(c)
        case EncodingError.invalidValue(_, let c):
            return "at coding path \(path(c.codingPath)): \(c.debugDescription)"
                + (c.underlyingError.map { " (\(describe($0)))" } ?? "")
        default:
            return "\(error)"
        }
    }
}
