import Foundation
import Testing
import Trove
import TroveTesting

@Suite("TroveTesting: comparison")
struct ComparisonTests {
    /// The failure `body` throws, or nil.
    static func failure(_ body: () throws(PlistTestFailure) -> Void) -> PlistTestFailure? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("the message lists every difference by key path")
    func message() throws {
        let expected: PlistValue = ["a": ["b": 1], "d": 1, "same": true]
        let actual: PlistValue = ["a": [:], "c": "x", "d": 2, "same": true]
        let failure = try #require(Self.failure { () throws(PlistTestFailure) in try PlistCheck.equal(actual, expected) })
        #expect(failure.kind == .valuesDiffer)
        #expect(failure.message == """
            values differ (3 differences; - expected only, + actual only, ~ expected -> actual):
            - a.b: 1
            + c: "x"
            ~ d: 1 -> 2
            """)
        #expect(failure.differences.map(\.keyPath) == ["a.b", "c", "d"])
    }

    @Test("key order is ignored by default and reported on request")
    func keyOrder() throws {
        let expected: PlistValue = ["x": 1, "y": ["p": 1, "q": 2]]
        let actual: PlistValue = ["y": ["q": 2, "p": 1], "x": 1]
        #expect(Self.failure { () throws(PlistTestFailure) in try PlistCheck.equal(actual, expected) } == nil)
        let failure = try #require(Self.failure { () throws(PlistTestFailure) in
            try PlistCheck.equal(actual, expected, options: PlistComparisonOptions(ignoresKeyOrder: false))
        })
        #expect(failure.message.contains("~ (root): key order [\"x\", \"y\"] -> [\"y\", \"x\"]"), "\(failure.message)")
        #expect(failure.message.contains("~ y: key order [\"p\", \"q\"] -> [\"q\", \"p\"]"), "\(failure.message)")
    }

    @Test("dates to the second and reals within a tolerance")
    func tolerances() {
        let expected: PlistValue = ["when": .date(PlistDate(secondsSinceReferenceDate: 10)), "ratio": 0.3]
        let actual: PlistValue = ["when": .date(PlistDate(secondsSinceReferenceDate: 10.75)), "ratio": .real(PlistReal(0.1 + 0.2))]
        #expect(PlistCheck.differences(actual, expected).count == 2)
        let loose = PlistComparisonOptions(comparesDatesToTheSecond: true, realTolerance: 1e-9)
        #expect(PlistCheck.differences(actual, expected, options: loose).isEmpty)
        let later: PlistValue = ["when": .date(PlistDate(secondsSinceReferenceDate: 11)), "ratio": 0.31]
        #expect(PlistCheck.differences(later, expected, options: loose).map(\.keyPath) == ["ratio", "when"])
    }

    @Test("a value against a file, in any format")
    func againstFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try Plist.write(["k": [1, 2]], as: .binary), as: "v.plist")
        #expect(Self.failure { () throws(PlistTestFailure) in try PlistCheck.equal(["k": [1, 2]], file: path) } == nil)
        let failure = Self.failure { () throws(PlistTestFailure) in try PlistCheck.equal(["k": [1, 3]], file: path) }
        #expect(failure?.message.hasPrefix("value differs from \(path) (1 difference") == true)
        #expect(failure?.message.hasSuffix("~ k.1: 2 -> 3") == true)
        let missing = Self.failure { () throws(PlistTestFailure) in try PlistCheck.equal([:], file: directory.path("none")) }
        #expect(missing?.kind == .fileError)
    }
}

typealias TemporaryDirectory = TroveTestSupport.TemporaryDirectory
import TroveTestSupport
