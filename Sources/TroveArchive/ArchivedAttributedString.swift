import Foundation
import TroveCore

/// A string with attributes, as `NSAttributedString` or `NSMutableAttributedString` archives it:
/// the text, and runs that each cover a stretch of it with one dictionary of attributes.
///
/// Lengths count UTF-16 code units, as `NSString` does (`"👋"` is 2). `Value` is the type of
/// the attribute values: `PlistValue` for strings and numbers, `URL` for links, your own
/// `KeyedArchivable` type, or ``ArchiveField`` for anything an archive holds (a font or
/// paragraph style from AppKit, decoded as an ``ArchivedObject``, archives again unchanged).
///
/// ```swift
/// var text = ArchivedAttributedString<PlistValue>(
///     "Hello, world", runs: [.init(length: 5, attributes: ["bold": true]), .init(length: 7)])
/// let data = try KeyedArchiver().archive(text)
/// let back = try KeyedUnarchiver().decode(ArchivedAttributedString<PlistValue>.self, from: data)
/// back.attributeRuns[0].range        // {0, 5}
/// ```
///
/// The keys are Foundation's: `NSString` (the text: in place, or for a mutable string an
/// `NSMutableString` object, as Darwin writes it); `NSAttributes`, the one dictionary when a
/// single run covers the whole text; otherwise `NSAttributes` is an array of the distinct
/// dictionaries and `NSAttributeInfo` an `NSMutableData` of each run's length and dictionary
/// index, packed seven bits to a byte. An empty text has neither key.
public struct ArchivedAttributedString<Value: ArchiveRepresentable> {
    /// A stretch of the text with one set of attributes.
    public struct Run {
        /// How many UTF-16 code units of the text the run covers.
        public var length: Int
        /// The attributes, by name (`NSFont`, `NSLink`, ...).
        public var attributes: [String: Value]

        /// A run of `length` UTF-16 code units.
        public init(length: Int, attributes: [String: Value] = [:]) {
            self.length = length
            self.attributes = attributes
        }
    }

    /// The text.
    public var string: String
    /// The runs in order; their lengths add up to the text's UTF-16 length (none for an empty
    /// text). Runs are written as they are: adjacent runs with equal attributes stay two runs.
    public var runs: [Run]
    /// Whether the archive names `NSMutableAttributedString` rather than `NSAttributedString`.
    public var isMutable: Bool

    /// `string` with `attributes` over the whole of it.
    public init(_ string: String, attributes: [String: Value] = [:], isMutable: Bool = false) {
        self.init(string, runs: string.isEmpty ? [] : [Run(length: string.utf16.count, attributes: attributes)], isMutable: isMutable)
    }

    /// `string` with `runs`. Archiving checks that they cover the text exactly.
    public init(_ string: String, runs: [Run], isMutable: Bool = false) {
        self.string = string
        self.runs = runs
        self.isMutable = isMutable
    }

    /// Each run with the range of the text it covers, in UTF-16 code units, as `NSRange`s.
    public var attributeRuns: [(range: NSRange, attributes: [String: Value])] {
        var location = 0
        return runs.map { run in
            defer { location += run.length }
            return (NSRange(location: location, length: run.length), run.attributes)
        }
    }
}

extension ArchivedAttributedString.Run: Equatable where Value: Equatable {}
extension ArchivedAttributedString.Run: Sendable where Value: Sendable {}
extension ArchivedAttributedString: Sendable where Value: Sendable {}

extension ArchivedAttributedString: Equatable where Value: Equatable {
    /// Equal when the texts are equal and every code unit has equal attributes, however the
    /// runs are split, and whichever class each was archived as (as `isEqual:` compares).
    public static func == (lhs: ArchivedAttributedString, rhs: ArchivedAttributedString) -> Bool {
        lhs.string == rhs.string && lhs.mergedRuns == rhs.mergedRuns
    }

    /// The runs with adjacent runs of equal attributes merged, and empty runs dropped.
    private var mergedRuns: [Run] {
        var merged: [Run] = []
        for run in runs where run.length != 0 {
            if let last = merged.last, last.attributes == run.attributes {
                merged[merged.count - 1].length += run.length
            } else {
                merged.append(run)
            }
        }
        return merged
    }
}

extension ArchivedAttributedString: ArchiveRepresentable {
    /// Writes the attributed string. Runs that do not cover the text exactly (a length of 0 or
    /// less, lengths adding up to more or less than the text's UTF-16 length) are
    /// ``PlistError/Code/unsupportedValue``; a non-empty text without runs has no attributes.
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let length = string.utf16.count
        try checkRuns(length: length)
        // Written at each use: Foundation shares only objects that are equal and hash alike, and
        // NSAttributedString keeps NSObject's identity hash.
        let record = isMutable ? FoundationClass.mutableAttributedString : FoundationClass.attributedString
        let uid = try encoder.encodeFoundationObject(record, shared: false) {
            if isMutable {
                let text = try encoder.encodeFoundationObject(FoundationClass.mutableString, shared: false) {
                    encoder.setField(.string(string), forKey: "NS.string")
                }
                encoder.setField(.uid(UInt64(text)), forKey: "NSString")
            } else {
                encoder.setField(.uid(UInt64(encoder.encodeScalar(.string(string)))), forKey: "NSString")
            }
            guard length > 0 else { return }
            guard runs.count > 1 else {
                encoder.setField(try Self.encodeAttributes(runs.first?.attributes ?? [:], with: encoder), forKey: "NSAttributes")
                return
            }
            var info = Data()
            let table = try encoder.encodeFoundationObject(FoundationClass.mutableArray, shared: false) {
                // Equal dictionaries are one entry (their keys are written sorted, so equal
                // dictionaries encode alike), so a reference identifies a distinct dictionary.
                var slots: [PlistValue: Int] = [:]
                var distinct: [PlistValue] = []
                for run in runs {
                    let reference = try Self.encodeAttributes(run.attributes, with: encoder)
                    let slot = slots[reference] ?? distinct.count
                    if slot == distinct.count {
                        slots[reference] = slot
                        distinct.append(reference)
                    }
                    PackedIntegers.append(UInt(run.length), to: &info)
                    PackedIntegers.append(UInt(slot), to: &info)
                }
                encoder.setField(.array(distinct), forKey: "NS.objects")
            }
            encoder.setField(.uid(UInt64(table)), forKey: "NSAttributes")
            let data = try encoder.encodeFoundationObject(FoundationClass.mutableData, shared: false) {
                encoder.setField(.data(info), forKey: "NS.data")
            }
            encoder.setField(.uid(UInt64(data)), forKey: "NSAttributeInfo")
        }
        return .uid(UInt64(uid))
    }

    private func checkRuns(length: Int) throws {
        var covered = 0
        for (index, run) in runs.enumerated() {
            guard run.length > 0 else {
                throw PlistError(.unsupportedValue, "run \(index) of an attributed string has length \(run.length)")
            }
            guard run.length <= length - covered else {
                throw PlistError(.unsupportedValue, "the runs of an attributed string cover more than its \(length) UTF-16 code units")
            }
            covered += run.length
        }
        guard runs.isEmpty || covered == length else {
            throw PlistError(.unsupportedValue, "the runs of an attributed string cover \(covered) of its \(length) UTF-16 code units")
        }
    }

    private static func encodeAttributes(_ attributes: [String: Value], with encoder: ArchiveEncoder) throws -> PlistValue {
        let entries = attributes.sorted { $0.key < $1.key }
        let uid = try encoder.encodeFoundationObject(FoundationClass.dictionary) {
            encoder.setField(try encoder.encodeReferences(entries.map(\.key)), forKey: "NS.keys")
            encoder.setField(try encoder.encodeReferences(entries.map(\.value)), forKey: "NS.objects")
        }
        return .uid(UInt64(uid))
    }

    /// Decodes an `NSAttributedString` or `NSMutableAttributedString`. As in Foundation, a missing
    /// `NSString` is the empty text and the attributes' own classes (dictionaries, arrays,
    /// strings, numbers, URLs, the `NSAttributeInfo` data) need not be allowed by secure
    /// decoding; the attribute values' classes must be. `NSAttributeInfo` that names a
    /// dictionary `NSAttributes` does not have, or runs that do not cover the text, are
    /// ``PlistError/Code/typeMismatch``.
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> ArchivedAttributedString {
        try decoder.decodeFoundation(
            field, as: ArchivedAttributedString.self, family: .attributedString, describing: "an attributed string"
        ) { record, fields in
            let isMutable = record.chain.contains("NSMutableAttributedString")
            var string = ""
            if let stored = try fields["NSString"], stored != .uid(0) {
                string = try decoder.withPath(.key("NSString")) {
                    try decoder.allowing(FoundationClass.stringLike) { try String.decodeArchiveField(stored, with: decoder) }
                }
            }
            let length = string.utf16.count
            guard length > 0, let attributes = try fields["NSAttributes"], attributes != .uid(0) else {
                return ArchivedAttributedString(string, isMutable: isMutable)
            }
            guard let info = try fields["NSAttributeInfo"], info != .uid(0) else {
                let whole = try decoder.withPath(.key("NSAttributes")) {
                    try decoder.allowing(Self.attributeClasses) { try [String: Value].decodeArchiveField(attributes, with: decoder) }
                }
                return ArchivedAttributedString(string, attributes: whole, isMutable: isMutable)
            }
            let dictionaries = try decoder.withPath(.key("NSAttributes")) {
                try decoder.allowing(Self.attributeClasses) { try [[String: Value]].decodeArchiveField(attributes, with: decoder) }
            }
            let bytes = try decoder.withPath(.key("NSAttributeInfo")) {
                try decoder.allowing(FoundationClass.dataLike) { try Data.decodeArchiveField(info, with: decoder) }
            }
            let runs = try decoder.withPath(.key("NSAttributeInfo")) {
                try decoder.attributeRuns(bytes, dictionaries: dictionaries, length: length, of: record.name)
            }
            return ArchivedAttributedString(string, runs: runs, isMutable: isMutable)
        }
    }

    /// The classes `NSAttributedString`'s `init(coder:)` accepts for `NSAttributes` besides the
    /// ones the decoder allows.
    static var attributeClasses: Set<String> {
        FoundationClass.dictionaryLike.union(FoundationClass.stringLike).union(["NSArray", "NSMutableArray", "NSNumber", "NSURL"])
    }
}

extension ArchiveDecoder {
    /// The runs `NSAttributeInfo` lists: (length, dictionary index) pairs, read until they cover
    /// the text's `length` UTF-16 code units (later pairs are ignored, as Foundation ignores
    /// them); empty runs are dropped.
    fileprivate func attributeRuns<Value>(
        _ bytes: Data, dictionaries: [[String: Value]], length: Int, of className: String
    ) throws -> [ArchivedAttributedString<Value>.Run] {
        guard let integers = PackedIntegers.decode(bytes), integers.count % 2 == 0 else {
            throw error(.typeMismatch, "\(className)'s NSAttributeInfo is not pairs of packed integers")
        }
        var runs: [ArchivedAttributedString<Value>.Run] = []
        var covered = 0
        for pair in stride(from: 0, to: integers.count, by: 2) where covered < length {
            let (runLength, slot) = (integers[pair], integers[pair + 1])
            guard slot < UInt(dictionaries.count) else {
                throw error(
                    .typeMismatch,
                    "\(className)'s NSAttributeInfo names attribute dictionary \(slot), but NSAttributes holds \(dictionaries.count)")
            }
            guard runLength <= UInt(length - covered) else {
                throw error(.typeMismatch, "\(className)'s runs cover more than its \(length) UTF-16 code units")
            }
            if runLength > 0 { runs.append(.init(length: Int(runLength), attributes: dictionaries[Int(slot)])) }
            covered += Int(runLength)
        }
        guard covered == length else {
            throw error(.typeMismatch, "\(className)'s runs cover \(covered) of its \(length) UTF-16 code units")
        }
        return runs
    }
}
