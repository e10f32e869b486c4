/// What a binary plist's reader learned about the file's object table, so that writing the
/// (possibly edited) value back reproduces the file byte for byte where nothing changed.
///
/// The notes describe the file's shape, never its values' bytes: which object index each reference
/// named, how each object was encoded (integer width, string flavour, how a count was spelled),
/// the unreferenced objects (the few bytes of each boolean, null and short UID, or the reachable
/// object another one copies), and the trailer's fields. The writer walks the
/// value and these notes in lockstep; a note that no longer fits the value is ignored for that
/// value only.
///
/// Invariants (established by ``BinaryPlistReader``, relied on by ``BinaryPlistWriter``):
/// * `encodings.count == objectCount`; entry `k` describes object `k` (see ``EncodingNote``).
/// * `walkObjects` and `walkExtents` have equal length, at least 1. They list the object index
///   met at each step of a pre-order walk of the value that follows references in file order
///   (an array's element references; a dictionary's key references, then its value references)
///   and does not descend into an object it has already visited. Entry 0 is the top object.
///   `walkExtents[p]` counts the entries of the subtree starting at `p`, itself included: 1 for
///   scalars and for repeat visits, so the children of the container at `p` occupy
///   `p+1 ..< p+walkExtents[p]`. Every index in `walkObjects` is below `objectCount`, and every
///   object in it was decoded (is reachable).
/// * `keptOrphans` lists, in ascending order, the objects never referenced from the top object
///   that are booleans, null or UIDs of up to three bytes, each with its bytes (``KeptOrphan``);
///   CoreFoundation leaves such orphans for repeated booleans and UIDs.
/// * `copies` lists, in ascending order, the other unreferenced objects whose encoding equals
///   that of a reachable object (`original`). Orphans that are neither are not noted.
/// * `repeatedKeys` holds, for each dictionary whose file entries repeat a key, the file's key
///   sequence and the hidden values; its keys are walk positions of first visits of dictionaries.
/// * `keyTexts` holds the decoded text of every object used as a dictionary key.
/// * `int128HighWords` maps a 16-byte integer object to the high 64 bits it held, which Apple's
///   readers ignore; only non-zero words are kept.
///
/// How the writer uses them: a value whose walk entry names object `k` takes index `k` when `k`
/// is still free and the noted encoding suits the value's kind, or shares `k` when `k` already
/// holds an equal value (a shared object); otherwise it becomes a new object, appended after the
/// noted ones and uniqued CF-style, while its children still follow their own notes. A value that
/// outgrew its noted width (an integer, a UID, a count, a string no longer ASCII) gets the minimal
/// encoding. Objects nothing claims are dropped and the rest keep their relative order; the noted
/// reference and offset sizes stay unless they became too small. Reproduction assumes objects
/// lie in offset-table order without gaps, which holds for every file in the corpus.
public struct BinaryLayout: Sendable {
    /// How one object was encoded: the marker byte as written (so it includes an integer's or
    /// UID's width, a string's flavour, set-versus-array, and an inline count); in the low bits of
    /// the high byte how an extended count was written (0 = inline nibble; n + 1 = an integer
    /// object with marker `0x1n`); and in its top bit whether an ASCII string object held bytes
    /// above 0x7F (read as Latin-1).
    struct EncodingNote: Sendable, Hashable {
        var raw: UInt16

        init(marker: UInt8, extendedCountMarker: UInt8? = nil, holdsLatin1: Bool = false) {
            raw = UInt16(marker) | UInt16(extendedCountMarker.map { ($0 & 0x0F) + 1 } ?? 0) << 8
            if holdsLatin1 { raw |= 0x8000 }
        }

        /// The object's marker byte.
        var marker: UInt8 { UInt8(truncatingIfNeeded: raw) }
        /// The marker's high nibble: the object's type.
        var type: UInt8 { marker >> 4 }
        /// The marker of the integer object that held the count, when the count was extended.
        var extendedCountMarker: UInt8? {
            let code = UInt8(truncatingIfNeeded: raw >> 8) & 0x7F
            return code == 0 ? nil : 0x10 | (code - 1)
        }
        /// True for an ASCII string object whose bytes went above 0x7F.
        var holdsLatin1: Bool { raw & 0x8000 != 0 }

        /// This note with the Latin-1 flag set.
        func markingLatin1() -> EncodingNote {
            var copy = self
            copy.raw |= 0x8000
            return copy
        }
    }

    /// An unreferenced object whose bytes equal those of a reachable one.
    struct OrphanCopy: Sendable, Hashable {
        /// The orphan's index.
        var object: UInt32
        /// The reachable object it copies.
        var original: UInt32
    }

    /// An unreferenced boolean, null or UID of up to three bytes, kept as its own bytes: at most
    /// four, no more than a reference to an original would take, and nothing to look up.
    struct KeptOrphan: Sendable, Hashable {
        /// The orphan's index.
        var object: UInt32
        /// The object's bytes as a little-endian word, the marker in the low byte; zero past
        /// ``length``.
        var bytes: UInt32

        /// The orphan `object` whose first eight bytes are `word` (loaded little-endian), when
        /// it is a one-byte object (marker below 0x10) or a UID of one to three bytes whose
        /// bytes lie within the `room` bytes from its start.
        @inline(__always)
        init?(object: Int, firstWord word: UInt64, room: Int) {
            let marker = UInt8(truncatingIfNeeded: word)
            let length = Self.length(marker: marker)
            guard length != 0 && length <= room else { return nil }
            self.object = UInt32(truncatingIfNeeded: object)
            bytes = UInt32(truncatingIfNeeded: word) & UInt32(truncatingIfNeeded: (1 &<< UInt64(8 &* length)) &- 1)
        }

        /// The orphan `object` whose bytes are `content`, when it is one a word can keep.
        init?(object: Int, content: UnsafeRawBufferPointer) {
            guard let marker = content.first, Self.length(marker: marker) == content.count else { return nil }
            var word: UInt64 = 0
            for (i, byte) in content.enumerated() { word |= UInt64(byte) << (8 * i) }
            self.init(object: object, firstWord: word, room: content.count)
        }

        /// The byte count of a kept object whose marker is `marker`; 0 for a marker of any other
        /// object.
        @inline(__always)
        static func length(marker: UInt8) -> Int {
            if marker < 0x10 { return 1 }
            let width = Int(marker) &- 0x7F
            return width >= 1 && width <= 3 ? 1 &+ width : 0
        }

        var marker: UInt8 { UInt8(truncatingIfNeeded: bytes) }
        var length: Int { Self.length(marker: marker) }
    }

    /// A dictionary whose file entries repeat a key. The value keeps each key once, at its first
    /// position with its first value (as CoreFoundation's binary reader does); this note keeps the file's key
    /// sequence and the values the repeats hid, so an unchanged dictionary is written back with
    /// all of its entries. Used only while the dictionary still has exactly the noted keys.
    struct RepeatedKeys: Sendable {
        /// Every entry's key, in file order, repeats included.
        var keys: [String]
        /// The values of the later entries of a repeated key, which the first one hid, by entry index.
        var hiddenValues: [Int: PlistValue]
    }

    /// The character after `bplist0` in the header.
    var versionByte: UInt8
    /// The trailer's five unused bytes, big-endian in the low 40 bits.
    var unusedTrailerBytes: UInt64
    /// The trailer's sortVersion byte.
    var sortVersion: UInt8
    /// The offset-table entry width the file used.
    var offsetIntSize: Int
    /// The object reference width the file used.
    var objectRefSize: Int
    /// Encoding of each object, by index.
    var encodings: [EncodingNote]
    /// Object index met at each step of the reference walk.
    var walkObjects: WalkSteps
    /// Size of the subtree at each step of the reference walk.
    var walkExtents: WalkSteps
    /// Unreferenced booleans, null and short UIDs, in ascending order of object.
    var keptOrphans: [KeptOrphan]
    /// The other unreferenced objects that copy reachable ones, in ascending order of object.
    var copies: [OrphanCopy]
    /// Non-zero high halves of 16-byte integers, by object index.
    var int128HighWords: [UInt32: UInt64]
    /// Dictionaries whose file entries repeat a key, by the walk position of the dictionary.
    var repeatedKeys: [UInt32: RepeatedKeys]
    /// The text of each object used as a dictionary key, so that a dictionary's entries can be
    /// matched to their notes by key after keys were inserted, removed or reordered. (The strings
    /// share storage with the decoded value's keys.)
    var keyTexts: KeyTexts
    /// Unreferenced objects that are neither kept nor copy a reachable object; they are dropped
    /// on write, so a file holding any cannot be reproduced exactly.
    public internal(set) var unmatchedOrphanCount: Int

    /// True when the notes can reproduce the file they came from byte for byte: every
    /// unreferenced object is kept or copies a reachable one. (Objects must also lie in offset-table order
    /// without gaps, as in every file of the corpus.)
    public var reproducesSource: Bool { unmatchedOrphanCount == 0 }

    /// The number of objects in the file the notes were taken from.
    public var objectCount: Int { encodings.count }

    /// The width of object references in the file the notes were taken from; the writer keeps
    /// it while it can still address every object.
    public var referenceSize: Int { objectRefSize }

    /// The width of offset-table entries in the file the notes were taken from; the writer keeps
    /// it while it can still address the offset table.
    public var offsetSize: Int { offsetIntSize }
}
