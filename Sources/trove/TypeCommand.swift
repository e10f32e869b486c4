import ArgumentParser
import Trove

/// `trove type`: plutil's `-type`.
struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: "Print the type of the value at a key path.",
        discussion: """
            Prints one of bool, integer, float, string, date, data, dictionary or array (and uid or \
            null for the keyed-archive values only binary files hold), as 'plutil -type' does. A \
            key path is keys separated by '.', with '\\.' for a dot inside a key; a number indexes \
            an array. A path that names no value is an error (exit status 1) with plutil's message. \
            Unlike plutil 6.3.1, which refuses keyed archives ("Dictionaries are required to have \
            string keys"), trove answers for them too.

            Examples:
              trove type Window.Frame Preferences.plist
              trove type -n RecentDocuments.0 Preferences.plist
            """
    )

    @Flag(name: [.customShort("n")], help: "Do not print a newline after the type.")
    var noNewline = false

    @Argument(help: ArgumentHelp("The key path, in plutil's syntax.", valueName: "keypath"))
    var keyPath: String

    @Argument(help: ArgumentHelp("The files to look in; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to look in.") }
    }

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try forEachFile(files) { file throws(PlistError) in
            let document = try file.readDocument(keepingLayout: false)
            let value = try KeyPathEditing.value(at: path, in: document.value)
            try Console.write(value.kind.plutilName + (noNewline ? "" : "\n"))
        }
    }
}
