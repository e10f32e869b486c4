import Foundation
import Testing
import Trove

/// The library example in README.md, run on a copy of a sample so that the documented calls are
/// known to compile and to do what the README says.
@Suite("README library example")
struct ReadmeSnippetTests {
    @Test("read, edit, write back in place, convert")
    func readEditWrite() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.copy(TestEnvironment.sample("Preferences.plist"), as: "Settings.plist")
        let original = try bytes(of: path)

        var document = try Plist.read(try FileReader.read(path))
        document.value["ShowToolbar"] = false
        document.value["RecentDocuments"] = ["~/notes.txt"]
        try AtomicFile.write(try Plist.write(document), to: path)
        let xml = try Plist.write(document.value, as: .xml)

        let written = try bytes(of: path)
        #expect(try directory.contents() == ["Settings.plist"])
        let reread = try #require(try foundationValue(written) as? [String: Any])
        #expect(reread["ShowToolbar"] as? Bool == false)
        #expect(reread["RecentDocuments"] as? [String] == ["~/notes.txt"])
        #expect(reread["AutoSaveInterval"] as? Int == 300)
        #expect(try foundationFormat(xml) == .xml)

        // Only the edited values change: the lines around them are the original's.
        let before = String(decoding: original, as: UTF8.self).split(separator: "\n")
        let after = String(decoding: written, as: UTF8.self).split(separator: "\n")
        #expect(after.first == before.first)
        #expect(after.filter { $0.contains("<key>") } == before.filter { $0.contains("<key>") })
        #expect(after.count == before.count - 2)
    }
}
