import Foundation
import Trove

// The listings of "Keeping an object graph" (Trove.docc/KeepingAnObjectGraph.md).

// begin listing graph-types
final class Team: KeyedArchivable {
    var name: String
    var members: [Member] = []

    init(name: String) { self.name = name }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        members = try decoder.decode([Member].self, forKey: "members")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(members, forKey: "members")
    }
}

final class Member: KeyedArchivable {
    var name: String
    var mentor: Member?     // another member: one object, referenced twice
    weak var team: Team?    // back to the team: a cycle

    init(name: String, mentor: Member? = nil) {
        self.name = name
        self.mentor = mentor
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        mentor = try decoder.decodeIfPresent(Member.self, forKey: "mentor")
        // The team is still being decoded when its members are; this runs once it is finished.
        try decoder.decodeDeferred(Team.self, forKey: "team") { [unowned self] in self.team = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(mentor, forKey: "mentor")
        try encoder.encode(team, forKey: "team")
    }
}
// end listing

/// The team every listing of the article archives.
func sampleTeam() -> Team {
    // begin listing graph-build
    let team = Team(name: "Platform")
    let ada = Member(name: "Ada")
    team.members = [ada, Member(name: "Grace", mentor: ada), Member(name: "Linus", mentor: ada)]
    for member in team.members { member.team = team }
    // end listing
    return team
}

/// Archives the team and decodes it back.
func graphArchive() throws {
    let team = sampleTeam()
    // begin listing graph-archive
    let data = try KeyedArchiver().archive(team)  // a binary NSKeyedArchiver archive
    let unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([Team.self, Member.self]))
    let back = try unarchiver.decode(Team.self, from: data)
    // end listing
    try data.write(to: URL(fileURLWithPath: "Team.archive"))
    report(back)
}

/// Decodes the archive that ``graphArchive()`` wrote, allowing only the classes it expects.
func graphSecureDecoding() throws {
    let data = try FileReader.read("Team.archive")
    // begin listing graph-secure
    var unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([Team.self, Member.self]))
    unarchiver.allow([Team.self, Member.self], classes: ["NSArray"])
    let back = try unarchiver.decode(Team.self, from: data)
    // end listing
    report(back)
    unarchiver.allow([Team.self], classes: ["NSArray"])
    do {
        _ = try unarchiver.decode(Team.self, from: data)
        print("decoded without Member allowed")
    } catch {
        print("refused: \(error)")
    }
}

/// Keeps the team in two stores: an archive, and a keyed dictionary tree in XML.
func graphStores() throws {
    let team = sampleTeam()
    // begin listing graph-stores
    let archiveStore = PlistStore(path: "Team.archive", type: KeyedArchiveStoreType.binary)
    try archiveStore.saveObject(team)  // what NSKeyedArchiver writes; Apple's unarchiver reads it

    let xmlStore = PlistStore(path: "Team.plist", type: FormatStoreType.xml)
    try xmlStore.saveObject(team)      // readable XML: $class, $id and $ref keys

    let unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([Team.self, Member.self]))
    let fromArchive = try archiveStore.loadObject(Team.self, unarchiver: unarchiver)
    let fromXML = try xmlStore.loadObject(Team.self, unarchiver: unarchiver)
    // end listing
    for back in [fromArchive, fromXML] {
        if let back { report(back) } else { print("nothing kept") }
    }
}

/// An app's window state, kept in an archive through Codable.
func graphCodable() throws {
    // begin listing graph-codable
    struct SavedWindow: Codable { var x = 0.0, y = 0.0, width = 800.0, height = 600.0 }

    let data = try KeyedArchiver().archive(codable: SavedWindow(width: 1024), className: "SavedWindow")
    let frame = try KeyedUnarchiver().decodeCodable(SavedWindow.self, from: data)
    // end listing
    print("frame width \(frame.width)")
}

/// One line per fact the tests check: the members, the shared mentor, the back pointers.
private func report(_ team: Team) {
    let ada = team.members[0]
    let sharesMentor = team.members.dropFirst().allSatisfy { $0.mentor === ada }
    let pointsBack = team.members.allSatisfy { $0.team === team }
    print("\(team.name): \(team.members.map(\.name)), mentor shared: \(sharesMentor), back pointers: \(pointsBack)")
}
