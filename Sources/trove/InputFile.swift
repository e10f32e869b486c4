import ArgumentParser
import Foundation
import Trove

/// One FILE argument: a path, or `-` for standard input.
struct InputFile {
    /// The argument as given.
    let path: String

    /// The name used in messages: the path, or `<stdin>` for `-`.
    var displayName: String { FileReader.displayName(for: path) }

    /// True when the argument names standard input.
    var isStandardInput: Bool { path == FileReader.standardInputPath }

    /// Reads and parses the file; the format is detected from its content.
    func readDocument(keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let data = try FileReader.read(path)
        return try Plist.read(data, options: PlistReadOptions(keepsLayout: keepingLayout))
    }
}

/// Runs `body` for every file, reporting each failure as it happens so that one bad file does
/// not stop the others, and finishes with exit status 1 when any failed.
func forEachFile(_ paths: [String], report: (PlistError, InputFile) -> Void = { error, file in
    Console.reportFailure(error, file: file.displayName)
}, _ body: (InputFile) throws(PlistError) -> Void) throws(ExitCode) {
    var anyFailed = false
    for path in paths {
        let file = InputFile(path: path)
        do {
            try body(file)
        } catch {
            anyFailed = true
            report(error, file)
        }
    }
    if anyFailed { throw ExitCode.failure }
}
