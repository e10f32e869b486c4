import Foundation

/// Writes a property list as a Swift constant, byte for byte as `plutil -convert swift` does.
///
/// ```swift
/// /// Generated from Settings.plist
/// let Settings : [String : Any] = [
///     "Count" : 3,
///     "Name" : "Main",
/// ]
/// ```
///
/// The layout is plutil's, quirks included, so that generated files do not change when a project
/// moves from plutil to Trove:
/// - The constant is named from the source file (see
///   ``PlistSourceLanguage/variableName(forSourcePath:)``); a top-level collection whose values
///   are not all of one kind is annotated `[String : Any]` or `[Any]`.
/// - Four-space indentation, a `,` after every entry, dictionary keys in `plutil -r`'s order.
/// - Booleans are `true`/`false`, integers decimal, reals C's `%f` (`3.250000`, `nan`, `inf`),
///   data `Data(bytes: [0x0A,0xFF,])` and dates `Date(timeIntervalSinceReferenceDate: 6.0e8)`
///   with the exact seconds.
/// - Strings are not escaped for Swift: only `"`, line feeds and a few regular-expression
///   sequences (`\b`, `\s`, `\w`, `\.`, `\|`, `\*`, `\(`, `\)`) get a backslash, and keys are
///   written as they are.
/// - An empty dictionary is written `[` + newline + `]`, which Swift reads as an empty array.
///
/// The places where plutil's output does not compile (an empty dictionary, a key or string with
/// a backslash or quote, a name that is not an identifier, `nan`) are kept for fidelity.
/// UIDs and null cannot be written and throw ``PlistError/Code/unsupportedValue`` with plutil's
/// message for them.
public struct SwiftLiteralWriter: Sendable {
    /// The path the property list was read from: it names the constant and the comment line.
    public var sourcePath: String
    /// The deepest nesting written; deeper values throw ``PlistError/Code/depthLimit``.
    public var maxDepth: Int

    /// A writer for a property list read from `sourcePath` (`-` for standard input).
    public init(sourcePath: String, maxDepth: Int = PlistLimits.default.maxDepth) {
        self.sourcePath = sourcePath
        self.maxDepth = maxDepth
    }

    /// The Swift source text, ending in a newline.
    public func write(_ value: PlistValue) throws(PlistError) -> String {
        try SourceLiteralSpelling.validate(value, rejecting: [], message: "", maxDepth: maxDepth)
        var out = "/// Generated from \(SourcePathNaming.lastComponent(ofPath: sourcePath))\n"
        out += "let \(PlistSourceLanguage.variableName(forSourcePath: sourcePath))"
        switch value {
        case .dictionary(let dictionary) where SourceLiteralSpelling.isHeterogeneous(dictionary.values):
            out += " : [String : Any]"
        case .array(let items) where SourceLiteralSpelling.isHeterogeneous(items):
            out += " : [Any]"
        default:
            break
        }
        out += " = "
        SourceLiteralLayout.append(value, spelledAs: Self.syntax, to: &out)
        out += "\n"
        return out
    }

    /// Swift's spellings: plain brackets for both kinds of collection, unprefixed literals.
    private static let syntax = SourceLiteralSyntax(
        arrayOpen: "[\n", arrayClose: "]", dictionaryOpen: "[\n", dictionaryClose: "]",
        appendKey: { key, out in out += "\"\(key)\" : " },
        appendScalar: { value, out in
            switch value {
            case .string(let string):
                out += "\""
                out += SourceLiteralSpelling.escapedText(string).replacingOccurrences(of: "\n", with: "\\n")
                out += "\""
            case .integer(let integer):
                out += integer.description
            case .real(let real):
                out += SourceLiteralSpelling.real(real)
            case .bool(let bool):
                out += bool ? "true" : "false"
            case .date(let date):
                out += "Date(timeIntervalSinceReferenceDate: \(date.secondsSinceReferenceDate))"
            case .data(let data):
                out += "Data(bytes: ["
                for byte in data { out += hexByte(byte) + "," }
                out += "])"
            case .uid, .null, .array, .dictionary:
                // UIDs and null are refused by validation; containers are the layout's.
                break
            }
        })

    /// `0x0A`: two upper-case hex digits.
    private static func hexByte(_ byte: UInt8) -> String {
        "0x" + String(hexDigits[Int(byte >> 4)]) + String(hexDigits[Int(byte & 0x0F)])
    }

    private static let hexDigits = Array("0123456789ABCDEF")
}
