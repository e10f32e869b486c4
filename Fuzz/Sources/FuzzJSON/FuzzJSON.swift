import FuzzChecks
import Trove

/// libFuzzer's entry point: the JSON reader alone, and the JSON round trip of what it accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkReader(.json, UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
