import TroveCore

/// Which Swift type decodes which archived class.
///
/// An archived object names its class (`$classname`) and the class's superclasses (`$classes`).
/// Decoding looks the class name up first, then each superclass in turn, then the class hints
/// (`$classhints`): an archive of a subclass you have no type for still decodes through the
/// type registered for its superclass. A type is always found under its own
/// ``KeyedArchivable/archiveClassName`` when it is asked for by type (`decode(Note.self, ...)`);
/// register it to be found by class name alone, or under other names (a Foundation archive of a
/// Swift class names it `Module.Class`).
public struct ArchiveClassRegistry: @unchecked Sendable {
    // Metatypes are immutable, so sharing the table across threads is safe; `@unchecked` only
    // because existential metatypes are not declared `Sendable`.
    private var types: [String: any KeyedArchivable.Type] = [:]

    /// An empty registry.
    public init() {}

    /// A registry holding `types`, each under its ``KeyedArchivable/archiveClassName``.
    public init(_ types: [any KeyedArchivable.Type]) {
        for type in types { self.types[type.archiveClassName] = type }
    }

    /// Registers `type` under its ``KeyedArchivable/archiveClassName`` and under `otherNames`.
    public mutating func register<T: KeyedArchivable>(_ type: T.Type, as otherNames: String...) {
        types[T.archiveClassName] = type
        for name in otherNames { types[name] = type }
    }

    /// The type registered for exactly `className`.
    public func type(forClassName className: String) -> (any KeyedArchivable.Type)? {
        types[className]
    }

    /// The type for an archived class: its name, then its superclasses, then its hints.
    func type(for record: ArchiveClassRecord) -> (any KeyedArchivable.Type)? {
        guard !types.isEmpty else { return nil }
        for name in record.chain { if let type = types[name] { return type } }
        for name in record.hints { if let type = types[name] { return type } }
        return nil
    }

    /// Every name `type` is registered under.
    func names(of type: any KeyedArchivable.Type) -> [String] {
        types.compactMap { ObjectIdentifier($0.value) == ObjectIdentifier(type) ? $0.key : nil }
    }

    /// Foundation's mutable classes are subclasses of the immutable ones, so allowing `NSArray`
    /// allows `NSMutableArray`, as `decodeObject(of:forKey:)` does.
    static func expandingFoundationSubclasses(_ names: Set<String>) -> Set<String> {
        var expanded = names
        let subclasses: [String: [String]] = [
            "NSArray": ["NSMutableArray"], "NSDictionary": ["NSMutableDictionary"],
            "NSString": ["NSMutableString"], "NSData": ["NSMutableData"], "NSSet": ["NSMutableSet", "NSCountedSet"],
            "NSOrderedSet": ["NSMutableOrderedSet"], "NSIndexSet": ["NSMutableIndexSet"],
            "NSAttributedString": ["NSMutableAttributedString"], "NSURLRequest": ["NSMutableURLRequest"],
        ]
        for name in names { expanded.formUnion(subclasses[name] ?? []) }
        return expanded
    }
}
