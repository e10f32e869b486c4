import ArgumentParser
import Foundation
import Trove

/// `trove archive`: keyed archives (`NSKeyedArchiver`) as object graphs and as plain property lists.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Print, decode and encode NSKeyedArchiver archives.",
        discussion: """
            Keyed archives are the property lists NSKeyedArchiver writes (app state, pasteboard \
            data, preferences holding archived values, .xcuserstate, compiled nibs). 'print' shows \
            the object graph; 'decode' turns it into a plain property list; 'encode' archives a \
            plain property list as Foundation archives the equivalent NSDictionary/NSArray graph.

            Examples:
              trove archive print UserInterfaceState.xcuserstate
              trove archive print --allow NSDictionary,NSArray,NSURL archive.plist
              trove archive decode --format json -o state.json archive.plist
              trove archive encode --format xml1 -o archive.plist settings.plist
            """,
        subcommands: [ArchivePrintCommand.self, ArchiveDecodeCommand.self, ArchiveEncodeCommand.self]
    )
}

/// The unarchiver for `--allow`, and reading an archive from a file.
enum ArchiveInput {
    static func unarchiver(allowing list: String?) -> KeyedUnarchiver {
        var unarchiver = KeyedUnarchiver()
        if let list {
            unarchiver.allowedClasses = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        return unarchiver
    }

    static func archive(_ file: InputFile) throws(PlistError) -> KeyedArchive {
        try KeyedArchive(data: try file.readData())
    }

    /// Runs a step of the archive library, reporting anything it throws as a `PlistError`.
    static func run<R>(_ body: () throws -> R) throws(PlistError) -> R {
        do {
            return try body()
        } catch let error as PlistError {
            throw error
        } catch {
            var wrapped = PlistError(.archiveObjectFailed, "\(error)")
            wrapped.underlyingError = error
            throw wrapped
        }
    }

    /// Where `-o` sends the output: standard output without it, or for `-`.
    static func target(_ output: String?) -> OutputTarget {
        guard let output, output != InputFile.standardInputPath else { return .standardOutput }
        return .file(output)
    }
}

struct ArchivePrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print an archive's object graph.",
        discussion: """
            Prints each top-level key and the object graph under it: every object with its class \
            and its keys, arrays and dictionaries with their elements. A container or custom \
            object is printed once, marked #N (its entry in $objects); where it appears again it \
            is '-> #N Class', and '(cycle)' when it refers back to an object that contains it. \
            Strings, numbers, data, dates, UUIDs and URLs print in place. An archive that cannot \
            be unarchived prints the error and exits with status 1.
            """
    )

    @Option(name: .customLong("allow"), help: ArgumentHelp(
        "Decode securely: only these classes (comma-separated) may appear; allowing NSArray allows NSMutableArray.",
        valueName: "class,..."))
    var allow: String?

    @Argument(help: ArgumentHelp("The archives; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one archive to print.") }
    }

    func run() throws {
        let unarchiver = ArchiveInput.unarchiver(allowing: allow)
        let several = files.count > 1
        try forEachFile(files) { file throws(PlistError) in
            let archive = try ArchiveInput.archive(file)
            let text = try ArchiveInput.run { try unarchiver.describe(archive) }
            try Console.write((several ? "\(file.displayName):\n" : "") + text)
        }
    }
}

struct ArchiveDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Turn an archive into a plain property list.",
        discussion: """
            Foundation's collections and values become plain arrays, dictionaries, strings, \
            numbers, dates and data (NSUUID and NSURL become strings); any other object becomes a \
            dictionary with a '$class' key naming its class, beside its own keys. An archive with \
            one top-level key gives that key's value; with several, a dictionary of them. \
            --nested also decodes archives stored as data inside the archive. Written to standard \
            output unless -o names a file, which is replaced atomically.

            Examples:
              trove archive decode archive.plist
              trove archive decode --nested --format json -o - Favorites.sfl2
            """
    )

    @Option(name: [.customShort("f"), .long], help: ArgumentHelp("Output format: xml1, binary1, json or openstep.", valueName: "format"))
    var format: ConversionFormat = .xml1

    @Option(name: .short, help: ArgumentHelp("Write here instead of standard output ('-' for standard output).", valueName: "path"))
    var output: String?

    @Flag(help: "Also decode keyed archives nested as data.")
    var nested = false

    @Option(name: .customLong("allow"), help: ArgumentHelp("Decode securely: only these classes (comma-separated).", valueName: "class,..."))
    var allow: String?

    @Argument(help: ArgumentHelp("The archive; '-' reads standard input.", valueName: "file"))
    var file: String

    func run() throws {
        let unarchiver = ArchiveInput.unarchiver(allowing: allow)
        try forEachFile([file]) { input throws(PlistError) in
            let archive = try ArchiveInput.archive(input)
            let value = try ArchiveInput.run {
                try unarchiver.plainValue(of: archive, options: ArchivePlainOptions(decodesNestedArchives: nested))
            }
            let data = try format.encode(PlistDocument(value: value, format: format.plistFormat), readable: false)
            try ArchiveInput.target(output).write(data)
        }
    }
}

struct ArchiveEncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Archive a plain property list as NSKeyedArchiver would.",
        discussion: """
            Writes what NSKeyedArchiver.archivedData(withRootObject:) writes for the equivalent \
            graph of NSDictionary, NSArray, NSString, NSNumber, NSDate and NSData: the same \
            $objects in the same order (equal strings, numbers and collections shared, as \
            Foundation shares them). Binary by default. Written to standard output unless -o \
            names a file, which is replaced atomically.

            Examples:
              trove archive encode settings.plist -o settings.archive
              trove archive encode --format xml1 -o - settings.json
            """
    )

    @Option(name: [.customShort("f"), .long], help: ArgumentHelp("Archive format: binary1 or xml1.", valueName: "format"))
    var format: ConversionFormat = .binary1

    @Option(name: .short, help: ArgumentHelp("Write here instead of standard output ('-' for standard output).", valueName: "path"))
    var output: String?

    @Argument(help: ArgumentHelp("The property list to archive; '-' reads standard input.", valueName: "file"))
    var file: String

    func validate() throws {
        if format != .binary1 && format != .xml1 { throw ValidationError("An archive is binary1 or xml1, not \(format.rawValue).") }
    }

    func run() throws {
        try forEachFile([file]) { input throws(PlistError) in
            let document = try input.readDocument(keepingLayout: false)
            let data = try ArchiveInput.run { try KeyedArchiver(outputFormat: format.plistFormat).archive(document.value) }
            try ArchiveInput.target(output).write(data)
        }
    }
}
