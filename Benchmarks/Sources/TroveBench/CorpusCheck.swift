import Foundation
import Trove

/// Confirms, before anything is timed, that the peers read each input and that Foundation reads
/// the same values Trove does; otherwise a fast peer might just be one that gave up early.
enum CorpusCheck {
    /// One line per entry, e.g. "Foundation reads both, same values; libplist reads both".
    /// The decoded values are left in `scratch` (by engine name) for the encoders to start from.
    static func describe(_ entry: CorpusEntry, scratch: [String: EngineScratch]) -> String {
        let trove = TroveEngine(), foundation = FoundationEngine(), libplist = LibplistEngine()
        var notes: [String] = []
        var foundationProblems: [String] = []
        var libplistProblems: [String] = []
        for format in DocumentFormat.allCases {
            guard let document = entry.documents[format] else { continue }
            let key = BenchmarkCase.decodedKey(format)
            guard let ours = try? trove.decode(document, format: format) else {
                notes.append("Trove cannot read its \(format.label)")
                continue
            }
            scratch[trove.name]?.keepFirst(ours, as: key)
            do {
                let theirs = try foundation.decode(document, format: format)
                scratch[foundation.name]?.keepFirst(theirs, as: key)
                if let difference = firstDifference(ours, theirs, path: "") {
                    foundationProblems.append("\(format.label) differs at \(difference)")
                }
            } catch {
                foundationProblems.append("\(format.label) unreadable: \(error)")
            }
            do {
                scratch[libplist.name]?.keepFirst(try libplist.decode(document, format: format), as: key)
            } catch {
                libplistProblems.append("\(format.label) unreadable")
            }
        }
        notes.append(foundationProblems.isEmpty ? "Foundation reads both, same values" : "Foundation: " + foundationProblems.joined(separator: "; "))
        notes.append(libplistProblems.isEmpty ? "libplist reads both" : "libplist: " + libplistProblems.joined(separator: "; "))
        return notes.joined(separator: "; ")
    }

    /// The key path of the first value where Foundation's reading differs from Trove's, or nil.
    /// Numbers compare by value because Foundation on Linux bridges them loosely.
    static func firstDifference(_ ours: PlistValue, _ theirs: Any, path: String) -> String? {
        let here = path.isEmpty ? "<root>" : path
        switch ours {
        case .string(let string):
            return (theirs as? String) == string ? nil : here
        case .bool(let bool):
            return (theirs as? Bool) == bool ? nil : here
        case .integer(let integer):
            if let value = integer.int64Value, int64(theirs) == value { return nil }
            if let value = integer.uint64Value, (theirs as? UInt64) == value { return nil }
            return here
        case .real(let real):
            guard let value = double(theirs) else { return here }
            return value == real.value || (value.isNaN && real.value.isNaN) ? nil : here
        case .date(let date):
            return (theirs as? Date)?.timeIntervalSinceReferenceDate == date.secondsSinceReferenceDate ? nil : here
        case .data(let data):
            return (theirs as? Data) == data ? nil : here
        case .array(let items):
            guard let list = theirs as? [Any], list.count == items.count else { return here }
            for (index, item) in items.enumerated() {
                if let difference = firstDifference(item, list[index], path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .dictionary(let dictionary):
            guard let map = theirs as? [String: Any], map.count == dictionary.count else { return here }
            for (key, item) in dictionary {
                guard let other = map[key] else { return "\(path)/\(key)" }
                if let difference = firstDifference(item, other, path: "\(path)/\(key)") { return difference }
            }
            return nil
        case .uid, .null:
            // Foundation's representation of these differs between platforms; their presence
            // is all that is checked.
            return nil
        }
    }

    private static func int64(_ any: Any) -> Int64? {
        switch any {
        case let value as Int: return Int64(value)
        case let value as Int64: return value
        case let value as NSNumber: return value.int64Value
        default: return nil
        }
    }

    private static func double(_ any: Any) -> Double? {
        switch any {
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as NSNumber: return value.doubleValue
        default: return nil
        }
    }
}
