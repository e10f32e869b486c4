import Foundation
import Trove

// The code under test: an editor's settings, kept as a Codable type in a property-list store.
// In an app this would live in the app's own module; it is here so the sample is one target.

/// An editor's window and font settings, as saved in `Settings.plist`.
struct EditorSettings: Codable, Equatable {
    struct Window: Codable, Equatable {
        var width: Int
        var height: Int
        var isZoomed: Bool
    }

    var fontName: String
    var fontSize: Double
    var window: Window
    var recentFiles: [String]
}

/// Saves and loads ``EditorSettings`` through a ``PlistStore``: a file in the app, a
/// `MemoryStoreType` volume in tests.
struct SettingsKeeper {
    let store: PlistStore

    static let defaults = EditorSettings(
        fontName: "Menlo", fontSize: 12, window: .init(width: 800, height: 600, isZoomed: false), recentFiles: [])

    func load() throws -> EditorSettings {
        guard let value = try store.load() else { return Self.defaults }
        return try PlistDecoder().decode(EditorSettings.self, from: value)
    }

    /// Opens a file: it goes to the front of the recent list, which keeps ten entries.
    func open(_ path: String) throws {
        var settings = try load()
        settings.recentFiles.removeAll { $0 == path }
        settings.recentFiles.insert(path, at: 0)
        settings.recentFiles = Array(settings.recentFiles.prefix(10))
        try store.save(try PlistEncoder().encodeValue(settings))
    }
}
