// Placeholder: replaced by the XML codec.
public struct XMLLayout: Sendable {}

/// Reads XML property lists.
public struct XMLPlistReader: Sendable {
    public var limits: PlistLimits
    public init(limits: PlistLimits = .default) { self.limits = limits }
    public func read(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool = true) throws(PlistError) -> (value: PlistValue, layout: XMLLayout?) {
        throw PlistError(.unknownFormat, "not implemented")
    }
}

/// Writes XML property lists.
public struct XMLPlistWriter: Sendable {
    public init() {}
    public func write(_ value: PlistValue, layout: XMLLayout? = nil) throws(PlistError) -> [UInt8] {
        throw PlistError(.unsupportedValue, "not implemented")
    }
}
