import Foundation
@_spi(Testing) import TroveCore

extension FuzzChecks {
    /// The XML reader's two paths must agree: the scanner for the common subset, which hands
    /// everything else to libxml2, and libxml2 alone, the reference. Either both read the input
    /// to the same value or both refuse it.
    public static func checkXMLPathsAgree(_ bytes: UnsafeRawBufferPointer) {
        var reference = XMLPlistReader()
        reference.usesCommonSubsetScanner = false
        let scanned = Result { () throws(PlistError) in try XMLPlistReader().read(bytes, keepingLayout: false).value }
        let parsed = Result { () throws(PlistError) in try reference.read(bytes, keepingLayout: false).value }
        switch (scanned, parsed) {
        case (.success(let value), .success(let expected)):
            if let difference = ValueDifference.first(value, expected) {
                fail("the XML common-subset scanner and libxml2 read different values: \(difference)")
            }
        case (.success, .failure(let error)):
            fail("the XML common-subset scanner accepted what libxml2's path refuses: \(error)")
        case (.failure(let error), .success):
            fail("the XML reader refused what libxml2's path reads: \(error)")
        case (.failure, .failure):
            break
        }
    }
}
