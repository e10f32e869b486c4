/// The first reachable object holding each boolean, null and short UID of a binary file, noted
/// by a lossless read's scanner as it decodes them, so that ``BinaryOrphanCopies`` can pair
/// nearly every orphan with its original at once instead of walking the reachable objects again.
///
/// "First" is the lowest object number, as the pairing defines it; the decode meets objects in
/// reference order, so each note keeps the minimum. A one-byte object is noted by its byte. A
/// UID of one to seven bytes whose value is below the object count (capped as ``OrphanTwins``
/// caps its slots) is noted by its value, with its marker; a value met reachable in two widths
/// is marked ``mixedWidths``. Other UIDs are not noted. A file with an orphan these notes cannot
/// answer for (of such a UID, or of any other content) is left to the general pairing.
///
/// Invariants: `uidMarkers[v]` is 0 while no reachable UID of value `v` was noted, else the marker
/// (`0x80...0x86`) of every one noted, whose lowest object number is `uidFirsts[v] - 1`, or
/// ``mixedWidths``; `uidFirsts[v]` is only meaningful while the marker is a UID's. The one-byte
/// table's entry `b` is 0 or one more than the lowest object number of the byte `b`.
struct BinaryReachableTwins: ~Copyable {
    /// The marker of a UID value met reachable in two widths.
    static let mixedWidths: UInt8 = 0xFF

    /// The one-byte table's entries: one-byte objects have markers below 0x10.
    static let oneByteMarkers = 16

    /// Values below this have a slot (see ``OrphanTwins/uidLimit(objectCount:)``).
    let uidLimit: Int
    /// One more than each byte's first reachable object; nil when nothing is noted (a plain read).
    private let oneByteFirsts: UnsafeMutablePointer<UInt32>?
    /// By UID value, made on the first UID noted: the marker, and one more than the first object.
    private var uidMarkers: UnsafeMutablePointer<UInt8>?
    private var uidFirsts: UnsafeMutablePointer<UInt32>?

    /// Tables for a file of `objectCount` objects; with `noting` false, nothing can be noted
    /// and nothing is allocated.
    init(objectCount: Int, noting: Bool) {
        uidLimit = OrphanTwins.uidLimit(objectCount: objectCount)
        if noting {
            let firsts = UnsafeMutablePointer<UInt32>.allocate(capacity: Self.oneByteMarkers)
            firsts.initialize(repeating: 0, count: Self.oneByteMarkers)
            oneByteFirsts = firsts
        } else {
            oneByteFirsts = nil
        }
    }

    deinit {
        oneByteFirsts?.deallocate()
        uidMarkers?.deallocate()
        uidFirsts?.deallocate()
    }

    /// Notes `twin`, held by object `index`, which the decode reached. Only a scanner that
    /// notes the layout calls this.
    @inline(__always)
    mutating func note(_ twin: OrphanTwins.Twin, of index: Int) {
        let first = UInt32(truncatingIfNeeded: index &+ 1)
        if twin.uidValue < 0 {
            assert(Int(twin.marker) < Self.oneByteMarkers, "a one-byte twin of marker \(twin.marker)")
            let firsts = oneByteFirsts.unsafelyUnwrapped
            let held = firsts[Int(twin.marker)]
            if held == 0 || first < held { firsts[Int(twin.marker)] = first }
            return
        }
        guard twin.uidValue < uidLimit else { return }
        noteUID(twin.uidValue, marker: twin.marker, first: first)
    }

    @inline(__always)
    private mutating func noteUID(_ value: Int, marker: UInt8, first: UInt32) {
        let markers = uidMarkers ?? makeUIDTables()
        let firsts = uidFirsts.unsafelyUnwrapped
        let held = markers[value]
        if held == marker {
            if first < firsts[value] { firsts[value] = first }
        } else if held == 0 {
            markers[value] = marker
            firsts[value] = first
        } else {
            markers[value] = Self.mixedWidths
        }
    }

    /// Takes in what another scanner of the same file noted (a split read's worker): each entry
    /// keeps the lower of the two firsts, and a value the two noted in different widths becomes
    /// ``mixedWidths``.
    /// - Complexity: O(*n*) in the object count when both scanners met a UID, else O(1).
    mutating func merge(_ other: borrowing BinaryReachableTwins) {
        guard let mine = oneByteFirsts, let theirs = other.oneByteFirsts else { return }
        for byte in 0..<Self.oneByteMarkers where theirs[byte] != 0 && (mine[byte] == 0 || theirs[byte] < mine[byte]) {
            mine[byte] = theirs[byte]
        }
        guard let theirMarkers = other.uidMarkers, let theirFirsts = other.uidFirsts else { return }
        for value in 0..<uidLimit where theirMarkers[value] != 0 {
            let marker = theirMarkers[value]
            if marker == Self.mixedWidths {
                let markers = uidMarkers ?? makeUIDTables()
                markers[value] = marker
            } else {
                noteUID(value, marker: marker, first: theirFirsts[value])
            }
        }
        _checkInvariants()
    }

    /// The tables as the pairing reads them, valid while these live; nil when nothing was noted.
    var view: View? {
        guard let oneByteFirsts else { return nil }
        return View(uidLimit: uidLimit, oneByteFirsts: oneByteFirsts, uidMarkers: uidMarkers, uidFirsts: uidFirsts)
    }

    /// The notes, read by ``BinaryOrphanCopies/pairNoted(_:notes:orphanCount:)``.
    struct View {
        let uidLimit: Int
        let oneByteFirsts: UnsafePointer<UInt32>
        let uidMarkers: UnsafePointer<UInt8>?
        let uidFirsts: UnsafePointer<UInt32>?

        init(
            uidLimit: Int, oneByteFirsts: UnsafeMutablePointer<UInt32>, uidMarkers: UnsafeMutablePointer<UInt8>?,
            uidFirsts: UnsafeMutablePointer<UInt32>?
        ) {
            self.uidLimit = uidLimit
            self.oneByteFirsts = UnsafePointer(oneByteFirsts)
            self.uidMarkers = uidMarkers.map { UnsafePointer($0) }
            self.uidFirsts = uidFirsts.map { UnsafePointer($0) }
        }

        /// The first reachable object holding `twin`'s bytes, -1 when none does; nil when the
        /// notes cannot tell: a UID whose value has no slot, or one met reachable in two widths.
        @inline(__always)
        func original(of twin: OrphanTwins.Twin) -> Int? {
            let value = twin.uidValue
            if value < 0 {
                assert(Int(twin.marker) < BinaryReachableTwins.oneByteMarkers, "a one-byte twin of marker \(twin.marker)")
                return Int(oneByteFirsts[Int(twin.marker)]) &- 1
            }
            guard value < uidLimit else { return nil }
            let held = uidMarkers?[value] ?? 0
            if held == twin.marker { return Int(uidFirsts.unsafelyUnwrapped[value]) &- 1 }
            return held == BinaryReachableTwins.mixedWidths ? nil : -1
        }
    }

    /// The UID tables; only the markers are cleared, as a first is read only under its marker.
    @inline(never)
    private mutating func makeUIDTables() -> UnsafeMutablePointer<UInt8> {
        let markers = UnsafeMutablePointer<UInt8>.allocate(capacity: uidLimit)
        markers.initialize(repeating: 0, count: uidLimit)
        uidMarkers = markers
        uidFirsts = .allocate(capacity: uidLimit)
        return markers
    }

    /// Checks the invariants above, in debug builds.
    func _checkInvariants() {
        #if DEBUG
        if let uidMarkers {
            for value in 0..<uidLimit {
                let marker = uidMarkers[value]
                precondition(marker == 0 || marker == Self.mixedWidths || marker &- 0x80 < 7, "UID slot \(value) holds marker \(marker)")
                if marker != 0 && marker != Self.mixedWidths { precondition(uidFirsts![value] != 0, "UID slot \(value) has no first object") }
            }
        }
        #endif
    }
}
