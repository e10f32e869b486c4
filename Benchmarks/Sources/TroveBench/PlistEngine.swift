import Foundation

/// The two document formats every engine reads and writes.
enum DocumentFormat: String, CaseIterable {
    case binary
    case xml

    /// Label used in operation names ("binary decode", "XML encode").
    var label: String { self == .binary ? "binary" : "XML" }
    /// File extension of corpus files written for this format.
    var fileSuffix: String { self == .binary ? "binary.plist" : "xml.plist" }
}

/// A property-list implementation that decodes whole documents into its own value type and
/// encodes that type back.
///
/// Each engine encodes its own decoded type (Trove's `PlistValue`, Foundation's `Any`, libplist's
/// `plist_t`), so the encode figures measure each library on the value representation its users
/// actually hold.
protocol PlistEngine {
    associatedtype Decoded
    /// Column name in the table.
    var name: String { get }
    func decode(_ document: Data, format: DocumentFormat) throws -> Decoded
    /// Returns the encoded document (or an owner of it); an empty one counts as a failure.
    func encode(_ value: Decoded, format: DocumentFormat) throws -> any EncodedDocument
}

/// The output of an encoder, whose size the runner checks so that an engine silently producing
/// nothing is reported instead of looking fast.
protocol EncodedDocument {
    var byteCount: Int { get }
}

extension Data: EncodedDocument {
    var byteCount: Int { count }
}

/// Raised when an engine reports failure without an error of its own (libplist returns NULL).
struct EngineFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension BenchmarkCase {
    /// A case holding one property list as both a binary and an XML document, measured with the
    /// four document operations on every engine.
    static func plistDocuments(
        name: String,
        summary: String,
        origin: Origin,
        documents: [DocumentFormat: Data],
        engines: [any PlistEngine]
    ) -> BenchmarkCase {
        var operations: [BenchmarkOperation] = []
        for format in DocumentFormat.allCases {
            guard let document = documents[format] else { continue }
            operations.append(BenchmarkOperation(
                name: "\(format.label) decode",
                bytesPerRun: document.count,
                engines: engines.map { decodeRun($0, document: document, format: format) }))
            operations.append(BenchmarkOperation(
                name: "\(format.label) encode",
                bytesPerRun: document.count,
                engines: engines.map { encodeRun($0, document: document, format: format) }))
        }
        return BenchmarkCase(name: name, summary: summary, origin: origin, operations: operations)
    }

    /// The scratch key under which an engine's decoded `format` document is kept.
    static func decodedKey(_ format: DocumentFormat) -> String { "decoded-\(format.rawValue)" }

    private static func decodeRun<E: PlistEngine>(_ engine: E, document: Data, format: DocumentFormat) -> EngineRun {
        EngineRun(engine: engine.name) { scratch in
            return {
                let value = try engine.decode(document, format: format)
                scratch.keepFirst(value, as: decodedKey(format))
                return value
            }
        }
    }

    private static func encodeRun<E: PlistEngine>(_ engine: E, document: Data, format: DocumentFormat) -> EngineRun {
        EngineRun(engine: engine.name) { scratch in
            let value = try scratch.value(decodedKey(format), as: E.Decoded.self) ?? engine.decode(document, format: format)
            return {
                let encoded = try engine.encode(value, format: format)
                guard encoded.byteCount > 0 else { throw EngineFailure("encoder produced no bytes") }
                return encoded
            }
        }
    }
}
