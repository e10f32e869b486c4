import Foundation
import OrderedCollections

/// Decodes the objects of a validated binary plist into ``PlistValue``s, and optionally records
/// the notes of a ``BinaryLayout``.
///
/// Every object is decoded once and the value reused for every further reference, so a file whose
/// shared references would expand exponentially stays linear in time and memory (the values share
/// copy-on-write storage). Nesting is followed with an explicit stack, never recursion, and is cut
/// off at `limits.maxDepth`; cycles are found per path.
struct BinaryObjectScanner {
    let bytes: UnsafeRawBufferPointer
    let trailer: BinaryTrailer
    let limits: PlistLimits
    let keepsLayout: Bool
    /// UTF-8 string objects (`0x7n`) are a `bplist1x` feature CoreFoundation rejects in
    /// `bplist00` files; they are read when the header's version character is anything else.
    let acceptsUTF8Strings: Bool

    /// Decoded values by object index; non-nil once the object has been decoded.
    private(set) var decoded: [PlistValue?]
    /// Containers on the current path from the top object, by index.
    private var onPath: [Bool]
    private var depth = 0
    private var valueCount = 0
    /// The expanded size of every decoded object, so that a reference to a shared object adds
    /// its whole subtree to the expanded counts without walking it again.
    private var expandedSizes: [ExpandedSize]
    /// The object whose value `begin` or `finish` delivered last.
    private var lastDelivered = 0

    private(set) var encodings: [BinaryLayout.EncodingNote] = []
    private(set) var walkObjects: [UInt32] = []
    private(set) var walkExtents: [UInt32] = []
    private(set) var int128HighWords: [UInt32: UInt64] = [:]
    /// The text of every object used as a dictionary key.
    private(set) var keyTexts: [UInt32: String] = [:]
    /// Dictionaries with repeated keys, by walk position.
    private(set) var repeatedKeys: [UInt32: BinaryLayout.RepeatedKeys] = [:]

    init(bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, keepsLayout: Bool) {
        self.bytes = bytes
        self.trailer = trailer
        self.limits = limits
        self.keepsLayout = keepsLayout
        self.acceptsUTF8Strings = trailer.versionByte != UInt8(ascii: "0")
        decoded = Array(repeating: nil, count: trailer.objectCount)
        onPath = Array(repeating: false, count: trailer.objectCount)
        expandedSizes = Array(repeating: ExpandedSize(), count: trailer.objectCount)
        if keepsLayout {
            encodings = Array(repeating: BinaryLayout.EncodingNote(marker: 0), count: trailer.objectCount)
            // Every object met makes at least one walk entry; shared ones make more.
            walkObjects.reserveCapacity(trailer.objectCount)
            walkExtents.reserveCapacity(trailer.objectCount)
        }
    }

    // MARK: - Entry point

    /// A container being decoded: where its references are and what has been decoded so far.
    private struct Frame {
        var index: Int
        var walkIndex: Int
        var refs: Int
        var count: Int
        var next = 0
        var isDictionary: Bool
        var elements: [PlistValue] = []
        var entries = PlistDictionary()
        /// The container's expanded size so far: itself and the children accepted.
        var expanded = ExpandedSize()
    }

    /// Decodes the top object.
    ///
    /// Containers are decoded with an explicit stack rather than recursion, so no input, and no
    /// `maxDepth` however large, can exhaust the thread's stack.
    mutating func decodeTop() throws(PlistError) -> PlistValue {
        var stack: [Frame] = []
        var delivered = try begin(trailer.topObject, referencedAt: trailer.offsetTableOffset, stack: &stack)
        while true {
            if let value = delivered {
                guard !stack.isEmpty else {
                    try checkExpansion(expandedSizes[lastDelivered], at: trailer.offsetTableOffset)
                    return value
                }
                try accept(value, into: &stack[stack.count - 1])
            }
            let top = stack.count - 1
            let next = stack[top].next
            if next < stack[top].count {
                // Fields are read one by one: copying the whole frame would retain and release
                // its partly built array or dictionary once per child.
                let slot = stack[top].isDictionary ? stack[top].count + next : next
                let position = stack[top].refs + slot * trailer.objectRefSize
                stack[top].next = next + 1
                delivered = try begin(try reference(at: position), referencedAt: position, stack: &stack)
            } else {
                delivered = try finish(stack.removeLast())
            }
        }
    }

    /// Starts decoding object `index`: returns its value when it is cached or a scalar, or
    /// pushes a frame for a container and returns nil. `position` is where the reference was
    /// read, for errors.
    private mutating func begin(_ index: Int, referencedAt position: Int, stack: inout [Frame]) throws(PlistError) -> PlistValue? {
        lastDelivered = index
        if let known = decoded[index] {
            if keepsLayout {
                walkObjects.append(UInt32(truncatingIfNeeded: index))
                walkExtents.append(1)
            }
            return known
        }
        if onPath[index] { throw Self.cycleError(index, at: position) }
        let start = try offset(ofObject: index)
        try countValues(1, at: start)
        let walkIndex = walkObjects.count
        if keepsLayout {
            walkObjects.append(UInt32(truncatingIfNeeded: index))
            walkExtents.append(1)
        }
        let marker = bytes[start]
        switch marker >> 4 {
        case 0xA, 0xC:
            let (count, refs) = try count(index, marker: marker, at: start)
            guard count <= (areaEnd - refs) / trailer.objectRefSize else {
                throw Self.tooManyElements("array", index, count, at: refs, room: areaEnd - refs)
            }
            try countValues(count, at: refs)
            try enterContainer(index, at: refs)
            var frame = Frame(index: index, walkIndex: walkIndex, refs: refs, count: count, isDictionary: false)
            frame.elements.reserveCapacity(count)
            stack.append(frame)
            return nil
        case 0xD:
            let (count, refs) = try count(index, marker: marker, at: start)
            guard count <= (areaEnd - refs) / trailer.objectRefSize / 2 else {
                throw Self.tooManyElements("dictionary", index, count, at: refs, room: areaEnd - refs)
            }
            try countValues(count, at: refs)
            try enterContainer(index, at: refs)
            // Keys first, in file order, so the layout walk matches the file's reference order;
            // they are strings, so decoding them never descends.
            for i in 0..<count { try decodeKey(referencedAt: refs + i * trailer.objectRefSize) }
            stack.append(Frame(
                index: index, walkIndex: walkIndex, refs: refs, count: count, isDictionary: true,
                entries: PlistDictionary(minimumCapacity: count)))
            return nil
        default:
            let value = try decodeScalar(index, at: start)
            decoded[index] = value
            expandedSizes[index] = ExpandedSize(scalar: value)
            return value
        }
    }

    /// Adds the value of the frame's latest child.
    @inline(__always)
    private func accept(_ value: PlistValue, into frame: inout Frame) throws(PlistError) {
        frame.expanded.add(expandedSizes[lastDelivered])
        guard frame.isDictionary else {
            frame.elements.append(value)
            return
        }
        let keyPosition = frame.refs + (frame.next - 1) * trailer.objectRefSize
        guard case .string(let key)? = decoded[try reference(at: keyPosition)] else {
            throw BinaryTrailer.error(.badKey, at: keyPosition, "a dictionary key is not a string")
        }
        frame.expanded.bytes = frame.expanded.bytes.saturatingAdd(key.utf8.count)
        // A repeated key keeps its first position and its last value, as CoreFoundation does.
        frame.entries.storage[key] = value
    }

    /// Completes a container whose children are all decoded.
    private mutating func finish(_ frame: Frame) throws(PlistError) -> PlistValue {
        try checkExpansion(frame.expanded, at: frame.refs)
        expandedSizes[frame.index] = frame.expanded
        lastDelivered = frame.index
        if keepsLayout {
            walkExtents[frame.walkIndex] = UInt32(truncatingIfNeeded: walkObjects.count - frame.walkIndex)
            if frame.isDictionary && frame.entries.count < frame.count {
                noteRepeatedKeys(count: frame.count, refsAt: frame.refs, walkPosition: frame.walkIndex)
            }
        }
        leaveContainer(frame.index)
        let value: PlistValue = frame.isDictionary ? .dictionary(frame.entries) : .array(frame.elements)
        decoded[frame.index] = value
        return value
    }

    // MARK: - Offsets and references

    /// The validated start of object `index` (which the caller has checked is in range).
    func offset(ofObject index: Int) throws(PlistError) -> Int {
        let entry = trailer.offsetTableOffset + index * trailer.offsetIntSize
        let raw = bytes.loadBigEndian(at: entry, width: trailer.offsetIntSize)
        guard raw >= UInt64(BinaryTrailer.headerLength), raw < UInt64(trailer.offsetTableOffset) else {
            throw BinaryTrailer.error(
                .badOffset, at: entry,
                "object \(index) starts at \(raw), outside the object area 8..<\(trailer.offsetTableOffset)")
        }
        return Int(raw)
    }

    /// The object index stored in the reference at `position`.
    @inline(__always)
    private func reference(at position: Int) throws(PlistError) -> Int {
        let raw = bytes.loadBigEndian(at: position, width: trailer.objectRefSize)
        guard raw < UInt64(trailer.objectCount) else { throw badReference(raw, at: position) }
        return Int(raw)
    }

    @inline(never)
    private func badReference(_ raw: UInt64, at position: Int) -> PlistError {
        BinaryTrailer.error(
            .badReference, at: position, "reference \(raw) is not below the object count \(trailer.objectCount)")
    }

    @inline(never)
    private static func cycleError(_ index: Int, at position: Int) -> PlistError {
        BinaryTrailer.error(.referenceCycle, at: position, "object \(index) contains itself through this reference")
    }

    @inline(never)
    private static func tooManyElements(_ what: String, _ index: Int, _ count: Int, at position: Int, room: Int) -> PlistError {
        BinaryTrailer.error(
            .badCount, at: position,
            "\(what) object \(index) claims \(count) elements, more than the \(room) bytes before the offset table hold")
    }

    // MARK: - Objects

    /// The first byte past the object area: no object may extend into the offset table.
    private var areaEnd: Int { trailer.offsetTableOffset }

    private var area: BinaryObjectArea { BinaryObjectArea(bytes: bytes, end: areaEnd) }

    /// Throws unless `length` bytes from `start` lie inside the object area.
    @inline(__always)
    private func require(_ length: Int, at start: Int, object: Int, for what: String) throws(PlistError) {
        try area.require(length, at: start, object: object, for: what)
    }

    private mutating func note(_ index: Int, marker: UInt8, extendedCount: UInt8? = nil) {
        if keepsLayout {
            encodings[index] = BinaryLayout.EncodingNote(marker: marker, extendedCountMarker: extendedCount)
        }
    }

    @inline(never)
    private mutating func decodeScalar(_ index: Int, at start: Int) throws(PlistError) -> PlistValue {
        let marker = bytes[start]
        let nibble = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            note(index, marker: marker)
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            case 0x0F:
                throw BinaryTrailer.error(.badObject, at: start, "the fill byte 0x0F cannot be used as a value")
            default:
                throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(hex(marker))")
            }
        case 0x1:
            note(index, marker: marker)
            return .integer(try integer(index, marker: marker, at: start))
        case 0x2:
            note(index, marker: marker)
            if nibble == 2 {
                try require(5, at: start, object: index, for: "a 4-byte real")
                let bits = UInt32(truncatingIfNeeded: bytes.loadBigEndian(at: start + 1, width: 4))
                return .real(PlistReal(Float(bitPattern: bits)))
            }
            if nibble == 3 {
                try require(9, at: start, object: index, for: "an 8-byte real")
                return .real(PlistReal(Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1))))
            }
            throw BinaryTrailer.error(
                .badObject, at: start, "a real must be 4 or 8 bytes, marker \(hex(marker)) says \(1 << min(nibble, 62))")
        case 0x3:
            note(index, marker: marker)
            guard marker == 0x33 else {
                throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(hex(marker)) (dates are 0x33)")
            }
            try require(9, at: start, object: index, for: "a date")
            let seconds = Double(bitPattern: bytes.loadBigEndianUInt64(at: start + 1))
            return .date(PlistDate(secondsSinceReferenceDate: seconds))
        case 0x4:
            let (count, payload) = try count(index, marker: marker, at: start)
            try require(count, at: payload, object: index, for: "the data")
            return .data(Data(UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + count])))
        case 0x5:
            let (count, payload) = try count(index, marker: marker, at: start)
            try require(count, at: payload, object: index, for: "the ASCII string")
            let (text, isLatin1) = Self.asciiString(UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + count]))
            if keepsLayout && isLatin1 { encodings[index] = encodings[index].markingLatin1() }
            return .string(text)
        case 0x6:
            let (count, payload) = try count(index, marker: marker, at: start)
            guard count <= (areaEnd - payload) / 2 else {
                throw BinaryTrailer.error(
                    .badCount, at: start,
                    "the UTF-16 string of object \(index) claims \(count) units, more than the \(areaEnd - payload) bytes before the offset table hold")
            }
            return .string(try utf16String(at: payload, units: count))
        case 0x7 where acceptsUTF8Strings:
            let (count, payload) = try count(index, marker: marker, at: start)
            try require(count, at: payload, object: index, for: "the UTF-8 string")
            let slice = UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + count])
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw BinaryTrailer.error(.badString, at: payload, "the UTF-8 string of object \(index) is not valid UTF-8")
            }
            return .string(text)
        case 0x8:
            note(index, marker: marker)
            let width = nibble + 1
            guard width <= 8 else {
                throw BinaryTrailer.error(.badObject, at: start, "a UID of \(width) bytes is wider than 8")
            }
            try require(1 + width, at: start, object: index, for: "the UID")
            return .uid(bytes.loadBigEndian(at: start + 1, width: width))
        default:
            throw BinaryTrailer.error(.badObject, at: start, "unknown object marker \(hex(marker))")
        }
    }

    /// An integer object (`0x1n`, 2^n bytes). 1, 2 and 4 bytes are unsigned, 8 bytes signed,
    /// and 16 bytes count only their low 64 bits, read as unsigned, as CoreFoundation does.
    private mutating func integer(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> PlistInteger {
        let power = marker & 0x0F
        guard power <= 4 else {
            throw BinaryTrailer.error(.badObject, at: start, "an integer of 2^\(power) bytes is wider than 16")
        }
        let width = 1 << Int(power)
        try require(1 + width, at: start, object: index, for: "the integer")
        switch width {
        case 8:
            return PlistInteger(Int64(bitPattern: bytes.loadBigEndianUInt64(at: start + 1)))
        case 16:
            let high = bytes.loadBigEndianUInt64(at: start + 1)
            if keepsLayout && high != 0 { int128HighWords[UInt32(truncatingIfNeeded: index)] = high }
            return PlistInteger(bytes.loadBigEndianUInt64(at: start + 9))
        default:
            return PlistInteger(bytes.loadBigEndian(at: start + 1, width: width))
        }
    }

    /// The element or byte count of a data, string or container object, and where its payload
    /// starts. Counts of 15 and more are an integer object after the marker.
    @inline(never)
    private mutating func count(_ index: Int, marker: UInt8, at start: Int) throws(PlistError) -> (Int, Int) {
        let field = try area.count(index, marker: marker, at: start)
        note(index, marker: marker, extendedCount: field.extendedMarker)
        return (field.count, field.payload)
    }

    @inline(never)
    private mutating func enterContainer(_ index: Int, at position: Int) throws(PlistError) {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw BinaryTrailer.error(
                .depthLimit, at: position, limits.message(exceeding: .depth))
        }
        onPath[index] = true
    }

    private mutating func leaveContainer(_ index: Int) {
        depth -= 1
        onPath[index] = false
    }

    /// Records the file's key order and the values a repeated key hid, so the writer can bring
    /// them back. Every reference here was already decoded.
    @inline(never)
    private mutating func noteRepeatedKeys(count: Int, refsAt refs: Int, walkPosition: Int) {
        let refSize = trailer.objectRefSize
        var keys: [String] = []
        keys.reserveCapacity(count)
        for i in 0..<count {
            let object = Int(bytes.loadBigEndian(at: refs + i * refSize, width: refSize))
            guard case .string(let key)? = decoded[object] else { return }
            keys.append(key)
        }
        var lastOccurrence: [String: Int] = [:]
        for (i, key) in keys.enumerated() { lastOccurrence[key] = i }
        var hidden: [Int: PlistValue] = [:]
        for (i, key) in keys.enumerated() where lastOccurrence[key] != i {
            let object = Int(bytes.loadBigEndian(at: refs + (count + i) * refSize, width: refSize))
            if let value = decoded[object] { hidden[i] = value }
        }
        repeatedKeys[UInt32(truncatingIfNeeded: walkPosition)] = BinaryLayout.RepeatedKeys(keys: keys, hiddenValues: hidden)
    }

    /// Decodes the key the reference at `position` names, refusing anything but a string before
    /// decoding it, so a container used as a key is never descended into.
    @inline(never)
    private mutating func decodeKey(referencedAt position: Int) throws(PlistError) {
        let key = try reference(at: position)
        let isFirstUse = decoded[key] == nil
        if isFirstUse {
            let keyStart = try offset(ofObject: key)
            let type = bytes[keyStart] >> 4
            guard type == 0x5 || type == 0x6 || (type == 0x7 && acceptsUTF8Strings) else {
                throw BinaryTrailer.error(
                    .badKey, at: position, "dictionary key object \(key) is not a string (marker \(hex(bytes[keyStart])))")
            }
        }
        var noFrames: [Frame] = []
        guard case .string(let text)? = try begin(key, referencedAt: position, stack: &noFrames) else {
            throw BinaryTrailer.error(.badKey, at: position, "dictionary key object \(key) is not a string")
        }
        // An object first decoded as a value (a string shared with a key) is a key's first use
        // too; without its text the writer cannot match the entry to its notes.
        if keepsLayout && (isFirstUse || keyTexts[UInt32(truncatingIfNeeded: key)] == nil) {
            keyTexts[UInt32(truncatingIfNeeded: key)] = text
        }
    }

    /// Throws when a subtree expands past ``PlistLimits/maxExpandedValues`` or
    /// ``PlistLimits/maxDecodedBytes``; checked as each container completes, so a file of shared
    /// references fails as soon as the expansion it describes passes a limit.
    private func checkExpansion(_ size: ExpandedSize, at position: Int) throws(PlistError) {
        if let exceeded = size.exceeded(limits) {
            throw BinaryTrailer.error(exceeded.code, at: position, limits.message(exceeding: exceeded))
        }
    }

    private mutating func countValues(_ count: Int, at position: Int) throws(PlistError) {
        valueCount += count
        guard valueCount <= limits.maxValues else {
            throw BinaryTrailer.error(.sizeLimit, at: position, limits.message(exceeding: .values))
        }
    }

    /// A big-endian UTF-16 string of `units` code units; unpaired surrogates are an error.
    private func utf16String(at start: Int, units: Int) throws(PlistError) -> String {
        let codeUnits = BigEndianUTF16(bytes: bytes, start: start, count: units)
        var i = 0
        while i < units {
            let unit = codeUnits[i]
            if unit & 0xF800 == 0xD800 {
                guard unit < 0xDC00, i + 1 < units, codeUnits[i + 1] & 0xFC00 == 0xDC00 else {
                    throw BinaryTrailer.error(
                        .badString, at: start + 2 * i, "unpaired UTF-16 surrogate \(hex16(unit)) in a string")
                }
                i += 2
            } else {
                i += 1
            }
        }
        return String(decoding: codeUnits, as: UTF16.self)
    }
}

extension BinaryObjectScanner {
    /// An "ASCII" string object's text. CoreFoundation reads bytes above 0x7F in these objects as
    /// Latin-1 (U+0080...U+00FF), and so do we; pure ASCII, the usual case, takes the fast path.
    static func asciiString(_ slice: UnsafeRawBufferPointer) -> (String, isLatin1: Bool) {
        var i = 0
        var highBits: UInt64 = 0
        while i + 8 <= slice.count {
            highBits |= slice.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < slice.count {
            highBits |= UInt64(slice[i])
            i += 1
        }
        if highBits & 0x8080_8080_8080_8080 == 0 {
            return (String(decoding: slice, as: UTF8.self), false)
        }
        var scalars = String.UnicodeScalarView()
        for byte in slice { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), true)
    }
}

/// The code units of a big-endian UTF-16 string inside the input buffer, read in place.
struct BigEndianUTF16: RandomAccessCollection {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let count: Int

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    @inline(__always)
    subscript(position: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2 * position, as: UInt16.self))
    }
}

private func hex(_ byte: UInt8) -> String { BinaryObjectArea.hex(byte) }

private func hex16(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16, uppercase: true)
    return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
