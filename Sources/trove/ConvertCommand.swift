import ArgumentParser
import Foundation
import Trove

/// The formats `convert` can write.
enum ConversionFormat: String, CaseIterable, ExpressibleByArgument {
    case xml1
    case binary1
    case json
    case openstep

    /// Accepts plutil's names and the plain words `xml` and `binary`.
    init?(argument: String) {
        switch argument.lowercased() {
        case "xml1", "xml": self = .xml1
        case "binary1", "binary", "bplist": self = .binary1
        case "json": self = .json
        case "openstep": self = .openstep
        default: return nil
        }
    }

    /// The library's format.
    var plistFormat: PlistFormat {
        switch self {
        case .xml1: return .xml
        case .binary1: return .binary
        case .json: return .json
        case .openstep: return .openStep
        }
    }

    /// The bytes of `document` in this format. XML and binary keep the document's own layout
    /// when it is already in that format; JSON is compact as `plutil -convert json` writes it,
    /// or indented with sorted keys as `plutil -r` writes it when `readable` is set.
    func encode(_ document: PlistDocument, readable: Bool) throws(PlistError) -> Data {
        switch self {
        case .xml1, .binary1:
            return document.format == plistFormat
                ? try Plist.write(document)
                : try Plist.write(document.value, as: plistFormat)
        case .json:
            return Data(try JSONPlistWriter(readable ? .plutilPretty : []).write(document.value))
        case .openstep:
            return Data(try OpenStepPlistWriter().write(document.value))
        }
    }

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `trove convert`: plutil's `-convert`.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite property lists in XML, binary, JSON or OpenStep format.",
        discussion: """
            Each FILE is rewritten in place unless -o or -e says otherwise; every file is written \
            atomically (a reader sees the old file or the new one, never a mix), and on any error \
            the input is left untouched and the exit status is 1.

            The input format is detected from the content, never from the file name. Converting \
            into the format a file is already in is lossless: an unchanged file comes back byte for \
            byte. Converting into the other format writes exactly what 'plutil -convert' writes.

            JSON is written compact, as 'plutil -convert json' writes it (keys in the file's \
            order), or with -r indented with sorted keys, byte for byte as 'plutil -convert json -r'. \
            Dates, data and a top-level scalar have no JSON form and fail as they do in plutil. \
            openstep writes the old-style text format in Xcode's layout (plutil cannot write it).

            The format can be given plutil-style as the first argument ('trove convert xml1 F') \
            when -f is not used; a file literally named like a format (xml1, json, ...) then needs -f.

            Examples:
              trove convert -f binary1 Settings.plist         (in place)
              trove convert xml1 -o - Settings.plist          (XML to standard output)
              trove convert -f xml1 -e xml a.plist b.plist    (writes a.xml and b.xml)
              trove convert xml1 - < in.plist                 (stdin to stdout)
              trove convert json -r -o - Settings.plist       (indented JSON to standard output)
            """
    )

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("The format to write: xml1, binary1, json or openstep (also accepted: xml, binary).", valueName: "format"))
    var format: ConversionFormat?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write the result to PATH instead of rewriting the input; '-' means standard output.", valueName: "path"))
    var outputPath: String?

    @Option(
        name: [.customShort("e"), .customLong("extension")],
        help: ArgumentHelp("Write each result next to its input with this extension instead of rewriting it.", valueName: "ext"))
    var newExtension: String?

    @Flag(name: [.customShort("r"), .customLong("readable")], help: "Write JSON indented, with sorted keys, as plutil -r does.")
    var readable = false

    @Flag(name: [.short, .long], help: "Print nothing on success (convert is quiet on success anyway; accepted for plutil compatibility).")
    var silent = false

    @Argument(help: ArgumentHelp("[format] file...: the files to convert, optionally preceded by the format as plutil spells it.", valueName: "file"))
    var arguments: [String] = []

    /// The format and files after the optional leading format word has been taken off.
    private var resolved: (format: ConversionFormat, files: [String])? {
        if let format { return (format, arguments) }
        guard let first = arguments.first, let format = ConversionFormat(rawValue: first) else { return nil }
        return (format, Array(arguments.dropFirst()))
    }

    func validate() throws {
        guard let resolved else {
            if let first = arguments.first, ["swift", "objc"].contains(first) {
                throw ValidationError("Converting to \(first) is not supported; use xml1, binary1, json or openstep.")
            }
            throw ValidationError("Say which format to write: --format xml1, binary1, json or openstep.")
        }
        if resolved.files.isEmpty { throw ValidationError("Name at least one file to convert.") }
        if let outputPath, outputPath != FileReader.standardInputPath, resolved.files.count > 1 {
            throw ValidationError("-o \(outputPath) names one output file, but \(resolved.files.count) inputs were given; use -o - or -e.")
        }
        if let newExtension, newExtension.isEmpty || newExtension.contains("/") {
            throw ValidationError("-e takes a file extension such as 'xml', not '\(newExtension)'.")
        }
    }

    func run() throws {
        guard let resolved else { throw ExitCode.validationFailure }
        try forEachFile(resolved.files) { file throws(PlistError) in
            let document = try file.readDocument(keepingLayout: true)
            let bytes = try resolved.format.encode(document, readable: readable)
            try OutputTarget.forInput(file, outputPath: outputPath, newExtension: newExtension).write(bytes)
        }
    }
}
