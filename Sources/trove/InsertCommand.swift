import ArgumentParser
import Foundation
import Trove

/// The value `insert` and `replace` put in, given plutil-style as one `--TYPE VALUE` option.
struct NewValueOptions: ParsableArguments {
    @Option(name: .plutil("bool"), parsing: .unconditional, help: ArgumentHelp("A boolean: YES or true (any case) is true, anything else false.", valueName: "value"))
    var bool: String?

    @Option(name: .plutil("integer"), parsing: .unconditional, help: ArgumentHelp("A decimal integer from -2^63 to 2^64-1.", valueName: "value"))
    var integer: String?

    @Option(name: .plutil("float"), parsing: .unconditional, help: ArgumentHelp("A finite decimal number.", valueName: "value"))
    var float: String?

    @Option(name: .plutil("string"), parsing: .unconditional, help: ArgumentHelp("A string, taken as it is.", valueName: "value"))
    var string: String?

    @Option(name: .plutil("date"), parsing: .unconditional, help: ArgumentHelp("A date as XML property lists write it, e.g. 2024-03-09T18:45:00Z.", valueName: "value"))
    var date: String?

    @Option(name: .plutil("data"), parsing: .unconditional, help: ArgumentHelp("Bytes in base64 (white space is ignored).", valueName: "value"))
    var data: String?

    @Option(name: .plutil("xml"), parsing: .unconditional, help: ArgumentHelp("A property list, for compound values; the <plist> wrapper may be left out.", valueName: "value"))
    var xml: String?

    @Option(name: .plutil("json"), parsing: .unconditional, help: ArgumentHelp("A JSON value, for compound values (null has no property-list form).", valueName: "value"))
    var json: String?

    @Flag(name: .plutil("dictionary"), help: "An empty dictionary (takes no value).")
    var dictionary = false

    @Flag(name: .plutil("array"), help: "An empty array (takes no value).")
    var array = false

    /// How many types were given; exactly one is needed.
    private var typeCount: Int {
        [bool, integer, float, string, date, data, xml, json].compactMap { $0 }.count
            + (dictionary ? 1 : 0) + (array ? 1 : 0)
    }

    func validate() throws {
        if typeCount != 1 {
            throw ValidationError(
                "Give exactly one value: --bool, --integer, --float, --string, --date, --data, --xml or --json "
                    + "with its value, or --dictionary or --array.")
        }
        _ = try value()
    }

    /// The value the options describe. A value that does not parse is a usage error: unlike
    /// plutil, which quietly inserts 0 for `--integer abc`, nothing is written.
    func value() throws(ValidationError) -> PlistValue {
        if let bool { return .bool(["yes", "true"].contains(bool.lowercased())) }
        if let integer { return try NewValueParsing.integer(integer) }
        if let float { return try NewValueParsing.real(float) }
        if let string { return .string(string) }
        if let date { return try NewValueParsing.date(date) }
        if let data { return try NewValueParsing.data(data) }
        if let xml { return try NewValueParsing.propertyList(xml) }
        if let json { return try NewValueParsing.json(json) }
        return dictionary ? .dictionary(PlistDictionary()) : .array([])
    }
}

extension NameSpecification {
    /// `--NAME`, and plutil's `-NAME` too.
    static func plutil(_ name: String) -> NameSpecification {
        [.customLong(name), .customLong(name, withSingleDash: true)]
    }
}

/// Turns the text of a `--TYPE VALUE` option into a value with the library's parser, as a usage
/// error worded for the option.
enum NewValueParsing {
    static func integer(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .integer) { "--integer \(text): \($0)." }
    }

    static func real(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .real) { "--float \(text): \($0)." }
    }

    static func date(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .date) { "--date \(text): \($0)." }
    }

    static func data(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .base64Data) { "--data: \($0) in argument." }
    }

    static func propertyList(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .propertyList) { "--xml: \($0)" }
    }

    static func json(_ text: String) throws(ValidationError) -> PlistValue {
        try parse(text, as: .json) { "--json: \($0)" }
    }

    private static func parse(
        _ text: String, as syntax: PlistValueSyntax, message: (String) -> String
    ) throws(ValidationError) -> PlistValue {
        do {
            return try PlistValue(parsing: text, as: syntax)
        } catch {
            let reason = error.code == .invalidValue ? error.message : error.description
            throw ValidationError(message(Console.singleLine(reason)))
        }
    }
}

/// Options every editing verb shares: where the result goes.
struct EditOutputOptions: ParsableArguments {
    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write the result to PATH instead of rewriting the input; '-' means standard output.", valueName: "path"))
    var outputPath: String?

    @Flag(name: [.customShort("r"), .customLong("readable")], help: "When the file is JSON, write it indented with sorted keys, as plutil -r does.")
    var readable = false

    @Flag(name: [.short, .long], help: "Print nothing on success (the editing verbs are quiet on success anyway; accepted for plutil compatibility).")
    var silent = false

    /// Reads each file, applies `change` to its value and writes the result back in the file's
    /// own format: losslessly (untouched parts keep their bytes) and atomically, or not at all.
    func edit(_ files: [String], _ change: (inout PlistValue) throws(PlistError) -> Void) throws {
        try forEachFile(files) { file throws(PlistError) in
            var document = try file.readDocument(keepingLayout: true)
            try change(&document.value)
            let bytes = document.format == .json && readable
                ? Data(try JSONPlistWriter(.plutilPretty).write(document.value))
                : try Plist.write(document)
            try OutputTarget.forInput(file, outputPath: outputPath, newExtension: nil).write(bytes)
        }
    }

    func validate(files: [String]) throws {
        if files.isEmpty { throw ValidationError("Name at least one file to change.") }
        if let outputPath, outputPath != InputFile.standardInputPath, files.count > 1 {
            throw ValidationError("-o \(outputPath) names one output file, but \(files.count) inputs were given; use -o -.")
        }
    }
}

/// What `insert` and `replace` tell their shared arguments: the one line of help that differs.
protocol ValuePlacingCommand {
    /// What `--append` does for this verb.
    static var appendHelp: ArgumentHelp { get }
}

/// The arguments `insert` and `replace` share, declared once and in the order their help lists
/// them. Generic over the verb only so that each keeps its own `--append` help in its place.
struct ValuePlacementArguments<Command: ValuePlacingCommand>: ParsableArguments {
    @Argument(help: ArgumentHelp("The key path, in plutil's syntax.", valueName: "keypath"))
    var keyPath: String

    @OptionGroup var newValue: NewValueOptions

    @Flag(name: .plutil("append"), help: Command.appendHelp)
    var append = false

    @OptionGroup var output: EditOutputOptions

    @Argument(help: ArgumentHelp("The files to change; '-' reads standard input and writes standard output.", valueName: "file"))
    var files: [String] = []

    func validate() throws { try output.validate(files: files) }

    /// Puts the new value at the key path in every file, as `placement` says.
    func place(as placement: PlistValue.KeyPathPlacement) throws {
        let value = try newValue.value()
        let path = PlistKeyPath(keyPath)
        try output.edit(files) { root throws(PlistError) in
            try root.insert(value, at: path, placement: placement)
        }
    }
}

/// `trove insert`: plutil's `-insert`.
struct InsertCommand: ParsableCommand, ValuePlacingCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Add a value at a key path.",
        discussion: """
            The key path's last component must not exist yet: a new dictionary key, or an array \
            index from 0 to the array's count (the value goes before the element at that index). \
            With --append the key path names an array and the value goes at its end. Every file is \
            rewritten in its own format, in place unless -o is given; the parts of the file that \
            were not edited keep their bytes, the write is atomic, and on any error the input is \
            left untouched and the exit status is 1.

            Differences from plutil 6.3.1: a value that does not parse (--integer abc, --float x, \
            --date 2024) is a usage error (exit 64) where plutil inserts 0 or crashes; integers \
            keep the full range up to 18446744073709551615 instead of stopping at 2^63-1.

            Examples:
              trove insert Window.Width --integer 1024 Preferences.plist
              trove insert RecentDocuments.0 --string "~/new.txt" Preferences.plist
              trove insert RecentDocuments --string "~/last.txt" --append Preferences.plist
              trove insert Window.Margins --json '[4, 8]' -o - Preferences.plist
            """
    )

    static let appendHelp: ArgumentHelp = "Append to the array the key path names."

    @OptionGroup var arguments: ValuePlacementArguments<InsertCommand>

    func run() throws { try arguments.place(as: arguments.append ? .append : .insert) }
}

/// `trove replace`: plutil's `-replace`.
struct ReplaceCommand: ParsableCommand, ValuePlacingCommand {
    static let configuration = CommandConfiguration(
        commandName: "replace",
        abstract: "Set the value at a key path, adding it or overwriting it.",
        discussion: """
            Like insert, but an existing dictionary key is overwritten. As in the toolchain's \
            plutil, a numeric last component still inserts into an array (0 to count) rather than \
            overwriting the element there, and --append is accepted but ignored: the value replaces \
            whatever the key path names. The containers above the last component must exist. Files \
            are written back as insert writes them.

            Examples:
              trove replace Window.Zoomed --bool YES Preferences.plist
              trove replace Window.Frame --string "{{0, 0}, {800, 600}}" Preferences.plist
            """
    )

    static let appendHelp: ArgumentHelp = "Accepted for plutil compatibility and ignored, as plutil ignores it."

    @OptionGroup var arguments: ValuePlacementArguments<ReplaceCommand>

    // --append is parsed (plutil accepts it) but ignored, as plutil ignores it.
    func run() throws { try arguments.place(as: .replace) }
}
