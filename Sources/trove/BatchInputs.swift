import Foundation
import Trove

/// One file a batch conversion will convert.
struct BatchJob: Sendable {
    /// The input file.
    let input: String
    /// With `-o DIR` and a directory input: the input's path mirrored into DIR, before any
    /// extension change. Nil when the result goes where single-file conversion would put it.
    let mirroredPath: String?
}

/// The files a batch run converts, found from the command's FILE and DIRECTORY arguments.
///
/// The whole list is collected before anything is written, so files the run itself writes
/// (`-e xml` next to `--match plist,xml` inputs, or `-o` inside the tree) are never taken as inputs.
struct BatchInputs {
    let arguments: [String]
    let recursive: Bool
    /// Lower-cased name extensions without the dot; `*` takes every file.
    let extensions: [String]
    /// `-o DIR`: where a directory argument's tree is mirrored.
    let outputDirectory: String?

    /// What was found: the jobs in a stable order (arguments in order, each directory's entries
    /// sorted by name), and the errors met on the way (unreadable directories, missing paths),
    /// each a failure of the run.
    struct Collected {
        var jobs: [BatchJob] = []
        var failures: [(path: String, error: PlistError)] = []
    }

    /// True when `path` names a directory (following a symbolic link given on the command line).
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return path != InputFile.standardInputPath
            && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    func collect() -> Collected {
        var collected = Collected()
        for argument in arguments {
            if Self.isDirectory(argument) {
                collectDirectory(argument, into: &collected)
            } else {
                // Named files are converted whatever their name; a missing one fails when read.
                collected.jobs.append(BatchJob(input: argument, mirroredPath: nil))
            }
        }
        return collected
    }

    /// Walks a directory tree without recursion (a deep tree cannot exhaust the stack) and
    /// without following symbolic links to directories (a link cycle cannot loop).
    private func collectDirectory(_ root: String, into collected: inout Collected) {
        var pending = [""]
        while let relative = pending.popLast() {
            let directory = relative.isEmpty ? root : Self.join(root, relative)
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            } catch {
                collected.failures.append((directory, PlistError(.io, "\(directory): cannot list directory: \(Self.reason(error))")))
                continue
            }
            var subdirectories: [String] = []
            for name in names where !name.hasPrefix(".") {
                let entryRelative = relative.isEmpty ? name : Self.join(relative, name)
                let path = Self.join(root, entryRelative)
                switch Self.entryKind(path) {
                case .directory:
                    if recursive { subdirectories.append(entryRelative) }
                case .file:
                    guard matches(name) else { continue }
                    collected.jobs.append(BatchJob(
                        input: path, mirroredPath: outputDirectory.map { Self.join($0, entryRelative) }))
                case .other:
                    continue
                }
            }
            // Reversed so that popping visits subdirectories in name order.
            pending.append(contentsOf: subdirectories.reversed())
        }
    }

    /// True when a file name from a directory is one `--match` takes.
    func matches(_ name: String) -> Bool {
        if extensions.contains("*") { return true }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private enum EntryKind { case directory, file, other }

    /// A directory (not through a symbolic link), a regular file (possibly through a link), or
    /// something else (device, socket, dangling link, link to a directory).
    private static func entryKind(_ path: String) -> EntryKind {
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else {
            return .other
        }
        switch type {
        case .typeDirectory:
            return .directory
        case .typeRegular:
            return .file
        case .typeSymbolicLink:
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            return exists && !isDirectory.boolValue ? .file : .other
        default:
            return .other
        }
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return nsError.localizedDescription
    }
}
