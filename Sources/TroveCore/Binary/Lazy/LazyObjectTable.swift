/// A binary plist's object table, read in place: offsets, references and object markers, each
/// validated when it is read, with the same rules and messages as ``BinaryObjectScanner``
/// (both read markers and scalars through ``BinaryObjectArea``).
///
/// The class keeps the byte source alive; everything derived from `bytes` is only used while it
/// is. It is immutable after init, which is what makes it safe to share between threads.
final class LazyObjectTable: @unchecked Sendable {
    let source: any PlistByteSource
    let bytes: UnsafeRawBufferPointer
    let trailer: BinaryTrailer
    let limits: PlistLimits
    /// The object area, through which markers, keys and scalars are read.
    let area: BinaryObjectArea
    /// Offsets and references, read and checked as the full reader reads them.
    let lookup: BinaryObjectLookup

    init(source: any PlistByteSource, limits: PlistLimits) throws(PlistError) {
        self.source = source
        bytes = source.bytes
        trailer = try BinaryTrailer(bytes)
        self.limits = limits
        area = BinaryObjectArea(bytes: bytes, trailer: trailer)
        lookup = BinaryObjectLookup(bytes: bytes, trailer: trailer)
    }

    /// The first byte past the object area.
    var areaEnd: Int { trailer.offsetTableOffset }

    /// The validated start of object `index`; the caller has checked `index < objectCount`.
    @inline(__always)
    func offset(ofObject index: Int) throws(PlistError) -> Int {
        try lookup.offset(ofObject: index)
    }

    /// The object index stored in the reference at `position`, which the caller has checked lies
    /// inside a container's validated reference list.
    @inline(__always)
    func reference(at position: Int) throws(PlistError) -> Int {
        try lookup.reference(at: position)
    }

    /// The position of reference `slot` of a container whose references start at `refs`.
    func referencePosition(_ refs: Int, slot: Int) -> Int {
        refs + slot * trailer.objectRefSize
    }

    /// The marker of the key in entry `slot` of a dictionary whose references start at `refs`.
    /// A key must be a string object; its marker is checked before anything else of it is read,
    /// as in the full reader.
    func keyHeader(_ slot: Int, refs: Int) throws(PlistError) -> BinaryObjectMarker {
        let position = referencePosition(refs, slot: slot)
        return try keyHeader(of: try reference(at: position), referencedAt: position)
    }

    /// The marker of key object `index`, which the reference at `position` names, checked as by
    /// ``keyHeader(_:refs:)``.
    func keyHeader(of index: Int, referencedAt position: Int) throws(PlistError) -> BinaryObjectMarker {
        let start = try offset(ofObject: index)
        try area.requireStringKey(index, at: start, referencedAt: position)
        return try area.marker(ofObject: index, at: start, naming: .byKind)
    }

    /// Reads and validates the marker of object `index`.
    func header(ofObject index: Int) throws(PlistError) -> BinaryObjectMarker {
        try area.marker(ofObject: index, at: try offset(ofObject: index), naming: .byKind)
    }
}
