import Foundation
import Trove

/// Where the commands send results and complaints: results to standard output, complaints to
/// standard error as one error line per failure (see ``Console/describe(_:file:)``).
enum Console {
    /// Writes bytes to standard output unchanged (binary plists go there with `-o -`).
    static func write(_ data: Data) throws(PlistError) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            throw PlistError(.io, "<stdout>: cannot write: \(error.localizedDescription)")
        }
    }

    /// Writes text to standard output as UTF-8.
    static func write(_ text: String) throws(PlistError) {
        try write(Data(text.utf8))
    }

    /// Writes one line to standard error.
    static func reportLine(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Reports a failure about one file as an error line (see ``describe(_:file:)``).
    static func reportFailure(_ error: PlistError, file: String) {
        reportLine(describe(error, file: file))
    }

    /// The error line for a failure about one file, always a single line so that each failure is
    /// one line of output for scripts and editors to read:
    ///
    ///     FILE:LINE:COLUMN: FORMAT: message      text formats (XML, OpenStep, JSON)
    ///     FILE: byte OFFSET: FORMAT: message     binary property lists
    ///     FILE: FORMAT: message                  no position known
    ///     FILE: message                          no format known either
    ///
    /// A key path, when the error has one, follows the message as `(at key path a.b.0)`. The file
    /// comes first with no program-name prefix, as plutil and compilers print it, so that editors
    /// can jump to `FILE:LINE:COLUMN`. Errors from the file layer already start with the path they
    /// concern (`x.plist: cannot open ...`, or the output path for a failed write), so they are
    /// printed as they are rather than naming a file twice.
    static func describe(_ error: PlistError, file: String) -> String {
        if isFileLayerError(error) { return singleLine(error.message) }
        var line = file
        switch error.location {
        case let .lineColumn(lineNumber, column)?: line += ":\(lineNumber):\(column): "
        case .byteOffset(let offset)?: line += ": byte \(offset): "
        case nil: line += ": "
        }
        if let format = error.format { line += format.displayName + ": " }
        line += error.message
        if let keyPath = error.keyPath, !keyPath.isEmpty, error.code != .keyPath { line += " (at key path \(keyPath))" }
        return singleLine(line)
    }

    /// The text with each line break (and the blank space around it) turned into one space.
    /// Messages passed on from libxml2 sometimes span lines.
    static func singleLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// True for errors from reading or writing files, whose messages start with the path they
    /// concern (which for a failed write is the output, not the input).
    private static func isFileLayerError(_ error: PlistError) -> Bool {
        guard error.format == nil, error.location == nil else { return false }
        return error.code == .io || error.code == .sizeLimit
    }
}
