import Foundation

/// Renders the results as a plain-text table that reads well in a terminal and in a report.
struct Report {
    /// Engine columns in order; the first is "ours", the one the ratios are about.
    let engines: [String]
    /// Engines the ratio columns compare "ours" against.
    let peers: [String]
    let showsMemory: Bool

    func table(_ results: [OperationResult]) -> String {
        guard let ours = engines.first else { return "" }
        var header = ["case", "operation", "size"]
        header += engines.map { "\($0) MB/s" }
        header += peers.map { "\(ours)/\($0)" }
        if showsMemory { header += engines.map { "\($0) +MiB" } }

        var rows: [[String]] = []
        var previousCase = ""
        for result in results {
            var row = [result.caseName == previousCase ? "" : result.caseName, result.operation, size(result.bytesPerRun)]
            previousCase = result.caseName
            for engine in engines {
                switch result.outcomes[engine] {
                case .measured?: row.append(result.throughput(engine).map(throughput) ?? "?")
                case .failed?: row.append("fail")
                case nil: row.append("-")
                }
            }
            for peer in peers {
                if let mine = result.throughput(ours), let theirs = result.throughput(peer), theirs > 0 {
                    row.append(String(format: "%.2fx", mine / theirs))
                } else {
                    row.append("-")
                }
            }
            if showsMemory {
                for engine in engines {
                    row.append(result.memory[engine].map { String(format: "%.1f", Double($0.peakKiB) / 1024) } ?? "-")
                }
            }
            rows.append(row)
        }
        return render(header: header, rows: rows, leftAligned: 2)
    }

    /// Geometric means of the ratios per operation, over the cases where both engines ran.
    func summary(_ results: [OperationResult]) -> String {
        guard let ours = engines.first else { return "" }
        var operations: [String] = []
        for result in results where !operations.contains(result.operation) { operations.append(result.operation) }
        var rows: [[String]] = []
        for operation in operations {
            var row = [operation]
            for peer in peers {
                let ratios = results.filter { $0.operation == operation }.compactMap { result -> Double? in
                    guard let mine = result.throughput(ours), let theirs = result.throughput(peer), mine > 0, theirs > 0 else { return nil }
                    return mine / theirs
                }
                if ratios.isEmpty {
                    row.append("-")
                } else {
                    let mean = exp(ratios.map { log($0) }.reduce(0, +) / Double(ratios.count))
                    row.append(String(format: "%.2fx (%d cases)", mean, ratios.count))
                }
            }
            rows.append(row)
        }
        return render(header: ["operation"] + peers.map { "geomean \(ours)/\($0)" }, rows: rows, leftAligned: 1)
    }

    /// Decoding's working memory: each decode's peak apart from the decoded values it produced,
    /// as a multiple of the input's size. This is the figure the memory target bounds (a decode of
    /// N bytes peaks under 4·N plus the decoded values), which the peak alone cannot show, since
    /// the values of a small input can outweigh it many times over.
    func decodeWorkingMemory(_ results: [OperationResult]) -> String? {
        let decodes = results.filter { $0.operation.hasSuffix("decode") && $0.memory.values.contains { $0.retainedKiB != nil } }
        guard !decodes.isEmpty else { return nil }
        var header = ["case", "operation", "size"]
        for engine in engines { header += ["\(engine) values MiB", "\(engine) work/N"] }
        var rows: [[String]] = []
        var previousCase = ""
        for result in decodes {
            var row = [result.caseName == previousCase ? "" : result.caseName, result.operation, size(result.bytesPerRun)]
            previousCase = result.caseName
            for engine in engines {
                if let use = result.memory[engine], let retained = use.retainedKiB, let working = use.workingKiB {
                    row.append(String(format: "%.1f", Double(retained) / 1024))
                    row.append(String(format: "%.2f", Double(working) * 1024 / Double(max(result.bytesPerRun, 1))))
                } else {
                    row += ["-", "-"]
                }
            }
            rows.append(row)
        }
        return render(header: header, rows: rows, leftAligned: 2)
    }

    /// Failure messages, so that a "fail" cell can be explained.
    func failures(_ results: [OperationResult]) -> [String] {
        results.flatMap { result in
            engines.compactMap { engine -> String? in
                guard case .failed(let message)? = result.outcomes[engine] else { return nil }
                return "\(result.caseName) \(result.operation) \(engine): \(message)"
            }
        }
    }

    private func size(_ bytes: Int) -> String {
        if bytes >= 1_000_000 { return String(format: "%.1f MB", Double(bytes) / 1e6) }
        if bytes >= 1_000 { return String(format: "%.1f KB", Double(bytes) / 1e3) }
        return "\(bytes) B"
    }

    private func throughput(_ megabytesPerSecond: Double) -> String {
        megabytesPerSecond >= 100 ? String(format: "%.0f", megabytesPerSecond) : String(format: "%.1f", megabytesPerSecond)
    }

    private func render(header: [String], rows: [[String]], leftAligned: Int) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index < leftAligned ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
