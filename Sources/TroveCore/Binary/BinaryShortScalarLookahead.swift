/// The short encodings, and their uniquing hashes, of the children a few places ahead in the
/// large container the binary plain encoder is numbering: the encoder works each one out when it
/// touches the child's uniquing bucket ahead of time, and takes it from here when the child's
/// turn comes, rather than reading the child and hashing its encoding a second time.
///
/// Entries are keyed by the child's index and checked against its address: the values being
/// written stay where they are for the whole write, so an entry naming the address describes the
/// child there, while an entry left by another container (or by a child that is not a short
/// scalar) names another address and is passed over. The ring only saves work; the encoder
/// finds the same object either way.
///
/// Entries sit behind a pointer, as ``BinaryRecentObjects``'s do, allocated by ``prepare()``
/// when the first large container is met (most writes have none); the type is non-copyable, so
/// one owner frees them.
struct BinaryShortScalarLookahead: ~Copyable {
    struct Entry {
        var value: UnsafePointer<PlistValue>?
        var encoding: BinaryShortEncoding
        var hash: Int
    }

    /// Entries in the ring, a power of two above the encoder's lookahead distance, so that an
    /// entry is not overwritten before its child is reached.
    static let capacity = 8

    private var entries: UnsafeMutablePointer<Entry>?

    init() {}

    deinit { entries?.deallocate() }

    /// Allocates the entries, unless that was done before; ``remember(_:hash:of:index:)`` and
    /// ``entry(of:index:)`` may only be called after it.
    mutating func prepare() {
        guard entries == nil else { return }
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: Self.capacity)
        entries.initialize(
            repeating: Entry(value: nil, encoding: BinaryShortEncoding(0, 0, width: 0), hash: 0), count: Self.capacity)
        self.entries = entries
    }

    /// Remembers the encoding and hash of the child at `value`, the container's `index`th.
    @inline(__always)
    func remember(_ encoding: BinaryShortEncoding, hash: Int, of value: UnsafePointer<PlistValue>, index: Int) {
        entries.unsafelyUnwrapped[index & (Self.capacity - 1)] = Entry(value: value, encoding: encoding, hash: hash)
    }

    /// What was remembered of the child at `value`, the container's `index`th, if anything:
    /// the entry in place, which stays valid until the next ``remember(_:hash:of:index:)``
    /// (returning a copy of it cost a `memcpy` call per child).
    @inline(__always)
    func entry(of value: UnsafePointer<PlistValue>, index: Int) -> UnsafePointer<Entry>? {
        let entry = entries.unsafelyUnwrapped + (index & (Self.capacity - 1))
        return entry.pointee.value == value ? UnsafePointer(entry) : nil
    }
}
