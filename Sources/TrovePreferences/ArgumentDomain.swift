import Foundation
import TroveCore

/// The argument domain: `-key value` pairs from a command line, as `UserDefaults` reads them.
///
/// A value is read as property-list text (`-list '(a, b)'`, `-map '{a = 1;}'`, an XML
/// fragment); text that is not a property list is the string itself. A `-key` with no value
/// after it, or followed by another `-key`, is skipped. Arguments before the first `-key` (the
/// program name, file operands) are ignored.
enum ArgumentDomain {
    static func parse(_ arguments: [String]) -> PlistDictionary {
        var entries = PlistDictionary()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.count > 1, argument.hasPrefix("-"), index + 1 < arguments.count else {
                index += 1
                continue
            }
            let key = String(argument.dropFirst())
            let text = arguments[index + 1]
            entries[key] = value(of: text)
            index += 2
        }
        return entries
    }

    /// A property list when the text is one (of a kind that is not a bare string), else the text.
    static func value(of text: String) -> PlistValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first, first == "(" || first == "{" || first == "<" || first == "\"" else {
            return .string(text)
        }
        return (try? PlistValue(parsing: text, as: .propertyList)) ?? .string(text)
    }
}
