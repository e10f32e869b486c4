import ArgumentParser
import Foundation
import Trove

/// What `extract` writes: a property list in one of the conversion formats, or plutil's `raw` text.
enum ExtractFormat: ExpressibleByArgument {
    case plist(ConversionFormat)
    case raw

    init?(argument: String) {
        if argument.lowercased() == "raw" {
            self = .raw
        } else if let format = ConversionFormat(argument: argument) {
            self = .plist(format)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ConversionFormat.allValueStrings + ["raw"] }
}

/// The types `--expect` accepts: plutil's names for the values a document can hold.
enum ExpectedType: String, CaseIterable, ExpressibleByArgument {
    case bool, integer, float, string, date, data, dictionary, array
}

/// `trove extract`: plutil's `-extract`.
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Write the value at a key path as a property list of its own, or as plain text.",
        discussion: """
            FORMAT is xml1, binary1, json, openstep or raw. A property-list format writes the value \
            as a document of its own, in place of the input unless -o says otherwise, as plutil \
            does. raw prints the value to standard output (or to -o's path) as plutil does: bool as \
            true or false, integer in decimal, float as printf's %f, string as UTF-8, date as RFC \
            3339 in UTC, data as base64, a dictionary's keys one per line, an array's count; a \
            newline follows unless -n is given.

            With --expect TYPE the value must be of that type (bool, integer, float, string, date, \
            data, dictionary or array); otherwise nothing is written and the exit status is 1.

            Differences from plutil 6.3.1: raw prints a dictionary's keys in the file's order \
            (plutil's order changes from run to run); dates before the year 1583 are written in \
            the proleptic Gregorian calendar, as everywhere in Trove; keyed archives (files with \
            UIDs) can be extracted from, where plutil refuses the whole file; a UID has no raw form.

            Examples:
              trove extract Window.Frame raw Preferences.plist
              trove extract Window xml1 -o window.plist Preferences.plist
              trove extract RecentDocuments json -r -o - Preferences.plist
              trove extract AutoSaveInterval raw --expect integer Preferences.plist
            """
    )

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write the result to PATH; '-' means standard output.", valueName: "path"))
    var outputPath: String?

    @Option(
        name: [.customLong("expect"), .customLong("expect", withSingleDash: true)],
        help: ArgumentHelp("Fail unless the value is of this type.", valueName: "type"))
    var expectedType: ExpectedType?

    @Flag(name: [.customShort("r"), .customLong("readable")], help: "Write JSON indented, with sorted keys, as plutil -r does.")
    var readable = false

    @Flag(name: [.customShort("n")], help: "With raw, do not print a newline after the value.")
    var noNewline = false

    @Flag(name: [.short, .long], help: "Print nothing on success (extract is quiet on success anyway; accepted for plutil compatibility).")
    var silent = false

    @Argument(help: ArgumentHelp("The key path, in plutil's syntax.", valueName: "keypath"))
    var keyPath: String

    @Argument(help: ArgumentHelp("xml1, binary1, json, openstep or raw.", valueName: "format"))
    var format: ExtractFormat

    @Argument(help: ArgumentHelp("The files to extract from; '-' reads standard input.", valueName: "file"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Name at least one file to extract from.") }
        if let outputPath, outputPath != InputFile.standardInputPath, files.count > 1 {
            throw ValidationError("-o \(outputPath) names one output file, but \(files.count) inputs were given; use -o -.")
        }
    }

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try forEachFile(files) { file throws(PlistError) in
            let target = try file.value(at: path)
            if let expectedType, target.kind.plutilName != expectedType.rawValue {
                throw PlistError(
                    .typeMismatch, "Value at [\(path)] expected to be \(expectedType.rawValue) but is \(target.kind.plutilName)")
            }
            switch format {
            case .raw:
                let text = try RawValueText.render(target) + (noNewline ? "" : "\n")
                let target: OutputTarget = outputPath.map {
                    $0 == InputFile.standardInputPath ? .standardOutput : .file($0)
                } ?? .standardOutput
                try target.write(Data(text.utf8))
            case .plist(let conversion):
                let extracted = PlistDocument(value: try target.materialize(), format: conversion.plistFormat)
                let bytes = try conversion.encode(extracted, readable: readable)
                try OutputTarget.forInput(file, outputPath: outputPath, newExtension: nil).write(bytes)
            }
        }
    }
}

/// The text `plutil -extract KEYPATH raw` prints for a value.
enum RawValueText {
    /// The raw text of a key path's value. A binary plist's dictionary or array answers from its
    /// keys or count alone, without decoding the values inside it.
    static func render(_ target: KeyPathTarget) throws(PlistError) -> String {
        if case .node(let node) = target {
            switch node.kind {
            case .dictionary: return try node.keys().joined(separator: "\n")
            case .array: return String(try node.count() ?? 0)
            default: break
            }
        }
        return try render(target.materialize())
    }

    static func render(_ value: PlistValue) throws(PlistError) -> String {
        switch value {
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let integer): return integer.description
        case .real(let real): return String(format: "%f", real.value)
        case .string(let string): return string
        case .date(let date): return date.iso8601String
        case .data(let data): return data.base64EncodedString()
        case .dictionary(let dictionary): return dictionary.keys.joined(separator: "\n")
        case .array(let array): return String(array.count)
        case .uid, .null:
            throw PlistError(.unsupportedValue, "a \(value.kind.plutilName) value has no raw form")
        }
    }
}
