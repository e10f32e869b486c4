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

    /// The bytes of `document` in this format. A document already in that format keeps its own
    /// layout (JSON with `readable` excepted); otherwise JSON is compact as `plutil -convert json`
    /// writes it, or indented with sorted keys as `plutil -r` writes it when `readable` is set.
    func encode(_ document: PlistDocument, readable: Bool) throws(PlistError) -> Data {
        if document.format == plistFormat, !(self == .json && readable) { return try Plist.write(document) }
        switch self {
        case .xml1, .binary1:
            return try Plist.write(document.value, as: plistFormat)
        case .json:
            return Data(try JSONPlistWriter(readable ? .plutilPretty : []).write(document.value))
        case .openstep:
            return Data(try OpenStepPlistWriter().write(document.value))
        }
    }

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// What `convert` writes: a property-list format, or a source-code literal.
enum ConvertTarget: Sendable, Equatable, ExpressibleByArgument {
    case plist(ConversionFormat)
    case source(PlistSourceLanguage)

    /// Accepts the property-list formats' names and plutil's `swift` and `objc`.
    init?(argument: String) {
        if let format = ConversionFormat(argument: argument) {
            self = .plist(format)
        } else if let language = PlistSourceLanguage(rawValue: argument.lowercased()) {
            self = .source(language)
        } else {
            return nil
        }
    }

    /// The format named by a leading positional word, spelled exactly as plutil spells it.
    init?(plutilWord word: String) {
        if let format = ConversionFormat(rawValue: word) {
            self = .plist(format)
        } else if let language = PlistSourceLanguage(rawValue: word) {
            self = .source(language)
        } else {
            return nil
        }
    }

    /// The language when writing source code.
    var sourceLanguage: PlistSourceLanguage? {
        if case .source(let language) = self { return language }
        return nil
    }

    static var allValueStrings: [String] {
        ConversionFormat.allValueStrings + PlistSourceLanguage.allCases.map(\.rawValue)
    }
}

/// `trove convert`: plutil's `-convert`, for files and for whole directories.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite property lists in XML, binary, JSON or OpenStep format, or as Swift or Objective-C source.",
        discussion: """
            Each FILE is rewritten in place unless -o or -e says otherwise; every file is written \
            atomically (a reader sees the old file or the new one, never a mix), and on any error \
            the input is left untouched and the exit status is 1.

            The input format is detected from the content, never from the file name. Converting \
            into the format a file is already in is lossless: an unchanged file comes back byte for \
            byte. Converting into the other format writes exactly what 'plutil -convert' writes.

            JSON is written compact, as 'plutil -convert json' writes it (keys in the file's \
            order), or with -r indented with sorted keys, byte for byte as 'plutil -convert json -r'; \
            a JSON file converted without -r keeps its own layout. Dates, data and a top-level \
            scalar have no JSON form and fail as they do in plutil. openstep writes the old-style \
            text format in Xcode's layout (plutil cannot write it).

            swift and objc write the value as a source-code constant, byte for byte as \
            'plutil -convert swift|objc' (the constant is named after the input file). The result \
            goes next to the input as NAME.swift or NAME.m, never over it; --header (plutil's \
            -header) also writes the Objective-C header NAME.h. Objective-C has no literal for \
            dates and data, and neither language for keyed-archive UIDs: such files fail.

            A DIRECTORY converts the files in it (with --recursive, in its subdirectories too) in \
            parallel on all cores. Only names ending in .plist are taken from a directory unless \
            --match says otherwise; files named on the command line are always converted. Hidden \
            files and directories (names starting with '.') are skipped, and symbolic links to \
            directories are not followed. With -o DIR the results are written into DIR as a \
            mirrored tree (DIR is created as needed) and the inputs are left alone; otherwise \
            each result replaces its input or, with -e or for swift/objc, goes next to it. A \
            terminal shows a progress bar on standard error; otherwise failures are printed one \
            per line (and each converted file with -v). A summary line ends the run: \
            'N files converted, M failed; X read, Y written in T s'. A failed file is left \
            untouched, the others are still converted, and the exit status is 1.

            The format can be given plutil-style as the first argument ('trove convert xml1 F') \
            when -f is not used; a file literally named like a format (xml1, json, ...) then needs -f.

            Examples:
              trove convert -f binary1 Settings.plist         (in place)
              trove convert xml1 -o - Settings.plist          (XML to standard output)
              trove convert -f xml1 -e xml a.plist b.plist    (writes a.xml and b.xml)
              trove convert xml1 - < in.plist                 (stdin to stdout)
              trove convert json -r -o - Settings.plist       (indented JSON to standard output)
              trove convert swift Settings.plist              (writes Settings.swift)
              trove convert objc --header Settings.plist      (Settings.m and .h)
              trove convert -f binary1 --recursive Resources  (all .plist files)
              trove convert -f xml1 -R --match plist,strings -o out Resources
                                                              (XML copies in out/)
            """
    )

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "The format to write: xml1, binary1, json or openstep (also accepted: xml, binary), or swift or objc source.",
            valueName: "format"))
    var format: ConvertTarget?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "Write the result to PATH instead of rewriting the input; '-' means standard output. For a directory input, the directory to write the converted tree into.",
            valueName: "path"))
    var outputPath: String?

    @Option(
        name: [.customShort("e"), .customLong("extension")],
        help: ArgumentHelp("Write each result next to its input with this extension instead of rewriting it.", valueName: "ext"))
    var newExtension: String?

    @Flag(name: [.customShort("r"), .customLong("readable")], help: "Write JSON indented, with sorted keys, as plutil -r does.")
    var readable = false

    @Flag(
        name: [.customLong("header"), .customLong("header", withSingleDash: true)],
        help: "With objc, also write the header (NAME.h) that declares the constant, as plutil -header does.")
    var header = false

    @Flag(
        name: [.customShort("R"), .customLong("recursive")],
        help: "Convert the files in the subdirectories of a DIRECTORY argument too.")
    var recursive = false

    @Option(
        name: .customLong("match"),
        parsing: .singleValue,
        help: ArgumentHelp(
            "Which files to take from a DIRECTORY: a comma-separated list of name extensions, matched without regard to case ('plist,strings,json'), or '*' for every file. Default: plist. May be repeated.",
            valueName: "ext,..."))
    var match: [String] = []

    @Flag(
        name: .customLong("no-sync"),
        help: "Do not wait for each written file to reach the disk (no fsync). Files are still replaced atomically, as plutil and plistutil replace them, but a power cut right after may leave the old content.")
    var noSync = false

    @Flag(name: [.short, .long], help: "With a DIRECTORY, print a line for each converted file.")
    var verbose = false

    @Flag(name: [.short, .long], help: "Print nothing on success: no progress bar or summary for a DIRECTORY (convert is otherwise quiet on success; accepted for plutil compatibility).")
    var silent = false

    @Argument(help: ArgumentHelp("[format] file...: the files and directories to convert, optionally preceded by the format as plutil spells it.", valueName: "file"))
    var arguments: [String] = []

    /// The options as plain values, which do the work.
    var request: ConvertRequest {
        ConvertRequest(
            format: format, outputPath: outputPath, newExtension: newExtension, readable: readable, header: header,
            recursive: recursive, match: match, noSync: noSync, verbose: verbose, silent: silent, arguments: arguments)
    }

    func validate() throws { try request.validate() }

    func run() throws { try request.run() }
}

/// How one input is converted: what is written and where. Shared by single-file and batch runs.
struct ConversionPlan: Sendable {
    let target: ConvertTarget
    let readable: Bool
    /// With objc: also write the header next to the implementation.
    let writesHeader: Bool
    /// `-e`: the extension to give outputs written next to (or mirrored from) their inputs.
    let newExtension: String?
    /// `--no-sync`: whether written files are flushed to disk.
    var durability: AtomicFile.Durability = .flushed

    /// The extension a result written next to its input gets, when it does not replace it.
    var outputExtension: String? { newExtension ?? target.sourceLanguage?.fileExtension }

    /// Where the result for `input` goes: `-o PATH` when given (`-` meaning standard output);
    /// standard output for standard input; next to the input with a new extension for -e and
    /// for source code (which must never replace the property list it came from); otherwise the
    /// input itself.
    func destination(for input: InputFile, outputPath: String?) -> OutputTarget {
        if let outputPath {
            return outputPath == InputFile.standardInputPath ? .standardOutput : .file(outputPath)
        }
        if input.isStandardInput { return .standardOutput }
        if let outputExtension { return .file(OutputTarget.replacingExtension(of: input.path, with: outputExtension)) }
        return .file(input.path)
    }

    /// Whether reading `data` should keep layout notes: only a write into the format the input
    /// is already in follows them, and keeping them costs (an XML read with notes is up to twice
    /// as slow). `{` and `"` open OpenStep and JSON documents alike, so text into either keeps them.
    func keepsLayout(reading data: Data) -> Bool {
        guard case .plist(let format) = target, !(format == .json && readable) else { return false }
        let detected = data.withUnsafeBytes { PlistFormat.detect($0) }
        switch format {
        case .xml1, .binary1: return detected == format.plistFormat
        case .json, .openstep: return detected == .openStep || detected == .json
        }
    }

    /// Reads, converts and writes one input; returns the bytes read and written. With
    /// `keepingDocumentUntilExit`, for the last thing a process does, the decoded document is
    /// never freed: freeing it would visit every value just before the process ends and its
    /// memory goes back to the system anyway.
    func convert(
        _ input: InputFile, to destination: OutputTarget, keepingDocumentUntilExit: Bool = false
    ) throws(PlistError) -> (read: Int, written: Int) {
        let data = try input.readData()
        let document = try Plist.read(data, options: PlistReadOptions(keepsLayout: keepsLayout(reading: data)))
        if keepingDocumentUntilExit { _ = Unmanaged.passRetained(DocumentKeptUntilExit(document)) }
        var outputs: [(OutputTarget, Data)] = []
        switch target {
        case .plist(let format):
            outputs.append((destination, try format.encode(document, readable: readable)))
        case .source(.swift):
            let text = try SwiftLiteralWriter(sourcePath: input.path).write(document.value)
            outputs.append((destination, Data(text.utf8)))
        case .source(.objc):
            let writer = ObjCLiteralWriter(sourcePath: input.path, outputPath: destination.filePath)
            outputs.append((destination, Data(try writer.implementation(document.value).utf8)))
            // As in plutil, a header goes only beside a file: standard output gets the implementation.
            if writesHeader, let path = destination.filePath {
                let headerTarget = OutputTarget.file(ObjCLiteralWriter.headerPath(forOutputPath: path))
                outputs.append((headerTarget, Data(try writer.header(document.value).utf8)))
            }
        }
        var written = 0
        for (target, bytes) in outputs {
            try target.write(bytes, durability: durability)
            written += bytes.count
        }
        return (data.count, written)
    }
}

/// A reference that holds a document for as long as it is itself retained, which
/// ``ConversionPlan/convert(_:to:keepingDocumentUntilExit:)`` makes forever.
private final class DocumentKeptUntilExit {
    let document: PlistDocument
    init(_ document: PlistDocument) { self.document = document }
}

extension OutputTarget {
    /// The file's path, or nil for standard output.
    var filePath: String? {
        if case .file(let path) = self { return path }
        return nil
    }
}
