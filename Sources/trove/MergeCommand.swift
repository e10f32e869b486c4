import ArgumentParser
import Foundation
import Trove

/// `trove merge`: a three-way merge of property lists by key path, usable as a git merge driver.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge two property lists' changes to a common ancestor, key by key.",
        discussion: """
            BASE is the common ancestor, OURS and THEIRS the two changed versions; each may be in \
            any format. Every key path is decided on its own: a change made on one side only is \
            taken, a change made alike on both sides is taken once, and a key path changed on both \
            sides in different ways is a conflict. Dictionaries changed on both sides merge key by \
            key; arrays merge by position (edits to different elements merge, and so do elements \
            appended on one side), and where positions are ambiguous (both sides append \
            different elements, one side removes what the other edits) the positions conflict.

            The result is written in OURS's format and layout: OURS is read with its layout \
            notes, the merged changes are applied to its value as key-path edits, and it is \
            written back, so entries that did not change keep their bytes. It replaces OURS \
            atomically, or goes to OUT with -o ('-o -' for standard output).

            On a conflict nothing is written and OURS is left unchanged; each conflict is one line \
            on standard error, 'OURS: conflict at KEYPATH: base B, ours O, theirs T' ('(none)' for \
            a side that has no value there). Exit status: 0 when merged, 1 for conflicts, 2 when a \
            file cannot be read or written, 64 for a usage error.

            As a git merge driver (git passes %O %A %B and expects the result in %A):
              git config merge.plist.name 'property lists, by key path'
              git config merge.plist.driver 'trove merge %O %A %B'
              echo '*.plist merge=plist' >> .gitattributes

            Examples:
              trove merge base.plist mine.plist theirs.plist
              trove merge -o merged.plist base.plist mine.plist theirs.json
            """
    )

    @Option(name: .short, help: ArgumentHelp("Write the result here instead of replacing OURS; '-' for standard output.", valueName: "out"))
    var output: String?

    @Argument(help: ArgumentHelp("The common ancestor.", valueName: "base"))
    var base: String

    @Argument(help: ArgumentHelp("Our version; replaced by the result unless -o is given.", valueName: "ours"))
    var ours: String

    @Argument(help: ArgumentHelp("Their version.", valueName: "theirs"))
    var theirs: String

    func validate() throws {
        let standardInputs = [base, ours, theirs].filter { $0 == InputFile.standardInputPath }
        if standardInputs.count > 1 { throw ValidationError("Only one of the three files can be '-' (standard input).") }
        if ours == InputFile.standardInputPath && output == nil {
            throw ValidationError("OURS is standard input; name where the result goes with -o.")
        }
    }

    func run() throws {
        let baseValue = try Self.read(base, keepingLayout: false).value
        var document = try Self.read(ours, keepingLayout: true)
        let theirValue = try Self.read(theirs, keepingLayout: false).value
        let merge = PlistMerge.merge(base: baseValue, ours: document.value, theirs: theirValue)
        guard merge.isClean else {
            let name = InputFile.displayName(for: ours)
            for conflict in merge.conflicts { Console.reportLine("\(name): conflict at \(Self.describe(conflict))") }
            throw ExitCode(1)
        }
        let changes = merge.value.differences(from: document.value)
        let target = OutputTarget.forInput(InputFile(path: ours), outputPath: output, newExtension: nil)
        if changes.isEmpty && target == .file(ours) { return }
        do {
            try document.value.apply(changes)
            try target.write(try Plist.write(document))
        } catch {
            Console.reportFailure(error, file: InputFile.displayName(for: output ?? ours))
            throw ExitCode(2)
        }
    }

    /// `KEYPATH: base B, ours O, theirs T`, each value on one line, `(none)` for no value.
    static func describe(_ conflict: PlistMergeConflict) -> String {
        func side(_ value: PlistValue?) -> String { value.map { OneLineFormatter.render($0) } ?? "(none)" }
        return "\(DiffCommand.displayPath(conflict.keyPath)): base \(side(conflict.base)), "
            + "ours \(side(conflict.ours)), theirs \(side(conflict.theirs))"
    }

    /// Reads one input; an unreadable file ends the command with status 2.
    private static func read(_ path: String, keepingLayout: Bool) throws(ExitCode) -> PlistDocument {
        let file = InputFile(path: path)
        do {
            return try file.readDocument(keepingLayout: keepingLayout)
        } catch {
            Console.reportFailure(error, file: file.displayName)
            throw ExitCode(2)
        }
    }
}
