import Foundation
import TroveCore

/// The store types known by name and file extension, and the detection of a file's type from
/// its content.
///
/// The built-in types are registered from the start: `keyed-archive` (``KeyedArchiveStoreType``,
/// asked first, since an archive is also a binary or XML property list), `binary1`, `xml1`,
/// `openstep`, `json` (``FormatStoreType``) and `memory` (``MemoryStoreType/shared``). A type registered later is
/// asked first when a file's content is detected and when an extension is looked up, so a third
/// party's type can claim files the built-in ones would read, and registering a type under a
/// taken name replaces the older one.
///
/// ```swift
/// PlistStoreRegistry.shared.register(MyStoreType())
/// PlistStoreRegistry.shared.type(named: "binary1")       // FormatStoreType.binary
/// PlistStoreRegistry.shared.type(forPath: "a.json")      // FormatStoreType.json
/// ```
public final class PlistStoreRegistry: @unchecked Sendable {
    private let lock = NSLock()
    /// Registration order; later entries take precedence.
    private var types: [any PlistStoreType]

    /// A registry holding only the built-in types.
    public init() {
        types = [
            MemoryStoreType.shared, FormatStoreType.openStep, FormatStoreType.json, FormatStoreType.xml,
            FormatStoreType.binary, KeyedArchiveStoreType.binary,
        ]
    }

    /// The registry stores use unless given another.
    public static let shared = PlistStoreRegistry()

    /// Adds `type`, replacing any type registered under the same name.
    public func register(_ type: any PlistStoreType) {
        lock.withLock {
            types.removeAll { $0.name == type.name }
            types.append(type)
        }
    }

    /// Every registered type, the most recently registered first.
    public var registeredTypes: [any PlistStoreType] { lock.withLock { types.reversed() } }

    /// The type registered as `name`, or nil.
    public func type(named name: String) -> (any PlistStoreType)? {
        registeredTypes.first { $0.name == name }
    }

    /// The type that claims the extension of `path` (case-insensitively), or nil.
    public func type(forPath path: String) -> (any PlistStoreType)? {
        let pathExtension = (path as NSString).pathExtension.lowercased()
        guard !pathExtension.isEmpty else { return nil }
        return registeredTypes.first { $0.fileExtensions.contains { $0.lowercased() == pathExtension } }
    }

    /// The type whose content `bytes` are, asking the most recently registered first; nil when no
    /// type recognizes them.
    public func type(recognizing bytes: Data) -> (any PlistStoreType)? {
        registeredTypes.first { $0.recognizes(bytes) }
    }
}
