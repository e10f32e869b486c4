import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one-line progress bar a batch conversion shows on a terminal, redrawn in place on
/// standard error:
///
///     [##########..........]  42/84 files  1.2 MB  3.4 MB/s
///
/// Lines printed while the bar is up (failures, `-v` lines) are printed over it, and the bar is
/// drawn again below them. When disabled (standard error is not a terminal, or `-s`), the bar is
/// never drawn and lines are printed as they come.
struct ProgressDisplay {
    let total: Int
    let isEnabled: Bool
    private var isVisible = false
    private var lastDrawn: ContinuousClock.Instant?

    /// Redraws at most this often, so that thousands of small files do not flood the terminal.
    private static let redrawInterval = Duration.milliseconds(100)
    private static let barWidth = 20

    init(total: Int, isEnabled: Bool) {
        self.total = total
        self.isEnabled = isEnabled
    }

    /// True when standard error is a terminal that can redraw a line.
    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// Shows the state after `done` files; skipped when the last redraw was very recent, unless
    /// `force` is set.
    mutating func update(done: Int, bytesRead: Int, elapsed: Duration, force: Bool = false) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < Self.redrawInterval { return }
        lastDrawn = now
        let line = Self.fitted(Self.barLine(done: done, total: total, bytesRead: bytesRead, elapsed: elapsed))
        Self.writeToStandardError("\r\u{1B}[K" + line)
        isVisible = true
    }

    /// Prints a whole line above the bar.
    mutating func printLine(_ line: String) {
        clear()
        Self.writeToStandardError(line + "\n")
        // Drawn again by the next update, whatever its timing.
        lastDrawn = nil
    }

    /// Removes the bar, leaving the cursor at the start of an empty line.
    mutating func clear() {
        guard isVisible else { return }
        Self.writeToStandardError("\r\u{1B}[K")
        isVisible = false
    }

    /// The bar's text, without control characters.
    static func barLine(done: Int, total: Int, bytesRead: Int, elapsed: Duration) -> String {
        let filled = total > 0 ? min(barWidth, done * barWidth / total) : barWidth
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let seconds = elapsed.secondsValue
        let rate = seconds > 0 ? ByteCountText.format(Int((Double(bytesRead) / seconds).rounded())) + "/s" : "-"
        return "[\(bar)]  \(done)/\(total) files  \(ByteCountText.format(bytesRead))  \(rate)"
    }

    /// The line cut to the terminal's width, so that it never wraps (a wrapped line cannot be
    /// redrawn in place).
    private static func fitted(_ line: String) -> String {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 1 else { return line }
        let columns = Int(size.ws_col) - 1
        return line.count > columns ? String(line.prefix(columns)) : line
    }

    private static func writeToStandardError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}

/// Byte counts for people: `512 bytes`, `1.2 kB`, `3.4 MB` (decimal units, one decimal place).
enum ByteCountText {
    static func format(_ count: Int) -> String {
        if count == 1 { return "1 byte" }
        if count < 1000 { return "\(count) bytes" }
        var value = Double(count) / 1000
        for unit in ["kB", "MB", "GB", "TB"] {
            if value < 999.95 || unit == "TB" { return String(format: "%.1f", value) + " " + unit }
            value /= 1000
        }
        return "\(count) bytes"
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
