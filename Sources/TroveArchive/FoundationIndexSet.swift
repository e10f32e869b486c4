import Foundation
import TroveCore

/// An index set as `NSIndexSet` or `NSMutableIndexSet` archives it: the indexes, and which of the
/// two classes the archive names.
///
/// `IndexSet` itself archives as `NSIndexSet`; use this type to write `NSMutableIndexSet`, or to
/// learn which class an archive used. Both decode from either class.
///
/// ```swift
/// let rows = ArchivedIndexSet(IndexSet([1, 2, 3, 9]), isMutable: true)
/// let data = try KeyedArchiver().archive(rows)              // an NSMutableIndexSet
/// let back = try KeyedUnarchiver().decode(IndexSet.self, from: data)
/// ```
///
/// The keys are Foundation's: `NSRangeCount`, then `NSLocation` and `NSLength` for a single range,
/// or `NSRangeData` for several (an `NSMutableData` of each range's location and length packed
/// seven bits to a byte, as Darwin writes it; Foundation on Linux stores the same bytes in place,
/// and writes them, empty, for an empty set too; both forms read).
public struct ArchivedIndexSet: ArchiveRepresentable, Hashable, Sendable {
    /// The indexes.
    public var indexes: IndexSet
    /// Whether the archive names `NSMutableIndexSet` rather than `NSIndexSet`.
    public var isMutable: Bool

    /// Indexes archived as `NSIndexSet`, or as `NSMutableIndexSet` when `isMutable`.
    public init(_ indexes: IndexSet = IndexSet(), isMutable: Bool = false) {
        self.indexes = indexes
        self.isMutable = isMutable
    }

    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        let ranges = indexes.rangeView
        // Written at each use: Foundation shares only objects that are equal and hash alike, and
        // NSIndexSet keeps NSObject's identity hash.
        let record = isMutable ? FoundationClass.mutableIndexSet : FoundationClass.indexSet
        let uid = try encoder.encodeFoundationObject(record, shared: false) {
            encoder.setField(.integer(PlistInteger(ranges.count)), forKey: "NSRangeCount")
            if ranges.count == 1, let only = ranges.first {
                encoder.setField(.integer(PlistInteger(only.lowerBound)), forKey: "NSLocation")
                encoder.setField(.integer(PlistInteger(only.count)), forKey: "NSLength")
            } else if ranges.count > 1 {
                var packed = Data()
                for range in ranges {
                    PackedIntegers.append(UInt(range.lowerBound), to: &packed)
                    PackedIntegers.append(UInt(range.count), to: &packed)
                }
                let data = try encoder.encodeFoundationObject(FoundationClass.mutableData, shared: false) {
                    encoder.setField(.data(packed), forKey: "NS.data")
                }
                encoder.setField(.uid(UInt64(data)), forKey: "NSRangeData")
            }
        }
        return .uid(UInt64(uid))
    }

    /// Decodes an `NSIndexSet` or `NSMutableIndexSet`. A missing `NSRangeCount`, `NSLocation` or
    /// `NSLength` counts as 0, as `decodeInteger(forKey:)` reads it; a negative count, a range past
    /// `Int.max` or `NSRangeData` that does not hold exactly two integers a range is
    /// ``PlistError/Code/typeMismatch``.
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> ArchivedIndexSet {
        try decoder.decodeFoundation(field, as: ArchivedIndexSet.self, family: .indexSet, describing: "an index set") { record, fields in
            let isMutable = record.chain.contains("NSMutableIndexSet")
            let count = try decoder.integerField(fields, "NSRangeCount")
            guard count >= 0 else { throw decoder.error(.typeMismatch, "\(record.name) has a negative NSRangeCount (\(count))") }
            if count == 0 { return ArchivedIndexSet(isMutable: isMutable) }
            if count == 1 {
                let location = try decoder.integerField(fields, "NSLocation")
                let length = try decoder.integerField(fields, "NSLength")
                return ArchivedIndexSet(try decoder.indexRanges([(location, length)], of: record.name), isMutable: isMutable)
            }
            let stored = try decoder.requiredField(fields, "NSRangeData", of: record.name)
            let bytes = try decoder.withPath(.key("NSRangeData")) {
                // The class's own `init(coder:)` asks for `NSData` here, so secure decoding need
                // not list it.
                try decoder.allowing(FoundationClass.dataLike) { try Data.decodeArchiveField(stored, with: decoder) }
            }
            // Halving the integers, not doubling the count: the count is the archive's claim.
            guard let integers = PackedIntegers.decode(bytes), integers.count % 2 == 0, integers.count / 2 == count else {
                throw decoder.error(
                    .typeMismatch, "\(record.name)'s NSRangeData does not hold the \(count) ranges NSRangeCount gives")
            }
            var pairs: [(Int, Int)] = []
            pairs.reserveCapacity(count)
            for pair in stride(from: 0, to: integers.count, by: 2) {
                guard let location = Int(exactly: integers[pair]), let length = Int(exactly: integers[pair + 1]) else {
                    throw decoder.error(.typeMismatch, "\(record.name)'s NSRangeData has a range past Int.max")
                }
                pairs.append((location, length))
            }
            return ArchivedIndexSet(try decoder.indexRanges(pairs, of: record.name), isMutable: isMutable)
        }
    }
}

extension IndexSet: ArchiveRepresentable {
    /// Archived as an `NSIndexSet` (see ``ArchivedIndexSet`` for `NSMutableIndexSet`).
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        try ArchivedIndexSet(self).encodeArchiveField(with: encoder)
    }

    /// Decodes an `NSIndexSet` or `NSMutableIndexSet`.
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> IndexSet {
        try ArchivedIndexSet.decodeArchiveField(field, with: decoder).indexes
    }
}

extension ArchiveDecoder {
    /// An integer field of a Foundation object, 0 when absent (what `decodeInteger(forKey:)`
    /// returns for a missing key).
    func integerField(_ fields: ArchiveFields, _ key: String) throws -> Int {
        guard let stored = try fields[key] else { return 0 }
        return try withPath(.key(key)) { try Int.decodeArchiveField(stored, with: self) }
    }

    /// The index set of (location, length) ranges, each checked to lie within `0 ... Int.max`.
    func indexRanges(_ ranges: [(Int, Int)], of className: String) throws -> IndexSet {
        var indexes = IndexSet()
        for (location, length) in ranges {
            guard location >= 0, length >= 0, location <= Int.max - length else {
                throw error(.typeMismatch, "\(className) has a range (\(location), \(length)) outside 0...Int.max")
            }
            if length > 0 { indexes.insert(integersIn: location..<(location + length)) }
        }
        return indexes
    }

    /// Runs `body` with `classes` allowed as well, when decoding is secure: a Foundation class's
    /// `init(coder:)` names the classes it accepts for the keys it reads itself (`NSIndexSet` asks
    /// for `NSData`), so allowing the class is enough to read it, as in Foundation.
    func allowing<R>(_ classes: Set<String>, _ body: () throws -> R) throws -> R {
        guard let outer = allowedClasses, !classes.isSubset(of: outer) else { return try body() }
        allowedClasses = outer.union(classes)
        defer { allowedClasses = outer }
        return try body()
    }
}

/// Unsigned integers packed seven bits to a byte, least significant first, with the high bit set
/// on every byte of an integer but its last: how `NSIndexSet` packs its ranges (`NSRangeData`)
/// and `NSAttributedString` its runs (`NSAttributeInfo`).
enum PackedIntegers {
    static func append(_ value: UInt, to data: inout Data) {
        var rest = value
        while rest >= 0x80 {
            data.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        data.append(UInt8(rest))
    }

    /// The integers, or nil when the last one is cut off or one does not fit in 64 bits. There
    /// are never more integers than bytes, so a count claimed elsewhere cannot inflate the work.
    static func decode(_ data: Data) -> [UInt]? {
        var integers: [UInt] = []
        var value: UInt = 0
        var shift: UInt = 0
        var open = false
        for byte in data {
            let bits = UInt(byte & 0x7f)
            guard shift < UInt(UInt.bitWidth), (bits << shift) >> shift == bits else { return nil }
            value |= bits << shift
            if byte & 0x80 == 0 {
                integers.append(value)
                (value, shift, open) = (0, 0, false)
            } else {
                shift += 7
                open = true
            }
        }
        return open ? nil : integers
    }
}
