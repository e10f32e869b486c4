import FuzzChecks
import Trove

/// libFuzzer's entry point: detect and decode, then the lossless rewrite in the document's own format and an exact conversion to binary.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkDetectedRoundTrip(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
