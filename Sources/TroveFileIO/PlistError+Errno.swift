public import SystemPackage
public import TroveCore

extension PlistError {
    /// The system's error behind an ``PlistError/Code/io`` failure, as swift-system's `Errno`:
    /// `.noSuchFileOrDirectory` for a file that is not there (for a preferences file, an empty
    /// domain), `.permissionDenied` for one that may not be read or replaced, and so on. Nil when
    /// the failure did not come from a system call.
    public var errno: Errno? {
        systemErrorNumber.map { Errno(rawValue: $0) }
    }
}
