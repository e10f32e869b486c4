import Foundation
import SnapshotTesting
import Testing
import Trove
import TroveSnapshotTesting

@Suite("TroveSnapshotTesting")
struct PlistSnapshottingTests {
    struct Settings: Codable {
        var name: String
        var sizes: [Int]
    }

    @Test("a value snapshots as sorted XML, and the reference file is a plist")
    func valueSnapshot() throws {
        let value: PlistValue = ["b": [1, 2], "a": "text"]
        let snapshot: String? = Snapshotting<PlistValue, String>.plist.snapshot(value).sync()
        let text = try #require(snapshot)
        #expect(text.contains("<key>a</key>\n\t<string>text</string>\n\t<key>b</key>"))
        #expect(try Plist.read(Data(text.utf8)).value == value)
        #expect(Snapshotting<PlistValue, String>.plist.pathExtension == "plist")
    }

    @Test("an Encodable value snapshots through PlistEncoder; assertSnapshot compares with the references")
    func encodableSnapshot() throws {
        let settings = Settings(name: "Editor", sizes: [12, 14])
        let snapshot: String? = Snapshotting<Settings, String>.plist(encoder: PlistEncoder()).snapshot(settings).sync()
        let text = try #require(snapshot)
        #expect(try Plist.read(Data(text.utf8)).value == ["name": "Editor", "sizes": [12, 14]])
        withSnapshotTesting(record: .never) {
            assertSnapshot(of: settings, as: .plist(encoder: PlistEncoder()))
            assertSnapshot(of: PlistValue.array(["a", 1, true]), as: .plist)
        }
    }
}

extension Async {
    /// The value of a snapshot strategy that completes at once (text strategies do).
    fileprivate func sync() -> Value? {
        var result: Value?
        run { result = $0 }
        return result
    }
}
