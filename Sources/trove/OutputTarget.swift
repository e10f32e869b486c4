import Foundation
import Trove

/// Where `convert` puts the bytes it produced for one input.
enum OutputTarget: Equatable {
    /// Standard output (`-o -`, or an input read from standard input without `-o`).
    case standardOutput
    /// A file, replaced atomically.
    case file(String)

    /// Chooses the target the way plutil does: `-o PATH` wins (`-` meaning standard output);
    /// otherwise `-e EXT` puts the result next to the input with a new extension; otherwise the
    /// input is rewritten in place. Standard input cannot be rewritten, so its result goes to
    /// standard output.
    static func forInput(_ input: InputFile, outputPath: String?, newExtension: String?) -> OutputTarget {
        if let outputPath {
            return outputPath == FileReader.standardInputPath ? .standardOutput : .file(outputPath)
        }
        if input.isStandardInput { return .standardOutput }
        if let newExtension { return .file(replacingExtension(of: input.path, with: newExtension)) }
        return .file(input.path)
    }

    /// `dir/name.old` becomes `dir/name.EXT`; a name without an extension gets one appended.
    /// Only the last path component is looked at, so a dot in a directory name is left alone, and
    /// a leading dot (`.hidden`) starts a name, not an extension.
    static func replacingExtension(of path: String, with newExtension: String) -> String {
        let trimmed = newExtension.hasPrefix(".") ? String(newExtension.dropFirst()) : newExtension
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[nameStart...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<dot]) + "." + trimmed
        }
        return path + "." + trimmed
    }

    /// Writes the bytes: atomically to a file (flushed to disk unless `durability` says not to),
    /// or straight to standard output.
    func write(_ data: Data, durability: AtomicFile.Durability = .flushed) throws(PlistError) {
        switch self {
        case .standardOutput: try Console.write(data)
        case .file(let path): try AtomicFile.write(data, to: path, durability: durability)
        }
    }
}
