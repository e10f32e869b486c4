import Foundation
import Testing
import TroveTestSupport

/// Peak memory of decoding each hostile, no-crash and large corpus file, in a child process of
/// its own (`trove lint`, which reads the whole document), relative to the file's size.
///
/// The growth of the child's peak resident set over its peak for a one-line plist must stay
/// within ``factor`` times the input plus ``slack``: no file, however hostile, makes the reader
/// allocate in proportion to a count it claims, or expand what it shares.
@Suite("Hostile memory", .serialized, .enabled(if: HostileMemory.isAvailable, HostileMemory.unavailableReason))
struct HostileMemoryTests {
    /// The bound on peak growth per input byte, stated in Formats.md ("Limits and security").
    static let factor = 16.0
    /// Allowance for allocator and runtime noise that does not depend on the input.
    static let slack = 4 << 20

    @Test("every hostile, no-crash and large corpus file decodes within the memory bound")
    func corpusMemory() async throws {
        let baseline = try await HostileMemory.baseline()
        var worst: (path: String, factor: Double)?
        var measured = 0
        for row in FixtureCorpus.rows
        where row.expectation == .mustReject || row.expectation == .noCrash || row.category == .large {
            let path = try #require(FixtureCorpus.root).appendingPathComponent(row.path).path
            let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let peak = try await HostileMemory.peakResidentBytes(decoding: path)
            let growth = max(0, peak - baseline)
            #expect(
                Double(growth) <= Self.factor * Double(size) + Double(Self.slack),
                "\(row.path): \(size) bytes grew the peak by \(growth) bytes")
            if size >= 64 << 10 {
                let factor = Double(growth) / Double(size)
                if factor > worst?.factor ?? -1 { worst = (row.path, factor) }
            }
            measured += 1
        }
        #expect(measured > 100, "only \(measured) corpus files were measured")
        if let worst {
            print("hostile memory: \(measured) files; worst factor for files of 64 KB and more: "
                + "\(String(format: "%.2f", worst.factor)) × input (\(worst.path))")
        }
    }

    @Test("generated bombs decode in memory independent of what they claim or expand to")
    func generatedBombs() async throws {
        let baseline = try await HostileMemory.baseline()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-hostile-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bombs: [(String, Data)] = [
            ("doubling-40.bplist", HostileMemory.doublingArrays(levels: 40)),
            ("doubling-60.bplist", HostileMemory.doublingArrays(levels: 60)),
            ("nesting-100000.json", Data(String(repeating: "[", count: 100_000).utf8)),
            ("nesting-100000.plist", Data(("<plist>" + String(repeating: "<dict><key>k</key>", count: 100_000)).utf8)),
            ("nesting-100000.strings", Data(String(repeating: "{a=", count: 100_000).utf8)),
            // The densest documents each format allows: a value per two or three bytes, the
            // worst ratio of decoded size to input a reader can be asked for.
            ("dense-zeros.json", Data(("[" + String(repeating: "0,", count: 500_000) + "0]").utf8)),
            ("dense-empty-arrays.json", Data(("[" + String(repeating: "[],", count: 300_000) + "[]]").utf8)),
            ("dense-strings.plist", Data(("(" + String(repeating: "a,", count: 500_000) + "a)").utf8)),
            ("dense-keys.strings", Data((0..<100_000).map { "k\($0);" }.joined().utf8)),
            ("dense-true.xml", Data(("<plist><array>" + String(repeating: "<true/>", count: 150_000) + "</array></plist>").utf8)),
            ("dense-objects.bplist", HostileMemory.denseBinary(objects: 200_000)),
        ]
        for (name, bytes) in bombs {
            let path = directory.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let growth = max(0, try await HostileMemory.peakResidentBytes(decoding: path) - baseline)
            print("hostile memory: \(name): \(bytes.count) bytes, peak growth \(growth) (\(String(format: "%.2f", Double(growth) / Double(bytes.count))) × input)")
            #expect(
                Double(growth) <= Self.factor * Double(bytes.count) + Double(Self.slack),
                "\(name): \(bytes.count) bytes grew the peak by \(growth) bytes")
        }
    }
}

/// Runs `trove lint` in a child process and reads its peak resident set through `time`.
enum HostileMemory {
    static var isAvailable: Bool {
        FixtureCorpus.isAvailable && TroveExecutable.path != nil && FileManager.default.isExecutableFile(atPath: timeTool)
    }

    static var unavailableReason: Comment {
        if !FixtureCorpus.isAvailable { return FixtureCorpus.unavailableReason }
        if TroveExecutable.path == nil { return "the trove executable was not found next to the tests (build it, or set TROVE_BINARY)" }
        return "\(timeTool) is not installed; it measures the child's peak memory"
    }

    /// The child's peak for a one-line plist: the runtime's own footprint. The smallest of three
    /// runs, so that a noisy run cannot inflate the baseline and hide growth.
    static func baseline() async throws -> Int {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trove-baseline-\(getpid()).plist").path
        try Data("{a=b;}".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var runs: [Int] = []
        for _ in 0..<3 { runs.append(try await peakResidentBytes(decoding: path)) }
        return runs.min() ?? 0
    }

    /// `/usr/bin/time`, which reports its child's peak resident set. The peak cannot be taken from
    /// `wait4` here: Linux carries a process's peak across `execve`, so a child spawned straight
    /// from this large test process would report this process's size.
    static let timeTool = "/usr/bin/time"

    /// The peak resident set, in bytes, of `trove lint -s path`, whatever its verdict.
    static func peakResidentBytes(decoding path: String) async throws -> Int {
        guard let binary = TroveExecutable.path else { throw HostileMemoryError.noBinary }
        let report = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-peak-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: report) }
        _ = try await ProcessRun.run(timeTool, ["-f", "%M %x", "-o", report.path, binary, "lint", "-s", path])
        let text = try String(contentsOf: report, encoding: .utf8)
        // `time` writes "Command exited with non-zero status 1" (a rejected file) or "Command
        // terminated by signal N" (a crash) before the requested line.
        let fields = text.split(separator: "\n").last?.split(separator: " ") ?? []
        guard !text.contains("signal"), fields.count == 2, let kilobytes = Int(fields[0]), let status = Int(fields[1]),
            status <= 1
        else {
            throw HostileMemoryError.crashed(path: path, report: text)
        }
        return kilobytes * 1024
    }

    /// A binary plist whose top array references `objects - 1` distinct one-byte objects: the
    /// most objects per input byte the format allows.
    static func denseBinary(objects: Int) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = [out.count]
        out += [0xAF, 0x12] + bigEndian(UInt64(objects - 1)).suffix(4)
        for i in 1..<objects { out += bigEndian(UInt64(i)).suffix(3) }
        for _ in 1..<objects {
            offsets.append(out.count)
            out.append(0x09)
        }
        let table = out.count
        for offset in offsets { out += bigEndian(UInt64(offset)).suffix(4) }
        out += [0, 0, 0, 0, 0, 0, 4, 3]
        out += bigEndian(UInt64(objects)) + bigEndian(0) + bigEndian(UInt64(table))
        return Data(out)
    }

    /// A binary plist of `levels` arrays each holding the next one twice.
    static func doublingArrays(levels: Int) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for i in 0..<levels {
            offsets.append(out.count)
            out += [0xA2, UInt8(i + 1), UInt8(i + 1)]
        }
        offsets.append(out.count)
        out.append(0x09)
        let table = out.count
        for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 1]
        out += bigEndian(UInt64(levels + 1)) + bigEndian(0) + bigEndian(UInt64(table))
        return Data(out)
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (7 - $0))) }
    }
}

enum HostileMemoryError: Error, CustomStringConvertible {
    case noBinary
    case crashed(path: String, report: String)

    var description: String {
        switch self {
        case .noBinary: return "no trove executable"
        case let .crashed(path, report): return "trove lint \(path) did not finish normally: \(report)"
        }
    }
}
