import Foundation
import TroveCore

/// An ordered collection of unique elements that archives as `NSOrderedSet`, or as
/// `NSMutableOrderedSet` when ``isMutable``.
///
/// Foundation writes an ordered set's elements under `NS.object.0`, `NS.object.1` ... (one key
/// an element, not the `NS.objects` array of `NSArray` and `NSSet`), and so does this type;
/// decoding reads either spelling. As `NSOrderedSet(array:)` does, a repeated element is kept
/// once, at its first position.
///
/// ```swift
/// var tags: ArchivedOrderedSet = ["swift", "plist", "swift"]   // ["swift", "plist"]
/// tags.append("archive")
/// let data = try KeyedArchiver().archive(tags)
/// let back = try KeyedUnarchiver().decode(ArchivedOrderedSet<String>.self, from: data)
/// ```
///
/// An `NSOrderedSet` also decodes as an array (`[T]`).
public struct ArchivedOrderedSet<Element: Hashable & ArchiveRepresentable>: RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The elements, in order, each once.
    public private(set) var elements: [Element]
    private var members: Set<Element>
    /// Whether the archive names `NSMutableOrderedSet` rather than `NSOrderedSet`.
    public var isMutable: Bool

    /// The distinct elements of `elements`, each at its first position.
    public init<S: Sequence>(_ elements: S, isMutable: Bool = false) where S.Element == Element {
        self.elements = []
        self.members = []
        self.isMutable = isMutable
        for element in elements { append(element) }
    }

    /// An empty ordered set.
    public init() { self.init([]) }

    public init(arrayLiteral elements: Element...) { self.init(elements) }

    /// Appends `element` unless the set holds it already; returns whether it was appended.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard members.insert(element).inserted else { return false }
        elements.append(element)
        return true
    }

    /// Whether the set holds `element` (constant time).
    public func contains(_ element: Element) -> Bool { members.contains(element) }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
}

extension ArchivedOrderedSet: Equatable {
    /// Equal when the elements are equal in order, whichever class each was archived as (an
    /// `NSMutableOrderedSet` is `isEqual:` to an `NSOrderedSet` with the same elements).
    public static func == (lhs: ArchivedOrderedSet, rhs: ArchivedOrderedSet) -> Bool { lhs.elements == rhs.elements }
}

extension ArchivedOrderedSet: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

extension ArchivedOrderedSet: Sendable where Element: Sendable {}

extension ArchivedOrderedSet: ArchiveRepresentable {
    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        // Written at each use: Foundation shares only objects that are equal and hash alike, and
        // NSOrderedSet keeps NSObject's identity hash.
        let record = isMutable ? FoundationClass.mutableOrderedSet : FoundationClass.orderedSet
        let uid = try encoder.encodeFoundationObject(record, shared: false) {
            for (index, element) in elements.enumerated() {
                encoder.setField(.uid(UInt64(try element.encodeObjectReference(with: encoder))), forKey: "NS.object.\(index)")
            }
        }
        return .uid(UInt64(uid))
    }

    /// Decodes an `NSOrderedSet` or `NSMutableOrderedSet` from `NS.object.N` (or `NS.objects`).
    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> ArchivedOrderedSet {
        try decoder.decodeFoundation(
            field, as: ArchivedOrderedSet.self, family: .orderedSet, describing: "an ordered set"
        ) { record, fields in
            let references = try decoder.collectionReferences(fields)
            var result = ArchivedOrderedSet(isMutable: record.chain.contains("NSMutableOrderedSet"))
            // The key path names the element as the archive stores it.
            let listed = try fields["NS.objects"] != nil
            for (index, reference) in references.enumerated() {
                let decode = { try Element.decodeArchiveField(reference, with: decoder) }
                let element = try listed
                    ? decoder.withPath(.key("NS.objects")) { try decoder.withPath(.index(index), decode) }
                    : decoder.withPath(.key("NS.object.\(index)"), decode)
                result.append(element)
            }
            return result
        }
    }

    private init(isMutable: Bool) { self.init([], isMutable: isMutable) }
}

extension ArchivedOrderedSet: Encodable where Element: Encodable {
    /// Encodes the elements as an unkeyed container (in a keyed archive's `Codable` support the
    /// set is an `NSOrderedSet` instead).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in elements { try container.encode(element) }
    }
}

extension ArchivedOrderedSet: Decodable where Element: Decodable {
    /// Decodes the elements of an unkeyed container, keeping the first of equal ones.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}
