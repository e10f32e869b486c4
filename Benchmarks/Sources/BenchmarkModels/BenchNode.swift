import Trove

/// One node of the benchmark graph, archived by Trove.
public final class BenchNode: KeyedArchivable {
    public static let archiveClassName = "TroveBench.BenchFNode"
    public var name: String
    public var value: Int
    public var score: Double
    public var friends: [BenchNode]

    public init(name: String, value: Int, score: Double, friends: [BenchNode]) {
        (self.name, self.value, self.score, self.friends) = (name, value, score, friends)
    }

    public init(from decoder: ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        value = try decoder.decode(Int.self, forKey: "value")
        score = try decoder.decode(Double.self, forKey: "score")
        friends = try decoder.decode([BenchNode].self, forKey: "friends")
    }

    public func encode(to encoder: ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(value, forKey: "value")
        try encoder.encode(score, forKey: "score")
        try encoder.encode(friends, forKey: "friends")
    }
}

extension BenchNode {
    /// The benchmark graph of about `objects` entries of `$objects`: `objects / 3` nodes (each
    /// node, its name string and its `friends` array; numbers in place), each with up to three
    /// friends chosen among the nodes before it, so most nodes are referenced several times. The
    /// same seed every run.
    public static func graph(objects: Int) -> [BenchNode] {
        var generator = SeededGenerator(seed: 0xA5C1_1E5)
        var nodes: [BenchNode] = []
        let count = max(1, objects / 3)
        nodes.reserveCapacity(count)
        for index in 0..<count {
            var friends: [Int] = []
            if index > 0 {
                for _ in 0..<Int(generator.next() % 4) { friends.append(Int(generator.next() % UInt64(index))) }
            }
            let name = "node-\(index)-\(generator.next() % 1_000_000)"
            let value = Int(truncatingIfNeeded: generator.next() % 1_000_000_000)
            let score = Double(generator.next() % 1_000_000) / 1024
            nodes.append(BenchNode(name: name, value: value, score: score, friends: friends.map { nodes[$0] }))
        }
        return nodes
    }
}
