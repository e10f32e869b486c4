/// The one-byte and UID contents of a file's orphans, each with the first reachable object that
/// holds it, in tables indexed by the content itself (see ``BinaryOrphanCopies``).
///
/// Nearly every orphan is one of these: CoreFoundation leaves copies of booleans, null and the
/// UIDs of a keyed archive. An archive's UIDs name its objects, so a UID's value is below the
/// object count and can index a table, and a one-byte object indexes one by its byte: neither
/// needs a hash, a probe or an entry of ``OrphanContents``, and no input can make them collide.
///
/// A UID's slot is its value, whatever its width; the first orphan UID of a value gives the slot
/// its marker. A UID of that value in another width (which no Apple writer makes) is left to
/// ``OrphanContents``, and so is any UID whose value is not below the object count.
///
/// Invariants: `uidMarkers[v]` is 0 or the marker of the UIDs of value `v` that slot `v` holds;
/// `uidOriginals[v]` is 0 while no reachable object holding that UID was offered, else one more
/// than the first one's index, and is 0 whenever `uidMarkers[v]` is; the same for the one-byte
/// slots with `oneByteWanted` as the markers; `unfound` counts the wanted slots with no original.
struct OrphanTwins: ~Copyable {
    /// The largest UID value plus one that has a slot: the object count, which a reference of
    /// the object table is below, capped so that a slot fits in the low 30 bits of the code ``want(_:)``
    /// returns.
    private let uidLimit: Int
    /// The UID slots, made on the first orphan UID: markers, then originals.
    private var uidMarkers: UnsafeMutablePointer<UInt8>?
    private var uidOriginals: UnsafeMutablePointer<UInt32>?
    /// The one-byte slots, by the byte: whether an orphan holds it, and its original.
    private let oneByteWanted: UnsafeMutablePointer<Bool>
    private let oneByteOriginals: UnsafeMutablePointer<UInt32>
    /// The number of wanted slots with no original yet.
    private(set) var unfound = 0

    /// The top bits of a code: a one-byte slot's, and a UID slot's.
    private static let oneByteCode: UInt32 = 0x8000_0000
    private static let uidCode: UInt32 = 0xC000_0000

    /// The largest UID value plus one that has a slot in a file of `objectCount` objects.
    static func uidLimit(objectCount: Int) -> Int { Swift.min(objectCount, 1 << 30) }

    /// Slots for the orphans of a file of `objectCount` objects.
    init(objectCount: Int) {
        uidLimit = Self.uidLimit(objectCount: objectCount)
        oneByteWanted = .allocate(capacity: 256)
        oneByteWanted.initialize(repeating: false, count: 256)
        oneByteOriginals = .allocate(capacity: 256)
        oneByteOriginals.initialize(repeating: 0, count: 256)
    }

    deinit {
        uidMarkers?.deallocate()
        uidOriginals?.deallocate()
        oneByteWanted.deallocate()
        oneByteOriginals.deallocate()
    }

    /// A content that may have a slot: a one-byte object, by its byte (`uidValue` -1), or a UID,
    /// by its marker and value.
    struct Twin {
        var marker: UInt8
        var uidValue: Int

        /// The twin of `content`, if it is a one-byte object or a UID of up to eight bytes whose
        /// marker's width agrees with its length.
        init?(content: UnsafeRawBufferPointer) {
            guard let marker = content.first else { return nil }
            if content.count == 1 {
                self.init(marker: marker, uidValue: -1)
                return
            }
            let width = Int(marker & 0x0F) + 1
            guard marker >> 4 == 0x8, width <= 8, content.count == 1 + width else { return nil }
            self.init(marker: marker, uidValue: Int(truncatingIfNeeded: content.loadBigEndian(at: 1, width: width)))
        }

        /// The twin of the object whose first eight bytes are `word` (loaded little-endian), if
        /// it is a one-byte object (marker below 0x10) or a UID of up to seven bytes whose value
        /// lies within the `room` bytes from the object's start.
        @inline(__always)
        init?(firstWord word: UInt64, room: Int) {
            let marker = UInt8(truncatingIfNeeded: word)
            if marker < 0x10 {
                self.init(marker: marker, uidValue: -1)
                return
            }
            // The marker and the value's big-endian bytes are all in the word.
            let width = Int(marker) &- 0x7F
            guard width >= 1 && width <= 7 && width < room else { return nil }
            let value = (word.byteSwapped &>> UInt64(56 &- 8 &* width)) & (1 &<< UInt64(8 &* width) &- 1)
            self.init(marker: marker, uidValue: Int(truncatingIfNeeded: value))
        }

        init(marker: UInt8, uidValue: Int) {
            self.marker = marker
            self.uidValue = uidValue
        }
    }

    /// Whether `code`, a value ``want(_:)`` returned, names a slot of this table (else it is a
    /// number of ``OrphanContents``, which is below 2³¹).
    @inline(__always)
    static func isSlot(_ code: UInt32) -> Bool { code & oneByteCode != 0 }

    /// The slot of `twin`, wanted from now on, as a code with its top bit set; nil when it has
    /// no slot here (``OrphanContents`` then numbers it).
    @inline(__always)
    mutating func want(_ twin: Twin) -> UInt32? {
        let marker = twin.marker
        let value = twin.uidValue
        if value < 0 {
            if !oneByteWanted[Int(marker)] {
                oneByteWanted[Int(marker)] = true
                unfound &+= 1
            }
            return Self.oneByteCode | UInt32(marker)
        }
        guard value < uidLimit else { return nil }
        let markers = uidMarkers ?? makeUIDSlots()
        let held = markers[value]
        if held == 0 {
            markers[value] = marker
            unfound &+= 1
        } else if held != marker {
            return nil
        }
        return Self.uidCode | UInt32(truncatingIfNeeded: value)
    }

    /// Records `index`, a reachable object holding `twin`, as its slot's original unless the
    /// slot has one or no orphan wants it. False when the content may be one that
    /// ``OrphanContents`` numbered, which the caller then offers it to.
    @inline(__always)
    mutating func offer(_ twin: Twin, as index: Int) -> Bool {
        let marker = twin.marker
        let value = twin.uidValue
        if value < 0 {
            if oneByteWanted[Int(marker)] && oneByteOriginals[Int(marker)] == 0 {
                oneByteOriginals[Int(marker)] = UInt32(truncatingIfNeeded: index &+ 1)
                unfound &-= 1
            }
            return true
        }
        guard value < uidLimit else { return false }
        guard let markers = uidMarkers, let originals = uidOriginals else { return true }
        let held = markers[value]
        if held == marker {
            if originals[value] == 0 {
                originals[value] = UInt32(truncatingIfNeeded: index &+ 1)
                unfound &-= 1
            }
            return true
        }
        // No orphan holds a UID of this value in any width, or the orphans of its width went to
        // the other table.
        return held == 0
    }

    /// The original of the slot `code` names, or -1 when no reachable object holds its content.
    @inline(__always)
    func original(ofCode code: UInt32) -> Int {
        let slot = Int(code & 0x3FFF_FFFF)
        let held = code & Self.uidCode == Self.uidCode ? uidOriginals![slot] : oneByteOriginals[slot]
        return Int(held) &- 1
    }

    @inline(never)
    private mutating func makeUIDSlots() -> UnsafeMutablePointer<UInt8> {
        let markers = UnsafeMutablePointer<UInt8>.allocate(capacity: uidLimit)
        markers.initialize(repeating: 0, count: uidLimit)
        let originals = UnsafeMutablePointer<UInt32>.allocate(capacity: uidLimit)
        originals.initialize(repeating: 0, count: uidLimit)
        uidMarkers = markers
        uidOriginals = originals
        return markers
    }
}
