import Foundation
import Trove

// The listings of "Keeping preferences" (Trove.docc/KeepingPreferences.md). They run with
// TROVE_PREFERENCES_DIR set to a scratch directory.

/// Reads and writes the editor's domain with string keys.
func preferencesBasics() throws {
    // begin listing preferences-basics
    let preferences = Preferences(suiteName: "com.example.editor")
    preferences.register(defaults: ["FontSize": 13, "ShowRuler": true])

    let size = preferences.integer(forKey: "FontSize")  // 13 until something is set
    preferences.set("Menlo", forKey: "FontName")
    preferences.set(size + 2, forKey: "FontSize")
    try preferences.synchronize()                       // or let the coalesced flush write it
    // end listing
    print("font \(preferences.string(forKey: "FontName") ?? "-") \(preferences.integer(forKey: "FontSize"))")
}

// begin listing preferences-keys
extension Preferences.Key where Value == Int {
    static let fontSize = Preferences.Key("FontSize", default: 13)
}

extension Preferences.Key where Value == Bool {
    static let showRuler = Preferences.Key("ShowRuler", default: true)
}

struct WindowFrame: Codable, Sendable {
    var x = 0.0, y = 0.0, width = 800.0, height = 600.0
}

extension Preferences.Key where Value == WindowFrame {
    static let windowFrame = Preferences.Key.codable("WindowFrame", default: WindowFrame())
}
// end listing

/// Reads and writes through the typed keys.
func preferencesTypedKeys() throws {
    let preferences = Preferences(suiteName: "com.example.editor")
    // begin listing preferences-typed
    preferences[.fontSize] += 1
    preferences[.showRuler].toggle()
    preferences[.windowFrame].width = 1024
    preferences.reset(.showRuler)  // back to the default, or a lower domain's value
    // end listing
    try preferences.synchronize()
    print("font size \(preferences[.fontSize]), ruler \(preferences[.showRuler]), width \(preferences[.windowFrame].width)")
}

/// Follows the font size while another process (`trove defaults write`) changes it; prints each
/// value and runs until killed.
func preferencesObserve() async {
    let preferences = Preferences(suiteName: "com.example.editor")
    // begin listing preferences-observe
    for await size in preferences.changes(of: .fontSize) {
        print("font size is now \(size)")
    }
    // end listing
}

/// Moves an old spelling of the domain to the current one.
func preferencesMigrate() throws {
    let preferences = Preferences(suiteName: "com.example.editor")
    // begin listing preferences-migrate
    let schema = PreferencesSchema(version: 2, migrations: [
        1: [.rename("fontsize", to: "FontSize")],
        2: [.remove("LegacyToolbar")],
    ])
    let previous = try preferences.migrate(to: schema)  // 0 for a domain that never recorded one
    // end listing
    print("migrated from \(previous), font size \(preferences[.fontSize])")
}
