import TroveCore

/// A binary archive read in place: the file, and what reading fields out of it has cost.
final class BinaryArchiveReader {
    let view: BinaryObjectView
    let limits: KeyedArchiveLimits
    /// Values read out of fields so far; a container the file shares between many fields is
    /// counted each time, so that no archive can make decoding quadratic unnoticed.
    @exclusivity(unchecked) private var valuesRead = 0
    /// Nested containers already decoded, by object: real archives have none.
    @exclusivity(unchecked) private var nested: [Int: PlistValue] = [:]

    /// The key objects read so far, numbered by text (see ``lookUp(_:in:)``).
    private let keyNumbering: BinaryKeyNumbering

    init(view: BinaryObjectView, limits: KeyedArchiveLimits) {
        self.view = view
        self.limits = limits
        keyNumbering = BinaryKeyNumbering(objectCount: view.objectCount)
    }

    /// The object that holds the value for `key` in `dictionary` (the first, when the key is
    /// repeated), or nil.
    func lookUp(_ key: String, in dictionary: BinaryObjectHeader) throws(PlistError) -> Int? {
        try view.value(forKey: key, in: dictionary, numbering: keyNumbering)
    }

    /// The object of entry `index` of the `$objects` array `objects`.
    func entry(_ index: Int, of objects: BinaryObjectHeader) throws(PlistError) -> BinaryObjectHeader {
        try view.object(try view.reference(index, of: objects))
    }

    /// The value a field's object holds: a scalar (most often a UID), an array of them (a
    /// collection's `NS.objects`), or rarely something nested.
    func fieldValue(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        switch object.kind {
        case .array:
            try count(object.count)
            var elements: [PlistValue] = []
            elements.reserveCapacity(object.count)
            for slot in 0..<object.count {
                let index = try view.reference(slot, of: object)
                if let scalar = try view.smallScalar(index) {
                    elements.append(scalar)
                    continue
                }
                let element = try view.object(index)
                if element.kind == .array || element.kind == .dictionary { return try nestedValue(object) }
                elements.append(try view.scalar(element))
            }
            return .array(elements)
        case .dictionary:
            return try nestedValue(object)
        default:
            return try view.scalar(object)
        }
    }

    private func nestedValue(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        if let known = nested[object.index] { return known }
        let value = try view.value(object)
        nested[object.index] = value
        return value
    }

    private func count(_ values: Int) throws(PlistError) {
        valuesRead += values
        guard valuesRead <= limits.maxExpandedValues else {
            throw PlistError(
                .expansionLimit,
                "the archive's fields hold more than \(limits.maxExpandedValues) values (KeyedArchiveLimits.maxExpandedValues)")
        }
    }
}
