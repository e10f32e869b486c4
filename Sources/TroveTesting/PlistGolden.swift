import Foundation
import Trove

/// What a golden-file check did when it did not fail.
public enum PlistGoldenOutcome: Sendable, Hashable {
    /// The value matched the golden file.
    case matched
    /// The golden file was written from the value (it was missing, or recording was asked for),
    /// with the reason. Review the file and commit it.
    case recorded(String)
}

/// When a golden-file check writes the golden file instead of comparing with it.
///
/// Read from the environment: `TROVE_RECORD=1` (or `true`, `yes`) re-records every golden a
/// test run checks. A missing golden is recorded too. Neither happens when `CI` is set (to
/// anything but `0`, `false` or the empty string): on a build server a missing golden is a
/// failure, so that a golden that was never committed cannot pass unnoticed.
public struct PlistGoldenRecording: Sendable, Hashable {
    /// Whether recording was asked for.
    public var isRequested: Bool
    /// Whether the run is on CI, where nothing is recorded.
    public var isOnCI: Bool

    /// The settings `environment` gives (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func isSet(_ name: String) -> Bool {
            guard let value = environment[name]?.lowercased() else { return false }
            return !["", "0", "false", "no"].contains(value)
        }
        isRequested = isSet("TROVE_RECORD")
        isOnCI = isSet("CI")
    }

    /// Explicit settings.
    public init(isRequested: Bool, isOnCI: Bool) {
        self.isRequested = isRequested
        self.isOnCI = isOnCI
    }
}

extension PlistCheck {
    /// Compares `value` with the golden file at `path` (in any format), or records it there.
    ///
    /// When the file is missing, or ``PlistGoldenRecording`` says to re-record, the value is
    /// written to `path` in `format` (XML by default, so that its diffs read well in review),
    /// creating directories as needed, and the outcome says so; on CI a missing golden is a
    /// failure instead.
    ///
    /// - Throws: ``PlistTestFailure`` of kind ``PlistTestFailure/Kind/goldenMismatch`` listing
    ///   the differences by key path (`-` golden only, `+` value only);
    ///   ``PlistTestFailure/Kind/goldenMissing`` on CI; ``PlistTestFailure/Kind/fileError`` when
    ///   the golden cannot be read or written.
    @discardableResult
    public static func golden(
        _ value: PlistValue, at path: String, format: PlistFormat = .xml, options: PlistComparisonOptions = .default,
        recording: PlistGoldenRecording = PlistGoldenRecording()
    ) throws(PlistTestFailure) -> PlistGoldenOutcome {
        let exists = FileManager.default.fileExists(atPath: path)
        if !recording.isOnCI && (!exists || recording.isRequested) {
            try record(value, at: path, format: format)
            return .recorded(exists ? "TROVE_RECORD is set" : "there was no golden file")
        }
        guard exists else {
            throw PlistTestFailure(
                .goldenMissing,
                "golden file \(path) is missing, and CI is set, so it was not recorded; "
                    + "run the test locally (or with TROVE_RECORD=1) and commit the file")
        }
        let footer = recording.isOnCI ? nil : "If the new value is right, re-record it with TROVE_RECORD=1."
        try check(value, try readValue(path), options: options, heading: "value differs from golden file \(path)",
                  kind: .goldenMismatch, footer: footer)
        return .matched
    }

    /// Encodes `value` with `encoder` (``PlistEncoder``, binary by default: only the value
    /// matters) and compares the result with the golden file at `path`; see
    /// ``golden(_:at:format:options:recording:)``.
    @discardableResult
    public static func golden<T: Encodable>(
        encoding value: T, at path: String, encoder: PlistEncoder = PlistEncoder(), format: PlistFormat = .xml,
        options: PlistComparisonOptions = .default, recording: PlistGoldenRecording = PlistGoldenRecording()
    ) throws(PlistTestFailure) -> PlistGoldenOutcome {
        let encoded: PlistValue
        do {
            encoded = try encoder.encodeValue(value)
        } catch {
            throw PlistTestFailure(.encodingFailed, "encoding \(T.self) failed: \(describe(error))")
        }
        return try golden(encoded, at: path, format: format, options: options, recording: recording)
    }

    private static func record(_ value: PlistValue, at path: String, format: PlistFormat) throws(PlistTestFailure) {
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try AtomicFile.write(try Plist.write(value, as: format), to: path)
        } catch {
            throw PlistTestFailure(.fileError, "cannot record golden file \(path): \(error)")
        }
    }
}
