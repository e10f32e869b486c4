extension String {
    /// A string of `bytes`, which the caller has already proven to be well-formed UTF-8 (and, with
    /// `isASCII`, all below 0x80), made without the standard library checking them again.
    ///
    /// The binary reader knows this of every string object it decodes: it tested the ASCII ones
    /// itself and transcoded the UTF-16 ones, checking their surrogates. `String(decoding:)`
    /// validated the bytes a second time, a tenth of decoding a string-heavy file; a UTF-16 string
    /// costs one more copy here (out of a scratch buffer), which also gives it storage of its own
    /// size instead of the three bytes a unit the transcoder has to reserve.
    ///
    /// Debug builds (and so the tests) check every such claim; a false one would make a `String`
    /// whose contents break the standard library's assumptions.
    @inline(__always)
    init(provenUTF8 bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) {
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            assert(String(validating: bytes, as: UTF8.self) != nil, "bytes claimed to be UTF-8 are not")
            assert(!isASCII || bytes.allSatisfy { $0 < 0x80 }, "bytes claimed to be ASCII are not")
            self = String(copying: UTF8Span(unchecked: Span(_unsafeElements: bytes), isKnownASCII: isASCII))
            return
        }
        #endif
        // Toolchains and systems without `UTF8Span` (before Swift 6.2, macOS 26) check again.
        self = String(decoding: bytes, as: UTF8.self)
    }
}
