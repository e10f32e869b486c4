import Foundation
import Trove
import TroveTestSupport

/// The corpus tests' deadlines and their one guarded call, on top of the shared ``HangGuard``.
extension HangGuard {
    /// Seconds allowed for reading a file that must be rejected.
    static let rejectDeadline: Double = 20
    /// Seconds allowed for reading or writing a valid file (debug builds of megabyte files).
    static let validDeadline: Double = 120

    /// `Plist.read` under the guard: nil when it hung.
    static func read(_ data: Data, seconds: Double) async -> Result<PlistDocument, PlistError>? {
        await run(seconds: seconds) { Result { () throws(PlistError) in try Plist.read(data) } }
    }
}
