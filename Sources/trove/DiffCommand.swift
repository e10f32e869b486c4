import ArgumentParser
import Foundation
import Trove

/// `trove diff`: the structural differences between two property lists, in any formats.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show how two property lists differ, value by value.",
        discussion: """
            Compares the values of FILE1 and FILE2, which may be in any formats (XML, binary, JSON, \
            OpenStep; each detected from its content), and prints one line per difference:

              - KEYPATH: VALUE          only in FILE1 (removed)
              + KEYPATH: VALUE          only in FILE2 (added)
              ~ KEYPATH: OLD -> NEW     different (a change of type is a change)

            KEYPATH is in plutil's key-path syntax ('Window.Frame.0', with '\\.' for a dot inside a \
            key); the root itself is '(root)'. Values are on one line: strings quoted, dates in ISO \
            8601 (UTC), data as <hex>, UIDs as UID(n); long values are cut off with '…'.

            Dictionary key order is ignored: two dictionaries with the same entries are equal. \
            Arrays are compared index by index. Numbers compare by exact value, so 1 (integer) and \
            1.0 (real) differ, while a 32-bit and a 64-bit real of the same value do not. Lines come \
            in key order (by UTF-16 code units), whatever the order in either file.

            Exit status, as for diff(1) and cmp(1): 0 when the values are equal, 1 when they \
            differ, 2 when either file cannot be read (the error goes to standard error), 64 for a \
            usage error. On a terminal the lines are colored; see --color.

            Examples:
              trove diff Info.plist build/Info.plist
              trove diff -q old.plist new.plist && echo same
              trove convert xml1 -o - prefs.plist | trove diff prefs.plist -
            """
    )

    @Flag(name: [.short, .long], help: "Print nothing; only the exit status tells whether the files differ.")
    var quiet = false

    @Flag(
        name: .customLong("format-sensitive"),
        help: "Also count it as a difference when the two files are in different formats (xml1, binary1, json, openstep).")
    var formatSensitive = false

    @OptionGroup var colorOptions: ColorOptions

    @Argument(help: ArgumentHelp("The older file; '-' reads standard input.", valueName: "file1"))
    var oldFile: String

    @Argument(help: ArgumentHelp("The newer file; '-' reads standard input.", valueName: "file2"))
    var newFile: String

    func validate() throws {
        if oldFile == InputFile.standardInputPath && newFile == InputFile.standardInputPath {
            throw ValidationError("Only one of the two files can be '-' (standard input).")
        }
    }

    func run() throws {
        let old = try Self.read(oldFile)
        let new = try Self.read(newFile)
        let formatsDiffer = formatSensitive && old.format != new.format
        let differences = new.value.differenceSequence(from: old.value)
        if quiet {
            var iterator = differences.makeIterator()
            if formatsDiffer || iterator.next() != nil { throw ExitCode(1) }
            return
        }
        let style = colorOptions.style
        var anyDifference = formatsDiffer
        // Lines go out in batches as they are found, so memory does not grow with their number.
        var batch = ""
        if formatsDiffer {
            batch += style.paint("~", .changed) + " " + style.paint("(format)", .path) + ": "
                + "\(old.format.rawValue) -> \(new.format.rawValue)\n"
        }
        for difference in differences {
            anyDifference = true
            batch += Self.line(difference, style: style) + "\n"
            if batch.utf8.count >= 1 << 16 { try Self.flush(&batch) }
        }
        try Self.flush(&batch)
        if anyDifference { throw ExitCode(1) }
    }

    /// Writes the lines gathered so far; a failed write ends the command with status 2.
    private static func flush(_ batch: inout String) throws(ExitCode) {
        guard !batch.isEmpty else { return }
        do {
            try Console.write(batch)
        } catch {
            Console.reportFailure(error, file: "<stdout>")
            throw ExitCode(2)
        }
        batch = ""
    }

    /// Reads one side; an unreadable file ends the command with status 2, as in diff(1).
    private static func read(_ path: String) throws(ExitCode) -> PlistDocument {
        let file = InputFile(path: path)
        do {
            return try file.readDocument(keepingLayout: false)
        } catch {
            Console.reportFailure(error, file: file.displayName)
            throw ExitCode(2)
        }
    }

    /// `- path: value`, `+ path: value` or `~ path: old -> new`.
    static func line(_ difference: PlistDifference, style: TerminalStyle) -> String {
        let path = style.paint(displayPath(difference.keyPath), .path)
        switch difference.change {
        case .removed(let value):
            return style.paint("-", .removed) + " " + path + ": " + OneLineFormatter.render(value, style: style)
        case .added(let value):
            return style.paint("+", .added) + " " + path + ": " + OneLineFormatter.render(value, style: style)
        case .changed(let old, let new):
            return style.paint("~", .changed) + " " + path + ": " + OneLineFormatter.render(old, style: style)
                + " -> " + OneLineFormatter.render(new, style: style)
        }
    }

    /// The key path in plutil's syntax, `(root)` for the root, and made safe for a terminal.
    static func displayPath(_ keyPath: PlistKeyPath) -> String {
        if keyPath.components.isEmpty { return "(root)" }
        // A key with a line break or an escape sequence in it must not break the line or drive
        // the terminal; such keys are rare enough that quoting them is clearer than escaping.
        let text = keyPath.description
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return text
        }
        return OneLineFormatter.quoted(text)
    }
}
