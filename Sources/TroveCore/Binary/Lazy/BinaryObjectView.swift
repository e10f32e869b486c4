import Foundation

/// A binary plist read object by object, for the layers that find their own structure in one
/// (a keyed archive's `$objects` and the UIDs between them) and would otherwise build the whole
/// value tree to look at a few entries of each object.
///
/// Objects are named by their index in the offset table. Every header, reference and key is
/// validated when it is read, with the full reader's rules and messages. Keys are found with
/// ``BinaryKeyLayouts`` (the first of a repeated key counts, as the full reader keeps it).
/// Nothing here allocates but the values it returns.
package struct BinaryObjectView: Sendable {
    let table: LazyObjectTable

    /// Opens the binary plist in `bytes` without copying them (reading only the header and
    /// trailer): the view, and everything read
    /// from it but the values it returns, must not be used after `bytes` is released.
    package init(borrowing bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws(PlistError) {
        table = try LazyObjectTable(source: BorrowedBytes(bytes), limits: limits)
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

    /// The object that holds the value of key `slot` of a dictionary (see ``BinaryKeyLayouts``
    /// for finding a key's slot). `slot` must be below the dictionary's count.
    @inline(__always)
    package func value(atSlot slot: Int, of dictionary: BinaryObjectHeader) throws(PlistError) -> Int {
        try table.reference(at: table.referencePosition(dictionary.header.payload, slot: dictionary.count + slot))
    }

    /// The text of key `slot` of a dictionary.
    package func key(_ slot: Int, of dictionary: BinaryObjectHeader) throws(PlistError) -> String {
        try table.string(table.keyHeader(slot, refs: dictionary.header.payload))
    }

    /// The value of a scalar object (anything but an array or dictionary).
    package func scalar(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        try table.scalar(object.header)
    }

    /// The text of a string object (``BinaryObjectHeader/kind`` `.string`).
    package func string(_ object: BinaryObjectHeader) throws(PlistError) -> String {
        try table.string(object.header)
    }

    /// The value of object `index` when it is a UID, a boolean, an integer of up to 8 bytes or a
    /// real, read from its marker without the general header (the values an archive's fields
    /// hold); nil for any other object, which ``object(_:)`` reads.
    @inline(__always)
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

/// Bytes someone else owns, for a view used only within the scope that lends them.
private final class BorrowedBytes: PlistByteSource, @unchecked Sendable {
    // Unchecked: the lender keeps the bytes unchanged for the view's whole use.
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}
