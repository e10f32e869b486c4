import ArgumentParser
import Foundation
import Trove

/// `trove create`: plutil's `-create`.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Write a property list holding an empty dictionary.",
        discussion: """
            FORMAT is xml1, binary1, json or openstep. Each FILE is written atomically, replacing \
            any file already there, as plutil does; '-' writes to standard output. The bytes are \
            the ones 'plutil -create' writes (plutil cannot write openstep).

            Examples:
              trove create xml1 Settings.plist
              trove create binary1 - > empty.plist
            """
    )

    @Flag(name: [.customShort("r"), .customLong("readable")], help: "Write JSON indented, as plutil -r does.")
    var readable = false

    @Flag(name: [.short, .long], help: "Print nothing on success (create is quiet on success anyway; accepted for plutil compatibility).")
    var silent = false

    @Argument(help: ArgumentHelp("xml1, binary1, json or openstep.", valueName: "format"))
    var format: ConversionFormat

    @Argument(help: ArgumentHelp("The files to write; '-' means standard output.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to create, or '-' for standard output.") }
    }

    func run() throws {
        let empty = PlistDocument(value: .dictionary(PlistDictionary()), format: format.plistFormat)
        try forEachFile(files) { file throws(PlistError) in
            let bytes = try format.encode(empty, readable: readable)
            let target: OutputTarget = file.isStandardInput ? .standardOutput : .file(file.path)
            try target.write(bytes)
        }
    }
}
