import Foundation
import SnapshotTesting
import Trove

extension Snapshotting where Value == PlistValue, Format == String {
    /// A property-list value as an XML property list, for swift-snapshot-testing's
    /// `assertSnapshot(of:as:)`: keys sorted as CoreFoundation sorts them, so the same value always
    /// gives the same text, and reference files are real `.plist` files that `trove`, `plutil`
    /// and Xcode open. Record modes (`.missing`, `.all`, `.never`, ...) are swift-snapshot-testing's.
    ///
    /// XML has no null and keeps dates to the second: a value holding null snapshots as a
    /// comment with the writer's error, which never matches a recorded reference.
    public static var plist: Snapshotting {
        SimplySnapshotting.lines.pullback { value in
            do {
                return String(decoding: try Plist.write(value, as: .xml), as: UTF8.self)
            } catch {
                return "<!-- not writable as XML: \(error) -->\n"
            }
        }.withPathExtension("plist")
    }
}

extension Snapshotting where Value: Encodable, Format == String {
    /// An `Encodable` value encoded by `encoder` (Trove's ``PlistEncoder``, with its `userInfo`)
    /// and snapshot as an XML property list; see ``Snapshotting/plist``. (SnapshotTesting's own
    /// `.plist` for `Encodable` values uses Foundation's encoder; the XML is the same.)
    public static func plist(encoder: PlistEncoder) -> Snapshotting {
        Snapshotting<PlistValue, String>.plist.pullback { value in
            do {
                return try encoder.encodeValue(value)
            } catch {
                return .string("not encodable: \(error)")
            }
        }
    }
}

extension Snapshotting {
    /// The same strategy writing reference files with `pathExtension`.
    fileprivate func withPathExtension(_ pathExtension: String) -> Snapshotting {
        var copy = self
        copy.pathExtension = pathExtension
        return copy
    }
}
