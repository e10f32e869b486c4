import Foundation

/// A binary plist read object by object, for the layers that find their own structure in one
/// (a keyed archive's `$objects` and the UIDs between them) and would otherwise build the whole
/// value tree to look at a few entries of each object.
///
/// Objects are named by their index in the offset table. Every header, reference and key is
/// validated when it is read, with the full reader's rules and messages; a dictionary with a
/// repeated key answers with the first occurrence, as the full reader keeps it. Nothing here
/// allocates but the values it returns.
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
    /// repeated), or nil. Keys are compared by code units, as the full reader's dictionary does.
    package func value(forKey key: String, in dictionary: BinaryObjectHeader) throws(PlistError) -> Int? {
        let count = dictionary.count
        var utf8Key = key
        var failure: PlistError?
        // The closure cannot throw a typed error; it hands the error out through `failure`.
        let found = utf8Key.withUTF8 { utf8 -> Int? in
            do throws(PlistError) {
                let keyIsASCII = !utf8.contains { $0 >= 0x80 }
                for slot in 0..<count {
                    // Archives' keys are short ASCII objects: those are settled from the marker
                    // and the bytes, without the general header.
                    if keyIsASCII, let bytes = try shortASCIIKey(slot, of: dictionary.header) {
                        if bytes.count == utf8.count, utf8.isEmpty || memcmp(bytes.baseAddress!, utf8.baseAddress!, utf8.count) == 0 {
                            return try reference(count + slot, of: dictionary)
                        }
                        continue
                    }
                    let keyHeader = try self.keyHeader(slot, of: dictionary.header)
                    if try matches(keyHeader, utf8: utf8, key: key) {
                        return try reference(count + slot, of: dictionary)
                    }
                }
                return nil
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return found
    }

    /// The text of key `slot` of a dictionary.
    package func key(_ slot: Int, of dictionary: BinaryObjectHeader) throws(PlistError) -> String {
        try table.string(keyHeader(slot, of: dictionary.header))
    }

    /// The value of a scalar object (anything but an array or dictionary).
    package func scalar(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        try table.scalar(object.header)
    }

    /// The whole value of an object, decoded with the full reader's rules for a subtree (cycles,
    /// nesting counted from the object, the value and expansion limits).
    package func value(_ object: BinaryObjectHeader) throws(PlistError) -> PlistValue {
        guard object.header.isContainer else { return try table.scalar(object.header) }
        var decoder = LazySubtreeDecoder(table: table, outerPath: nil)
        return try decoder.decode(object.header)
    }

    /// The bytes of the key in entry `slot` when it is a one-byte-unit string object with its
    /// count in the marker, lying inside the object area; nil for any other key, which
    /// ``keyHeader(_:of:)`` then reads (and refuses when it is malformed).
    private func shortASCIIKey(_ slot: Int, of dictionary: LazyObjectHeader) throws(PlistError) -> UnsafeRawBufferPointer? {
        let index = try table.reference(at: table.referencePosition(dictionary.payload, slot: slot))
        let start = try table.offset(ofObject: index)
        let marker = table.bytes[start]
        guard marker >> 4 == 0x5, marker & 0x0F != 0x0F else { return nil }
        let end = start + 1 + Int(marker & 0x0F)
        guard end <= table.areaEnd else { return nil }
        return UnsafeRawBufferPointer(rebasing: table.bytes[(start + 1)..<end])
    }

    /// The header of the key in entry `slot`, refusing anything but a string before reading more.
    private func keyHeader(_ slot: Int, of dictionary: LazyObjectHeader) throws(PlistError) -> LazyObjectHeader {
        let position = table.referencePosition(dictionary.payload, slot: slot)
        let index = try table.reference(at: position)
        let start = try table.offset(ofObject: index)
        let type = table.bytes[start] >> 4
        guard type == 0x5 || type == 0x6 || (type == 0x7 && table.acceptsUTF8Strings) else {
            throw BinaryTrailer.error(
                .badKey, at: position,
                "dictionary key object \(index) is not a string (marker \(LazyObjectTable.hex(table.bytes[start])))")
        }
        return try table.header(ofObject: index)
    }

    /// Whether a key object spells `key` (whose UTF-8 is `utf8`). An ASCII key object is compared
    /// in place; others are decoded, so that a malformed key is the full reader's error.
    private func matches(_ header: LazyObjectHeader, utf8: UnsafeBufferPointer<UInt8>, key: String) throws(PlistError) -> Bool {
        if header.marker >> 4 == 0x5 {
            let stored = table.payload(header)
            // A stored byte above 0x7F is Latin-1, two UTF-8 bytes: the lengths differ unless the
            // key has characters beyond ASCII, and then the decoded text decides.
            if stored.count == utf8.count, utf8.isEmpty || memcmp(stored.baseAddress!, utf8.baseAddress!, utf8.count) == 0 {
                return !stored.contains { $0 >= 0x80 }
            }
            if !utf8.contains(where: { $0 >= 0x80 }) { return false }
        }
        return try table.string(header).hasSameUTF8(as: key)
    }
}

/// One validated object of a ``BinaryObjectView``.
package struct BinaryObjectHeader: Sendable {
    let header: LazyObjectHeader

    init(_ header: LazyObjectHeader) { self.header = header }

    /// The object's index in the offset table.
    package var index: Int { header.index }
    /// What the object decodes to.
    package var kind: PlistValue.Kind { header.kind }
    /// Elements of an array, entries of a dictionary, bytes of data or units of a string.
    package var count: Int { header.count }
    /// The byte offset of the object's marker.
    package var offset: Int { header.start }
}
