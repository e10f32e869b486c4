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
        section("document size (mixed records)", points: sizes.map { megabytes in
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

    private static func section(_ title: String, points: [Point]) {
        print("== scaling: \(title) ==")
        // libplist beside Trove on every point: a throughput that falls for both at the same
        // point is the machine's memory hierarchy, one that falls for Trove alone is ours.
        let header = [
            "point", "binary size", "binary decode", "(libplist)", "binary encode", "(libplist)",
            "XML size", "XML decode", "(libplist)", "XML encode", "(libplist)",
        ]
        var rows: [[String]] = []
        for point in points {
            progress("scaling \(point.label)")
            do {
                let binary = try Plist.write(point.value, as: .binary)
                let xml = try Plist.write(point.value, as: .xml)
                let plain = PlistReadOptions(keepsLayout: false)
                let libplist = LibplistEngine()
                let tree = try libplist.decode(binary, format: .binary)
                rows.append([
                    point.label,
                    "\(binary.count)",
                    rate(binary.count) { _ = try Plist.read(binary, options: plain) },
                    rate(binary.count) { _ = try libplist.decode(binary, format: .binary) },
                    rate(binary.count) { _ = try Plist.write(point.value, as: .binary) },
                    // libplist's binary writer is quadratic in the object count (2 MB/s at 4 MB):
                    // at 100 MB it would run for hours, so it is timed on the smaller points only.
                    binary.count <= Self.libplistBinaryEncodeLimit
                        ? rate(binary.count) { _ = try libplist.encode(tree, format: .binary) } : "-",
                    "\(xml.count)",
                    rate(xml.count) { _ = try Plist.read(xml, options: plain) },
                    rate(xml.count) { _ = try libplist.decode(xml, format: .xml) },
                    rate(xml.count) { _ = try Plist.write(point.value, as: .xml) },
                    rate(xml.count) { _ = try libplist.encode(tree, format: .xml) },
                ])
            } catch {
                rows.append([point.label, "failed: \(error)"])
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
        print("(sizes in bytes; operations in MB/s of the document in that format, median of up to 5 runs;")
        print(" \"(libplist)\" is libplist on the same document, timed in the same run; libplist's XML")
        print(" writer keeps the dictionary's order, where Trove's sorts the keys as CoreFoundation does;")
        print(" \"-\": libplist's binary writer, quadratic in the object count, is not timed over 20 MB)")
        print()
    }

    /// MB/s of `bytes` for `body`: median of up to five runs, fewer when one run takes over a second.
    private static func rate(_ bytes: Int, _ body: () throws -> Void) -> String {
        let clock = ContinuousClock()
        var samples: [Duration] = []
        do {
            try body()  // warm-up
            while samples.count < 5 {
                let start = clock.now
                try body()
                samples.append(clock.now - start)
                if let last = samples.last, last > .seconds(1) { break }
            }
        } catch {
            return "failed"
        }
        let median = samples.sorted()[samples.count / 2]
        let seconds = Double(median.components.seconds) + Double(median.components.attoseconds) * 1e-18
        return seconds > 0 ? String(format: "%.1f", Double(bytes) / 1e6 / seconds) : "-"
    }
}
