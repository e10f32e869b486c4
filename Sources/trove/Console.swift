import Foundation
import Trove

/// Where the commands send results and complaints: results to standard output, complaints to
/// standard error as `trove: FILE: message`.
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

    /// Writes one line to standard error, without the `trove:` prefix (lint's verdict lines).
    static func reportLine(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Reports a failure about one file as `trove: FILE: message`.
    ///
    /// Errors from the file layer already start with the path (`x.plist: cannot open ...`), so they
    /// are printed as they are rather than naming the file twice.
    static func reportFailure(_ error: PlistError, file: String) {
        reportLine("trove: " + describe(error, file: file))
    }

    /// `FILE: message` for any error, naming the file exactly once, always on one line so that
    /// each failure is one line of output for scripts to read.
    static func describe(_ error: PlistError, file: String) -> String {
        singleLine(isFileLayerError(error) ? error.message : "\(file): \(error)")
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
