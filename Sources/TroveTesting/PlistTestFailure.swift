import Trove

/// Why a TroveTesting check failed, with a message meant to be read in a test report.
///
/// Every check in ``PlistCheck`` throws this, so it works the same under any test framework: in
/// Swift Testing and XCTest a test marked `throws` fails with the message when a check throws.
/// The `expect…` helpers (Swift Testing) and `XCTAssert…` helpers (XCTest) record it as an issue
/// instead, so that a test goes on after a failed check.
public struct PlistTestFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of check failed, for tests of tests and for tools that sort failures.
    public enum Kind: Sendable, Hashable {
        /// Two values differ (after the comparison's allowances).
        case valuesDiffer
        /// A file did not survive a rewrite or a conversion.
        case roundTripFailed
        /// A golden file is missing and recording is off (on CI).
        case goldenMissing
        /// A value differs from its golden file.
        case goldenMismatch
        /// A fixture did not decode into the type.
        case decodingFailed
        /// A value did not encode.
        case encodingFailed
        /// Re-encoding gave different bytes where the same bytes were asked for.
        case bytesDiffer
        /// A file could not be read, parsed or written.
        case fileError
    }

    /// What kind of check failed.
    public var kind: Kind
    /// The whole report: a first line saying what failed, then one line per difference.
    public var message: String
    /// The value differences behind the failure, by key path, when there are any.
    public var differences: [PlistDifference]

    /// A failure of `kind`.
    public init(_ kind: Kind, _ message: String, differences: [PlistDifference] = []) {
        self.kind = kind
        self.message = message
        self.differences = differences
    }

    /// The message.
    public var description: String { message }
}
