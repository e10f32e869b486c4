import ArgumentParser
import Trove

/// `trove print`: plutil's `-p`.
struct PrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print property lists in plutil -p's human-readable layout.",
        discussion: """
            The layout is the one 'plutil -p' uses: dictionary keys sorted as plutil sorts them \
            (case-insensitive, numbers by value), '"key" => value' lines indented by two spaces per \
            level, array elements numbered, dates as 'yyyy-MM-dd HH:mm:ss +0000' and data as \
            '{length = N, bytes = 0x...}'. Like plutil's, this output is for people, not programs.

            Differences from plutil 6.3.1: data bytes are printed as two hex digits each (plutil \
            drops leading zeros and skips bytes of long data); data longer than 24 bytes shows its \
            first 16 and last 8 bytes as CoreFoundation does; dates outside the years 0 to 4001 \
            are printed instead of '<description unavailable>'; a date before 1970 with a fraction \
            of a second is rounded down like every other date, not toward 1970; keyed-archive UIDs \
            print as '<CFKeyedArchiverUID>{value = N}' instead of a memory address.

            On a terminal the output is colored (keys, strings, numbers, booleans, dates, data \
            and brackets each in their own color) and every value carries a dim note: its type \
            after a scalar ('(integer)', '(date)'), its size after a bracket ('(3 items)', \
            '(2 keys)'); control characters in strings are shown as escapes. Piped or redirected \
            output, or --no-color, or a non-empty NO_COLOR environment variable, gives exactly \
            plutil's text; --color forces the colored form.

            --normalized prints a stable text for tools that compare text, such as 'git diff' \
            through a textconv driver: the same value always prints the same text, whatever the \
            file's format, key order or layout, and different values print differently. Keys are \
            sorted by UTF-16 code units (not by locale); strings are quoted with escapes, so a \
            line break inside a string never breaks the line; reals always show their exact \
            64-bit value with a fraction or exponent (3.0); dates are ISO 8601 in UTC with any \
            fraction of a second; data is written in full as hex, 32 bytes per line; UIDs are \
            UID(n) and null is null. Array elements carry no index, so an inserted element is one \
            added block in a line diff. Never colored.

              git config diff.plist.textconv 'trove print --normalized'
              echo '*.plist diff=plist' >> .gitattributes

            Examples:
              trove print Info.plist
              trove print --normalized Settings.plist
              trove print - < Settings.plist
              trove print --color Info.plist | less -R
            """
    )

    @Flag(
        name: [.customLong("normalized"), .customLong("sorted")],
        help: "Print a stable, sorted text for diffs: the same value always prints the same text (see below).")
    var normalized = false

    @OptionGroup var colorOptions: ColorOptions

    @Argument(help: ArgumentHelp("The files to print; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to print.") }
    }

    func run() throws {
        let style = colorOptions.style
        try forEachFile(files) { file throws(PlistError) in
            let document = try file.readDocument(keepingLayout: false)
            if normalized {
                try Console.write(NormalizedFormatter.render(document.value))
            } else {
                try Console.write(HumanReadableFormatter.render(document.value, style: style))
            }
        }
    }
}
