import FuzzChecks
import Trove

/// libFuzzer's entry point: the XML reader alone, and the lossless XML round trip of what it accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkReader(.xml, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
