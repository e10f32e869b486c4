/// One value of a ``LazyBinaryPlist``, not yet decoded.
///
/// A node knows its object's header (its kind and stored count), which was validated when the
/// node was made. Looking inside it reads only what the question needs: a key lookup compares key
/// objects with the key without decoding any value, an index lookup reads one reference, and
/// ``materialize()`` decodes this subtree and nothing else.
///
/// Lookups follow the full reader's rules: a dictionary with a repeated key answers with the
/// value of the first occurrence, keys are compared by code units (canonically equivalent
/// spellings are different keys, as in CoreFoundation), and depth is counted from the root. A
/// container that contains itself along the walked path is a `reference-cycle` error.
public struct LazyPlistNode: Sendable {
    let table: LazyObjectTable
    let header: BinaryObjectMarker
    /// The containers from the root down to this node, including it when it is one.
    let ancestry: LazyAncestry?

    /// What the node decodes to.
    public var kind: PlistValue.Kind { header.kind }

    /// The object's index in the file's offset table. Shared values have one index however many
    /// containers refer to them.
    public var objectIndex: Int { header.index }

    /// The byte offset of the object's marker in the file.
    public var byteOffset: Int { header.start }

    /// How many containers lie on the path from the root to this node, counting it when it is an
    /// array or dictionary; the root container is at depth 1.
    public var depth: Int { ancestry?.depth ?? 0 }

    /// The count the object stores, read in O(1): elements of an array, entries of a dictionary
    /// (a repeated key counted each time), bytes of data, and the stored units of a string (bytes
    /// for ASCII and UTF-8 objects, code units for UTF-16 objects). Nil for other kinds.
    public var storedCount: Int? {
        switch kind {
        case .array, .dictionary, .data, .string: return header.count
        default: return nil
        }
    }

    /// The count of the value ``materialize()`` would return: elements of an array, distinct keys
    /// of a dictionary, bytes of data, and a string's length in UTF-16 code units (what
    /// `NSString.length` counts). Nil for other kinds.
    ///
    /// Arrays, data and most strings answer in O(1). A dictionary with more than one entry
    /// decodes its keys (not its values), because repeated keys count once.
    public func count() throws(PlistError) -> Int? {
        switch kind {
        case .array, .data: return header.count
        case .string: return try table.utf16Length(header)
        case .dictionary: return header.count <= 1 ? header.count : try keys().count
        default: return nil
        }
    }

    // MARK: - Making nodes

    static func root(of table: LazyObjectTable) throws(PlistError) -> LazyPlistNode {
        let header = try table.header(ofObject: table.trailer.topObject)
        let ancestry = try enter(header, below: nil, table: table)
        return LazyPlistNode(table: table, header: header, ancestry: ancestry)
    }

    /// The node of the object the reference at `position` names. The caller has validated the
    /// reference list `position` lies in.
    func child(referencedAt position: Int) throws(PlistError) -> LazyPlistNode {
        let index = try table.reference(at: position)
        if let ancestry, ancestry.contains(index) {
            throw BinaryTrailer.error(.referenceCycle, at: position, "object \(index) contains itself through this reference")
        }
        let header = try table.header(ofObject: index)
        return LazyPlistNode(table: table, header: header, ancestry: try Self.enter(header, below: ancestry, table: table))
    }

    /// The ancestry of a node with `header` under `parent`, refusing nesting beyond the limit.
    private static func enter(
        _ header: BinaryObjectMarker, below parent: LazyAncestry?, table: LazyObjectTable
    ) throws(PlistError) -> LazyAncestry? {
        guard header.isContainer else { return parent }
        let chain = LazyAncestry(object: header.index, parent: parent)
        guard chain.depth <= table.limits.maxDepth else {
            throw BinaryTrailer.error(
                .depthLimit, at: header.payload, table.limits.message(exceeding: .depth))
        }
        return chain
    }

    /// Where reference `slot` of this container is stored.
    func referencePosition(_ slot: Int) -> Int {
        table.referencePosition(header.payload, slot: slot)
    }

    // MARK: - Lookups

    /// The value for `key` when this is a dictionary that has it; nil otherwise.
    ///
    /// Key objects are compared from the first entry on, so a repeated key answers with its
    /// first value, as the full reader's dictionary holds (CoreFoundation's binary rule). ASCII
    /// keys are compared byte for byte; only keys with other characters are decoded.
    public func child(forKey key: String) throws(PlistError) -> LazyPlistNode? {
        guard kind == .dictionary else { return nil }
        let matcher = LazyKeyMatcher(key)
        for slot in 0..<header.count {
            let keyHeader = try self.keyHeader(slot)
            if try matcher.matches(keyHeader, in: table) {
                return try child(referencedAt: referencePosition(header.count + slot))
            }
        }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range; nil otherwise.
    public func element(at index: Int) throws(PlistError) -> LazyPlistNode? {
        guard kind == .array, index >= 0, index < header.count else { return nil }
        return try child(referencedAt: referencePosition(index))
    }

    /// The node at `path` below this one, with the rules of ``PlistValue/subscript(keyPath:)``:
    /// a dictionary takes a key component, an array an index or a key of decimal digits, and a
    /// scalar before the end of the path, like a missing key, gives nil.
    ///
    /// - Throws: ``PlistError`` when an object on the way is malformed, with `keyPath` set to
    ///   the components walked so far.
    public func node(at path: PlistKeyPath) throws(PlistError) -> LazyPlistNode? {
        var current = self
        for (position, component) in path.components.enumerated() {
            let next: LazyPlistNode?
            do {
                switch current.kind {
                case .dictionary:
                    guard case .key(let key) = component else { return nil }
                    next = try current.child(forKey: key)
                case .array:
                    guard let index = component.arrayIndex else { return nil }
                    next = try current.element(at: index)
                default: return nil
                }
            } catch {
                var located = error
                if located.keyPath == nil {
                    located.keyPath = PlistKeyPath(components: Array(path.components[...position]))
                }
                throw located
            }
            guard let next else { return nil }
            current = next
        }
        return current
    }

    /// The header of the key in entry `slot` of this dictionary. A key must be a string object;
    /// its marker is checked before anything else of it is read, as in the full reader.
    func keyHeader(_ slot: Int) throws(PlistError) -> BinaryObjectMarker {
        try table.keyHeader(slot, refs: header.payload)
    }

    /// The text of the key in entry `slot` of this dictionary.
    func key(_ slot: Int) throws(PlistError) -> String {
        try table.string(keyHeader(slot))
    }

    // MARK: - Decoding

    /// Decodes this node's subtree into a ``PlistValue``, exactly as the full reader decodes it,
    /// with the same errors: a malformed object anywhere in the subtree, a cycle, nesting deeper
    /// than `limits.maxDepth` counted from the root, or more values (`maxValues`,
    /// `maxExpandedValues`) or string and data bytes (`maxDecodedBytes`) in the subtree than the
    /// limits allow. Objects outside the subtree are not read.
    public func materialize() throws(PlistError) -> PlistValue {
        // A container's own link is entered again by the decoder; a scalar's chain is its parent's.
        var decoder = LazySubtreeDecoder(table: table, outerPath: header.isContainer ? ancestry?.parent : ancestry)
        return try decoder.decode(header)
    }
}
