import Foundation
import Testing

/// The CLI over the fixture corpus: lint's verdicts and print's output against plutil's.
@Suite("trove on the fixture corpus",
       .enabled(if: TestEnvironment.hasTrove && TestEnvironment.fixtures != nil,
                "the fixture corpus was not found (set TROVE_FIXTURES or put it at ../shared/fixtures)"))
struct CorpusCommandTests {
    struct Fixture {
        var path: String
        var category: String
        var expectation: String
    }

    /// Manifest rows in the XML and binary formats this CLI reads, found by content.
    static func fixtures() throws -> [Fixture] {
        let root = try #require(TestEnvironment.fixtures)
        let manifest = try String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 6, !["openstep", "json"].contains(fields[1]) else { return nil }
            let path = root.appendingPathComponent(fields[0]).path
            guard let head = FileManager.default.contents(atPath: path)?.prefix(64), isXMLOrBinary(head) else { return nil }
            return Fixture(path: path, category: fields[1], expectation: fields[5])
        }
    }

    /// `bplist`, or text that opens with `<` after optional BOM and whitespace (UTF-8 only; the
    /// UTF-16/32 files are covered by the library's own corpus tests).
    static func isXMLOrBinary(_ head: Data) -> Bool {
        if head.starts(with: Data("bplist".utf8)) { return true }
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }.first == UInt8(ascii: "<")
    }

    @Test("lint accepts every valid file and rejects every must-reject file with a located message")
    func lintVerdicts() async throws {
        let fixtures = try Self.fixtures()
        let valid = fixtures.filter { $0.expectation.hasPrefix("valid") && $0.category != "malformed" }
        let rejected = fixtures.filter { $0.expectation == "must-reject" && $0.category == "malformed" }
        #expect(valid.count > 100 && rejected.count > 50, "the corpus looks incomplete")

        let accepted = try await trove(arguments: ["lint", "-s"] + valid.map(\.path))
        #expect(accepted.status == 0, "valid files rejected:\n\(accepted.stderrText)")

        for fixture in rejected {
            let result = try await trove("lint", fixture.path)
            #expect(result.status == 1, "\(fixture.path) was accepted or crashed (status \(result.status))")
            let message = result.stderrText
            #expect(message.hasPrefix("\(fixture.path):"), "\(fixture.path): \(message)")
            #expect(message.split(separator: "\n").count == 1, "\(fixture.path): \(message)")
        }
    }

    @Test("print matches plutil -p wherever plutil can print the file", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func printMatchesPlutil() async throws {
        var compared = 0
        var mismatches: [String] = []
        var duplicateKeyMismatches: [String] = []
        for fixture in try Self.fixtures() where fixture.expectation.hasPrefix("valid") && fixture.category != "malformed" {
            let theirs = try await plutil("-p", fixture.path)
            guard theirs.status == 0, !theirs.stdout.isEmpty else { continue }
            let ours = try await trove("print", fixture.path)
            compared += 1
            guard let difference = firstDifference(ours: ours.stdoutText, plutil: theirs.stdoutText) else { continue }
            if let data = FileManager.default.contents(atPath: fixture.path), Self.binaryHasRepeatedKeys(data) {
                duplicateKeyMismatches.append("\(fixture.path): \(difference)")
            } else {
                mismatches.append("\(fixture.path): \(difference)")
            }
        }
        #expect(compared > 100, "too few files compared")
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) differ:\n\(mismatches.joined(separator: "\n"))")
        // The toolchain's CoreFoundation keeps the FIRST of two equal keys in a binary dictionary
        // (it builds immutable dictionaries with add-if-absent), while the manifest, plistlib and
        // go-plist expect the last. Which one Trove follows is an open decision, so a difference
        // there is recorded as a known issue rather than a failure.
        withKnownIssue("binary dictionaries with repeated keys: plutil keeps the first value", isIntermittent: true) {
            #expect(duplicateKeyMismatches.isEmpty, "\(duplicateKeyMismatches.joined(separator: "\n"))")
        }
    }

    /// The first line that differs, allowing for what plutil 6.3.1 prints wrongly or
    /// unstably: data bytes (its leading-zero bug), UIDs (a memory address) and dates it cannot
    /// describe. For those only the line's shape is compared.
    private func firstDifference(ours: String, plutil: String) -> String? {
        let ourLines = ours.split(separator: "\n", omittingEmptySubsequences: false)
        let theirLines = plutil.split(separator: "\n", omittingEmptySubsequences: false)
        guard ourLines.count == theirLines.count else {
            return "\(ourLines.count) lines, plutil printed \(theirLines.count)"
        }
        for (index, (our, their)) in zip(ourLines, theirLines).enumerated() where our != their {
            if let length = dataLength(their), dataLength(our) == length, prefix(our) == prefix(their) { continue }
            if their.hasSuffix("<description unavailable>"), prefix(our) == prefix(their) { continue }
            if their.contains("<_NSKeyedArchiverUID: "), our.contains("<CFKeyedArchiverUID>{value = "),
               prefix(our) == prefix(their) { continue }
            return "line \(index + 1): \"\(our)\" but plutil printed \"\(their)\""
        }
        return nil
    }

    /// The text before ` => `, or the whole line for a scalar root.
    private func prefix(_ line: Substring) -> Substring {
        guard let arrow = line.range(of: " => ") else { return "" }
        return line[..<arrow.upperBound]
    }

    /// N of `{length = N, bytes = 0x...}`.
    private func dataLength(_ line: Substring) -> Int? {
        guard let start = line.range(of: "{length = "), line.hasSuffix("}"),
              let comma = line[start.upperBound...].firstIndex(of: ",") else { return nil }
        return Int(line[start.upperBound..<comma])
    }

    /// True when a binary plist has a dictionary whose keys repeat (the same key object twice, or
    /// two key objects with the same bytes). A small scan of the object table, enough for the
    /// valid files it is used on; anything unexpected counts as "no".
    static func binaryHasRepeatedKeys(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count > 40, bytes.starts(with: Array("bplist".utf8)) else { return false }
        func number(_ start: Int, _ width: Int) -> Int? {
            guard width > 0, width <= 8, start >= 0, start + width <= bytes.count else { return nil }
            return bytes[start..<start + width].reduce(0) { ($0 << 8) | Int($1) }
        }
        let trailer = bytes.count - 32
        guard let offsetSize = number(trailer + 6, 1), let refSize = number(trailer + 7, 1),
              let count = number(trailer + 8, 8), let table = number(trailer + 24, 8), count < 10_000_000 else { return false }
        func offset(_ object: Int) -> Int? { number(table + object * offsetSize, offsetSize) }
        /// The marker's length nibble, or the integer that follows a 0xF nibble, and where the payload starts.
        func lengthAndStart(_ at: Int) -> (Int, Int)? {
            guard at < bytes.count else { return nil }
            let nibble = Int(bytes[at] & 0x0F)
            if nibble != 0x0F { return (nibble, at + 1) }
            guard at + 1 < bytes.count else { return nil }
            let width = 1 << Int(bytes[at + 1] & 0x0F)
            guard let length = number(at + 2, width) else { return nil }
            return (length, at + 2 + width)
        }
        func keyBytes(_ object: Int) -> ArraySlice<UInt8>? {
            guard let at = offset(object), at < bytes.count, let (length, start) = lengthAndStart(at) else { return nil }
            let size = bytes[at] >> 4 == 0x6 ? length * 2 : length
            guard start + size <= bytes.count else { return nil }
            return bytes[at...at] + bytes[start..<start + size]
        }
        for object in 0..<count {
            guard let at = offset(object), at < bytes.count, bytes[at] >> 4 == 0xD,
                  let (entries, start) = lengthAndStart(at) else { continue }
            var seen = Set<[UInt8]>()
            for index in 0..<entries {
                guard let key = number(start + index * refSize, refSize), let text = keyBytes(key) else { break }
                if !seen.insert(Array(text)).inserted { return true }
            }
        }
        return false
    }
}
