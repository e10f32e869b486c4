import ArgumentParser
import Trove

/// `trove remove`: plutil's `-remove`.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove the value at a key path.",
        discussion: """
            Removes a dictionary entry, or an array element (the elements after it move up). A key \
            path that names no value is an error with plutil's message. Every file is rewritten in \
            its own format, in place unless -o is given; the parts of the file that were not edited \
            keep their bytes, the write is atomic, and on any error the input is left untouched.

            Examples:
              trove remove Window.Frame Preferences.plist
              trove remove RecentDocuments.0 -o - Preferences.plist
            """
    )

    @Argument(help: ArgumentHelp("The key path, in plutil's syntax.", valueName: "keypath"))
    var keyPath: String

    @OptionGroup var output: EditOutputOptions

    @Argument(help: ArgumentHelp("The files to change; '-' reads standard input and writes standard output.", valueName: "file"))
    var files: [String] = []

    func validate() throws { try output.validate(files: files) }

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try output.edit(files) { root throws(PlistError) in
            try root.removeValue(at: path)
        }
    }
}
