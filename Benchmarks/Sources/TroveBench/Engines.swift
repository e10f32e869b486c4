import CLibplist
import Foundation
import Trove

/// Trove through its public whole-document API, without layout notes (the fair comparison:
/// neither peer keeps any).
struct TroveEngine: PlistEngine {
    var name: String { "trove" }

    /// Without layout notes; `TROVE_ONE_THREAD` in the environment also turns off the two-thread
    /// binary decode, to time the one-thread decode of the same files in the same conditions.
    static let readOptions: PlistReadOptions = {
        var options = PlistReadOptions(keepsLayout: false)
        if ProcessInfo.processInfo.environment["TROVE_ONE_THREAD"] != nil { options.decodesBinaryInParallel = false }
        return options
    }()

    func decode(_ document: Data, format: DocumentFormat) throws -> PlistValue {
        try Plist.read(document, options: Self.readOptions).value
    }

    func encode(_ value: PlistValue, format: DocumentFormat) throws -> any EncodedDocument {
        try Plist.write(value, as: format == .binary ? .binary : .xml)
    }
}

/// Trove's lossless path: the format readers keep layout notes and the writers follow them.
/// Off by default (`--layout`) because no peer does this work.
struct TroveLayoutEngine: PlistEngine {
    var name: String { "trove+layout" }

    /// Layout notes kept; `TROVE_ONE_THREAD` turns the two-thread decode off here too.
    static let readOptions: PlistReadOptions = {
        var options = PlistReadOptions()
        if ProcessInfo.processInfo.environment["TROVE_ONE_THREAD"] != nil { options.decodesBinaryInParallel = false }
        return options
    }()

    func decode(_ document: Data, format: DocumentFormat) throws -> PlistDocument {
        try Plist.read(document, options: Self.readOptions)
    }

    /// Through `Plist.write(_:)` as a user would: it hands the writer's buffer to `Data` without
    /// a copy, as the plain engine's `Plist.write(_:as:)` does, so the two columns differ only by
    /// the notes.
    func encode(_ document: PlistDocument, format: DocumentFormat) throws -> any EncodedDocument {
        try Plist.write(document)
    }
}

/// The toolchain's Foundation: `PropertyListSerialization` into and out of `Any`.
struct FoundationEngine: PlistEngine {
    var name: String { "Foundation" }

    func decode(_ document: Data, format: DocumentFormat) throws -> Any {
        try PropertyListSerialization.propertyList(from: document, options: [], format: nil)
    }

    func encode(_ value: Any, format: DocumentFormat) throws -> any EncodedDocument {
        try PropertyListSerialization.data(
            fromPropertyList: value, format: format == .binary ? .binary : .xml, options: 0)
    }
}

/// libplist's C API on its own `plist_t` trees.
struct LibplistEngine: PlistEngine {
    var name: String { "libplist" }

    func decode(_ document: Data, format: DocumentFormat) throws -> LibplistTree {
        guard let length = UInt32(exactly: document.count) else {
            throw EngineFailure("libplist takes at most 4 GiB")
        }
        var root: plist_t? = nil
        document.withUnsafeBytes { bytes in
            let start = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            switch format {
            case .binary: plist_from_bin(start, length, &root)
            case .xml: plist_from_xml(start, length, &root)
            }
        }
        guard let root else { throw EngineFailure("libplist could not parse the \(format.label) document") }
        return LibplistTree(root: root)
    }

    func encode(_ tree: LibplistTree, format: DocumentFormat) throws -> any EncodedDocument {
        var output: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        switch format {
        case .binary: plist_to_bin(tree.root, &output, &length)
        case .xml: plist_to_xml(tree.root, &output, &length)
        }
        guard let output else { throw EngineFailure("libplist could not write the \(format.label) document") }
        return LibplistBuffer(bytes: output, byteCount: Int(length), format: format)
    }
}

/// Owns a libplist tree so that it is freed when the runner drops the result, after timing.
final class LibplistTree {
    let root: plist_t

    init(root: plist_t) { self.root = root }

    deinit { plist_free(root) }
}

/// Owns a buffer libplist allocated for an encoded document.
final class LibplistBuffer: EncodedDocument {
    let bytes: UnsafeMutablePointer<CChar>
    let byteCount: Int
    private let format: DocumentFormat

    init(bytes: UnsafeMutablePointer<CChar>, byteCount: Int, format: DocumentFormat) {
        self.bytes = bytes
        self.byteCount = byteCount
        self.format = format
    }

    deinit {
        switch format {
        case .binary: plist_to_bin_free(bytes)
        case .xml: plist_to_xml_free(bytes)
        }
    }
}
