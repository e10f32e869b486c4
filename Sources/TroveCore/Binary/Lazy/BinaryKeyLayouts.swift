import Foundation

/// The key layouts of a binary plist's dictionaries, for readers that look keys up in many
/// dictionaries with the same keys (a keyed archive's objects): a dictionary's keys are read and
/// checked once, when a dictionary with its key objects is first met, and finding a key is then a
/// scan of a few numbers, with no read of the file.
///
/// A layout is the sequence of key objects a dictionary references. Archivers share one object per
/// key text, so every object of a class has the same layout; the first dictionary with a layout
/// numbers its keys by their exact text (``BinaryKeyNumbering``), the next ones are recognized by
/// comparing their key references with it. The first slot of a repeated key is the one found, as
/// the full reader keeps the first value.
///
/// Not thread-safe: one reader uses it at a time.
package final class BinaryKeyLayouts {
    let view: BinaryObjectView
    let numbering: BinaryKeyNumbering
    /// For each object, its layout plus one once it was read as a dictionary, 0 before.
    @exclusivity(unchecked) private var objectLayouts: [Int32]
    /// Layout `id` is `starts[id]..<starts[id + 1]` of `keyNumbers` (each slot's key number), and
    /// the same slots of `keyReferences`, the bytes of its key references as the file stores them
    /// (`objectRefSize` bytes a slot): a dictionary has the layout when its key references are
    /// these bytes, which one comparison decides.
    @exclusivity(unchecked) private var keyNumbers: [Int32] = []
    @exclusivity(unchecked) private var keyReferences: [UInt8] = []
    @exclusivity(unchecked) private var starts: [Int] = [0]
    /// Slots found lately, by layout and by the two words of the key's `String` value: a key an
    /// `init(from:)` spells as a literal is the same value on every call, so most lookups end
    /// here without numbering the key. Only immortal words are kept (see
    /// ``StringRepresentation/isImmortal``).
    @exclusivity(unchecked) private var recent = [(key: StringRepresentation, layout: Int32, slot: Int32)](
        repeating: (.placeholder, -1, -1), count: 64)
    /// The layout met last for each small key count, tried first.
    @exclusivity(unchecked) private var lastByCount = [Int32](repeating: -1, count: 32)
    /// Every layout by a hash of its key objects (the latest, when two hashes collide).
    @exclusivity(unchecked) private var bySignature: [UInt64: Int32] = [:]

    /// Layouts for the dictionaries of the file `view` reads.
    package init(view: BinaryObjectView) {
        self.view = view
        numbering = BinaryKeyNumbering(objectCount: view.objectCount)
        objectLayouts = Array(repeating: 0, count: view.objectCount)
    }

    /// The layout of `dictionary`'s keys; every key is checked (a string object, readable) the
    /// first time a layout is met.
    ///
    /// - Complexity: O(*n*) in the dictionary's entries, reading only its key references once a
    ///   dictionary with the same key objects has been met.
    package func layout(of dictionary: BinaryObjectHeader) throws(PlistError) -> BinaryKeyLayout {
        let known = objectLayouts[dictionary.index]
        if known > 0 { return BinaryKeyLayout(id: known - 1) }
        let id = try findOrAdd(dictionary)
        objectLayouts[dictionary.index] = id + 1
        return BinaryKeyLayout(id: id)
    }

    /// The object that holds the value of the first key with exactly `key`'s text in
    /// `dictionary`, whose layout is `layout`, or nil.
    ///
    /// - Complexity: O(*n*) in the layout's keys; reads one reference of the file.
    package func object(forKey key: String, in dictionary: BinaryObjectHeader, layout: BinaryKeyLayout) throws(PlistError) -> Int? {
        guard let slot = slot(of: key, in: layout) else { return nil }
        return try view.value(atSlot: slot, of: dictionary)
    }

    /// What the first key with exactly `key`'s text holds in `dictionary`: most often a scalar
    /// read from its marker (see ``BinaryObjectView/smallScalar(_:)``), found and read in one call.
    package func field(forKey key: String, in dictionary: BinaryObjectHeader, layout: BinaryKeyLayout) throws(PlistError) -> BinaryField {
        guard let object = try object(forKey: key, in: dictionary, layout: layout) else { return .missing }
        if let scalar = try view.smallScalar(object) { return .scalar(scalar) }
        return .object(object)
    }

    /// The slot of the first key with exactly `key`'s text in a dictionary of `layout`, or nil.
    ///
    /// - Complexity: O(*n*) in the layout's keys, without reading the file.
    @inline(__always)
    func slot(of key: String, in layout: BinaryKeyLayout) -> Int? {
        let words = StringRepresentation(key)
        let mixed = ((words.low &* 0x9E37_79B9_7F4A_7C15) ^ words.high ^ UInt64(layout.id)) &* 0xBF58_476D_1CE4_E5B9
        let cached = Int(truncatingIfNeeded: mixed >> 58)
        if recent[cached].layout == layout.id, recent[cached].key == words { return Int(recent[cached].slot) }
        guard let wanted = numbering.number(of: key) else { return nil }
        let start = starts[Int(layout.id)]
        let end = starts[Int(layout.id) + 1]
        var slot = start
        while slot < end {
            if keyNumbers[slot] == wanted {
                if words.isImmortal { recent[cached] = (words, layout.id, Int32(slot - start)) }
                return slot - start
            }
            slot += 1
        }
        return nil
    }

    private func findOrAdd(_ dictionary: BinaryObjectHeader) throws(PlistError) -> Int32 {
        let table = view.table
        let refs = dictionary.header.payload
        let count = dictionary.count
        if count < lastByCount.count, lastByCount[count] >= 0, matches(lastByCount[count], refs: refs, count: count) {
            return lastByCount[count]
        }
        var signature = UInt64(count) &* 0x9E37_79B9_7F4A_7C15
        for byte in table.bytes[refs..<table.referencePosition(refs, slot: count)] {
            signature = (signature ^ UInt64(byte)) &* 0xBF58_476D_1CE4_E5B9
        }
        if let candidate = bySignature[signature], matches(candidate, refs: refs, count: count) {
            remember(candidate, count: count)
            return candidate
        }
        let id = try add(refs: refs, count: count)
        bySignature[signature] = id
        remember(id, count: count)
        return id
    }

    private func remember(_ id: Int32, count: Int) {
        if count < lastByCount.count { lastByCount[count] = id }
    }

    /// Whether the dictionary whose references start at `refs` has layout `id`'s key objects.
    private func matches(_ id: Int32, refs: Int, count: Int) -> Bool {
        let start = starts[Int(id)]
        guard starts[Int(id) + 1] - start == count else { return false }
        let size = view.table.trailer.objectRefSize
        return keyReferences.withUnsafeBytes { stored in
            memcmp(stored.baseAddress! + start * size, view.table.bytes.baseAddress! + refs, count * size) == 0
        }
    }

    /// Reads and numbers the keys of a dictionary with a layout not met before.
    private func add(refs: Int, count: Int) throws(PlistError) -> Int32 {
        let table = view.table
        keyNumbers.reserveCapacity(keyNumbers.count + count)
        for slot in 0..<count {
            let object = try table.reference(at: table.referencePosition(refs, slot: slot))
            var number = numbering.objectNumbers[object] - 1
            if number < 0 {
                number = numbering.numberAdding(try table.string(table.keyHeader(slot, refs: refs)))
                numbering.objectNumbers[object] = number + 1
            }
            keyNumbers.append(number)
        }
        keyReferences.append(contentsOf: table.bytes[refs..<table.referencePosition(refs, slot: count)])
        starts.append(keyNumbers.count)
        _checkInvariants()
        return Int32(starts.count - 2)
    }

    /// Checks the layouts' shape after one was added (debug builds only, in time linear in the new
    /// layout): slots run on from one layout to the next, every slot has a number and its
    /// reference's bytes, and the new layout's numbers were given to texts.
    func _checkInvariants() {
        #if DEBUG
        let last = starts[starts.count - 2]..<starts[starts.count - 1]
        precondition(starts[0] == 0 && last.lowerBound <= last.upperBound, "layout starts out of order")
        precondition(last.upperBound == keyNumbers.count, "\(keyNumbers.count) numbered slots, \(last.upperBound) in layouts")
        precondition(keyReferences.count == keyNumbers.count * view.table.trailer.objectRefSize, "reference bytes do not match the slots")
        precondition(keyNumbers[last].allSatisfy { $0 >= 0 && Int($0) < numbering.count }, "a slot's number was never given")
        #endif
    }
}

/// What a dictionary holds for a key (see ``BinaryKeyLayouts/field(forKey:in:layout:)``).
package enum BinaryField {
    case missing
    /// A UID, boolean, integer of up to 8 bytes or real, read.
    case scalar(PlistValue)
    /// Any other object, by index, to be read with ``BinaryObjectView/object(_:)``.
    case object(Int)
}

/// Which key layout of a ``BinaryKeyLayouts`` a dictionary has.
package struct BinaryKeyLayout: Sendable {
    let id: Int32
}
