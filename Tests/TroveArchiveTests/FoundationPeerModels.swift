import Foundation
import Trove

/// A Foundation `NSCoding` class, archived and unarchived by the toolchain's `NSKeyedArchiver`.
/// Foundation names it `TroveArchiveTests.FPerson` in archives.
final class FPerson: NSObject, NSCoding {
    var name: String
    var age: Int
    var friend: FPerson?

    init(_ name: String, age: Int, friend: FPerson? = nil) {
        self.name = name
        self.age = age
        self.friend = friend
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(friend, forKey: "friend")
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
        self.name = name
        age = coder.decodeInteger(forKey: "age")
        friend = coder.decodeObject(forKey: "friend") as? FPerson
    }
}

/// A Foundation tree node with a parent pointer (a cycle), for the crash Foundation on Linux has.
final class FNode: NSObject, NSCoding {
    var name: String
    weak var parent: FNode?
    var children: [FNode] = []

    init(_ name: String, children: [FNode] = []) {
        self.name = name
        self.children = children
        super.init()
        for child in children { child.parent = self }
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(parent, forKey: "parent")
        coder.encode(children, forKey: "children")
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String else { return nil }
        self.name = name
        parent = coder.decodeObject(forKey: "parent") as? FNode
        children = coder.decodeObject(forKey: "children") as? [FNode] ?? []
    }
}

/// Our side of `FPerson`: the same keys, under the class name Foundation writes.
final class Person: KeyedArchivable {
    static let archiveClassName = "TroveArchiveTests.FPerson"
    var name: String
    var age: Int
    var friend: Person?

    init(_ name: String, age: Int, friend: Person? = nil) {
        self.name = name
        self.age = age
        self.friend = friend
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        age = try decoder.decode(Int.self, forKey: "age")
        friend = try decoder.decodeIfPresent(Person.self, forKey: "friend")
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(age, forKey: "age")
        try encoder.encode(friend, forKey: "friend")
    }
}

/// Our side of `FNode`.
final class Node: KeyedArchivable {
    static let archiveClassName = "TroveArchiveTests.FNode"
    var name: String
    weak var parent: Node?
    var children: [Node] = []

    init(_ name: String, children: [Node] = []) {
        self.name = name
        self.children = children
        for child in children { child.parent = self }
    }

    init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decode([Node].self, forKey: "children")
        try decoder.decodeDeferred(Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(parent, forKey: "parent")
        try encoder.encode(children, forKey: "children")
    }
}

/// Foundation's side of a holder of value classes: NSUUID, NSURL, NSSet, NSDate,
/// NSData and a nil field.
final class FHolder: NSObject, NSCoding {
    let id = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!
    let link = URL(string: "https://example.com/docs/index.html")!
    let numbers: Set<Int> = [7]
    let when = Date(timeIntervalSinceReferenceDate: 86_400.5)
    let bytes = Data([1, 2, 3])
    let count = 12
    let ratio = 2.5
    let flag = true

    override init() {}

    func encode(with coder: NSCoder) {
        coder.encode(id, forKey: "id")
        coder.encode(link, forKey: "link")
        coder.encode(numbers, forKey: "numbers")
        coder.encode(when, forKey: "when")
        coder.encode(bytes, forKey: "bytes")
        coder.encode(nil as Any?, forKey: "nothing")
        coder.encode(count, forKey: "count")
        coder.encode(ratio, forKey: "ratio")
        coder.encode(flag, forKey: "flag")
        coder.encode(id, forKey: "sameID")
    }

    required init?(coder: NSCoder) {}
}

/// Our side of `FHolder`.
struct Holder: KeyedArchivable {
    static let archiveClassName = "TroveArchiveTests.FHolder"
    var id = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!
    var link = URL(string: "https://example.com/docs/index.html")!
    var numbers: Set<Int> = [7]
    var when = Date(timeIntervalSinceReferenceDate: 86_400.5)
    var bytes = Data([1, 2, 3])
    var nothing: String?
    var count = 12
    var ratio = 2.5
    var flag = true

    init() {}

    init(from decoder: ArchiveDecoder) throws {
        id = try decoder.decode(UUID.self, forKey: "id")
        link = try decoder.decode(URL.self, forKey: "link")
        numbers = try decoder.decode(Set<Int>.self, forKey: "numbers")
        when = try decoder.decode(Date.self, forKey: "when")
        bytes = try decoder.decode(Data.self, forKey: "bytes")
        nothing = try decoder.decodeIfPresent(String.self, forKey: "nothing")
        count = try decoder.decode(Int.self, forKey: "count")
        ratio = try decoder.decode(Double.self, forKey: "ratio")
        flag = try decoder.decode(Bool.self, forKey: "flag")
        guard try decoder.decode(UUID.self, forKey: "sameID") == id else {
            throw PlistError(.typeMismatch, "sameID differs")
        }
    }

    func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(id, forKey: "id")
        try encoder.encode(link, forKey: "link")
        try encoder.encode(numbers, forKey: "numbers")
        try encoder.encode(when, forKey: "when")
        try encoder.encode(bytes, forKey: "bytes")
        try encoder.encode(nothing, forKey: "nothing")
        try encoder.encode(count, forKey: "count")
        try encoder.encode(ratio, forKey: "ratio")
        try encoder.encode(flag, forKey: "flag")
        try encoder.encode(id, forKey: "sameID")
    }
}
