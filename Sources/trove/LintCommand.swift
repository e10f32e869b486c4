import ArgumentParser
import Trove

/// `trove lint`: plutil's `-lint`.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check that files are valid property lists.",
        discussion: """
            Prints 'FILE: OK' on standard output for each valid file and 'FILE: <error>' on \
            standard error for each invalid one. The error says the format, where the problem is \
            (a byte offset for binary files, line:column for XML) and what was wrong. Exits with \
            status 1 if any file is invalid. This is the default command: 'trove FILE' lints FILE.

            Examples:
              trove lint Info.plist
              trove lint -s *.plist            (print only the failures)
              cat Info.plist | trove lint -
            """
    )

    @Flag(name: [.short, .long], help: "Print nothing for valid files; report only failures.")
    var silent = false

    @Argument(help: ArgumentHelp("The files to check; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to check.") }
    }

    func run() throws {
        try forEachFile(files, report: { error, file in
            Console.reportLine(Console.describe(error, file: file.displayName))
        }) { file throws(PlistError) in
            _ = try file.readDocument(keepingLayout: false)
            if !silent { try Console.write("\(file.displayName): OK\n") }
        }
    }
}
