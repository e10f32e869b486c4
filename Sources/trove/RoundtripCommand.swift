import ArgumentParser
import Foundation
import Trove

/// `trove roundtrip`: checks that files survive Trove's writers unchanged.
struct RoundtripCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundtrip",
        abstract: "Check that files come back unchanged from a rewrite and from conversion to every format.",
        discussion: """
            For each FILE: reads it; writes it back in its own format keeping its layout and checks \
            that the bytes are the input's; then writes the value in each of binary1, \
            xml1, json and openstep that can hold it, reads that back, and compares the values as \
            'trove diff' does (dictionary key order is ignored).

            A format is skipped when it cannot hold the value: XML has no null, keeps dates to the \
            whole second and writes -0.0 as 0.0 (as CoreFoundation does), and reads a one-entry \
            CF$UID dictionary as a UID; JSON needs an array or dictionary at the top, has no \
            dates, data, UIDs, NaN or infinity, and writes a real such as 3.0 as 3, which reads \
            back as an integer; OpenStep holds only strings and data. -v says which formats were \
            skipped and why. A binary file whose shared objects expand to more values than \
            --max-expanded-values (a million by default) is not converted, since a file of a few \
            hundred bytes can describe tens of millions of values.

            Prints one line per file on standard output, 'FILE: OK (binary1 xml1 json)' naming the \
            formats that made the round trip, or 'FILE: FAILED (...)' naming the checks that failed, \
            followed by indented lines that say what differed: the first differing byte of the \
            rewrite, or the value differences of a conversion (as in 'trove diff'). A file that \
            cannot be read is reported on standard error. Exit status: 0 when every file passed, 1 \
            when any failed or could not be read, 64 for a usage error.

            Examples:
              trove roundtrip Info.plist
              trove roundtrip -v *.plist
              trove roundtrip -s ~/Library/Preferences/*.plist     (only the failures)
            """
    )

    @Flag(name: [.short, .long], help: "Also say which formats were skipped and why, and how the lossless rewrite went.")
    var verbose = false

    @Flag(name: [.short, .long], help: "Print nothing for files that pass; report only failures.")
    var silent = false

    @Option(name: .customLong("max-differences"), help: "The most value differences shown per failed format.")
    var maxDifferences = 10

    @Option(
        name: .customLong("max-expanded-values"),
        help: "Skip the conversions of a binary file whose shared objects expand to more values than this.")
    var maxExpandedValues = 1_000_000

    @OptionGroup var colorOptions: ColorOptions

    @Argument(help: ArgumentHelp("The files to check; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to check.") }
        if maxDifferences < 0 { throw ValidationError("--max-differences cannot be negative.") }
        if maxExpandedValues < 1 { throw ValidationError("--max-expanded-values must be at least 1.") }
    }

    func run() throws {
        let style = colorOptions.style
        var anyFailed = false
        try forEachFile(files) { file throws(PlistError) in
            let input = try file.readData()
            let document = try Plist.read(input)
            let report = PlistRoundtripReport.check(
                document, input: input, maxExpandedValues: maxExpandedValues, maxShown: maxDifferences)
            if !report.passed { anyFailed = true }
            if report.passed && silent { return }
            try Console.write(render(report, file: file.displayName, style: style))
        }
        if anyFailed { throw ExitCode.failure }
    }

    /// The summary line and, for failures (and with -v for everything), the detail lines.
    func render(_ report: PlistRoundtripReport, file: String, style: TerminalStyle) -> String {
        let checks = [("lossless", report.lossless)] + report.conversions.map { ($0.format.rawValue, $0.outcome) }
        let passedFormats = report.conversions.filter { if case .passed = $0.outcome { true } else { false } }
            .map(\.format.rawValue)
        var text = file + ": "
        if report.passed {
            let formats = passedFormats.isEmpty ? "no conversions; see -v" : passedFormats.joined(separator: " ")
            text += style.paint("OK", .success) + " (\(formats))\n"
        } else {
            let failedChecks = checks.filter { if case .failed = $0.1 { true } else { false } }.map(\.0)
            text += style.paint("FAILED", .failure) + " (\(failedChecks.joined(separator: " ")))"
            if !passedFormats.isEmpty { text += ", OK (\(passedFormats.joined(separator: " ")))" }
            text += "\n"
        }
        for (name, outcome) in checks {
            switch outcome {
            case .passed:
                if verbose && name == "lossless" { text += "  lossless: the rewrite reproduces the input byte for byte\n" }
            case .skipped(let reason):
                if verbose { text += "  \(name): skipped: \(reason)\n" }
            case .failed(let reason, let differences, let total):
                text += "  \(name): " + style.paint(Console.singleLine(reason), .failure) + "\n"
                for difference in differences {
                    text += "    " + DiffCommand.line(difference, style: style) + "\n"
                }
                if total > differences.count {
                    text += "    … and \(total - differences.count) more\n"
                }
            }
        }
        return text
    }
}
