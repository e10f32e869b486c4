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
            let target = try file.value(at: path)
            try Console.write(target.kind.plutilName + (noNewline ? "" : "\n"))
        }
    }
}

/// The value at a key path of one input file, as `type` and `extract` find it.
enum KeyPathTarget {
    /// A value of a binary plist, found without decoding anything off the path to it.
    case node(LazyPlistNode)
    /// A value of a document in another format, which was decoded whole.
    case value(PlistValue)

    /// The value's kind, known without decoding it.
    var kind: PlistValue.Kind {
        switch self {
        case .node(let node): return node.kind
        case .value(let value): return value.kind
        }
    }

    /// The value itself; a binary plist decodes this subtree only.
    func materialize() throws(PlistError) -> PlistValue {
        switch self {
        case .node(let node): return try node.materialize()
        case .value(let value): return value
        }
    }
}

extension InputFile {
    /// The value at `path`, or plutil's error when there is none.
    ///
    /// The file is read into memory (not mapped, so that a file truncated meanwhile fails the
    /// command instead of crashing it). A binary plist is then decoded lazily: only its trailer
    /// and the objects on the path are decoded, so asking about one key of a 100 MB file costs
    /// reading it, not decoding it. Other formats are decoded whole, as
    /// ``readDocument(keepingLayout:)`` decodes them. Either way the answer for a valid file is
    /// the same.
    func value(at path: PlistKeyPath) throws(PlistError) -> KeyPathTarget {
        let file = try readContents()
        guard PlistFormat.detect(file.bytes) == .binary else {
            let document = try Plist.read(bytes: file.bytes, options: PlistReadOptions(keepsLayout: false))
            return .value(try document.value.value(at: path))
        }
        guard let node = try LazyBinaryPlist(source: file).node(at: path) else {
            throw PlistError.noValue(at: path)
        }
        return .node(node)
    }
}
