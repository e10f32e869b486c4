import ArgumentParser
import Trove

/// The `trove` command: plutil's everyday verbs over Trove's readers and writers.
@main
struct TroveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trove",
        abstract: "Check, convert, print, query and edit property lists exactly as Apple's Foundation reads and writes them.",
        discussion: """
            Reads XML (xml1), binary (binary1), JSON and OpenStep property lists; the format of an \
            input is always detected from its content, never from its file name. A FILE of '-' \
            means standard input.

            plutil users: 'plutil -lint F' is 'trove lint F' (or just 'trove F'), \
            'plutil -convert xml1 F' is 'trove convert xml1 F' or 'trove convert -f xml1 F', \
            'plutil -p F' is 'trove print F', and -type, -extract, -insert, -replace, -remove and \
            -create are the verbs type, extract, insert, replace, remove and create. plutil's own \
            spellings of these verbs (-lint, -convert, -p, -type, -help, ...) and of their options \
            (-integer 5, -append, -expect) are accepted too, so 'trove -convert xml1 -o - F' works.

            Exit status: 0 when every file succeeded, 1 when any file failed, 64 for a usage error.

            Examples:
              trove lint Info.plist prefs.plist
              trove convert --format binary1 Settings.plist
              trove convert xml1 -o - Settings.plist
              trove print Settings.plist
              trove extract Window.Frame raw Settings.plist
              trove insert Window.Width --integer 1024 Settings.plist
            """,
        version: "0.1.0",
        subcommands: [
            LintCommand.self, ConvertCommand.self, PrintCommand.self, TypeCommand.self, ExtractCommand.self,
            InsertCommand.self, ReplaceCommand.self, RemoveCommand.self, CreateCommand.self,
            DiffCommand.self, MergeCommand.self, RoundtripCommand.self, DefaultsCommand.self, ArchiveCommand.self,
        ],
        defaultSubcommand: LintCommand.self
    )

    /// The verb for one of plutil's verb flags, accepted in first position so that `trove` can
    /// stand in for plutil in existing scripts for the verbs it has.
    static func verb(forPlutilFlag flag: String) -> String? {
        switch flag {
        case "-lint": "lint"
        case "-convert": "convert"
        case "-p": "print"
        case "-help": "--help"
        case "-type": "type"
        case "-extract": "extract"
        case "-insert": "insert"
        case "-replace": "replace"
        case "-remove": "remove"
        case "-create": "create"
        default: nil
        }
    }

    /// Translates a plutil-style verb, then runs the command as usual. Commands run on the main
    /// thread; only a directory conversion starts the concurrency runtime's threads (see
    /// ``BatchConversion``), so a one-file run does not pay for them. A plain `convert` command
    /// line (see ``ConvertRequest/init(plainCommandLine:)``) that passes validation runs without
    /// ArgumentParser's parse; its errors are reported by ArgumentParser as they would be after
    /// its parse, and any other command line, or one that fails validation, goes through it.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first, let verb = verb(forPlutilFlag: first) { arguments[0] = verb }
        if let request = ConvertRequest(plainCommandLine: arguments), (try? request.validate()) != nil {
            do {
                try request.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        main(arguments)
    }
}
