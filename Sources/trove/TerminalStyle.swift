import Trove
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a command paints the text it prints: plain, or with ANSI colors for a terminal.
///
/// The formatters build the same text either way and ask the style to paint each piece, so the
/// layout exists once and plain output stays byte-identical to plutil's.
struct TerminalStyle: Sendable {
    /// What a piece of text is, which decides its color.
    enum Role: Sendable {
        /// A dictionary key.
        case key
        /// An array index.
        case index
        case string, number, bool, date, data, uid, null
        /// Brackets, braces and `=>`.
        case structure
        /// Type and size notes that only the colored layout shows.
        case annotation
        /// A key path in a report line.
        case path
        /// Markers of a difference: present only in the new value, only in the old, or changed.
        case added, removed, changed
        /// A failure in a report line.
        case failure
        /// A success in a report line.
        case success
    }

    /// True when text is painted and annotations are shown.
    let isColored: Bool

    /// Plain text, exactly as plutil prints it.
    static let plain = TerminalStyle(isColored: false)
    /// ANSI colors and type annotations.
    static let colored = TerminalStyle(isColored: true)

    /// The style to use for standard output: colored when `--color` is given, plain when
    /// `--no-color` is given; otherwise colored only when standard output is a terminal, the
    /// `NO_COLOR` convention (no-color.org) is not in force and `TERM` is not `dumb`.
    static func forStandardOutput(colorChoice: Bool?, environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalStyle {
        if let colorChoice { return colorChoice ? .colored : .plain }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if environment["TERM"] == "dumb" { return .plain }
        return isatty(STDOUT_FILENO) == 1 ? .colored : .plain
    }

    /// `text` wrapped in the escape sequence of `role`, or unchanged when plain.
    func paint(_ text: String, _ role: Role) -> String {
        guard isColored, !text.isEmpty else { return text }
        return "\u{1B}[\(Self.sgr(role))m\(text)\u{1B}[0m"
    }

    /// A dim ` (note)` after a value, or nothing when plain.
    func annotation(_ note: String) -> String {
        isColored ? " " + paint("(\(note))", .annotation) : ""
    }

    /// Text from the file made safe for a terminal: when colored, control characters (which
    /// could move the cursor or change colors) are shown as escapes. Plain text is unchanged, so
    /// piped output is exactly plutil's.
    func visible(_ text: String) -> String {
        isColored ? DisplayEscaping.escapingControlCharacters(text) : text
    }

    /// The Select Graphic Rendition parameters of each role; only the eight basic colors, which
    /// every terminal shows and themes adapt.
    private static func sgr(_ role: Role) -> String {
        switch role {
        case .key: return "1;34"  // bold blue
        case .index: return "34"  // blue
        case .string: return "32"  // green
        case .number: return "36"  // cyan
        case .bool: return "33"  // yellow
        case .date: return "35"  // magenta
        case .data: return "33"  // yellow, as bytes are literal values like booleans
        case .uid: return "35"  // magenta
        case .null: return "2"  // dim
        case .structure: return "1"  // bold
        case .annotation: return "2"  // dim
        case .path: return "1"  // bold
        case .added: return "32"  // green
        case .removed: return "31"  // red
        case .changed: return "33"  // yellow
        case .failure: return "1;31"  // bold red
        case .success: return "32"  // green
        }
    }
}

/// `--color` / `--no-color`, shared by the commands that color their output.
struct ColorOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo, exclusivity: .chooseLast,
        help: ArgumentHelp(
            "Color the output (--color) or not (--no-color). By default output is colored only on a terminal, and never when the NO_COLOR environment variable is set."
        ))
    var color: Bool? = nil

    /// The style for standard output under these options and the environment.
    var style: TerminalStyle { TerminalStyle.forStandardOutput(colorChoice: color) }
}
