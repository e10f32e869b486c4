import Foundation

/// A binary plist read object by object, for the layers that find their own structure in one
/// (a keyed archive's `$objects` and the UIDs between them) and would otherwise build the whole
/// value tree to look at a few entries of each object.
///
/// Objects are named by their index in the offset table. Every header, reference and key is
/// validated when it is read, with the full reader's rules and messages. Finding a key in a
/// dictionary is the caller's (the first of a repeated key counts, as the full reader keeps it).
/// Nothing here allocates but the values it returns.
package struct BinaryObjectView: Sendable {
    let table: LazyObjectTable

    /// Opens the binary plist in `data` (copied); reads only the header and trailer.
    package init(_ data: Data, limits: PlistLimits) throws(PlistError) {
        table = try LazyObjectTable(source: PlistByteBuffer(data), limits: limits)
    }

    /// The index of the top object.
    package var topObject: Int { table.trailer.topObject }

    /// How many objects the offset table lists.
    package var objectCount: Int { table.trailer.objectCount }

    /// The validated header of object `index` (which must be below ``objectCount``).
    package func object(_ index: Int) throws(PlistError) -> BinaryObjectHeader {
        BinaryObjectHeader(try table.header(ofObject: index))
    }

    /// The object that reference `slot` of a container names: an element of an array, or for a
    /// dictionary a key (`slot < count`) or a value (`count + slot`). `slot` must be in range.
    package func reference(_ slot: Int, of container: BinaryObjectHeader) throws(PlistError) -> Int {
        try table.reference(at: table.referencePosition(container.header.payload, slot: slot))
    }

    /// The object that holds the value for `key` in a dictionary (the first, when the key is
    /// repeated, as the full reader keeps it), or nil. Keys are compared by code units.
    ///
    /// Each key object is read (and checked) the first time it is met and numbered by its text
    /// in `numbering` (made for this file's object count); later dictionaries compare numbers. Archives share one object per key
    /// text between all their objects, so after the first object of a class a lookup reads
    /// references only.
    package func value(forKey key: String, in dictionary: BinaryObjectHeader, numbering: BinaryKeyNumbering) throws(PlistError) -> Int? {
        let refs = dictionary.header.payload
        let count = dictionary.count
        var wanted = numbering.number(of: key)
        for slot in 0..<count {
            let object = try table.reference(at: table.referencePosition(refs, slot: slot))
            var number = numbering.objectNumbers[object] - 1
            if number < 0 {
                number = numbering.numberAdding(try table.string(table.keyHeader(slot, refs: refs)))
                numbering.objectNumbers[object] = number + 1
                if wanted == nil { wanted = numbering.number(of: key) }
            }
            if number == wanted {
                return try table.reference(at: table.referencePosition(refs, slot: count + slot))
            }
        }
        return nil
    }

    /// The text of key `slot` of a dictionary.
    package func key(_ slot: Int, of dictionary: BinaryObjectHeader) throws(PlistError) -> String {
        try table.string(table.keyHeader(slot, refs: dictionary.header.payload))
    }

    /// The value of a scalar object (anything but an array or dictionary).
    package func scalar(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        try table.scalar(object.header)
    }

    /// The value of object `index` when it is a UID, a boolean, an integer of up to 8 bytes or a
    /// real, read from its marker without the general header (the values an archive's fields
    /// hold); nil for any other object, which ``object(_:)`` reads.
    package func smallScalar(_ index: Int) throws(PlistError) -> PlistValue? {
        let start = try table.offset(ofObject: index)
        let marker = table.bytes[start]
        let kind: PlistValue.Kind
        let length: Int
        switch marker {
        case 0x80...0x87:
            // Most fields are references: a UID is its bytes, read here without a detour.
            let width = Int(marker & 0x0F) + 1
            guard width < table.areaEnd - start else { return nil }
            return .uid(table.bytes.loadBigEndian(at: start + 1, width: width))
        case 0x10...0x13: (kind, length) = (.integer, 1 << Int(marker & 0x0F))
        case 0x23: (kind, length) = (.real, 8)
        case 0x08, 0x09: (kind, length) = (.bool, 0)
        default: return nil
        }
        guard length < table.areaEnd - start else { return nil }
        switch kind {
        case .integer: return .integer(table.area.integer(at: start, width: length))
        case .real: return .real(table.area.real(marker, at: start))
        default: return .bool(marker == 0x09)
        }
    }

    /// The whole value of an object, decoded with the full reader's rules for a subtree (cycles,
    /// nesting counted from the object, the value and expansion limits).
    package func value(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        guard object.header.isContainer else { return try table.scalar(object.header) }
        var decoder = LazySubtreeDecoder(table: table, outerPath: nil)
        return try decoder.decode(object.header)
    }
}

/// One validated object of a ``BinaryObjectView``.
package struct BinaryObjectHeader: Sendable {
    let header: BinaryObjectMarker

    init(_ header: BinaryObjectMarker) { self.header = header }

    /// The object's index in the offset table.
    package var index: Int { header.index }
    /// What the object decodes to.
    package var kind: PlistValue.Kind { header.kind }
    /// Elements of an array, entries of a dictionary, bytes of data or units of a string.
    package var count: Int { header.count }
    /// The byte offset of the object's marker.
    package var offset: Int { header.start }
}
