import FuzzChecks
import Trove

/// libFuzzer's entry point: the binary reader alone, the lossless binary round trip of what it
/// accepts, and the two-thread read against the one-thread read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    FuzzChecks.checkReader(.binary, bytes)
    FuzzChecks.checkBinaryThreadsAgree(bytes)
    return 0
}
