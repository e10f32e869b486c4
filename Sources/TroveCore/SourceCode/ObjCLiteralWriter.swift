import Foundation

/// Writes a property list as an Objective-C constant, and optionally its header, byte for byte as
/// `plutil -convert objc [-header]` does.
///
/// ```objc
/// #import "Settings.h"
///
/// /// Generated from Settings.plist
/// __attribute__((visibility("hidden")))
/// NSDictionary * const Settings = @{
///     @"Count" : @3,
///     @"Name" : @"Main",
/// };
/// ```
///
/// The implementation imports its header (named after the output file) unless it goes to standard
/// output. The constant is `NSDictionary`, `NSArray`, `NSString` or `NSNumber` after the top-level
/// value, named as ``PlistSourceLanguage/variableName(forSourcePath:)`` says, with hidden
/// visibility. Values are spelled as ``SwiftLiteralWriter`` spells them, with `@` in front,
/// `YES`/`NO` for booleans and `@{...}` for dictionaries; string line feeds are written as they
/// are, inside the literal, as plutil writes them.
///
/// Dates and data have no Objective-C literal: a value holding one throws
/// ``PlistError/Code/unsupportedValue`` with plutil's message ("Input contains an object that
/// cannot be represented in Obj-C literal syntax"), and so do UIDs and null.
public struct ObjCLiteralWriter: Sendable {
    /// The path the property list was read from: it names the constant and the comment line.
    public var sourcePath: String
    /// Where the implementation will be written; its name gives the imported header's name.
    /// `nil` or `-` means standard output, where no `#import` line is written.
    public var outputPath: String?
    /// The deepest nesting written; deeper values throw ``PlistError/Code/depthLimit``.
    public var maxDepth: Int

    /// A writer for a property list read from `sourcePath` (`-` for standard input) whose
    /// implementation goes to `outputPath`.
    public init(sourcePath: String, outputPath: String?, maxDepth: Int = PlistLimits.default.maxDepth) {
        self.sourcePath = sourcePath
        self.outputPath = outputPath
        self.maxDepth = maxDepth
    }

    /// The path of the header that goes with the implementation at `outputPath`: its extension
    /// replaced by `h`, or `.h` appended when the name has no extension (plutil would then write
    /// the header over the implementation).
    public static func headerPath(forOutputPath outputPath: String) -> String {
        let nameStart = outputPath.lastIndex(of: "/").map { outputPath.index(after: $0) } ?? outputPath.startIndex
        let name = outputPath[nameStart...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(outputPath[...dot]) + "h"
        }
        return outputPath + ".h"
    }

    /// The implementation (`.m`) text, ending in `;` and a newline.
    public func implementation(_ value: PlistValue) throws(PlistError) -> String {
        let typeName = try validatedTypeName(value)
        var out = ""
        if let outputPath, outputPath != "-" {
            out += "#import \"\(SourcePathNaming.stem(ofPath: outputPath)).h\"\n\n"
        }
        out += declaration(typeName) + " = "
        SourceLiteralLayout.append(value, spelledAs: Self.syntax, to: &out)
        out += ";\n"
        return out
    }

    /// The header (`.h`) text that declares the constant, ending in `;` and a newline.
    public func header(_ value: PlistValue) throws(PlistError) -> String {
        let typeName = try validatedTypeName(value)
        return "#import <Foundation/Foundation.h>\n\n" + declaration(typeName, extern: true) + ";\n"
    }

    /// Checks that every value has a literal and returns the constant's class name.
    private func validatedTypeName(_ value: PlistValue) throws(PlistError) -> String {
        try SourceLiteralSpelling.validate(
            value, rejecting: [.date, .data],
            message: "Input contains an object that cannot be represented in Obj-C literal syntax",
            maxDepth: maxDepth)
        switch value {
        case .dictionary: return "NSDictionary"
        case .array: return "NSArray"
        case .string: return "NSString"
        default: return "NSNumber"
        }
    }

    /// The comment, attribute and declaration lines, up to the constant's name.
    private func declaration(_ typeName: String, extern: Bool = false) -> String {
        var out = "/// Generated from \(SourcePathNaming.lastComponent(ofPath: sourcePath))\n"
        // plutil marks the constant hidden so that it is not exported from a framework by accident.
        out += "__attribute__((visibility(\"hidden\")))\n"
        if extern { out += "extern " }
        out += "\(typeName) * const \(PlistSourceLanguage.variableName(forSourcePath: sourcePath))"
        return out
    }

    /// Objective-C's spellings: `@`-prefixed literals, `@[...]` and `@{...}`.
    private static let syntax = SourceLiteralSyntax(
        arrayOpen: "@[\n", arrayClose: "]", dictionaryOpen: "@{\n", dictionaryClose: "}",
        appendKey: { key, out in out += "@\"\(key)\" : " },
        appendScalar: { value, out in
            switch value {
            case .string(let string):
                out += "@\"" + SourceLiteralSpelling.escapedText(string) + "\""
            case .integer(let integer):
                out += "@" + integer.description
            case .real(let real):
                out += "@" + SourceLiteralSpelling.real(real)
            case .bool(let bool):
                out += bool ? "@YES" : "@NO"
            case .date, .data, .uid, .null, .array, .dictionary:
                // Refused by validation before anything is written; containers are the layout's.
                break
            }
        })
}
