import Foundation
import Testing

@testable import TroveCore

@Suite("XML corpus")
struct XMLCorpusTests {
    @Test("valid XML fixtures read; must-reject ones fail with a PlistError", .enabled(if: XMLTestSupport.fixtureRoot != nil, XMLTestSupport.corpusMissing))
    func readsCorpus() throws {
        var readFailures: [String] = []
        var wronglyAccepted: [String] = []
        var checked = 0
        for (row, bytes) in XMLTestSupport.xmlRows {
            checked += 1
            let outcome = Result { () throws(PlistError) in try XMLTestSupport.read(bytes: bytes) }
            switch (row.expectation, outcome) {
            case ("valid", .failure(let e)), ("valid-lenient", .failure(let e)):
                readFailures.append("\(row.path): \(e)")
            case ("must-reject", .success):
                if row.category != "keyed-archive" { wronglyAccepted.append(row.path) }
            case ("must-reject", .failure(let e)):
                #expect(e.format == .xml, "\(row.path)")
                if case .lineColumn? = e.location {} else { Issue.record("\(row.path): no line:column in \(e)") }
            default:
                break
            }
        }
        print("xml corpus: \(checked) XML fixtures checked")
        #expect(checked > 40)
        #expect(readFailures == [], "valid fixtures that failed to read")
        #expect(wronglyAccepted == [], "must-reject fixtures that were accepted")
    }

    @Test("valid XML fixtures re-encode byte-identically", .enabled(if: XMLTestSupport.fixtureRoot != nil, XMLTestSupport.corpusMissing))
    func losslessRoundTrip() throws {
        var total = 0, identical = 0, appleTotal = 0, appleIdentical = 0
        var appleMismatches: [String] = []
        var otherMismatches: [String] = []
        for (row, bytes) in XMLTestSupport.xmlRows where row.expectation.hasPrefix("valid") {
            guard let (value, layout) = try? XMLTestSupport.read(bytes: bytes) else { continue }
            total += 1
            let apple = row.isAppleWritten && (row.category == "xml" || row.category == "large")
            if apple { appleTotal += 1 }
            let output = try? XMLPlistWriter().write(value, layout: layout)
            if output == bytes {
                identical += 1
                if apple { appleIdentical += 1 }
            } else if apple {
                appleMismatches.append(row.path)
            } else {
                otherMismatches.append(row.path)
            }
        }
        print("xml lossless: \(identical) of \(total) (Apple-written: \(appleIdentical) of \(appleTotal))")
        if !otherMismatches.isEmpty { print("xml lossless: not identical: \(otherMismatches)") }
        #expect(appleTotal > 10)
        #expect(appleMismatches == [], "Apple-written XML fixtures that did not round-trip")
    }
}
