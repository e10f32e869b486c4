import TroveCore

/// A binary archive read in place: the file, and what reading fields out of it has cost.
final class BinaryArchiveReader {
    let view: BinaryObjectView
    let limits: KeyedArchiveLimits
    /// Values read out of fields so far; a container the file shares between many fields is
    /// counted each time, so that no archive can make decoding quadratic unnoticed.
    @exclusivity(unchecked) private var valuesRead = 0
    /// The array whose entries ``entryHeaders`` holds (see ``entry(_:of:)``), or -1.
    @exclusivity(unchecked) private var entriesArray = -1
    @exclusivity(unchecked) private var entryHeaders: [BinaryObjectHeader] = []
    /// Nested containers already decoded, by object: real archives have none.
    @exclusivity(unchecked) private var nested: [Int: PlistValue] = [:]

    /// The key layouts of the dictionaries read so far: every object of a class has the same.
    let keys: BinaryKeyLayouts

    init(view: BinaryObjectView, limits: KeyedArchiveLimits) {
        self.view = view
        self.limits = limits
        keys = BinaryKeyLayouts(view: view)
    }

    /// The fields of a dictionary object; its keys are checked when its layout is first met.
    /// They are valid while the reader is alive (see ``BinaryFields``).
    func fields(_ dictionary: BinaryObjectHeader) throws(PlistError) -> ArchiveFields {
        ArchiveFields(.binary(try binaryFields(dictionary)))
    }

    /// ``fields(_:)`` as the binary form itself, for a caller that reads it at once.
    func binaryFields(_ dictionary: BinaryObjectHeader) throws(PlistError) -> BinaryFields {
        BinaryFields(reader: self, dictionary: dictionary, layout: try keys.layout(of: dictionary))
    }

    /// The object that holds the value for `key` in `fields` (the first, when the key is
    /// repeated), or nil.
    func object(forKey key: String, in fields: BinaryFields) throws(PlistError) -> Int? {
        try keys.object(forKey: key, in: fields.dictionary, layout: fields.layout)
    }

    /// The value stored for `key` in `fields`, or nil.
    func value(forKey key: String, in fields: BinaryFields) throws(PlistError) -> PlistValue? {
        switch try keys.field(forKey: key, in: fields.dictionary, layout: fields.layout) {
        case .missing: return nil
        case .scalar(let scalar): return scalar
        case .object(let object): return try fieldValue(try view.object(object))
        }
    }

    /// The object of entry `index` of the `$objects` array `objects`.
    ///
    /// The headers of the first array asked about are kept as they are read in order: the class
    /// pass reads every entry first to last, so an object decoded later finds its header here
    /// instead of reading the offset table and its marker again.
    func entry(_ index: Int, of objects: BinaryObjectHeader) throws(PlistError) -> BinaryObjectHeader {
        if objects.index == entriesArray, index < entryHeaders.count { return entryHeaders[index] }
        let header = try view.object(try view.reference(index, of: objects))
        if entriesArray < 0 {
            entriesArray = objects.index
            entryHeaders.reserveCapacity(objects.count)
        }
        if objects.index == entriesArray, index == entryHeaders.count { entryHeaders.append(header) }
        return header
    }

    /// The references an array object lists, read as numbers while every element is a UID,
    /// else as values (``fieldValue(_:)``'s), counted against the expansion budget once.
    func references(_ object: BinaryObjectHeader) throws(PlistError) -> StoredReferences {
        guard object.kind == .array else { return .notAnArray(object.kind) }
        try count(object.count)
        var uids: [UInt64] = []
        uids.reserveCapacity(object.count)
        for slot in 0..<object.count {
            guard case .uid(let uid)? = try view.smallScalar(try view.reference(slot, of: object)) else {
                return .array(ArchiveReferences(.values(try elements(of: object))))
            }
            uids.append(uid)
        }
        return .array(ArchiveReferences(.uids(uids)))
    }

    /// The value a field's object holds: a scalar (most often a UID), an array of them (a
    /// collection's `NS.objects`), or rarely something nested.
    func fieldValue(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        switch object.kind {
        case .array:
            try count(object.count)
            return .array(try elements(of: object))
        case .dictionary:
            return try nestedValue(object)
        default:
            return try view.scalar(object)
        }
    }

    /// The elements of an array object: scalars read one by one, or the whole array decoded as
    /// a nested value once an element is a container.
    private func elements(of object: BinaryObjectHeader) throws(PlistError) -> [PlistValue] {
        var elements: [PlistValue] = []
        elements.reserveCapacity(object.count)
        for slot in 0..<object.count {
            let index = try view.reference(slot, of: object)
            if let scalar = try view.smallScalar(index) {
                elements.append(scalar)
                continue
            }
            let element = try view.object(index)
            if element.kind == .array || element.kind == .dictionary {
                guard case .array(let nested) = try nestedValue(object) else { return [] }
                return nested
            }
            elements.append(try view.scalar(element))
        }
        return elements
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
