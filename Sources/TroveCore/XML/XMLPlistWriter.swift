import Foundation

/// Writes XML property lists.
///
/// Without a layout the output is byte-identical to CoreFoundation's XML writer (what
/// `plutil -convert xml1` prints): the Apple header, tab indentation, dictionary keys sorted by
/// UTF-16 code units, `&`/`<`/`>` escaped, reals as `%.17g`, base64 wrapped at 76 columns.
///
/// With the ``XMLLayout`` of a document that was read, the output follows the notes: keys stay
/// in the value's order (document order for a value that was read), and every node whose value
/// is unchanged is spelled as it was, so an unedited document comes back byte for byte and an
/// edited one differs only where it was edited.
public struct XMLPlistWriter: Sendable {
    /// Bounds on what is written: ``PlistLimits/maxDepth`` (deeper values could not be read
    /// back), and ``PlistLimits/maxExpandedValues`` and ``PlistLimits/maxDecodedBytes``, which
    /// stop a value whose shared containers would expand without end.
    public var limits: PlistLimits
    /// The deepest nesting written: `limits.maxDepth`, at most ``PlistLimits/depthCeiling``.
    public var maxDepth: Int {
        get { limits.maxDepth }
        set { limits.maxDepth = newValue }
    }

    /// A writer that refuses values nested deeper than `maxDepth` (CF's macOS limit by default).
    public init(maxDepth: Int = PlistLimits.default.maxDepth) {
        self.limits = PlistLimits(maxDepth: maxDepth)
    }

    /// A writer with the given limits.
    public init(limits: PlistLimits) {
        self.limits = limits
    }

    /// The document for `value`, following `layout` when given.
    /// - Throws: ``PlistError`` `.unsupportedValue` for ``PlistValue/null`` (XML has no null),
    ///   `.depthLimit` beyond ``maxDepth``, `.badEncoding` when the layout's 8-bit encoding
    ///   cannot hold a character of the value.
    public func write(_ value: PlistValue, layout: XMLLayout? = nil) throws(PlistError) -> [UInt8] {
        let bytes = try emitUTF8(value, layout: layout).array
        guard let layout, layout.encoding != .standard else { return bytes }
        return try XMLTranscoder.encode(bytes, as: layout.encoding)
    }

    /// The same document as `Data` that owns the emitter's buffer (UTF-8 documents; others are
    /// transcoded as ``write(_:layout:)`` does), so that `Plist.write` does not copy it twice.
    func writeData(_ value: PlistValue, layout: XMLLayout? = nil) throws(PlistError) -> Data {
        if let layout, layout.encoding != .standard { return Data(try write(value, layout: layout)) }
        return try emitUTF8(value, layout: layout).data()
    }

    /// The UTF-8 document for `value`: CoreFoundation's without a layout; following `layout`
    /// otherwise, which for a layout without notes (a document CF or Trove wrote, read
    /// losslessly and perhaps edited) is CoreFoundation's with the value's own key order.
    private func emitUTF8(_ value: PlistValue, layout: XMLLayout?) throws(PlistError) -> ByteBuffer {
        guard let layout, layout.hasNotes else {
            var emitter = XMLCanonicalEmitter(maxDepth: maxDepth, limits: limits, keepsKeyOrder: layout != nil)
            try emitter.writeDocument(value)
            return emitter.out
        }
        var emitter = XMLEmitter(layout: layout, maxDepth: maxDepth)
        emitter.meter = LimitMeter(limits: limits)
        try emitter.writeDocument(value)
        return emitter.out
    }
}
