import Foundation
import Trove

/// A field the hand-written mapping of ``RecordExport`` found missing or of another type.
public struct RecordExportMappingError: Error, CustomStringConvertible {
    public let field: String
    public var description: String { "record field \(field) missing or mistyped" }
}

/// A Codable model shaped like the `mixed-1m` records.
public struct RecordExport: Codable {
    public struct Owner: Codable {
        public var name: String
        public var email: String
        public var level: Int
    }

    public struct Record: Codable {
        public var id: Int
        public var uuid: String
        public var name: String
        public var score: Double
        public var created: Date
        public var active: Bool
        public var thumbnail: Data
        public var tags: [String]
        public var history: [Int]
        public var owner: Owner
    }

    public var schemaVersion: Int
    public var records: [Record]

    public static func generate(count: Int) -> RecordExport {
        var random = SeededGenerator(seed: 0xC0DA_B1E5)
        let tags = ["Window", "Sync", "Editor", "Recent", "Toolbar"]
        let records = (0..<count).map { index in
            Record(
                id: index,
                uuid: String(random.next(), radix: 16),
                name: "record \(random.between(0, 1_000_000))",
                score: Double(random.between(-1_000_000, 1_000_000)) / 1000,
                created: Date(timeIntervalSinceReferenceDate: Double(random.between(0, 1_000_000_000))),
                active: random.chance(0.7),
                thumbnail: Data((0..<random.between(8, 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
                tags: (0..<random.between(0, 4)).map { _ in random.pick(tags) },
                history: (0..<random.between(2, 8)).map { _ in random.between(-1_000, 100_000) },
                owner: Owner(name: "owner \(random.between(0, 999))", email: "o\(random.between(0, 999))@example.org",
                             level: random.between(0, 9)))
        }
        return RecordExport(schemaVersion: 3, records: records)
    }

    /// The hand-written mapping from a decoded property list.
    public init(plist: PlistValue) throws {
        func field<T>(_ value: PlistValue?, _ key: String, _ read: (PlistValue) -> T?) throws -> T {
            guard let value, let typed = read(value) else { throw RecordExportMappingError(field: key) }
            return typed
        }
        schemaVersion = try field(plist["schemaVersion"], "schemaVersion") { $0.intValue }
        let list = try field(plist["records"], "records") { $0.arrayValue }
        records = try list.map { entry in
            let owner = try field(entry["owner"], "owner") { $0.dictionaryValue }
            return Record(
                id: try field(entry["id"], "id") { $0.intValue },
                uuid: try field(entry["uuid"], "uuid") { $0.stringValue },
                name: try field(entry["name"], "name") { $0.stringValue },
                score: try field(entry["score"], "score") { $0.realValue?.value },
                created: try field(entry["created"], "created") { $0.dateValue.map { Date(timeIntervalSinceReferenceDate: $0.secondsSinceReferenceDate) } },
                active: try field(entry["active"], "active") { $0.boolValue },
                thumbnail: try field(entry["thumbnail"], "thumbnail") { $0.dataValue },
                tags: try field(entry["tags"], "tags") { $0.arrayValue?.compactMap(\.stringValue) },
                history: try field(entry["history"], "history") { $0.arrayValue?.compactMap(\.intValue) },
                owner: Owner(
                    name: try field(owner["name"], "owner.name") { $0.stringValue },
                    email: try field(owner["email"], "owner.email") { $0.stringValue },
                    level: try field(owner["level"], "owner.level") { $0.intValue }))
        }
    }

    public init(schemaVersion: Int, records: [Record]) {
        self.schemaVersion = schemaVersion
        self.records = records
    }

    /// The hand-written mapping to a property list, in `PropertyListEncoder`'s key order.
    public var plistValue: PlistValue {
        var root = PlistDictionary(minimumCapacity: 2)
        root["schemaVersion"] = .integer(PlistInteger(schemaVersion))
        root["records"] = .array(records.map { record in
            var owner = PlistDictionary(minimumCapacity: 3)
            owner["name"] = .string(record.owner.name)
            owner["email"] = .string(record.owner.email)
            owner["level"] = .integer(PlistInteger(record.owner.level))
            var entry = PlistDictionary(minimumCapacity: 10)
            entry["id"] = .integer(PlistInteger(record.id))
            entry["uuid"] = .string(record.uuid)
            entry["name"] = .string(record.name)
            entry["score"] = .real(PlistReal(record.score))
            entry["created"] = .date(PlistDate(secondsSinceReferenceDate: record.created.timeIntervalSinceReferenceDate))
            entry["active"] = .bool(record.active)
            entry["thumbnail"] = .data(record.thumbnail)
            entry["tags"] = .array(record.tags.map { .string($0) })
            entry["history"] = .array(record.history.map { .integer(PlistInteger($0)) })
            entry["owner"] = .dictionary(owner)
            return .dictionary(entry)
        })
        return .dictionary(root)
    }
}
