/// The scanner's dictionary keys: decoding them as a dictionary opens, and moving them into the
/// dictionary as it completes.
extension BinaryObjectScanner {
    /// Whether the key objects of a dictionary of `count` entries are kept in their slots at
    /// their first use (see ``decodeUnkeptKey(referencedAt:onto:)``).
    @inline(__always)
    func keepsKeys(ofDictionaryWith count: Int) -> Bool {
        count <= BinaryKeyClasses.largestAlwaysClassified
    }

    /// Moves the keys of the dictionary `frame` describes, whose key objects are not kept, from
    /// below its values on the value stack into `keys`, leaving their places empty for the
    /// caller to drop once the values are taken; returns whether the key classes prove the keys
    /// distinct. A lossless read notes their texts (see ``noteKeyTexts(_:of:)``).
    @inline(never)
    mutating func stackedKeys(
        of frame: Frame, values: inout PlistValueStack, into keys: inout [String], keyClasses: inout BinaryKeyClasses
    ) -> Bool {
        let keyBase = frame.base - frame.count
        Self.takeKeys(frame.count, at: keyBase, of: &values, into: &keys)
        if keepsLayout { noteKeyTexts(keys, of: frame) }
        guard keyClasses.classifies(count: frame.count, firstKey: frame.count > 0 ? key(0, of: frame) : 0) else {
            for i in 0..<frame.count { keyClasses.markUsedUnclassified(key(i, of: frame)) }
            return false
        }
        keyClasses.beginDictionary(count: frame.count)
        for i in 0..<frame.count where !keyClasses.admit(key(i, of: frame), text: keys[i]) { return false }
        return true
    }

    /// Notes the texts of the keys of the dictionary `frame` describes, `keys` in entry order,
    /// that are not noted yet: as one segment, the array itself, which the dictionary keeps too
    /// (see ``BinaryLayout/KeyTexts``), or one by one when the recorder takes no segment.
    mutating func noteKeyTexts(_ keys: [String], of frame: Frame) {
        if let segment = recorder.addSegment(keys) {
            for i in 0..<frame.count {
                let object = key(i, of: frame)
                if !recorder.isKey(object) { recorder.noteKey(object, inSegment: segment, at: i) }
            }
            return
        }
        recorder.reserveKeys(frame.count)
        for i in 0..<frame.count {
            let object = key(i, of: frame)
            if !recorder.isKey(object) { recorder.noteKey(object, text: keys[i]) }
        }
    }

    /// The object number of the `i`th key of the dictionary `frame` describes.
    @inline(__always)
    func key(_ i: Int, of frame: Frame) -> Int {
        Int(bytes.loadBigEndian(at: frame.refs + i * trailer.objectRefSize, width: trailer.objectRefSize))
    }

    /// The `i`th key of the dictionary `frame` describes, with its text.
    @inline(__always)
    func keyText(_ i: Int, of frame: Frame) -> (key: Int, text: String) {
        let key = key(i, of: frame)
        // `decodeKey` has proven every key object a cached string when the frame opened.
        guard case .string(let text) = objects.value(key) else { preconditionFailure("key object \(key) is not a decoded string") }
        return (key, text)
    }

    /// Records the file's key order and the values a repeated key hid, so the writer can bring
    /// them back: `keys` and `values` are the dictionary's entries in file order.
    @inline(never)
    mutating func noteRepeatedKeys(keys: [String], values: [PlistValue], walkPosition: Int) {
        var firstOccurrence: [String: Int] = [:]
        for (i, key) in keys.enumerated() where firstOccurrence[key] == nil { firstOccurrence[key] = i }
        var hidden: [Int: PlistValue] = [:]
        for (i, key) in keys.enumerated() where firstOccurrence[key] != i { hidden[i] = values[i] }
        repeatedKeys[UInt32(truncatingIfNeeded: walkPosition)] = BinaryLayout.RepeatedKeys(keys: keys, hiddenValues: hidden)
    }

    /// Decodes the key the reference at `position` names, refusing anything but a string before
    /// decoding it, so a container used as a key is never descended into. Returns the key's
    /// length in UTF-8 bytes, which counts toward the dictionary's expanded size.
    @inline(never)
    mutating func decodeKey(referencedAt position: Int) throws(PlistError) -> Int {
        let key = try lookup.reference(at: position)
        let state = objects.state(key)
        guard state == .cached else {
            // Only an unseen object, or a string met before as a value (`decodedOnce`, counted
            // then), can be a string here; the others fail the check.
            let keyStart = try lookup.offset(ofObject: key)
            try area.requireStringKey(key, at: keyStart, referencedAt: position)
            if state != .decodedOnce {
                try countValues(1, at: keyStart)
                reachedCount &+= 1
            }
            noteWalkLeaf(key)
            guard case .string(let text) = try keptScalar(key, at: keyStart, noting: state != .decodedOnce) else {
                throw BinaryObjectArea.notAStringKey(key, referencedAt: position)
            }
            // A string met as a large dictionary's key (`decodedOnce` too) was noted then.
            if keepsLayout && !recorder.isKey(key) { recorder.noteKey(key, text: text) }
            return text.utf8.count
        }
        // A key met before: its length is in its slot's size, so the cached string is only
        // looked at, not copied (a retain and a release per entry otherwise).
        noteWalkLeaf(key)
        guard objects.isCachedString(key) else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
        if keepsLayout && !recorder.isKey(key) { noteCachedKey(key) }
        return objects.size(key).bytes
    }

    /// Notes the text of `key`, a cached string first used as a key now (it was kept as a value).
    @inline(never)
    mutating func noteCachedKey(_ key: Int) {
        guard case .string(let text) = objects.value(key) else { preconditionFailure("key object \(key) is not a kept string") }
        recorder.noteKey(key, text: text)
    }

    /// Decodes a key as ``decodeKey(referencedAt:)`` does, for a dictionary of more than
    /// ``BinaryKeyClasses/largestAlwaysClassified`` entries, and pushes its text
    /// on `values`, below the dictionary's values. The key object is kept from its second use on,
    /// as a value string is: the keys of a dictionary of thousands are mostly its own, used once,
    /// and keeping each cost a retain, a release and a slot.
    @inline(never)
    mutating func decodeUnkeptKey(referencedAt position: Int, onto values: inout PlistValueStack) throws(PlistError) -> Int {
        let key = try lookup.reference(at: position)
        noteWalkLeaf(key)
        let state = objects.state(key)
        if state == .cached {
            guard objects.isCachedString(key) else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
            values.push(objects.value(key))
            return objects.size(key).bytes
        }
        let keyStart = try lookup.offset(ofObject: key)
        try area.requireStringKey(key, at: keyStart, referencedAt: position)
        let decoded: PlistValue
        if state == .decodedOnce {
            decoded = try keptScalar(key, at: keyStart, noting: false)
        } else {
            try countValues(1, at: keyStart)
            reachedCount &+= 1
            decoded = try scalar(key, at: keyStart, noting: true)
            objects.setState(key, .decodedOnce)
        }
        guard case .string(let text) = decoded else { throw BinaryObjectArea.notAStringKey(key, referencedAt: position) }
        values.push(decoded)
        return text.utf8.count
    }
}
