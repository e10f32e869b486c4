import Foundation

/// Planning scalars and dictionary keys: taking over or sharing the noted object, or uniquing a
/// new scalar by its canonical encoding (see ``BinaryObjectPlanner``).
extension BinaryObjectPlanner {
    /// Plans the scalar at `value`, whose note is walk entry `position` (-1 for none); returns
    /// the order a reference to it must name.
    ///
    /// A number, date, boolean, UID or null in its canonical spelling is handled here from its
    /// two words: written as they are when it takes over its noted object in that spelling, and
    /// compared with the holder's canonical encoding when the object is held (identical scalars
    /// have the same canonical encoding, and different ones different encodings, whatever the
    /// note). Anything else takes the general path.
    @inline(__always)
    mutating func planScalar(_ value: UnsafePointer<PlistValue>, notedAt position: Int) throws(PlistError) -> Int {
        guard position >= 0 else { return try planScalarAgain(value.pointee, notedAt: -1) }
        let object = Int(walk[position])
        let claimed = objects.state(object) != 0
        switch value.pointee {
        case .string:
            // The string is read by its words alone, so that it is not copied out of the value (a
            // retain and a release) unless it must be encoded from the `String` itself.
            // Nothing runs between taking the string out and taking its words, so the copy's
            // retain and release cancel.
            let words = StringRepresentation(Self.string(at: value))
            guard claimed else { return try claimString(words, text: { Self.string(at: value) }, object: object, textMatched: false) }
            return try planStringAgain(words, text: { Self.string(at: value) }, notedAt: position, object: object)
        case .data, .array, .dictionary:
            break
        default:
            guard let short = BinaryShortEncoding(value.pointee) else { break }
            if !claimed {
                if UInt8(truncatingIfNeeded: short.low) == encodings[object].marker {
                    let start = encoded.count
                    encoded.append(short.low, short.high, count: short.length)
                    return fill(object, with: Object(first: start, short: short))
                }
            } else {
                let held = objects[object]
                if held.packed & Object.recordsWords != 0 {
                    if held.packed == Object.packed(short) && held.extra == Int(bitPattern: UInt(short.low)) { return object }
                    return try planScalarAgain(value.pointee, notedAt: -1)
                }
                if let key = held.uniquingKey {
                    if holds(short, at: key) { return object }
                    return try planScalarAgain(value.pointee, notedAt: -1)
                }
            }
        }
        return try planScalarAgain(value.pointee, notedAt: position)
    }

    /// The object noted at walk entry `position` when it already holds a scalar recorded by its
    /// short encoding and `value` has that encoding: a repeat of a shared number, date, boolean,
    /// UID or null, the commonest scalar of a lossless rewrite, decided where the walk meets it
    /// without the call and the set-up of ``planScalar(_:notedAt:)``. Nil for anything else,
    /// which that then plans (and decides the same for these). The holder's record is looked at
    /// before the value, so that a string or data value is not read here.
    @inline(__always)
    func heldShortScalar(_ value: UnsafePointer<PlistValue>, notedAt position: Int) -> Int? {
        let object = Int(walk[position])
        guard objects.state(object) != 0 else { return nil }
        let held = objects[object]
        guard held.packed & Object.recordsWords != 0, let short = BinaryShortEncoding(value.pointee) else { return nil }
        return held.packed == Object.packed(short) && held.extra == Int(bitPattern: UInt(short.low)) ? object : nil
    }

    /// Whether the bytes `encoded[key.first ..< key.first + key.count]` are the short encoding
    /// `short`.
    @inline(__always)
    func holds(_ short: BinaryShortEncoding, at key: (first: Int, count: Int)) -> Bool {
        guard key.count == short.length else { return false }
        return encoded.withUnsafeBufferPointer { buffer in
            withUnsafeBytes(of: (short.low, short.high)) { words in
                // Never nil: the held encoding is at least its marker byte.
                ScalarUniquingTable.sameBytes(UnsafeRawPointer(buffer.baseAddress!) + key.first, words.baseAddress!, count: key.count)
            }
        }
    }

    /// Plans a scalar through the general path: `position` is its walk entry, -1 for none.
    mutating func planScalarAgain(_ value: PlistValue, notedAt position: Int) throws(PlistError) -> Int {
        let listsRepeats: Bool
        switch value {
        case .bool, .uid:
            // CoreFoundation does not unique booleans and UIDs: it appends each occurrence as an
            // object of its own, but every reference names the first.
            listsRepeats = true
        case .data(let payload) where payload.count >= BinaryLargeDataTable.minimumCount:
            if !uniquingBuilt, position >= 0, let order = planLargeData(payload, notedAt: position) { return order }
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
        let object = Int(walk[position])
        let note = encodings[object]
        guard note.type == 0x4 else { return nil }
        if objects.state(object) != 0 {
            let held = objects[object]
            guard held.kind == Object.largeData, largePayloads[held.extra] == payload else { return nil }
            return object
        }
        filledNotedCount += 1
        let start = encoded.count
        encoded.appendBinaryMarker(0x4, count: payload.count, note: note)
        let count = encoded.count - start
        objects[object] = Object(kind: Object.largeData, first: start, count: count, extra: largePayloads.count)
        plannedScalars.push(UInt32(truncatingIfNeeded: object))
        largePayloads.append(payload)
        scalarBytes += count + payload.count
        return object
    }

    /// Plans a dictionary key noted at walk entry `position` (-1 for none), as a string value is
    /// planned, without reading the key unless it must be encoded or compared. `textMatched`
    /// says the key's text is the noted key text of the object the entry names: a holder that
    /// took that object over as such a key holds the same text, and the key names it at once.
    @inline(__always)
    mutating func planKey(_ key: UnsafePointer<String>, notedAt position: Int, textMatched: Bool = false) throws(PlistError) -> Int {
        guard position >= 0 else { return try planNewString(key.pointee) }
        let object = Int(walk[position])
        let state = objects.state(object)
        if state != 0 {
            if textMatched && state == PlannedObjects.holdsNotedKeyText { return object }
            return try planStringAgain(
                UnsafeRawPointer(key).load(as: StringRepresentation.self), text: { key.pointee }, notedAt: position, object: object)
        }
        return try claimString(
            UnsafeRawPointer(key).load(as: StringRepresentation.self), text: { key.pointee }, object: object, textMatched: textMatched)
    }

    /// Plans a key or string value whose noted object `object` is free: it takes the object over
    /// when its note is a string's. `words` are the string's two words, `text` gives the string
    /// itself, asked only when the words cannot be read (see ``appendNotedASCII(_:note:)``).
    /// `textMatched` says the string is a key with the object's noted key text.
    @inline(never)
    mutating func claimString(
        _ words: StringRepresentation, text: () -> String, object: Int, textMatched: Bool
    ) throws(PlistError) -> Int {
        let note = encodings[object]
        guard note.type >= 0x5 && note.type <= 0x7 else { return try planNewString(text()) }
        let start = encoded.count
        let canonical = appendNotedASCII(words, note: note) ?? encoded.appendBinaryString(text(), note: note)
        let order = claimScalar(object, note: note, bytesFrom: start, canonical: canonical) { $0.appendBinaryString(text(), note: nil) }
        if textMatched { objects.markHoldingNotedKeyText(object) }
        return order
    }

    /// Writes the string whose words are `words` as the ASCII string object `note` notes, its
    /// bytes read from the words of a small string or from the storage a native one names (the
    /// value being written holds it, so it stays put), and returns whether its count is spelled
    /// minimally; nil, having written nothing, for another note, for text that is not ASCII, or
    /// where the words cannot be read so.
    @inline(__always)
    mutating func appendNotedASCII(_ words: StringRepresentation, note: BinaryLayout.EncodingNote) -> Bool? {
        guard note.type == 0x5 else { return nil }
        if readsSmallASCII, let small = words.smallASCII {
            // ASCII by the words' discriminator.
            let canonical = encoded.appendBinaryMarker(0x5, count: small.count, note: note)
            encoded.append(small.low, small.high, count: small.count)
            return canonical
        }
        if readsTailAllocatedUTF8, let utf8 = words.tailAllocatedUTF8 {
            // The code units are the storage's `UInt8`s.
            return encoded.appendBinaryASCII(
                UnsafeBufferPointer(start: utf8.baseAddress?.assumingMemoryBound(to: UInt8.self), count: utf8.count), note: note)
        }
        return nil
    }

    /// The string at `value`, which holds one.
    @inline(__always)
    static func string(at value: UnsafePointer<PlistValue>) -> String {
        guard case .string(let string) = value.pointee else { preconditionFailure("a string node holds a string") }
        return string
    }

    /// Plans a string whose noted object `object` is already held: the holder when it holds the
    /// same text, else a new string. `words` are the string's two words, from which its UTF-8
    /// is read where it lies; `text` gives the string itself, taken out of the value being
    /// written only where the words cannot be read or the string must be encoded.
    mutating func planStringAgain(
        _ words: StringRepresentation, text: () -> String, notedAt position: Int, object: Int
    ) throws(PlistError) -> Int {
        // A holder in canonical ASCII is compared with the string's UTF-8 where it lies, rather
        // than encoded again to be compared. Under the holder's note equal text is spelled
        // alike, and different text is a different string whatever its spelling.
        // The words stand for the text exactly while the value being written holds the string.
        let slot = recentStrings.slot(words.low, words.high)
        if recentStrings.object(at: slot, words.low, words.high) == UInt32(truncatingIfNeeded: object) { return object }
        if let same = holdsASCII(words, text: text, objects[object]) {
            guard same else { return try planNewString(text()) }
            recentStrings.remember(UInt32(truncatingIfNeeded: object), at: slot, words.low, words.high)
            return object
        }
        let string = text()
        return try planScalar(
            notedAt: position, listsRepeats: false, fits: { $0.type >= 0x5 && $0.type <= 0x7 },
            encode: { buffer, note, _ in buffer.appendBinaryString(string, note: note) })
    }

    /// Plans a string as a new scalar, uniqued by its canonical encoding.
    mutating func planNewString(_ string: String) throws(PlistError) -> Int {
        try planScalar(
            notedAt: -1, listsRepeats: false, fits: { _ in false },
            encode: { buffer, note, _ in buffer.appendBinaryString(string, note: note) })
    }

    /// Plans a scalar that `encode` writes (given a note, or nil for the canonical encoding, and
    /// the high word of a noted 16-byte integer; it returns whether it wrote the canonical
    /// encoding) and whose note `fits` accepts; `position` is its walk entry, -1 for none.
    @inline(__always)
    mutating func planScalar(
        notedAt position: Int, listsRepeats: Bool, fits: (BinaryLayout.EncodingNote) -> Bool,
        encode: (inout ByteBuffer, BinaryLayout.EncodingNote?, UInt64) -> Bool
    ) throws(PlistError) -> Int {
        if position >= 0 {
            let object = Int(walk[position])
            let note = encodings[object]
            if fits(note) {
                let highWord = note.marker == 0x14 ? int128HighWord(of: object) : 0
                let start = encoded.count
                let canonical = encode(&encoded, note, highWord)
                if objects.state(object) == 0 {
                    return claimScalar(object, note: note, bytesFrom: start, canonical: canonical) { _ = encode(&$0, nil, 0) }
                }
                // The same note spells identical scalars alike and different ones differently.
                let same = hasBytes(of: object, from: start)
                encoded.truncate(to: start)
                if same { return object }
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
                objects[newOrder()] = Object(kind: Object.copy, extra: existing)
                scalarBytes += objects[existing].count
            }
            return existing
        case .absent(let insertion):
            let order = newOrder()
            objects[order] = Object(kind: Object.scalar, first: start, count: count)
            scalarBytes += count
            uniqued.insert(order, at: insertion)
            return order
        }
    }

    /// Fills in noted object `object` with a scalar whose bytes were written in the noted
    /// spelling from `start` on; when that spelling is not the canonical one,
    /// `encodeCanonically` writes the canonical encoding after it, as the object's uniquing key.
    @inline(__always)
    mutating func claimScalar(
        _ object: Int, note: BinaryLayout.EncodingNote, bytesFrom start: Int, canonical: Bool,
        encodeCanonically: (inout ByteBuffer) -> Void
    ) -> Int {
        let count = encoded.count - start
        if canonical { return fill(object, with: Object(kind: Object.scalar, first: start, count: count)) }
        encodeCanonically(&encoded)
        return fill(object, with: Object(kind: Object.spelledScalar, first: start, count: count, extra: encoded.count - start - count))
    }

    /// Fills in noted object `object` with the scalar `record`, whose bytes are in `encoded`,
    /// and enters it for uniquing; returns the object.
    @inline(__always)
    mutating func fill(_ object: Int, with record: Object) -> Int {
        objects[object] = record
        filledNotedCount &+= 1
        scalarBytes &+= record.count
        if uniquingBuilt { uniqueClaimed(object) } else { plannedScalars.push(UInt32(truncatingIfNeeded: object)) }
        return object
    }

    /// Enters claimed scalar object `object` in the uniquing table unless an equal scalar is
    /// there already.
    @inline(never)
    mutating func uniqueClaimed(_ object: Int) {
        if let key = objects[object].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count) {
            uniqued.insert(object, at: insertion)
        }
    }

    /// The high word a noted 16-byte integer held.
    @inline(never)
    func int128HighWord(of object: Int) -> UInt64 {
        layout?.int128HighWords[UInt32(truncatingIfNeeded: object)] ?? 0
    }

    /// Whether `held`, a canonical ASCII string object, holds exactly the string whose words are
    /// `words` (`text` gives the string, asked only when the words cannot be read); nil when the
    /// holder is anything else or the string is not in contiguous storage, and the encodings must
    /// be compared.
    @inline(__always)
    func holdsASCII(_ words: StringRepresentation, text: () -> String, _ held: Object) -> Bool? {
        guard held.kind == Object.scalar else { return nil }
        return encoded.withUnsafeBufferPointer { buffer -> Bool? in
            let marker = buffer[held.first]
            guard marker >> 4 == 0x5 else { return nil }
            // The text follows the marker and, for 15 bytes or more, an integer object.
            let header = marker & 0x0F == 0x0F ? 2 + 1 << Int(buffer[held.first + 1] & 0x0F) : 1
            // Never nil: the held encoding is at least its marker byte.
            let heldText = UnsafeRawPointer(buffer.baseAddress!) + held.first + header
            let heldCount = held.count - header
            func holds(_ utf8: UnsafeRawBufferPointer) -> Bool {
                utf8.count == heldCount && (utf8.isEmpty || ScalarUniquingTable.sameBytes(heldText, utf8.baseAddress!, count: heldCount))
            }
            if readsSmallASCII, let small = words.smallASCII {
                return withUnsafeBytes(of: (small.low, small.high)) { holds(UnsafeRawBufferPointer(rebasing: $0[..<small.count])) }
            }
            // The value being written holds the string, so its bytes stay put.
            if readsTailAllocatedUTF8, let utf8 = words.tailAllocatedUTF8 { return holds(utf8) }
            return text().utf8.withContiguousStorageIfAvailable { holds(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Whether scalar object `object` has exactly the bytes written from `start` to the end of
    /// `encoded`.
    @inline(__always)
    func hasBytes(of object: Int, from start: Int) -> Bool {
        let held = objects[object]
        guard held.count == encoded.count - start else { return false }
        return encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the bytes compared were just written.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return ScalarUniquingTable.sameBytes(base + held.first, base + start, count: held.count)
        }
    }

    /// Indexes every scalar object planned so far, once the first new scalar needs the index; an
    /// equal scalar met again keeps the first object.
    mutating func buildUniquingIndex() {
        uniquingBuilt = true
        uniqued = ScalarUniquingTable(minimumCapacity: plannedScalars.count)
        for i in 0..<plannedScalars.count {
            let object = Int(plannedScalars[i])
            if objects[object].kind == Object.largeData { encodeLargeData(object) }
            guard let key = objects[object].uniquingKey, case .absent(let insertion) = lookUp(keyFrom: key.first, count: key.count)
            else { continue }
            uniqued.insert(object, at: insertion)
        }
    }

    /// Turns `.largeData` object `object` into a scalar object whose bytes (and canonical
    /// encoding, when the noted spelling is another) are in `encoded`, so that equal new data
    /// unifies with it.
    mutating func encodeLargeData(_ object: Int) {
        let payload = largePayloads[objects[object].extra]
        let note = encodings[object]
        let start = encoded.count
        let canonical = encoded.appendBinaryScalar(.data(payload), note: note, int128HighWord: { 0 })
        let count = encoded.count - start
        if canonical {
            objects[object] = Object(kind: Object.scalar, first: start, count: count)
        } else {
            _ = encoded.appendBinaryScalar(.data(payload), note: nil, int128HighWord: { 0 })
            objects[object] = Object(kind: Object.spelledScalar, first: start, count: count, extra: encoded.count - start - count)
        }
    }

    /// Finds the scalar object whose canonical encoding is `encoded[start ..< start + count]`.
    mutating func lookUp(keyFrom start: Int, count: Int) -> ScalarUniquingTable.Lookup {
        encoded.withUnsafeBufferPointer { buffer in
            // Never nil: the key looked up lies in the buffer.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            return uniqued.lookup(
                encoding: UnsafeRawBufferPointer(start: base + start, count: count), in: base,
                fastHash: { seed, key in ScalarUniquingTable.fastHash(encoding: key, seed: seed) },
                encodingOf: { object in
                    // Only scalar objects are in the table.
                    objects[object].uniquingKey ?? (0, 0)
                })
        }
    }
}
