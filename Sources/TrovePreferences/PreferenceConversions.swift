import Foundation
import TroveCore

/// The conversions `UserDefaults`' typed getters make, on the value model.
///
/// Strings read as numbers the way `NSString`'s `integerValue` and `doubleValue` read them (a
/// leading number after optional white space; `"7x"` is 7, `"abc"` is 0), and as booleans the way
/// `boolValue` does (`YES`, `true`, or a leading non-zero number). Numbers read as strings in
/// decimal. Checked against the toolchain's Foundation in the tests.
enum PreferenceConversions {
    static func bool(_ value: PlistValue?) -> Bool {
        switch value {
        case .bool(let flag)?: return flag
        case .integer(let integer)?: return integer.bitPattern != 0
        case .real(let real)?: return real.value != 0
        case .string(let text)?:
            let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            if let first = trimmed.first, first == "Y" || first == "y" || first == "T" || first == "t" {
                let word = trimmed.lowercased()
                return word.hasPrefix("yes") || word.hasPrefix("true") || word == "y" || word == "t"
            }
            return leadingInteger(text) != 0
        default: return false
        }
    }

    static func integer(_ value: PlistValue?) -> Int {
        switch value {
        case .integer(let integer)?: return integer.int64Value.map { Int($0) } ?? 0
        case .real(let real)?: return real.value.isFinite && abs(real.value) < 9.2e18 ? Int(real.value) : 0
        case .bool(let flag)?: return flag ? 1 : 0
        case .string(let text)?: return Int(clamping: leadingInteger(text))
        default: return 0
        }
    }

    static func double(_ value: PlistValue?) -> Double {
        switch value {
        case .integer(let integer)?: return integer.doubleValue
        case .real(let real)?: return real.value
        case .bool(let flag)?: return flag ? 1 : 0
        case .string(let text)?: return leadingDouble(text)
        default: return 0
        }
    }

    static func string(_ value: PlistValue?) -> String? {
        switch value {
        case .string(let text)?: return text
        case .integer(let integer)?: return integer.description
        case .real(let real)?: return real.value.rounded() == real.value && abs(real.value) < 1e15
            ? String(Int64(real.value)) : String(real.value)
        case .bool(let flag)?: return flag ? "1" : "0"
        default: return nil
        }
    }

    /// A URL from a string: one with a scheme (`https://...`, `file://...`) as it is, anything
    /// else as a file path, `~` expanded.
    static func url(_ value: PlistValue?) -> URL? {
        guard case .string(let text)? = value, !text.isEmpty else { return nil }
        if let schemeEnd = text.range(of: "://"), !text[..<schemeEnd.lowerBound].isEmpty,
           text[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
           let url = URL(string: text) {
            return url
        }
        return URL(fileURLWithPath: (text as NSString).expandingTildeInPath)
    }

    /// How a URL is stored: a file URL as its path with the home directory as `~` (as `UserDefaults`
    /// stores it on macOS), any other as its absolute string.
    static func storedValue(for url: URL) -> PlistValue {
        guard url.isFileURL else { return .string(url.absoluteString) }
        let path = url.path
        let home = NSHomeDirectory()
        if !home.isEmpty, home != "/", path == home || path.hasPrefix(home + "/") {
            return .string("~" + path.dropFirst(home.count))
        }
        return .string(path)
    }

    static func stringArray(_ value: PlistValue?) -> [String]? {
        guard case .array(let elements)? = value else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// The integer a string starts with, after white space and an optional sign; 0 when none.
    static func leadingInteger(_ text: String) -> Int64 {
        var units = Substring(text).utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        var negative = false
        if let sign = units.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            units = units.dropFirst()
        }
        var magnitude: Int64 = 0
        for unit in units {
            guard unit >= UInt8(ascii: "0"), unit <= UInt8(ascii: "9") else { break }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(unit - UInt8(ascii: "0")))
            if o1 || o2 { return negative ? Int64.min : Int64.max }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// The number a string starts with (`strtod`'s reading); 0 when none.
    static func leadingDouble(_ text: String) -> Double {
        text.withCString { pointer in strtod(pointer, nil) }
    }
}
