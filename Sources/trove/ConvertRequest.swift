import ArgumentParser
import Trove

/// What `trove convert` was asked to do, as plain values: ``ConvertCommand`` fills it from
/// ArgumentParser's parse, and ``init(plainCommandLine:)`` from a command line simple enough to
/// read without ArgumentParser.
struct ConvertRequest: Equatable {
    var format: ConvertTarget?
    var outputPath: String?
    var newExtension: String?
    var readable = false
    var header = false
    var recursive = false
    var match: [String] = []
    var noSync = false
    var verbose = false
    var silent = false
    var arguments: [String] = []

    /// The format and inputs after the optional leading format word has been taken off.
    private var resolved: (target: ConvertTarget, inputs: [String])? {
        if let format { return (format, arguments) }
        guard let first = arguments.first, let target = ConvertTarget(plutilWord: first) else { return nil }
        return (target, Array(arguments.dropFirst()))
    }

    /// The extensions `--match` names, lower-cased without dots; `["*"]` for every file.
    private var matchedExtensions: [String] {
        let listed = match.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
            .filter { !$0.isEmpty }
        return listed.isEmpty ? ["plist"] : listed
    }

    func validate() throws {
        guard let resolved else {
            throw ValidationError("Say which format to write: --format xml1, binary1, json, openstep, swift or objc.")
        }
        if resolved.inputs.isEmpty { throw ValidationError("Name at least one file to convert.") }
        if let outputPath, outputPath != InputFile.standardInputPath, resolved.inputs.count > 1 {
            throw ValidationError("-o \(outputPath) names one output, but \(resolved.inputs.count) inputs were given; use -o - or -e.")
        }
        if let newExtension, newExtension.isEmpty || newExtension.contains("/") {
            throw ValidationError("-e takes a file extension such as 'xml', not '\(newExtension)'.")
        }
        if header, resolved.target != .source(.objc) {
            throw ValidationError("--header is only valid for objc literal conversions.")
        }
        if match.flatMap({ $0.split(separator: ",") }).contains(where: { $0.contains("/") }) {
            throw ValidationError("--match takes name extensions such as 'plist,strings', not paths.")
        }
    }

    func run() throws {
        guard let resolved else { throw ExitCode.validationFailure }
        let plan = ConversionPlan(
            target: resolved.target, readable: readable, writesHeader: header, newExtension: newExtension,
            durability: noSync ? .unflushed : .flushed)
        let directories = resolved.inputs.filter { BatchInputs.isDirectory($0) }
        if directories.isEmpty {
            // One input is the last work of the process: its document need not be freed.
            let isOnlyInput = resolved.inputs.count == 1
            try forEachFile(resolved.inputs) { file throws(PlistError) in
                _ = try plan.convert(
                    file, to: plan.destination(for: file, outputPath: outputPath), keepingDocumentUntilExit: isOnlyInput)
            }
            return
        }
        if outputPath == InputFile.standardInputPath {
            throw ValidationError("-o - cannot take a directory's files; give -o a directory to write them into, or use -e.")
        }
        let inputs = BatchInputs(
            arguments: resolved.inputs, recursive: recursive, extensions: matchedExtensions, outputDirectory: outputPath)
        let conversion = BatchConversion(plan: plan, verbose: verbose, silent: silent)
        if !conversion.runWaiting(inputs.collect()) { throw ExitCode.failure }
    }
}

extension ConvertRequest {
    /// The request for `convert` followed only by file arguments and by options each spelled as
    /// one separate word and given at most once (`-f`/`--format`, `-o`/`--output`,
    /// `-e`/`--extension` with their value in the next word, and the flags `-r`, `--readable`,
    /// `--header`, `-R`, `--recursive`, `--no-sync`, `-v`, `--verbose`, `-s`, `--silent`).
    ///
    /// ArgumentParser's first parse builds every command's argument table by reflection, most of
    /// a small conversion's time; a command line of this shape means the same to it, so reading
    /// it here changes nothing but that time. Anything else is nil and left to ArgumentParser,
    /// which also gives every error and help text: `--`, `--name=value`, bundled short flags,
    /// `--match`, `-header`, unknown or repeated options, a missing or empty value, a value that
    /// starts with `-` (other than `-` itself), a format it does not know, an empty word, `help`.
    init?(plainCommandLine words: [String]) {
        guard words.first == "convert" else { return nil }
        var given: UInt16 = 0
        var rest = words.dropFirst()
        while let word = rest.popFirst() {
            if word == InputFile.standardInputPath || !word.hasPrefix("-") {
                guard !word.isEmpty, word != "help" else { return nil }
                arguments.append(word)
                continue
            }
            guard let option = PlainOption(word), given & option.bit == 0 else { return nil }
            given |= option.bit
            switch option {
            case .readable: readable = true
            case .header: header = true
            case .recursive: recursive = true
            case .noSync: noSync = true
            case .verbose: verbose = true
            case .silent: silent = true
            case .format, .output, .newExtension:
                guard let value = rest.popFirst(), !value.isEmpty,
                    value == InputFile.standardInputPath || !value.hasPrefix("-")
                else { return nil }
                if option == .output {
                    outputPath = value
                } else if option == .newExtension {
                    newExtension = value
                } else {
                    guard let target = ConvertTarget(argument: value) else { return nil }
                    format = target
                }
            }
        }
    }

    /// The options ``init(plainCommandLine:)`` reads, by the words that name them.
    private enum PlainOption: Int {
        case format, output, newExtension, readable, header, recursive, noSync, verbose, silent

        init?(_ word: String) {
            switch word {
            case "-f", "--format": self = .format
            case "-o", "--output": self = .output
            case "-e", "--extension": self = .newExtension
            case "-r", "--readable": self = .readable
            case "--header": self = .header
            case "-R", "--recursive": self = .recursive
            case "--no-sync": self = .noSync
            case "-v", "--verbose": self = .verbose
            case "-s", "--silent": self = .silent
            default: return nil
            }
        }

        /// This option's bit in the set of options already given.
        var bit: UInt16 { 1 << rawValue }
    }
}
