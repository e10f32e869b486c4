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
