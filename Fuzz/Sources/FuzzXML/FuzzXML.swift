import FuzzChecks
import Trove

/// libFuzzer's entry point: the XML reader alone, the lossless XML round trip of what it accepts,
/// and the agreement of its common-subset scanner with libxml2.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    FuzzChecks.checkReader(.xml, bytes)
    FuzzChecks.checkXMLPathsAgree(bytes)
    return 0
}
