import ArgumentParser
import Foundation
import SystemPackage
import Trove

/// One FILE argument: a path, or `-` for standard input.
///
/// `-` is the command line's convention, not the library's: the library reads paths (and
/// descriptors), and this type turns `-` into a read of standard input.
struct InputFile {
    /// The path that stands for standard input (and, after `-o`, standard output), as in plutil
    /// and most Unix tools.
    static let standardInputPath = "-"

    /// The name used for `path` in messages: the path itself, or `<stdin>` for `-`.
    static func displayName(for path: String) -> String {
        path == standardInputPath ? "<stdin>" : path
    }

    /// The argument as given.
    let path: String

    /// The name used in messages: the path, or `<stdin>` for `-`.
    var displayName: String { Self.displayName(for: path) }

    /// True when the argument names standard input.
    var isStandardInput: Bool { path == Self.standardInputPath }

    /// The whole input, read into memory.
    func readData() throws(PlistError) -> Data {
        if isStandardInput { return try FileReader.read(from: .standardInput, name: displayName) }
        return try FileReader.read(path)
    }

    /// The whole input, read into memory at a stable address (for the lazy binary reader).
    /// Read, never mapped: another process may truncate the file while we look at it, and a
    /// truncated mapping would crash the command with SIGBUS instead of failing it.
    func readContents() throws(PlistError) -> FileContents {
        if isStandardInput { return try FileContents(readingFrom: .standardInput, name: displayName) }
        return try FileContents(path, access: .read)
    }

    /// Reads and parses the file; the format is detected from its content.
    func readDocument(keepingLayout: Bool) throws(PlistError) -> PlistDocument {
        let contents = try readContents()
        return try Plist.read(bytes: contents.bytes, options: PlistReadOptions(keepsLayout: keepingLayout))
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
