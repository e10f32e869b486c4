/// The on-disk formats a property list can take.
public enum PlistFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Apple's XML property list (`plutil` calls it `xml1`).
    case xml = "xml1"
    /// Binary property list, `bplist00` (`plutil`'s `binary1`).
    case binary = "binary1"
    /// The old-style NeXTSTEP/OpenStep text format, including `.strings` files.
    case openStep = "openstep"
    /// JSON, as `plutil -convert json` writes it.
    case json = "json"

    /// A short human name used in messages.
    public var displayName: String {
        switch self {
        case .xml: return "XML"
        case .binary: return "binary"
        case .openStep: return "OpenStep"
        case .json: return "JSON"
        }
    }

    public var description: String { rawValue }
}
