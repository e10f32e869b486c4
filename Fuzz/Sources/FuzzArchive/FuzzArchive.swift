import FuzzChecks
import Trove

/// libFuzzer's entry point: a keyed archive decoded every way the library offers, with and
/// without an allowed-class set. Any refusal must be a `PlistError`; a generic graph that decodes
/// must archive again and decode to an equivalent graph.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzChecks.checkArchive(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
