// Placeholder: replaced by the binary codec.
public struct BinaryLayout: Sendable {}

/// Reads binary property lists.
public struct BinaryPlistReader: Sendable {
    public var limits: PlistLimits
    public init(limits: PlistLimits = .default) { self.limits = limits }
    public func read(_ bytes: UnsafeRawBufferPointer, keepingLayout: Bool = true) throws(PlistError) -> (value: PlistValue, layout: BinaryLayout?) {
        throw PlistError(.unknownFormat, "not implemented")
    }
}

/// Writes binary property lists.
public struct BinaryPlistWriter: Sendable {
    public init() {}
    public func write(_ value: PlistValue, layout: BinaryLayout? = nil) throws(PlistError) -> [UInt8] {
        throw PlistError(.unsupportedValue, "not implemented")
    }
}
