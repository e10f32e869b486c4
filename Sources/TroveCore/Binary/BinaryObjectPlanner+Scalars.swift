import Foundation

/// Planning scalars and dictionary keys: taking over or sharing the noted object, or uniquing a
/// new scalar by its canonical encoding (see ``BinaryObjectPlanner``).
extension BinaryObjectPlanner {
    /// Plans the scalar `value`, whose note (if any) is walk entry `position`; returns the slot a
    /// reference to it must name.
    @inline(__always)
    mutating func planScalar(_ value: PlistValue, notedAt position: Int?) throws(PlistError) -> Int {
        // A number, date, boolean, UID or null shared by many records: when the noted object's
        // holder is the slot an equal scalar (the same canonical encoding) last came to, the
        // holder holds this value under the object's own note, so planning it again would only
        // find the holder.
        // An object met only once (most, in a file of distinct records) is not looked for.
        guard let position else { return try planScalarAgain(value, notedAt: nil) }
        let object = Int(walkObjects[position])
        let holder = holderOfObject[object]
        guard holder >= 0 || keepsValue[object], let encoding = BinaryShortEncoding(value) else {
            return try planScalarAgain(value, notedAt: position)
        }
        let recent = recentScalars.slot(encoding.low, encoding.high)
        if holder >= 0, let known = recentScalars.object(at: recent, encoding.low, encoding.high), Int(known) == holder {
            return holder
        }
        let slot = try planScalarAgain(value, notedAt: position)
        if slot < Int(UInt32.max) { recentScalars.remember(UInt32(slot), at: recent, encoding.low, encoding.high) }
        return slot
    }

    /// Plans a scalar that ``planScalar(_:notedAt:)`` could not answer from the recent scalars.
    mutating func planScalarAgain(_ value: PlistValue, notedAt position: Int?) throws(PlistError) -> Int {
        let listsRepeats: Bool
        switch value {
        case .bool, .uid:
            // CoreFoundation does not unique booleans and UIDs: it appends each occurrence as an
            // object of its own, but every reference names the first.
            listsRepeats = true
        case .data(let payload) where payload.count >= BinaryLargeDataTable.minimumCount:
            if !uniquingBuilt, let position, let slot = planLargeData(payload, notedAt: position) { return slot }
            listsRepeats = false
        default:
            listsRepeats = false
        }
        return try planScalar(
            notedAt: position, listsRepeats: listsRepeats, fits: { Self.note($0, fits: value) },
            encode: { buffer, note, highWord in
                buffer.appendBinaryScalar(value, note: note, int128HighWord: { highWord })
            })
    }

    /// Plans a large data value whose note is walk entry `position` without copying its payload:
    /// it takes over the noted object while that is free, or shares it while it holds an equal
    /// payload. Nil when neither applies, and the value is planned as any other scalar (which
    /// tells a shared object's bytes apart from those of a `.largeData` holder).
    mutating func planLargeData(_ payload: Data, notedAt position: Int) -> Int? {
        let object = Int(walkObjects[position])
        let note = encodings[object]
        guard note.type == 0x4 else { return nil }
        let holder = holderOfObject[object]
        if holder >= 0 {
            guard case .largeData(let held) = slots[holder].content, largePayloads[held] == payload else { return nil }
            return holder
        }
        let slot = slots.count
        holderOfObject[object] = slot
        let start = encoded.count
        encoded.appendBinaryMarker(0x4, count: payload.count, note: note)
        let count = encoded.count - start
        slots.append(Slot(order: object, content: .largeData(payload: largePayloads.count), note: note, first: start, count: count))
        largePayloads.append(payload)
        scalarBytes += count + payload.count
        return slot
    }

    /// Plans a dictionary key, as ``planScalar(_:notedAt:)`` plans a string value, without
    /// wrapping it in a ``PlistValue`` first.
    @inline(__always)
    mutating func planKey(_ key: String, notedAt position: Int?) throws(PlistError) -> Int {
        // Most keys of a rewrite repeat a key object shared by many dictionaries, decoded once
        // and so one storage: when the noted object's holder is the slot this very
        // representation last came to, the holder holds the key's text under the object's own
        // note, so planning the key again would only find the holder.
        // An object met only once is not looked for.
        guard let position else { return try planKeyAgain(key, notedAt: nil, holder: -1) }
        let object = Int(walkObjects[position])
        let holder = holderOfObject[object]
        guard holder >= 0 || keepsValue[object] else { return try planKeyAgain(key, notedAt: position, holder: holder) }
        let representation = StringRepresentation(key)
        let recent = recentKeys.slot(representation.low, representation.high)
        if holder >= 0, let known = recentKeys.object(at: recent, representation.low, representation.high), Int(known) == holder {
            return holder
        }
        let slot = try planKeyAgain(key, notedAt: position, holder: holder)
        if slot < Int(UInt32.max) { recentKeys.remember(UInt32(slot), at: recent, representation.low, representation.high) }
        return slot
    }

    /// Plans a key that ``planKey(_:notedAt:)`` could not answer from the recent keys;
    /// `holder` holds the noted object (-1 for none).
    mutating func planKeyAgain(_ key: String, notedAt position: Int?, holder: Int) throws(PlistError) -> Int {
        // A key noted in canonical ASCII is compared with the key's UTF-8 where it lies, rather
        // than encoded again to be compared.
        if holder >= 0, let same = holdsASCII(key, holder) {
            if same { return holder }
        }
        return try planScalar(
            notedAt: position, listsRepeats: false, fits: { $0.type >= 0x5 && $0.type <= 0x7 },
            encode: { buffer, note, _ in buffer.appendBinaryString(key, note: note) })
    }

    /// Plans a scalar that `encode` writes (given a note, or nil for the canonical encoding, and
    /// the high word of a noted 16-byte integer; it returns whether it wrote the canonical
    /// encoding) and whose note `fits` accepts.
    @inline(__always)
    mutating func planScalar(
        notedAt position: Int?, listsRepeats: Bool, fits: (BinaryLayout.EncodingNote) -> Bool,
        encode: (inout ByteBuffer, BinaryLayout.EncodingNote?, UInt64) -> Bool
    ) throws(PlistError) -> Int {
        if let position {
            let object = Int(walkObjects[position])
            let note = encodings[object]
            if fits(note) {
                let highWord = note.marker == 0x14 ? int128HighWord(of: object) : 0
                let holder = holderOfObject[object]
                let start = encoded.count
                let canonical = encode(&encoded, note, highWord)
                if holder < 0 {
                    return addNotedScalar(object: object, note: note, bytesFrom: start, canonical: canonical) {
                        _ = encode(&$0, nil, 0)
                    }
                }
                // The same note spells identical scalars alike and different ones differently.
                let same = hasBytes(of: holder, from: start)
                encoded.truncate(to: start)
                if same { return holder }
            }
        }
        if !uniquingBuilt { buildUniquingIndex() }
        let start = encoded.count
        _ = encode(&encoded, nil, 0)
        let count = encoded.count - start
        switch lookUp(keyFrom: start, count: count) {
        case .found(let existing):
            encoded.truncate(to: start)
            if listsRepeats {
                slots.append(Slot(order: nextNewOrder(), content: .copy(of: existing)))
                scalarBytes += slots[existing].count
            }
            return existing
        case .absent(let insertion):
            let slot = slots.count
            slots.append(Slot(order: nextNewOrder(), content: .scalar, first: start, count: count))
            scalarBytes += count
            uniqued.insert(slot, at: insertion)
            return slot
        }
    }

    /// Appends the slot of a scalar that takes over noted object `object`, its bytes written in
    /// the noted spelling from `start` on; when that spelling is not the canonical one,
    /// `encodeCanonically` writes the canonical encoding after it, as the slot's uniquing key.
    @inline(__always)
    mutating func addNotedScalar(
        object: Int, note: BinaryLayout.EncodingNote, bytesFrom start: Int, canonical: Bool,
        encodeCanonically: (inout ByteBuffer) -> Void
    ) -> Int {
        let slot = slots.count
        holderOfObject[object] = slot
        let count = encoded.count - start
        var content = Content.scalar
        if !canonical {
            encodeCanonically(&encoded)
            content = .spelledScalar(keyCount: encoded.count - start - count)
        }
        slots.append(Slot(order: object, content: content, note: note, first: start, count: count))
        scalarBytes += count
        if uniquingBuilt, let key = slots[slot].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count) {
            uniqued.insert(slot, at: insertion)
        }
        return slot
    }

    /// The high word a noted 16-byte integer held.
    @inline(never)
    func int128HighWord(of object: Int) -> UInt64 {
        layout?.int128HighWords[UInt32(truncatingIfNeeded: object)] ?? 0
    }

    /// Whether `holder`, a canonical ASCII string object, holds exactly `key`; nil when the slot
    /// is anything else or the key is not in contiguous storage, and the encodings must be
    /// compared. Under the holder's note, equal text is spelled alike, and a different key is a
    /// different string whatever its spelling.
    @inline(__always)
    func holdsASCII(_ key: String, _ holder: Int) -> Bool? {
        let held = slots[holder]
        guard case .scalar = held.content else { return nil }
        return encoded.withUnsafeBufferPointer { buffer -> Bool? in
            let marker = buffer[held.first]
            guard marker >> 4 == 0x5 else { return nil }
            // The text follows the marker and, for 15 bytes or more, an integer object.
            let header = marker & 0x0F == 0x0F ? 2 + 1 << Int(buffer[held.first + 1] & 0x0F) : 1
            return key.utf8.withContiguousStorageIfAvailable { utf8 in
                // Never nil: the held encoding is at least its marker byte.
                let base = UnsafeRawPointer(buffer.baseAddress!)
                return utf8.count == held.count - header
                    && (utf8.isEmpty || ScalarUniquingTable.sameBytes(base + held.first + header, utf8.baseAddress!, count: utf8.count))
            }
        }
    }

    /// Whether scalar slot `holder` has exactly the bytes written from `start` to the end of
    /// `encoded`.
    @inline(__always)
    func hasBytes(of holder: Int, from start: Int) -> Bool {
        let held = slots[holder]
        guard held.count == encoded.count - start else { return false }
        return encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the bytes compared were just written.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return ScalarUniquingTable.sameBytes(base + held.first, base + start, count: held.count)
        }
    }

    /// Indexes every scalar slot planned so far, once the first new scalar needs the index; an
    /// equal scalar met again keeps the first slot.
    mutating func buildUniquingIndex() {
        uniquingBuilt = true
        uniqued = ScalarUniquingTable(minimumCapacity: slots.count)
        for slot in slots.indices {
            if case .largeData(let payload) = slots[slot].content { encodeLargeData(slot, payload: largePayloads[payload]) }
            guard let key = slots[slot].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count)
            else { continue }
            uniqued.insert(slot, at: insertion)
        }
    }

    /// Turns `.largeData` slot `slot` into a scalar slot whose bytes (and canonical encoding, when
    /// the noted spelling is another) are in `encoded`, so that equal new data unifies with it.
    mutating func encodeLargeData(_ slot: Int, payload: Data) {
        let start = encoded.count
        let canonical = encoded.appendBinaryScalar(.data(payload), note: slots[slot].note, int128HighWord: { 0 })
        let count = encoded.count - start
        slots[slot].content = .scalar
        if !canonical {
            _ = encoded.appendBinaryScalar(.data(payload), note: nil, int128HighWord: { 0 })
            slots[slot].content = .spelledScalar(keyCount: encoded.count - start - count)
        }
        slots[slot].first = start
        slots[slot].count = count
    }

    /// Finds the scalar slot whose canonical encoding is `encoded[start ..< start + count]`.
    mutating func lookUp(keyFrom start: Int, count: Int) -> ScalarUniquingTable.Lookup {
        encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the key looked up lies in the buffer.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return uniqued.lookup(
                encoding: UnsafeRawBufferPointer(start: base + start, count: count), in: base,
                fastHash: { seed, key in ScalarUniquingTable.fastHash(encoding: key, seed: seed) },
                encodingOf: { slot in
                    // Only scalar slots are in the table.
                    slots[slot].uniquingKey ?? (0, 0)
                })
        }
    }
}
