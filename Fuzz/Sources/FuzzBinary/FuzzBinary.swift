import FuzzChecks
import Trove

/// libFuzzer's entry point: the binary reader alone, and the lossless binary round trip of what it accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkReader(.binary, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
