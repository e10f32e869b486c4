// An object graph (a playlist library with shared tracks and back pointers) kept two ways:
// as an NSKeyedArchiver archive that Apple's NSKeyedUnarchiver reads, and as plain XML a person
// can read and edit. Both come back as the same graph, shared objects shared.
//
//     swift run sample-object-graph [DIRECTORY]
import Foundation
import Trove

final class Track: KeyedArchivable {
    var title: String
    var seconds: Int

    init(_ title: String, seconds: Int) {
        self.title = title
        self.seconds = seconds
    }

    init(from decoder: ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        seconds = try decoder.decode(Int.self, forKey: "seconds")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(seconds, forKey: "seconds")
    }
}

final class Playlist: KeyedArchivable {
    var name: String
    var tracks: [Track]
    /// Back to the library that holds the playlist: a cycle.
    weak var library: Library?

    init(_ name: String, tracks: [Track]) {
        self.name = name
        self.tracks = tracks
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        tracks = try decoder.decode([Track].self, forKey: "tracks")
        // The library is still being decoded when its playlists are: assigned once it is done.
        try decoder.decodeDeferred(Library.self, forKey: "library") { [unowned self] in self.library = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(tracks, forKey: "tracks")
        try encoder.encode(library, forKey: "library")
    }
}

final class Library: KeyedArchivable {
    var playlists: [Playlist]

    init(_ playlists: [Playlist]) {
        self.playlists = playlists
        for playlist in playlists { playlist.library = self }
    }

    init(from decoder: ArchiveDecoder) throws {
        playlists = try decoder.decode([Playlist].self, forKey: "playlists")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(playlists, forKey: "playlists")
    }
}

let directory = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("trove-object-graph-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

let intro = Track("Intro", seconds: 95)
let library = Library([
    Playlist("Morning", tracks: [intro, Track("Sunrise", seconds: 240)]),
    Playlist("Evening", tracks: [intro, Track("Dusk", seconds: 310)]),
])
let unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([Library.self, Playlist.self, Track.self]))

for (file, type) in [("library.archive", KeyedArchiveStoreType.binary as any PlistStoreType), ("library.plist", FormatStoreType.xml)] {
    let path = directory + "/" + file
    let store = PlistStore(path: path, type: type)
    try store.saveObject(library)
    let back = try store.loadObject(Library.self, unarchiver: unarchiver)!
    let shared = back.playlists[0].tracks[0] === back.playlists[1].tracks[0]
    let cycle = back.playlists.allSatisfy { $0.library === back }
    print("\(file) (\(type.name)): \(back.playlists.map(\.name)), intro shared: \(shared), back pointers: \(cycle)")
}
print("\nThe XML form, as a person reads it:")
print(String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/library.plist")), as: UTF8.self)
    .split(separator: "\n").prefix(24).joined(separator: "\n"))
print("...\n\nThe archive, as trove sees it: trove archive print \(directory)/library.archive")
