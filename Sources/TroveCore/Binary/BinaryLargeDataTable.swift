import Foundation

/// The large data objects of a plain binary write, kept as the values' own `Data` and copied once,
/// straight into the output, instead of being encoded into the scalar buffer first and copied
/// again from there. In data-heavy documents (web archives, preferences holding images) that
/// second copy was most of the write.
///
/// Equal payloads are one object, as for every other scalar. A payload is first keyed by its
/// length and its first and last 64 bytes, which costs nothing next to copying it, and compared
/// with the few payloads sharing that key. Same-sized archives nested as data often share both
/// ends (a header and a trailer), so a few are expected; past ``fewPayloads`` of them, whole
/// payloads are hashed (a seeded `Hasher`, so crafted input cannot line them up). Payloads
/// crafted to share their ends therefore cost one hash each, not a comparison with every earlier
/// one.
///
/// Invariant: `payloads[i]` is the payload of the `i`-th distinct large data object, and
/// `objects[i]` its object number in the encoder's list; `encodedBytes` is the sum of their
/// encodings (extended marker and payload). A key's `.few` group holds at most ``fewPayloads``;
/// a `.hashed` group files every payload of its key under its whole hash.
struct BinaryLargeDataTable {
    /// Payloads at least this long are kept aside. Below it, copying the payload into the scalar
    /// buffer costs less than the lookup that keeps it apart: archives of a few kilobytes (a
    /// terminal profile's colors and fonts) are alike in size and ends, so most would be hashed
    /// whole.
    static let minimumCount = 16 * 1024

    /// How many payloads one key holds before they are told apart by whole hashes.
    static let fewPayloads = 4

    private(set) var payloads: [Data] = []
    private var objects: [UInt32] = []
    private(set) var encodedBytes = 0

    fileprivate struct EndsKey: Hashable {
        var count: Int
        var ends: Int
    }

    /// The payloads sharing one key: most keys hold one; a key shared by more than
    /// ``fewPayloads`` is split by a hash of the whole payload.
    private enum Group {
        case few([Int])
        case hashed([Int: [Int]])
    }

    private var groups: [EndsKey: Group] = [:]

    /// Where a payload that is not in the table goes, as ``lookup(_:)`` found it.
    struct Insertion {
        fileprivate var key: EndsKey
        /// The hash of the whole payload, when its key already holds ``fewPayloads`` or is split
        /// by hashes.
        fileprivate var wholeHash: Int?
    }

    enum Lookup {
        /// The object of an equal payload.
        case found(UInt32)
        /// No equal payload yet; pass this to ``insert(_:object:at:)``.
        case absent(Insertion)
    }

    /// The object of a payload equal to `payload`, if there is one. `payload.count` must be at
    /// least ``minimumCount``.
    func lookup(_ payload: Data) -> Lookup {
        let key = EndsKey(count: payload.count, ends: Self.endsHash(payload))
        switch groups[key] {
        case nil:
            return .absent(Insertion(key: key))
        case .few(let held):
            if let match = held.first(where: { payloads[$0] == payload }) { return .found(objects[match]) }
            return .absent(Insertion(key: key, wholeHash: held.count < Self.fewPayloads ? nil : Self.wholeHash(payload)))
        case .hashed(let byHash):
            let hash = Self.wholeHash(payload)
            if let match = byHash[hash]?.first(where: { payloads[$0] == payload }) { return .found(objects[match]) }
            return .absent(Insertion(key: key, wholeHash: hash))
        }
    }

    /// Adds `payload`, which ``lookup(_:)`` did not find, as object `object`.
    mutating func insert(_ payload: Data, object: UInt32, at insertion: Insertion) {
        let index = payloads.count
        objects.append(object)
        payloads.append(payload)
        encodedBytes += Self.encodedLength(of: payload)
        // Out of the table while it changes, so that the group's storage is not copied.
        switch groups.removeValue(forKey: insertion.key) {
        case nil:
            groups[insertion.key] = .few([index])
        case .few(var held):
            guard let hash = insertion.wholeHash else {
                held.append(index)
                groups[insertion.key] = .few(held)
                return
            }
            var byHash: [Int: [Int]] = [hash: [index]]
            for earlier in held { byHash[Self.wholeHash(payloads[earlier]), default: []].append(earlier) }
            groups[insertion.key] = .hashed(byHash)
        case .hashed(var byHash):
            // A `.hashed` group's lookup always hashed the payload.
            byHash[insertion.wholeHash!, default: []].append(index)
            groups[insertion.key] = .hashed(byHash)
        }
    }

    /// The length of a data object holding `payload`: its extended marker and the payload.
    static func encodedLength(of payload: Data) -> Int {
        BinaryExtendedMarker(type: 0x4, count: payload.count).length + payload.count
    }

    /// Writes payload `index` as a data object at `target`, which has room for its encoding;
    /// returns the encoding's length. The marker's spill lands on the payload's first bytes,
    /// which are written after it (a payload is far longer than the sixteen bytes stored).
    func write(_ index: Int, to target: UnsafeMutableRawPointer) -> Int {
        let payload = payloads[index]
        let marker = BinaryExtendedMarker(type: 0x4, count: payload.count)
        marker.store(at: target)
        payload.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { (target + marker.length).copyMemory(from: base, byteCount: bytes.count) }
        }
        return marker.length + payload.count
    }

    /// The hash of a payload's length and its first and last 64 bytes: the plain encoder's fast
    /// hash of a long encoding.
    private static func endsHash(_ payload: Data) -> Int {
        payload.withUnsafeBytes { ScalarUniquingTable.fastHash(encoding: $0, seed: SeededByteHash.processSeed) }
    }

    /// The hash of the whole payload that a key shared by many payloads is split by: the
    /// uniquing table's fallback hash, which crafted input cannot line up.
    private static func wholeHash(_ payload: Data) -> Int {
        payload.withUnsafeBytes { ScalarUniquingTable.sipHash($0) }
    }
}
