/// The distinct key texts of one binary plist, numbered, and the number of every key object
/// read so far, for ``BinaryKeyLayouts``: after the first dictionary that uses a key object,
/// finding a key compares numbers instead of text.
///
/// Texts are compared exactly, by code units, as CoreFoundation compares keys. Not thread-safe:
/// one reader uses it at a time.
final class BinaryKeyNumbering {
    /// A text compared and hashed by its code units, not by `String`'s canonical equivalence.
    private struct ExactText: Hashable {
        let text: String

        static func == (a: ExactText, b: ExactText) -> Bool { a.text.hasSameUTF8(as: b.text) }

        func hash(into hasher: inout Hasher) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// For each object of the file, its key text's number plus one once it was read as a key,
    /// 0 before.
    @exclusivity(unchecked) var objectNumbers: [Int32]
    @exclusivity(unchecked) private var numbers: [ExactText: Int32] = [:]
    /// The keys asked for lately, by the two words of their `String` value: a key an
    /// `init(from:)` spells as a literal is the same value on every call, so it is found here
    /// without hashing its text. Only immortal words are kept (see
    /// ``StringRepresentation/isImmortal``).
    @exclusivity(unchecked) private var recent = [(key: StringRepresentation, number: Int32)](
        repeating: (.placeholder, -1), count: 32)

    /// Numbering for a file of `objectCount` objects.
    init(objectCount: Int) {
        objectNumbers = Array(repeating: 0, count: objectCount)
    }

    /// The number of `text`, if a key object with that text has been read.
    func number(of text: String) -> Int32? {
        let words = StringRepresentation(text)
        let mixed = ((words.low &* 0x9E37_79B9_7F4A_7C15) ^ words.high) &* 0xBF58_476D_1CE4_E5B9
        let slot = Int(truncatingIfNeeded: mixed >> 59)
        if recent[slot].number >= 0, recent[slot].key == words { return recent[slot].number }
        guard let number = numbers[ExactText(text: text)] else { return nil }
        if words.isImmortal { recent[slot] = (words, number) }
        return number
    }

    /// How many distinct texts have a number.
    var count: Int { numbers.count }

    /// The number of `text`, given the next one when it has none yet.
    func numberAdding(_ text: String) -> Int32 {
        if let known = numbers[ExactText(text: text)] { return known }
        let number = Int32(numbers.count)
        numbers[ExactText(text: text)] = number
        return number
    }
}
