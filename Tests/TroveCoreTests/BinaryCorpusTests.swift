import Foundation
import Testing
import TroveTesting
@testable import TroveCore

@Suite("Binary corpus")
struct BinaryCorpusTests {
    @Test("every valid binary fixture reads and re-encodes byte for byte",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func losslessRoundTrip() throws {
        let rows = BinaryFixtures.validRows
        #expect(rows.count > 100)
        var identical = 0
        var failures: [String] = []
        for row in rows {
            do {
                let (value, layout) = try readBinary(row.bytes)
                let layoutNotes = try #require(layout)
                let written = try BinaryPlistWriter().write(value, layout: layoutNotes)
                if written == row.bytes {
                    identical += 1
                } else {
                    let firstDifference = zip(written, row.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    failures.append("\(row.path): \(written.count) vs \(row.bytes.count) bytes, first difference at \(firstDifference.map(String.init) ?? "end"), reproducible: \(layoutNotes.reproducesSource)")
                }
            } catch {
                failures.append("\(row.path): \(error)")
            }
        }
        print("binary lossless: \(identical) of \(rows.count)")
        for failure in failures { print("  not identical: \(failure)") }
        #expect(identical == rows.count)
    }
}

@Suite("Binary corpus rejects")
struct BinaryCorpusRejectTests {
    @Test("every must-reject binary fixture fails with a located PlistError",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func mustReject() {
        // keyed-archive must-reject rows are valid plists that fail only at the archiver layer.
        let rows = BinaryFixtures.binaryRows.filter { $0.expectation == "must-reject" && $0.category != "keyed-archive" }
        #expect(rows.count > 50)
        var rejected = 0
        for row in rows {
            guard let error = binaryReadError(row.bytes) else {
                Issue.record("\(row.path) was accepted")
                continue
            }
            print("binary must-reject \(row.path): \(error)")
            #expect(error.format == .binary, "\(row.path)")
            #expect(error.location != nil, "\(row.path) has no location")
            rejected += 1
        }
        print("binary must-reject: \(rejected) of \(rows.count) rejected")
    }

    @Test("no-crash binary fixtures either read or fail cleanly",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func noCrash() {
        let rows = BinaryFixtures.binaryRows.filter { $0.expectation == "no-crash" }
        #expect(!rows.isEmpty)
        for row in rows {
            let outcome = binaryReadError(row.bytes).map { "rejected: \($0)" } ?? "accepted"
            print("binary no-crash \(row.path): \(outcome)")
            #expect(!outcome.isEmpty)
        }
    }
}

/// Compares a decoded value with a fixture's typed golden JSON (plistlib's reading); returns a
/// description of the first difference, or nil.
private func goldenMismatch(_ value: PlistValue, _ golden: Any, at path: String = "") -> String? {
    guard let node = golden as? [String: Any], let (kind, payload) = node.first else { return "\(path): bad golden" }
    switch (kind, value) {
    case ("string", .string(let s)):
        return s == payload as? String ? nil : "\(path): string \(s) vs \(payload)"
    case ("integer", .integer(let i)):
        return i.description == payload as? String ? nil : "\(path): integer \(i) vs \(payload)"
    case ("real", .real(let r)):
        let text = payload as? String ?? ""
        let expected: Double = text == "nan" ? .nan : text == "inf" ? .infinity : text == "-inf" ? -.infinity : Double(text) ?? .nan
        return PlistReal(expected) == r ? nil : "\(path): real \(r.value) vs \(text)"
    case ("bool", .bool(let b)):
        return b == payload as? Bool ? nil : "\(path): bool \(b) vs \(payload)"
    case ("uid", .uid(let u)):
        return (payload as? NSNumber)?.uint64Value == u ? nil : "\(path): uid \(u) vs \(payload)"
    case ("data", .data(let d)):
        return d.base64EncodedString() == payload as? String ? nil : "\(path): data differs"
    case ("date", .date(let d)):
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let text = payload as? String ?? ""
        guard let expected = formatter.date(from: text) ?? plain.date(from: text) else { return "\(path): bad golden date \(text)" }
        return abs(expected.timeIntervalSinceReferenceDate - d.secondsSinceReferenceDate) < 0.001 ? nil : "\(path): date \(d) vs \(text)"
    case ("array", .array(let elements)):
        guard let items = payload as? [Any], items.count == elements.count else { return "\(path): array count" }
        for (i, (element, item)) in zip(elements, items).enumerated() {
            if let m = goldenMismatch(element, item, at: "\(path)/\(i)") { return m }
        }
        return nil
    case ("dict", .dictionary(let entries)):
        guard let items = payload as? [[Any]], items.count == entries.count else { return "\(path): dict count" }
        for ((key, entry), item) in zip(entries, items) {
            guard item.count == 2, item[0] as? String == key else { return "\(path): key \(key) vs \(item.first ?? "")" }
            if let m = goldenMismatch(entry, item[1], at: "\(path)/\(key)") { return m }
        }
        return nil
    default:
        return "\(path): \(value.kind) vs golden \(kind)"
    }
}

@Suite("Binary corpus goldens")
struct BinaryCorpusGoldenTests {
    @Test("decoded values match the typed goldens",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func goldens() throws {
        let root = try #require(BinaryFixtures.root)
        var compared = 0
        for row in BinaryFixtures.validRows {
            let goldenURL = root.appendingPathComponent(row.path + ".golden.json")
            guard let data = FileManager.default.contents(atPath: goldenURL.path) else { continue }
            // Foundation's JSON parser has its own nesting limit; such goldens are skipped.
            guard let golden = try? JSONSerialization.jsonObject(with: data) else {
                print("binary goldens: skipped \(row.path) (golden too deep for JSONSerialization)")
                continue
            }
            let value = try readBinary(row.bytes, keepingLayout: false).value
            #expect(goldenMismatch(value, golden) == nil, "\(row.path)")
            compared += 1
        }
        print("binary goldens: \(compared) compared")
        #expect(compared > 100)
    }
}

@Suite("Binary corpus: fresh writer against Apple files")
struct BinaryCorpusFreshWriterTests {
    /// A file written by CoreFoundation stores its dictionaries in the order CF enumerated them,
    /// and we read them in that order, so writing the decoded value afresh, with no notes, gives
    /// back the very bytes Apple wrote when the file follows CF's documented rules. Many Apple
    /// files do not quite: they share containers by identity (which a value cannot express), and
    /// some store an equal string more than once (e.g. `ManagedSpaceID` and a UUID in
    /// `prefs-com.apple.spaces.plist`), which CF's uniquing would not. Those need the layout
    /// notes; this test measures how far the fresh writer alone gets.
    @Test("writing a decoded Apple file afresh reads back equal, and often reproduces it",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func freshWriterMatchesApple() throws {
        let appleWritten = BinaryFixtures.validRows.filter {
            let name = ($0.path as NSString).lastPathComponent
            return name.hasPrefix("prefs-") || name.hasPrefix("scf-macOS")
        }
        #expect(!appleWritten.isEmpty)
        var identical = 0
        var differing: [String] = []
        for row in appleWritten {
            let value = try readBinary(row.bytes, keepingLayout: false).value
            let fresh = try BinaryPlistWriter().write(value)
            expectPlistEqual(try readBinary(fresh).value, value, context: row.path)
            if fresh == row.bytes { identical += 1 } else { differing.append(row.path) }
        }
        print("binary fresh writer: \(identical) of \(appleWritten.count) Apple-written files reproduced exactly")
        for path in differing { print("  differs (shared containers or repeated strings): \(path)") }
        #expect(identical > 0)
    }
}

@Suite("Binary through Plist")
struct BinaryDocumentTests {
    @Test("Plist.read and Plist.write round-trip a binary fixture through its document",
          .enabled(if: BinaryFixtures.available, "fixture corpus not found: set TROVE_FIXTURES or place it at ../shared/fixtures"))
    func documentRoundTrip() throws {
        let rows = BinaryFixtures.validRows.filter { $0.path.hasSuffix("prefs-com.apple.spaces.plist") || $0.path.contains("keyed-archive/") }
        #expect(!rows.isEmpty)
        for row in rows.prefix(10) {
            var document = try Plist.read(Data(row.bytes))
            #expect(document.format == .binary)
            #expect([UInt8](try Plist.write(document)) == row.bytes, "\(row.path)")
            if case .dictionary(var top) = document.value {
                top["trove-edit"] = "added"
                document.value = .dictionary(top)
                let edited = try Plist.read(try Plist.write(document))
                expectPlistEqual(edited.value, document.value, context: row.path)
            }
        }
    }
}
