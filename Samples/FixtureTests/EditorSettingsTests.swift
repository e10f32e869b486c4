import Foundation
import Testing
import Trove
import TroveTesting

/// A small suite as an app would write it with TroveTesting: fixtures that must survive Trove's
/// writers, a Codable fixture, a golden file, and settings code tested against an in-memory store.
@Suite("Sample: editor settings")
struct EditorSettingsTests {
    /// The fixture and golden directories beside this file.
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static func fixture(_ name: String) -> String { here.appendingPathComponent("Fixtures/\(name)").path }
    static func golden(_ name: String) -> String { here.appendingPathComponent("Goldens/\(name)").path }

    @Test("the settings fixture survives a rewrite and every format that can hold it")
    func fixtureRoundTrip() throws {
        let report = try PlistCheck.roundTrip(file: Self.fixture("Settings.plist"))
        #expect(report.passed)
    }

    @Test("the Codable fixture decodes and re-encodes to the same bytes")
    func codableFixture() throws {
        let settings = try PlistCheck.codableRoundTrip(
            EditorSettings.self, fixture: Self.fixture("Settings.plist"), sameBytes: true)
        #expect(settings.window.width == 1024)
    }

    @Test("the defaults match their golden file (TROVE_RECORD=1 re-records it)")
    func defaultsGolden() {
        let outcome = expectPlist {
            () throws(PlistTestFailure) in try PlistCheck.golden(encoding: SettingsKeeper.defaults, at: Self.golden("defaults.plist"))
        }
        #expect(outcome != nil)
    }

    @Test("opening files saves them to the front of the recent list, without a disk")
    func openingFiles() throws {
        let store = PlistStore(path: "/Settings.plist", type: MemoryStoreType())
        let keeper = SettingsKeeper(store: store)
        try keeper.open("a.txt")
        try keeper.open("b.txt")
        try keeper.open("a.txt")
        let saved = try #require(try store.load())
        expectPlistEqual(saved[keyPath: "recentFiles"] ?? .null, ["a.txt", "b.txt"])
        expectPlistEqual(saved, file: Self.fixture("AfterOpening.plist"))
    }
}
