#if canImport(XCTest)
import XCTest
import Trove

// XCTest front ends: each runs one ``PlistCheck`` and reports a failure with `XCTFail` at the
// caller's line, so the test goes on to its next assertion.

/// Runs `check` and reports its ``PlistTestFailure`` with `XCTFail`, its message after
/// `message` when that is not empty; returns the check's result, or nil when it failed.
@discardableResult
public func XCTAssertPlist<R>(
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line,
    _ check: () throws(PlistTestFailure) -> R
) -> R? {
    do {
        return try check()
    } catch {
        let context = message()
        XCTFail(context.isEmpty ? error.message : "\(context): \(error.message)", file: file, line: line)
        return nil
    }
}

/// Asserts that `actual` equals `expected` under `options`; see ``PlistCheck/equal(_:_:options:)``.
public func XCTAssertPlistEqual(
    _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions = .default,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertPlist(message(), file: file, line: line) { () throws(PlistTestFailure) in
        try PlistCheck.equal(actual, expected, options: options)
    }
}

/// Asserts that the file at `path` survives a round trip; see ``PlistCheck/roundTrip(file:maxExpandedValues:)``.
public func XCTAssertPlistRoundTrip(_ path: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertPlist(file: file, line: line) { () throws(PlistTestFailure) in
        try PlistCheck.roundTrip(file: path)
    }
}

/// Asserts that `value` matches the golden file at `path`, recording it when missing; see
/// ``PlistCheck/golden(_:at:format:options:recording:)``.
public func XCTAssertPlistGolden(
    _ value: PlistValue, at path: String, format: PlistFormat = .xml, options: PlistComparisonOptions = .default,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertPlist(file: file, line: line) { () throws(PlistTestFailure) in
        try PlistCheck.golden(value, at: path, format: format, options: options)
    }
}
#endif
