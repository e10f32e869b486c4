// begin listing fixtures-test
import Foundation
import Testing
import Trove
import TroveTesting

// end listing
import XCTest

// The listings of "Testing with fixtures" (Trove.docc/TestingWithFixtures.md) and of README's
// "Test with fixtures": real tests, run by `swift test` like any other.

/// The editor settings the fixtures hold.
struct Settings: Codable, Equatable {
    struct Window: Codable, Equatable {
        var width: Int
        var height: Int
    }

    var fontName: String
    var fontSize: Double
    var lastOpened: Date
    var recentFiles: [String]
    var window: Window
}

// begin listing fixtures-test
/// A path beside this source file, wherever `swift test` runs from.
func here(_ relativePath: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(relativePath).path
}

@Test func settingsFixtures() throws {
    // Byte for byte back from a rewrite; the same value through every format that can hold it.
    try PlistCheck.roundTrip(file: here("Fixtures/Settings.plist"))
    // Decodes, and re-encodes to the same value (sameBytes: also the same bytes).
    let settings = try PlistCheck.codableRoundTrip(Settings.self, fixture: here("Fixtures/Settings.plist"))
    // Compared with a golden file, recorded (in XML) when missing or with TROVE_RECORD=1.
    try PlistCheck.golden(encoding: settings, at: here("Goldens/settings.plist"))
    // Two values, or a value and a file, with options.
    try PlistCheck.equal(try PlistEncoder().encodeValue(settings), file: here("Fixtures/Settings.plist"),
                         options: PlistComparisonOptions(comparesDatesToTheSecond: true, realTolerance: 1e-9))
}
// end listing

// begin listing fixtures-keeper
/// The code under test: it keeps the recently opened files in whatever store it is given.
struct SettingsKeeper {
    let store: PlistStore

    func open(_ path: String) throws {
        var settings = try store.load() ?? ["RecentFiles": []]
        try settings.insert(.string(path), at: "RecentFiles.0")  // newest first
        try store.save(settings)
    }
}
// end listing

@Test func savesToAnInMemoryStore() throws {
    // begin listing fixtures-memory-store
    let store = PlistStore(path: "/Settings.plist", type: MemoryStoreType())
    try SettingsKeeper(store: store).open("a.txt")
    try PlistCheck.equal(try store.load() ?? [:], file: here("Fixtures/AfterOpening.plist"))
    // end listing
}

// begin listing fixtures-expect
@Test func recentFilesComeNewestFirst() throws {
    let volume = MemoryStoreType()
    let keeper = SettingsKeeper(store: PlistStore(path: "/Settings.plist", type: volume))
    try keeper.open("a.txt")
    try keeper.open("b.txt")
    let saved = try PlistStore(path: "/Settings.plist", type: volume).load()
    expectPlistEqual(saved ?? [:], ["RecentFiles": ["b.txt", "a.txt"]])
    #expect(volume.paths == ["/Settings.plist"])
}
// end listing

// begin listing fixtures-xctest
final class SettingsFixtureTests: XCTestCase {
    func testFixtureSurvivesEveryFormat() {
        XCTAssertPlistRoundTrip(here("Fixtures/Settings.plist"))
    }

    func testDefaultsMatchTheirGolden() throws {
        let defaults = try PlistEncoder().encodeValue(
            Settings(fontName: "Menlo", fontSize: 12, lastOpened: Date(timeIntervalSince1970: 0),
                     recentFiles: [], window: .init(width: 800, height: 600)))
        XCTAssertPlistGolden(defaults, at: here("Goldens/defaults.plist"))
    }
}
// end listing

/// The checks the listings rely on fail when they should: a listing that passed whatever the
/// fixtures held would prove nothing.
@Suite("Testing with fixtures: the checks can fail")
struct FixtureCheckFailureTests {
    @Test("a value that differs from the expected file is reported by key path")
    func differenceIsReported() throws {
        let store = PlistStore(path: "/Settings.plist", type: MemoryStoreType())
        try SettingsKeeper(store: store).open("b.txt")
        let failure = try #require(throws: PlistTestFailure.self) {
            try PlistCheck.equal(try store.load() ?? [:], file: here("Fixtures/AfterOpening.plist"))
        }
        #expect(failure.message.contains("RecentFiles.0"))
    }

    @Test("the golden file holds the fixture's settings")
    func goldenHoldsTheFixture() throws {
        let golden = try PlistFile.load(here("Goldens/settings.plist")).value
        #expect(golden[keyPath: "window.width"] == 1024)
        #expect(golden[keyPath: "fontName"] == "Menlo")
    }
}
