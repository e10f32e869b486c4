import Foundation
import SystemPackage
import Trove

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `convert` puts the bytes it produced for one input.
enum OutputTarget: Equatable {
    /// Standard output (`-o -`, or an input read from standard input without `-o`).
    case standardOutput
    /// A file, replaced atomically; or a device or pipe (`-o /dev/null`), written to.
    case file(String)

    /// Chooses the target the way plutil does: `-o PATH` wins (`-` meaning standard output);
    /// otherwise `-e EXT` puts the result next to the input with a new extension; otherwise the
    /// input is rewritten in place. Standard input cannot be rewritten, so its result goes to
    /// standard output.
    static func forInput(_ input: InputFile, outputPath: String?, newExtension: String?) -> OutputTarget {
        if let outputPath {
            return outputPath == InputFile.standardInputPath ? .standardOutput : .file(outputPath)
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
    /// straight into a device or pipe, or to standard output.
    func write(_ data: Data, durability: AtomicFile.Durability = .flushed) throws(PlistError) {
        switch self {
        case .standardOutput: try Console.write(data)
        case .file(let path) where Self.isStream(path): try Self.writeToStream(data, at: path)
        case .file(let path): try AtomicFile.write(data, to: path, durability: durability)
        }
    }

    /// True for a device, pipe or socket (`/dev/null`, `/dev/stdout`, a FIFO): places that take a
    /// stream of bytes and cannot be replaced by renaming, so the command writes into them as a
    /// shell's `>` would. The library's atomic writer refuses them.
    static func isStream(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind == S_IFCHR || kind == S_IFIFO || kind == S_IFSOCK
    }

    /// Writes straight into a device or pipe; atomicity means nothing there.
    private static func writeToStream(_ data: Data, at path: String) throws(PlistError) {
        func failure(_ what: String, _ error: any Error) -> PlistError {
            let code = (error as? Errno) ?? Errno.ioError
            return PlistError.io("\(path): \(what): \(code.description)", path: path, systemErrorNumber: code.rawValue)
        }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.closeOnExec], retryOnInterrupt: true)
        } catch {
            throw failure("cannot open for writing", error)
        }
        do {
            try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                var offset = 0
                while offset < bytes.count {
                    let written = try fd.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    if written == 0 { throw Errno.noSpace }
                    offset += written
                }
            }
        } catch {
            try? fd.close()
            throw failure("cannot write", error)
        }
        do {
            try fd.close()
        } catch {
            throw failure("cannot finish writing", error)
        }
    }
}
