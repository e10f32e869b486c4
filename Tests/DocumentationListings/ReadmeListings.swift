// begin listing readme-keep-a-value
import Trove

// end listing
import Foundation

/// README's "Keep a value in a file", in the current directory.
func readmeKeepAValue() throws {
    // begin listing readme-keep-a-value
    let store = PlistStore(path: "Settings.plist")
    var settings = try store.load() ?? ["Window": [:]]  // nil: no file yet
    try settings.replace(1024, at: "Window.Width")      // key-path edits, as plutil's
    try store.save(settings)                            // atomic; keeps the file's format and layout
    // end listing
    print("saved \(store.type.name)")
}

/// README's "Read, edit and write documents", on `Settings.plist` in the current directory.
func readmeDocuments() throws {
    // begin listing readme-documents
    // Read: the format (XML, binary, OpenStep or JSON) is detected from the bytes.
    var document = try Plist.read(try FileReader.read("Settings.plist"))

    // Edit the value. Dictionaries keep their key order.
    document.value["ShowToolbar"] = false
    document.value["RecentDocuments"] = ["~/notes.txt"]

    // Write back in the file's own format. Everything you did not touch keeps its bytes, and the
    // file is replaced atomically.
    try AtomicFile.write(try Plist.write(document), to: "Settings.plist")

    // Or convert: the standard layout of the other format, as plutil writes it.
    let xml = try Plist.write(document.value, as: .xml)

    // Typed text, as a command line gives it: errors instead of plutil's silent 0.
    let width = try PlistValue(parsing: "1024", as: .integer)
    // end listing
    try xml.write(to: URL(fileURLWithPath: "Converted.plist"))
    print("width \(width)")
    do {
        _ = try PlistValue(parsing: "1024px", as: .integer)
        print("1024px parsed")
    } catch {
        print("1024px refused")
    }
}

/// A folder of notes: the other class of README's archive example, which the listing leaves out.
final class Folder: KeyedArchivable {
    var name: String
    var notes: [Note] = []

    init(name: String) { self.name = name }

    func add(_ note: Note) {
        notes.append(note)
        note.folder = self
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        notes = try decoder.decode([Note].self, forKey: "notes")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(notes, forKey: "notes")
    }
}

/// Window state as an app keeps it in an archive through Codable.
struct WindowState: Codable {
    var width: Int
    var height: Int
}

// begin listing readme-archives
final class Note: KeyedArchivable {
    var title: String
    weak var folder: Folder?
    init(title: String) { self.title = title }
    init(from decoder: ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        // A reference that may close a cycle is assigned once the object it names is finished.
        try decoder.decodeDeferred(Folder.self, forKey: "folder") { [unowned self] in self.folder = $0 }
    }
    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(folder, forKey: "folder")
    }
}

// end listing

/// README's keyed-archive example: a folder whose notes point back at it, and a Codable value
/// in an archive such as an app writes.
func readmeArchives() throws {
    let folder = Folder(name: "Ideas")
    folder.add(Note(title: "Buy milk"))
    folder.add(Note(title: "Call Ana"))
    let appleArchive = try KeyedArchiver().archive(codable: WindowState(width: 1024, height: 768))

    // begin listing readme-archives
    let data = try KeyedArchiver().archive(folder)                          // NSKeyedArchiver's format
    let back = try KeyedUnarchiver(registry: ArchiveClassRegistry([Folder.self, Note.self]))
        .decode(Folder.self, from: data)
    let state = try KeyedUnarchiver().decodeCodable(WindowState.self, from: appleArchive)
    let tree = try KeyedArchiver().treeValue(folder, for: .json)            // the same graph as plain JSON
    // end listing

    try data.write(to: URL(fileURLWithPath: "Folder.archive"))
    try Plist.write(tree, as: .json).write(to: URL(fileURLWithPath: "Folder.json"))
    print("notes \(back.notes.map(\.title))")
    print("back pointers \(back.notes.allSatisfy { $0.folder === back })")
    print("state \(state.width)x\(state.height)")
}

/// README's preferences example, in the domain directory the environment names.
func readmePreferences() throws {
    // begin listing readme-preferences
    let preferences = Preferences(suiteName: "com.example.editor")
    preferences.register(defaults: ["FontSize": 13])

    let fontSize = Preferences.Key("FontSize", default: 13)   // declared once, typed
    preferences[fontSize] += 1
    let observation = preferences.observe(fontSize) { print("font size is now", $0) }
    try preferences.synchronize()                              // or let the coalesced flush do it
    // end listing
    observation.cancel()
    print("font size \(preferences[fontSize])")
}
