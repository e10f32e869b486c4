import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveTesting
import XCTest

@Suite("TroveTesting: Swift Testing helpers")
struct SwiftTestingHelperTests {
    @Test("a failed check is recorded as an issue, with the context first; the test goes on")
    func recordsIssues() {
        var reachedEnd = false
        withKnownIssue {
            expectPlistEqual(["a": 1], ["a": 2], context: "fixture.plist")
            reachedEnd = true
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("fixture.plist: values differ (1 difference;") && $0.rawValue.hasSuffix("~ a: 2 -> 1") }
        }
        #expect(reachedEnd)
        withKnownIssue {
            expectPlistRoundTrip(file: "/nonexistent/trove-testing.plist")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("cannot read /nonexistent/trove-testing.plist") }
        }
    }

    @Test("a passing check records nothing and hands back its result")
    func passes() throws {
        expectPlistEqual(["a": [1, 2]], ["a": [1, 2]])
        let data = try Plist.write(["a": 1], as: .xml)
        let report = expectPlist { () throws(PlistTestFailure) in try PlistCheck.roundTrip(data) }
        #expect(report?.passed == true)
    }
}

/// The XCTest front ends, on values that pass (XCTest on Linux cannot expect a failure).
final class XCTestHelperTests: XCTestCase {
    func testPassingChecks() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Plist.write(["k": "v", "n": 1], as: .xml), as: "fixture.plist")
        XCTAssertPlistEqual(["n": 1, "k": "v"], ["k": "v", "n": 1])
        XCTAssertPlistRoundTrip(path)
        let report = XCTAssertPlist { () throws(PlistTestFailure) in try PlistCheck.roundTrip(file: path) }
        XCTAssertEqual(report?.passed, true)
    }

    func testThrowingCheckFailsAThrowingTest() throws {
        XCTAssertThrowsError(try PlistCheck.equal(["a": 1], ["a": 2])) { error in
            XCTAssertEqual((error as? PlistTestFailure)?.kind, .valuesDiffer)
        }
    }
}
