import Foundation

/// The forms in which a value can be typed on a command line or in a settings field: what
/// `plutil -insert K -TYPE VALUE` and `defaults write D K -TYPE VALUE` take.
public enum PlistValueSyntax: Sendable, Hashable, CaseIterable {
    /// `YES`, `true` or `1` for true; `NO`, `false` or `0` for false, in any case.
    case bool
    /// A decimal integer from `Int64.min` to `UInt64.max`, with an optional sign.
    case integer
    /// A finite decimal number (`1.5`, `-2e10`).
    case real
    /// Any text, taken as it is.
    case string
    /// A date as XML property lists write it (`2024-03-09T18:45:00Z`).
    case date
    /// Bytes in base64; white space is ignored.
    case base64Data
    /// Bytes in hexadecimal (`defaults -data`); white space is ignored.
    case hexData
    /// A property list in any format (XML, with or without the `<plist>` wrapper; OpenStep; JSON;
    /// binary text is not typed).
    case propertyList
    /// A JSON value; `null` has no property-list form and is refused.
    case json
}

extension PlistValue {
    /// Parses `text` as `syntax` says.
    ///
    /// Unlike `plutil` and `defaults`, which quietly store 0 or `NO` for text they cannot read,
    /// text that does not fit the syntax is an error:
    ///
    /// ```swift
    /// try PlistValue(parsing: "1024", as: .integer)        // .integer(1024)
    /// try PlistValue(parsing: "YES", as: .bool)            // .bool(true)
    /// try PlistValue(parsing: "{a = 1;}", as: .propertyList)
    /// try PlistValue(parsing: "abc", as: .integer)         // throws invalid-value
    /// ```
    ///
    /// - Throws: ``PlistError`` with code ``PlistError/Code/invalidValue`` and a message saying
    ///   what was expected (the reader's own message for property-list and JSON text).
    public init(parsing text: String, as syntax: PlistValueSyntax) throws(PlistError) {
        switch syntax {
        case .bool: self = try PlistValueTextParsing.bool(text)
        case .integer: self = try PlistValueTextParsing.integer(text)
        case .real: self = try PlistValueTextParsing.real(text)
        case .string: self = .string(text)
        case .date: self = try PlistValueTextParsing.date(text)
        case .base64Data: self = try PlistValueTextParsing.base64Data(text)
        case .hexData: self = try PlistValueTextParsing.hexData(text)
        case .propertyList: self = try PlistValueTextParsing.propertyList(text)
        case .json: self = try PlistValueTextParsing.json(text)
        }
    }
}

extension PlistError.Code {
    /// Typed text does not parse as the kind of value asked for (``PlistValue/init(parsing:as:)``).
    public static let invalidValue = PlistError.Code("invalid-value")
}

/// The parsers behind ``PlistValue/init(parsing:as:)``.
enum PlistValueTextParsing {
    private static func invalid(_ message: String) -> PlistError { PlistError(.invalidValue, message) }

    static func bool(_ text: String) throws(PlistError) -> PlistValue {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "yes", "true", "1": return .bool(true)
        case "no", "false", "0": return .bool(false)
        default: throw invalid("not a boolean (YES, NO, true, false, 1 or 0)")
        }
    }

    static func integer(_ text: String) throws(PlistError) -> PlistValue {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        let isNegative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let magnitude = UInt64(digits),
              let integer = PlistInteger(isNegative: isNegative, magnitude: magnitude)
        else {
            throw invalid("not a decimal integer from -9223372036854775808 to 18446744073709551615")
        }
        return .integer(integer)
    }

    static func real(_ text: String) throws(PlistError) -> PlistValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let isDecimal = !trimmed.isEmpty && trimmed.allSatisfy { "0123456789+-.eE".contains($0) }
        guard isDecimal, let number = Double(trimmed), number.isFinite else {
            throw invalid("not a finite decimal number")
        }
        return .real(PlistReal(number))
    }

    /// Dates are read by the XML reader, so that exactly the forms an XML plist may hold are taken.
    static func date(_ text: String) throws(PlistError) -> PlistValue {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let document = "<plist version=\"1.0\"><date>\(escaped)</date></plist>"
        guard let value = try? Plist.read(Data(document.utf8), options: PlistReadOptions(keepsLayout: false)).value,
              case .date = value
        else {
            throw invalid("not a date as XML property lists write it (e.g. 2024-03-09T18:45:00Z)")
        }
        return value
    }

    static func base64Data(_ text: String) throws(PlistError) -> PlistValue {
        let compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard let bytes = Data(base64Encoded: compact) else { throw invalid("invalid base64 data") }
        return .data(bytes)
    }

    static func hexData(_ text: String) throws(PlistError) -> PlistValue {
        var bytes: [UInt8] = []
        var high: UInt8?
        for unit in text.utf8 {
            let nibble: UInt8
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = unit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = unit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = unit - UInt8(ascii: "A") + 10
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: throw invalid("invalid hexadecimal data")
            }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw invalid("hexadecimal data with an odd number of digits") }
        return .data(Data(bytes))
    }

    /// Any property list. CoreFoundation reads a bare `<dict>...` as XML, but format detection
    /// sees old-style data in `<...>`, so text that opens with a tag is first tried inside a
    /// `<plist>` element.
    static func propertyList(_ text: String) throws(PlistError) -> PlistValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let options = PlistReadOptions(keepsLayout: false)
        if trimmed.hasPrefix("<"), !trimmed.hasPrefix("<?"), !trimmed.hasPrefix("<!"), !trimmed.hasPrefix("<plist"),
           let wrapped = try? Plist.read(Data("<plist version=\"1.0\">\(trimmed)</plist>".utf8), options: options) {
            return wrapped.value
        }
        return try Plist.read(Data(text.utf8), options: options).value
    }

    static func json(_ text: String) throws(PlistError) -> PlistValue {
        let value = try JSONPlistReader().read(Array(text.utf8))
        if containsNull(value) { throw invalid("null has no property-list form") }
        return value
    }

    /// The reader bounds the nesting, so this recursion is bounded too.
    private static func containsNull(_ value: PlistValue) -> Bool {
        switch value {
        case .null: return true
        case .array(let elements): return elements.contains(where: containsNull)
        case .dictionary(let dictionary): return dictionary.values.contains(where: containsNull)
        default: return false
        }
    }
}
