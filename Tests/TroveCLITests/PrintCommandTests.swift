import Foundation
import Testing

@Suite("trove print", .enabled(if: TestEnvironment.hasTrove, "the trove executable was not built"))
struct PrintCommandTests {
    @Test("the samples print exactly as plutil -p prints them", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"),
          arguments: ["Preferences.plist", "Catalog.plist"])
    func samplesMatchPlutil(sample: String) async throws {
        let path = TestEnvironment.sample(sample)
        let ours = try await trove("print", path)
        #expect(ours.status == 0, "\(ours.stderrText)")
        let theirs = try await plutil("-p", path)
        #expect(theirs.status == 0)
        #expect(ours.stdoutText == theirs.stdoutText)
    }

    @Test("the layout: sorted keys, indices, nesting and closing brackets")
    func layout() async throws {
        let result = try await trove("print", TestEnvironment.sample("Preferences.plist"))
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "{")
        #expect(lines.dropLast().last == "}")
        #expect(lines.last == "")
        // plutil's order compares digit runs as numbers and ignores case.
        let item9 = try #require(lines.firstIndex { $0.hasPrefix("  \"item9\" => ") })
        let item10 = try #require(lines.firstIndex { $0.hasPrefix("  \"item10\" => ") })
        let lastLaunch = try #require(lines.firstIndex { $0.hasPrefix("  \"LastLaunch\" => ") })
        #expect(item9 < item10 && item10 < lastLaunch)
        #expect(lines.contains("    0 => \"~/Documents/Notes & Ideas.txt\""))
        #expect(lines.contains("  \"LastLaunch\" => 2024-03-09 18:45:00 +0000"))
        #expect(lines.contains("  \"Window\" => {"))
        #expect(lines.contains("    \"Zoomed\" => false"))
        #expect(lines.contains("  \"ZoomLevels\" => ["))
        #expect(lines.contains("    1 => 1.0"))
    }

    @Test("generated values print as plutil -p prints them", .enabled(if: TestEnvironment.hasPlutil, "plutil not found"))
    func generatedValuesMatchPlutil() async throws {
        let directory = try TemporaryDirectory()
        var generator = ValueGenerator(seed: 0x9121)
        for index in 0..<10 {
            // plutil 6.3.1 misprints data, so data is compared in its own test below.
            let value = withoutData(generator.document())
            let format: PropertyListSerialization.PropertyListFormat = index.isMultiple(of: 2) ? .xml : .binary
            let data = try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0)
            let path = try directory.write(data, as: "generated-\(index).plist")
            let ours = try await trove("print", path)
            #expect(ours.status == 0, "\(ours.stderrText)")
            let theirs = try await plutil("-p", path)
            #expect(ours.stdoutText == theirs.stdoutText, "\(path)")
        }
    }

    @Test("data prints every byte as two hex digits, long data as first 16 ... last 8 bytes")
    func data() async throws {
        let directory = try TemporaryDirectory()
        let samples: [Data] = [
            Data(), Data([1, 2, 3]), Data((0..<24).map(UInt8.init)), Data((0..<25).map(UInt8.init)),
            Data((0..<250).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: samples, format: .binary, options: 0)
        let result = try await trove("print", try directory.write(plist, as: "data.plist"))
        #expect(result.status == 0, "\(result.stderrText)")

        func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
            bytes.map { String(format: "%02x", $0) }.joined()
        }
        var expected = "[\n"
        for (index, sample) in samples.enumerated() {
            let shown = sample.count > 24 ? hex(sample.prefix(16)) + " ... " + hex(sample.suffix(8)) : hex(sample)
            expected += "  \(index) => {length = \(sample.count), bytes = 0x\(shown)}\n"
        }
        expected += "]\n"
        #expect(result.stdoutText == expected)
    }

    @Test("UIDs, null, 32-bit reals and dates far from today")
    func unusualScalars() async throws {
        // Expected dates were worked out with GNU date and Python, independently of Trove.
        // A hand-assembled bplist00: array of [UID 5, null, float32 0.1, date -1e12, date 1e12, date -0.25s before 1970].
        var objects: [[UInt8]] = [[0xA6, 1, 2, 3, 4, 5, 6], [0x80, 0x05], [0x00], [0x22] + bigEndian(Float(0.1).bitPattern)]
        for seconds in [-1e12, 1e12, -978_307_200.25] { objects.append([0x33] + bigEndian(seconds.bitPattern)) }
        let directory = try TemporaryDirectory()
        let path = try directory.write(binaryPlist(objects), as: "scalars.plist")
        let result = try await trove("print", path)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText == """
            [
              0 => <CFKeyedArchiverUID>{value = 5}
              1 => <null>
              2 => 0.1
              3 => -29688-04-06 22:13:20 +0000
              4 => 33689-09-27 01:46:40 +0000
              5 => 1969-12-31 23:59:59 +0000
            ]

            """)
    }

    @Test("a scalar root prints on one line")
    func scalarRoot() async throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: "just a string", format: .xml, options: 0)
        let result = try await trove("print", "-", stdin: plist)
        #expect(result.status == 0)
        #expect(result.stdoutText == "\"just a string\"\n")
    }

    @Test("several files print one after another; a failure is reported and the rest still print")
    func severalFiles() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.plist")
        let catalog = TestEnvironment.sample("Catalog.plist")
        let single = try await trove("print", catalog)
        let result = try await trove("print", missing, catalog, catalog)
        #expect(result.status == 1)
        #expect(result.stdoutText == single.stdoutText + single.stdoutText)
        #expect(result.stderrText == "\(missing): cannot open for reading: No such file or directory\n")
    }
}

/// The value with every data object (and every container left holding one) removed.
private func withoutData(_ value: Any) -> Any {
    if let dictionary = value as? [String: Any] {
        return dictionary.filter { !($0.value is Data) }.mapValues(withoutData)
    }
    if let array = value as? [Any] {
        return array.filter { !($0 is Data) }.map(withoutData)
    }
    return value
}

private func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// Assembles a bplist00 whose first object is the root, with one-byte references and two-byte offsets.
func binaryPlist(_ objects: [[UInt8]]) -> Data {
    var out = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(out.count)
        out += object
    }
    let tableOffset = out.count
    for offset in offsets { out += bigEndian(UInt16(offset)) }
    out += [0, 0, 0, 0, 0, 0, 2, 1]
    out += bigEndian(UInt64(objects.count)) + bigEndian(UInt64(0)) + bigEndian(UInt64(tableOffset))
    return Data(out)
}
