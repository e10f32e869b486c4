import Testing
import TroveCore
import TroveTestSupport

/// Small random edits of seed documents (one to four bytes overwritten, inserted or removed),
/// for checking that a text reader refuses what it cannot read with a located error instead of
/// trapping. The draws come from the seeded generator in a fixed order, so each test keeps
/// checking the same inputs run after run.
struct ByteMutator {
    var random: SplitMix
    /// The bytes that edits write: the format's punctuation, and bytes that break UTF-8.
    let alphabet: [UInt8]
    /// What stands in for a document that an edit emptied (an opening bracket of the format),
    /// so that the next edit has a byte to work on.
    let emptyReplacement: UInt8

    /// `document` with one to four random edits.
    mutating func mutated(_ document: [UInt8]) -> [UInt8] {
        var bytes = document
        for _ in 0..<(1 + random.below(4)) {
            let index = random.below(bytes.count)
            switch random.below(3) {
            case 0: bytes[index] = alphabet[random.below(alphabet.count)]
            case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: index)
            default: bytes.remove(at: index)
            }
            if bytes.isEmpty { bytes = [emptyReplacement] }
        }
        return bytes
    }

    /// Reads `rounds` mutations of `documents` (round `r` mutates `documents[r % count]`) with
    /// `read`, which is also told the round so that it can vary the reader's options. Every
    /// refusal must name `format` and a place. Returns how many inputs were accepted and refused.
    mutating func readMutations(
        rounds: Int, of documents: [String], naming format: PlistFormat, sourceLocation: SourceLocation = #_sourceLocation,
        _ read: (_ round: Int, _ bytes: [UInt8]) throws(PlistError) -> Void
    ) -> (accepted: Int, rejected: Int) {
        var accepted = 0
        var rejected = 0
        for round in 0..<rounds {
            let bytes = mutated(Array(documents[round % documents.count].utf8))
            do {
                try read(round, bytes)
                accepted += 1
            } catch {
                #expect(error.format == format, sourceLocation: sourceLocation)
                #expect(error.location != nil, sourceLocation: sourceLocation)
                rejected += 1
            }
        }
        return (accepted, rejected)
    }
}
