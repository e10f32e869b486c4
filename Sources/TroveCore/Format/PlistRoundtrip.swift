import Foundation

/// The checks `trove roundtrip` (and TroveTesting's round-trip assertion) make on one file, and
/// what each found.
///
/// Two kinds of check: the lossless rewrite (the document written back in its own format with
/// its layout notes must reproduce the input bytes), and a conversion round trip into every
/// format that can hold the value (write, read back, compare values).
public struct PlistRoundtripReport: Sendable {
    /// The outcome of one check.
    public enum Outcome: Sendable {
        /// The check passed.
        case passed
        /// Not attempted, and why (the format cannot hold the value, or keeps no layout notes).
        case skipped(String)
        /// Attempted and failed: a sentence, the first value differences when there were any, and
        /// how many there were in all.
        case failed(String, [PlistDifference], total: Int)
    }

    /// The lossless rewrite.
    public var lossless: Outcome
    /// The conversion round trips, in the order they were made.
    public var conversions: [(format: PlistFormat, outcome: Outcome)]

    /// True when nothing failed.
    public var passed: Bool {
        if case .failed = lossless { return false }
        return conversions.allSatisfy { if case .failed = $0.outcome { return false } else { return true } }
    }

    /// The formats tried, in order: binary and XML first (they hold the most), then JSON and
    /// OpenStep.
    public static let formatsTried: [PlistFormat] = [.binary, .xml, .json, .openStep]

    /// Runs every check on `document`, which was read from `input` with layout notes kept.
    ///
    /// A binary file's shared objects can expand to far more values than the file holds (a few
    /// hundred bytes can describe tens of millions); converting such a value takes minutes, so
    /// beyond `maxExpandedValues` the conversions are skipped, with the reason.
    /// At most `maxShown` value differences are kept per format.
    public static func check(
        _ document: PlistDocument, input: Data, maxExpandedValues: Int = 1_000_000, maxShown: Int = 10
    ) -> PlistRoundtripReport {
        let lossless = checkLossless(document, input: input)
        if document.format == .binary, let reason = expandsTooFar(input, limit: maxExpandedValues) {
            return PlistRoundtripReport(lossless: lossless, conversions: formatsTried.map { ($0, .skipped(reason)) })
        }
        return PlistRoundtripReport(
            lossless: lossless,
            conversions: formatsTried.map { ($0, checkConversion(document.value, to: $0, maxShown: maxShown)) })
    }

    /// Why the value of a binary file is too large to convert, or nil. The reader counts the
    /// expansion per shared object, so reading again under a lower limit answers without
    /// walking the expanded value.
    private static func expandsTooFar(_ input: Data, limit: Int) -> String? {
        let options = PlistReadOptions(limits: PlistLimits(maxExpandedValues: limit), keepsLayout: false)
        do {
            _ = try Plist.read(input, options: options)
            return nil
        } catch where error.code == .expansionLimit {
            return "its shared objects expand to more than \(limit) values; raise --max-expanded-values to convert it"
        } catch {
            return nil
        }
    }

    private static func checkLossless(_ document: PlistDocument, input: Data) -> Outcome {
        guard document.layout != nil else {
            return .skipped("the document has no layout notes (read without them, or too long to note); a rewrite uses the standard layout")
        }
        let output: Data
        do {
            output = try Plist.write(document)
        } catch {
            return .failed("the rewrite in its own format failed: \(error)", [], total: 0)
        }
        guard let offset = firstDifference(output, input) else { return .passed }
        return .failed(
            "the rewrite differs from the input at byte \(offset) (\(output.count) bytes written, \(input.count) read)", [], total: 0)
    }

    private static func checkConversion(_ value: PlistValue, to format: PlistFormat, maxShown: Int) -> Outcome {
        if let obstacle = PlistFormatCapability.obstacle(to: format, in: value) { return .skipped(obstacle) }
        let written: Data
        do {
            written = try Plist.write(value, as: format)
        } catch {
            return .failed("writing failed: \(error)", [], total: 0)
        }
        let reread: PlistDocument
        do {
            reread = try Plist.read(written, options: PlistReadOptions(keepsLayout: false))
        } catch {
            return .failed("what was written does not read back: \(error)", [], total: 0)
        }
        // Only the differences that will be shown are kept; the rest are counted.
        var shown: [PlistDifference] = []
        var count = 0
        for difference in reread.value.differenceSequence(from: value) {
            if shown.count < maxShown { shown.append(difference) }
            count += 1
        }
        if count == 0 { return .passed }
        return .failed("reads back with \(count == 1 ? "1 difference" : "\(count) differences")", shown, total: count)
    }

    /// The first offset where two byte strings differ, or nil when they are equal.
    public static func firstDifference(_ a: Data, _ b: Data) -> Int? {
        if a == b { return nil }
        var offset = 0
        for (x, y) in zip(a, b) {
            if x != y { return offset }
            offset += 1
        }
        return offset
    }
}

/// What each format's writer and reader can carry through a round trip.
public enum PlistFormatCapability {
    /// Why `value` cannot make a round trip through `format` unchanged, naming the first value in
    /// the way; nil when it can.
    ///
    /// - binary1 holds every value.
    /// - xml1 has no null, spells dates in whole seconds and -0.0 as 0.0 (as CoreFoundation
    ///   writes them), and reads a `CF$UID` as 32 bits (CoreFoundation's UIDs are 32-bit), so a
    ///   larger UID, which only a binary file can hold, does not come back. A dictionary whose
    ///   only entry is `CF$UID` with an integer is how XML spells a UID, so it reads back as one.
    /// - json needs an array or dictionary at the top, has no dates, data or UIDs, no NaN or
    ///   infinities, and one kind of number: a real written without a fraction or exponent
    ///   (`3.0` is written `3`) reads back as an integer, and a 32-bit real, written in its
    ///   shortest 32-bit form, reads back as a different 64-bit value unless the two agree.
    /// - openstep holds only strings, data, arrays and dictionaries; other scalars would read
    ///   back as strings, and UIDs and null cannot be written.
    public static func obstacle(to format: PlistFormat, in value: PlistValue) -> String? {
        if format == .binary { return nil }
        if format == .json && !value.isContainer {
            return "a top-level \(noun(value.kind)) value is not a JSON document"
        }
        // Depth-first with the path kept once: each pending value carries its depth, and the
        // path is cut back to its ancestors when it is taken.
        var pending: [(depth: Int, component: String?, value: PlistValue)] = [(0, nil, value)]
        var path: [String] = []
        while let (depth, component, item) = pending.popLast() {
            path.removeLast(path.count - max(0, depth - 1))
            if let component { path.append(component) }
            var place: String { path.isEmpty ? "the root" : PlistKeyPath(keys: path).description }
            switch item {
            case .array(let elements):
                for (index, element) in elements.enumerated().reversed() { pending.append((depth + 1, String(index), element)) }
            case .dictionary(let entries):
                if format == .xml, entries.count == 1, case .integer? = entries["CF$UID"] {
                    return "XML reads a dictionary whose only entry is CF$UID with an integer as a UID, as CoreFoundation does (at \(place))"
                }
                for entry in entries.reversed() { pending.append((depth + 1, entry.key, entry.value)) }
            default:
                if let problem = scalarObstacle(to: format, item) {
                    return "\(problem) (at \(place))"
                }
            }
        }
        return nil
    }

    private static func scalarObstacle(to format: PlistFormat, _ value: PlistValue) -> String? {
        switch (format, value) {
        case (.binary, _):
            return nil
        case (.xml, .null):
            return "XML has no null"
        case (.xml, .date(let date)):
            let seconds = date.secondsSinceReferenceDate
            return seconds.isFinite && seconds != seconds.rounded(.down)
                ? "XML keeps dates to the whole second; \(seconds) has a fraction" : nil
        case (.xml, .real(let real)) where real.value == 0 && real.value.sign == .minus:
            return "XML, as CoreFoundation writes it, spells -0.0 as 0.0"
        case (.xml, .uid(let uid)) where uid > UInt64(UInt32.max):
            return "XML keeps the low 32 bits of a CF$UID, as CoreFoundation reads it; UID \(uid) is larger"
        case (.xml, _):
            return nil
        case (.json, .date), (.json, .data), (.json, .uid):
            return "JSON has no \(noun(value.kind)) values"
        case (.json, .real(let real)):
            return jsonRealObstacle(real)
        case (.json, _):
            return nil
        case (.openStep, .string), (.openStep, .data):
            return nil
        case (.openStep, .uid), (.openStep, .null):
            return "OpenStep has no \(noun(value.kind)) values"
        case (.openStep, _):
            let kind = noun(value.kind)
            let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            return "OpenStep holds only strings and data; \(article) \(kind) would read back as a string"
        }
    }

    /// The kind as `trove type` names it, except that UIDs are spelled as a name.
    private static func noun(_ kind: PlistValue.Kind) -> String {
        kind == .uid ? "UID" : kind.plutilName
    }

    /// JSON writes a real as its shortest text in the real's own width, dropping a `.0`; the
    /// reader takes text without `.` or an exponent as an integer and anything else as a 64-bit
    /// real.
    private static func jsonRealObstacle(_ real: PlistReal) -> String? {
        guard real.value.isFinite else { return "JSON has no \(real.value)" }
        var text = real.width == .single ? Float(real.value).description : real.value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        guard text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return "JSON has one kind of number; the real \(real.value) is written as \(text) and would read back as an integer"
        }
        guard let reread = Double(text), reread.bitPattern == real.value.bitPattern else {
            return "the 32-bit real \(real.value) is written as \(text), which reads back as a different 64-bit value"
        }
        return nil
    }
}
