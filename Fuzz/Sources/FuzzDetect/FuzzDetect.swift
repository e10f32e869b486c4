import FuzzChecks
import Trove

/// libFuzzer's entry point: format detection and decoding, as `Plist.read` does them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkDetection(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
