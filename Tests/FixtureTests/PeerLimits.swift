import Trove

/// Why a generated case is left out of one peer check. Every exclusion is a known limit of a
/// format or a peer, named here and counted in the output, never a silent skip.
enum PeerLimit: String, CaseIterable, Sendable {
    case xmlHasNoNull = "XML has no null (our writer must refuse it; checked separately)"
    case uidIsBinaryOnly = "UIDs are exchanged in binary only (XML spells them as CF$UID dictionaries)"
    case foundationHasNoNull = "Foundation has no null object"
    case foundationHasNoUID = "Foundation has no public UID type"
    case plistlibCannotWriteNull = "plistlib cannot write None"
    case expatRejectsControls = "XML 1.0 forbids C0 controls other than TAB/LF/CR and U+FFFE/U+FFFF: expat rejects them, plistlib refuses to write them"
    case expatNormalisesCR = "XML end-of-line handling: expat reads CR as LF and plistlib writes CR as LF"
    case appleXMLWritesUnsignedZero = "Apple's XML writer prints -0.0 as 0.0 (Foundation's does; ours follows it)"
    case foundationMergesEquivalentKeys = "the Linux Foundation keys dictionaries by Swift String, merging canonically equivalent keys (CF on macOS keeps both)"
}

/// The checks a value goes through, with the limits that apply to each.
enum PeerCheck: String, CaseIterable, Sendable {
    case plistlibReadsOurBinary = "plistlib reads our binary"
    case plistlibReadsOurXML = "plistlib reads our XML"
    case foundationReadsOurBinary = "Foundation reads our binary"
    case foundationReadsOurXML = "Foundation reads our XML"
    case weReadPlistlibBinary = "we read plistlib's binary"
    case weReadPlistlibXML = "we read plistlib's XML"
    case weReadFoundationBinary = "we read Foundation's binary"
    case weReadFoundationXML = "we read Foundation's XML"

    var isXML: Bool {
        switch self {
        case .plistlibReadsOurXML, .foundationReadsOurXML, .weReadPlistlibXML, .weReadFoundationXML: return true
        default: return false
        }
    }

    var involvesFoundation: Bool {
        switch self {
        case .foundationReadsOurBinary, .foundationReadsOurXML, .weReadFoundationBinary, .weReadFoundationXML: return true
        default: return false
        }
    }

    /// XML loses date fractions; plistlib keeps microseconds; Foundation's binary dates are exact.
    var rules: ComparisonRules {
        if isXML { return .wholeSecondDates }
        return involvesFoundation ? .exact : .microsecondDates
    }

    /// The limits that keep `value` out of this check.
    func limits(for value: PlistValue) -> [PeerLimit] {
        var limits: [PeerLimit] = []
        let holdsNull = ValueComparison.containsNull(value)
        let holdsUID = ValueComparison.containsUID(value)
        if isXML && holdsNull { limits.append(.xmlHasNoNull) }
        if isXML && holdsUID { limits.append(.uidIsBinaryOnly) }
        if involvesFoundation && holdsNull && !isXML { limits.append(.foundationHasNoNull) }
        if involvesFoundation && holdsUID && !isXML { limits.append(.foundationHasNoUID) }
        if self == .weReadPlistlibBinary && holdsNull { limits.append(.plistlibCannotWriteNull) }
        if involvesFoundation && Self.containsEquivalentKeys(value) { limits.append(.foundationMergesEquivalentKeys) }
        if self == .plistlibReadsOurXML || self == .weReadPlistlibXML {
            if Self.containsText(value, where: Self.isXMLForbidden) { limits.append(.expatRejectsControls) }
            if Self.containsText(value, where: { $0 == "\r" }) { limits.append(.expatNormalisesCR) }
        }
        let appleStyleXMLWriter = self == .weReadFoundationXML || self == .plistlibReadsOurXML || self == .foundationReadsOurXML
        if appleStyleXMLWriter && ValueComparison.contains(value, where: Self.isNegativeZero) {
            limits.append(.appleXMLWritesUnsignedZero)
        }
        return limits
    }

    private static func isNegativeZero(_ v: PlistValue) -> Bool {
        if case .real(let r) = v { return r.value == 0 && r.value.sign == .minus }
        return false
    }

    /// True when some dictionary has two keys that differ in code units but are one Swift String.
    private static func containsEquivalentKeys(_ v: PlistValue) -> Bool {
        ValueComparison.contains(v) { value in
            guard case .dictionary(let dict) = value else { return false }
            return Set(dict.keys).count != dict.count
        }
    }

    /// Scalars XML 1.0 does not allow in a document, raw or escaped.
    private static func isXMLForbidden(_ s: Unicode.Scalar) -> Bool {
        (s.value < 0x20 && s != "\t" && s != "\n" && s != "\r") || s.value == 0xFFFE || s.value == 0xFFFF
    }

    /// True when any string or dictionary key holds a scalar satisfying `predicate`.
    static func containsText(_ v: PlistValue, where predicate: (Unicode.Scalar) -> Bool) -> Bool {
        switch v {
        case .string(let s): return s.unicodeScalars.contains(where: predicate)
        case .array(let items): return items.contains { containsText($0, where: predicate) }
        case .dictionary(let dict):
            return dict.contains { $0.key.unicodeScalars.contains(where: predicate) || containsText($0.value, where: predicate) }
        default: return false
        }
    }
}
