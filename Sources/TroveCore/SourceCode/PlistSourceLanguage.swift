import Foundation

/// The programming languages a property list can be written out in as a source-code literal, as
/// `plutil -convert swift` and `plutil -convert objc` do.
///
/// These are write-only targets, kept apart from ``PlistFormat``: nothing reads them back, and a
/// literal has no layout to keep. ``SwiftLiteralWriter`` and ``ObjCLiteralWriter`` write them.
public enum PlistSourceLanguage: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A Swift `let` constant (`plutil -convert swift`).
    case swift
    /// An Objective-C constant built from `@{...}` / `@[...]` literals (`plutil -convert objc`).
    case objc

    /// The extension `plutil` gives the file it writes: `swift`, or `m` for Objective-C (whose
    /// optional header gets `h`).
    public var fileExtension: String {
        switch self {
        case .swift: return "swift"
        case .objc: return "m"
        }
    }

    public var description: String { rawValue }

    /// The constant's name for a property list read from `path`, as `plutil` derives it: the last
    /// path component without its extension, with `-` and space turned into `_` and every
    /// Unicode symbol or control/format character removed. Other characters stay even where the
    /// language would not accept them (`a.b.plist` gives `a.b`, `1x.plist` gives `1x`), because
    /// `plutil` keeps them too; standard input (`-`) gives `_`.
    public static func variableName(forSourcePath path: String) -> String {
        // Foundation's own replacement is used because it decides, as plutil's does, whether a
        // `-` followed by a combining mark still counts as a `-`.
        let spaced = SourcePathNaming.stem(ofPath: path)
            .replacingOccurrences(of: "-", with: "_")
            .replacingOccurrences(of: " ", with: "_")
        let removed = CharacterSet.symbols.union(.controlCharacters)
        var name = String.UnicodeScalarView()
        name.append(contentsOf: spaced.unicodeScalars.lazy.filter { !removed.contains($0) })
        return String(name)
    }
}

/// File-name arithmetic the way `plutil` does it for the literal formats.
enum SourcePathNaming {
    /// The last path component, as `URL(fileURLWithPath:)` sees it (so a trailing `/` and `.`
    /// components are resolved the same way plutil resolves them).
    static func lastComponent(ofPath path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }

    /// The last component without its extension. An extension starts at the last `.`, unless that
    /// dot begins the name (`.hidden` has none) or the name is `.` or `..`.
    static func stem(ofPath path: String) -> String {
        let name = lastComponent(ofPath: path)
        // The dot is looked for among the UTF-8 bytes, not the characters, so that a dot carrying a
        // combining mark still ends the stem, as in plutil.
        guard name != ".", name != "..", let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")),
              dot != name.startIndex
        else { return name }
        return String(name[..<dot])
    }
}
