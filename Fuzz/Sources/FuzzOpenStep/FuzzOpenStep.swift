import FuzzChecks
import Trove

/// libFuzzer's entry point: the OpenStep reader alone, and the OpenStep round trip of what it accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkReader(.openStep, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
