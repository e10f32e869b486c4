import Foundation
import Trove

/// `--scaling`: how Trove's time grows with document size, nesting depth and dictionary size,
/// with libplist's beside it.
///
/// Each point is generated, written in both formats, and timed for the four document operations
/// (median of a few runs; one run for the largest), by Trove and by libplist. Throughput that
/// stays flat down a column means linear cost; a figure that falls for Trove but not for
/// libplist points at a super-linear step of ours.
enum Scaling {
    struct Point {
        let label: String
        let value: PlistValue
    }

    static func run(quick: Bool) {
        let generator = CorpusGenerator()
        // mixedRecords(count: 850) is ~1 MB of XML.
        let sizes = quick ? [1, 10] : [1, 10, 100]
        section("document size (mixed records)", showsExcessOverLinear: true, points: sizes.map { megabytes in
            Point(label: "\(megabytes) MB XML", value: generator.mixedRecords(count: 850 * megabytes))
        })
        let depths = [10, 100, 400]
        section("nesting depth (alternating dictionaries and arrays)", points: depths.map { depth in
            Point(label: "depth \(depth)", value: generator.deepNesting(depth: depth))
        })
        let widths = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000]
        section("dictionary size (one dictionary)", points: widths.map { count in
            Point(label: "\(count) keys", value: generator.wideDictionary(count: count))
        })
    }

    /// The largest binary document libplist's binary writer is timed on.
    static let libplistBinaryEncodeLimit = 20_000_000

    private static func section(_ title: String, showsExcessOverLinear: Bool = false, points: [Point]) {
        print("== scaling: \(title) ==")
        // libplist beside Trove on every point: a throughput that falls for both at the same
        // point is the machine's memory hierarchy, one that falls for Trove alone is ours.
        let header = [
            "point", "binary size", "binary decode", "(libplist)", "binary encode", "(libplist)",
            "XML size", "XML decode", "(libplist)", "XML encode", "(libplist)",
        ]
        var rows: [[String]] = []
        // Seconds per operation and the document's size in bytes at each point, by column, for
        // the excess over linear below.
        var measured: [(seconds: [Double?], sizes: [Int])] = []
        for point in points {
            progress("scaling \(point.label)")
            do {
                let binary = try Plist.write(point.value, as: .binary)
                let xml = try Plist.write(point.value, as: .xml)
                let plain = PlistReadOptions(keepsLayout: false)
                let libplist = LibplistEngine()
                let tree = try libplist.decode(binary, format: .binary)
                let timed: [Double?] = [
                    time { try Plist.read(binary, options: plain) },
                    time { try libplist.decode(binary, format: .binary) },
                    time { try Plist.write(point.value, as: .binary) },
                    // libplist's binary writer is quadratic in the object count (2 MB/s at 4 MB):
                    // at 100 MB it would run for hours, so it is timed on the smaller points only.
                    binary.count <= Self.libplistBinaryEncodeLimit ? time { try libplist.encode(tree, format: .binary) } : nil,
                    time { try Plist.read(xml, options: plain) },
                    time { try libplist.decode(xml, format: .xml) },
                    time { try Plist.write(point.value, as: .xml) },
                    time { try libplist.encode(tree, format: .xml) },
                ]
                let sizes = [binary.count, binary.count, binary.count, binary.count, xml.count, xml.count, xml.count, xml.count]
                measured.append((timed, sizes))
                let rates = zip(timed, sizes).map { time, size in time.map { rate(size, $0) } ?? "-" }
                rows.append([point.label, "\(binary.count)"] + rates[0..<4] + ["\(xml.count)"] + rates[4..<8])
            } catch {
                rows.append([point.label, "failed: \(error)"])
                measured.append(([], []))
            }
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        print(line(header))
        for row in rows { print(line(row)) }
        print("(sizes in bytes; operations in MB/s of the document in that format, median of up to 5 runs,")
        print(" each result released after the clock stops, as the comparison times them;")
        print(" \"(libplist)\" is libplist on the same document, timed in the same run; libplist's XML")
        print(" writer keeps the dictionary's order, where Trove's sorts the keys as CoreFoundation does;")
        print(" \"-\": libplist's binary writer, quadratic in the object count, is not timed over 20 MB)")
        if showsExcessOverLinear, let excess = excessOverLinear(measured, points: points) { print(excess) }
        print()
    }

    /// How much longer each operation took at the largest point than the smallest point's time
    /// scaled to the larger document's size in that format, in milliseconds and as a part of its
    /// time, for Trove and libplist side by side. Instruction counts tell an algorithm's excess
    /// from the memory's (Benchmarks/README.md, "Profiling").
    private static func excessOverLinear(_ measured: [(seconds: [Double?], sizes: [Int])], points: [Point]) -> String? {
        guard let first = measured.first, let last = measured.last, points.count >= 2,
              first.seconds.count == 8, last.seconds.count == 8 else { return nil }
        let names = ["binary decode", "binary encode", "XML decode", "XML encode"]
        var lines = ["excess over linear, \(points.last!.label) against \(points.first!.label) scaled (trove | libplist):"]
        for (k, name) in names.enumerated() {
            func excess(_ column: Int) -> String {
                guard let t1 = first.seconds[column], let tn = last.seconds[column] else { return "-" }
                let linear = t1 * Double(last.sizes[column]) / Double(first.sizes[column])
                return String(format: "%+.0f ms (%+.0f%%)", (tn - linear) * 1000, (tn - linear) / tn * 100)
            }
            lines.append("  \(name): \(excess(2 * k)) | \(excess(2 * k + 1))")
        }
        return lines.joined(separator: "\n")
    }

    /// Seconds per run of `body`: the median of up to five runs, fewer when one run takes over a
    /// second. What it returns is released after the clock stops; nil when it fails.
    private static func time(_ body: () throws -> Any) -> Double? {
        let clock = ContinuousClock()
        var samples: [Duration] = []
        do {
            withExtendedLifetime(try body()) {}  // warm-up
            while samples.count < 5 {
                let start = clock.now
                let produced = try body()
                samples.append(clock.now - start)
                withExtendedLifetime(produced) {}
                if let last = samples.last, last > .seconds(1) { break }
            }
        } catch {
            return nil
        }
        let median = samples.sorted()[samples.count / 2]
        return Double(median.components.seconds) + Double(median.components.attoseconds) * 1e-18
    }

    /// MB/s of `bytes` done in `seconds`.
    private static func rate(_ bytes: Int, _ seconds: Double) -> String {
        seconds > 0 ? String(format: "%.1f", Double(bytes) / 1e6 / seconds) : "-"
    }
}
