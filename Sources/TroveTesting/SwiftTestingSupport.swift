#if canImport(Testing)
import Foundation
import Testing
import Trove

// Swift Testing front ends: each runs one ``PlistCheck`` and records a failure as an issue at
// the caller's source location, so the test goes on to its next expectation.

/// Runs `check` and records its ``PlistTestFailure`` as a Swift Testing issue, its message
/// after `context` (say, which fixture) when given; returns the check's result, or nil when it
/// failed.
@discardableResult
public func expectPlist<R>(
    context: String? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ check: () throws(PlistTestFailure) -> R
) -> R? {
    do {
        return try check()
    } catch {
        let message = context.map { "\($0): \(error.message)" } ?? error.message
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects `actual` to equal `expected` under `options`; see ``PlistCheck/equal(_:_:options:)``.
/// `context` goes before the message.
public func expectPlistEqual(
    _ actual: PlistValue, _ expected: PlistValue, options: PlistComparisonOptions = .default, context: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectPlist(context: context, sourceLocation: sourceLocation) { () throws(PlistTestFailure) in
        try PlistCheck.equal(actual, expected, options: options)
    }
}

/// Expects `actual` to equal the value of the file at `path`; see ``PlistCheck/equal(_:file:options:)``.
public func expectPlistEqual(
    _ actual: PlistValue, file path: String, options: PlistComparisonOptions = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectPlist(sourceLocation: sourceLocation) { () throws(PlistTestFailure) in
        try PlistCheck.equal(actual, file: path, options: options)
    }
}

/// Expects the file at `path` to survive a round trip; see ``PlistCheck/roundTrip(file:maxExpandedValues:)``.
public func expectPlistRoundTrip(file path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectPlist(sourceLocation: sourceLocation) { () throws(PlistTestFailure) in
        try PlistCheck.roundTrip(file: path)
    }
}

/// Expects `value` to match the golden file at `path`, recording it when missing; see
/// ``PlistCheck/golden(_:at:format:options:recording:)``.
public func expectPlistGolden(
    _ value: PlistValue, at path: String, format: PlistFormat = .xml, options: PlistComparisonOptions = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectPlist(sourceLocation: sourceLocation) { () throws(PlistTestFailure) in
        try PlistCheck.golden(value, at: path, format: format, options: options)
    }
}

/// Expects `T`'s fixture at `path` to decode and re-encode to the same value (or bytes); see
/// ``PlistCheck/codableRoundTrip(_:fixture:sameBytes:decoder:encoder:options:)``.
@discardableResult
public func expectCodableRoundTrip<T: Codable>(
    _ type: T.Type, fixture path: String, sameBytes: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) -> T? {
    expectPlist(sourceLocation: sourceLocation) { () throws(PlistTestFailure) in
        try PlistCheck.codableRoundTrip(type, fixture: path, sameBytes: sameBytes)
    }
}
#endif
