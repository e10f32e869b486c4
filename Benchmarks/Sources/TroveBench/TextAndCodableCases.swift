import Foundation
import Trove

// Cases beyond the binary and XML documents every engine handles: OpenStep and JSON text, and
// Codable models. libplist has no part here (its OpenStep and JSON support differs from
// Apple's), so these rows compare Trove with Foundation only, where Foundation does the job.

extension BenchmarkCase {
    /// OpenStep and JSON decode and encode of a generated value, made representable in both
    /// formats first (see ``TextFormatValue``). Foundation reads OpenStep through
    /// `PropertyListSerialization` and JSON through `JSONSerialization`; it cannot write OpenStep.
    static func textFormats(name: String, value: PlistValue) throws -> BenchmarkCase {
        let portable = TextFormatValue.portable(value)
        let openStep = try Plist.write(portable, as: .openStep)
        let json = try Plist.write(portable, as: .json)
        let trove = "trove", foundation = "Foundation"
        let plain = PlistReadOptions(keepsLayout: false)
        let operations = [
            BenchmarkOperation(name: "OpenStep decode", bytesPerRun: openStep.count, engines: [
                EngineRun(engine: trove) { _ in { try Plist.read(openStep, options: plain).value } },
                EngineRun(engine: foundation) { _ in { try PropertyListSerialization.propertyList(from: openStep, format: nil) } },
            ]),
            BenchmarkOperation(name: "OpenStep encode", bytesPerRun: openStep.count, engines: [
                EngineRun(engine: trove) { _ in { try Plist.write(portable, as: .openStep) } },
            ]),
            BenchmarkOperation(name: "JSON decode", bytesPerRun: json.count, engines: [
                EngineRun(engine: trove) { _ in { try Plist.read(json, options: plain).value } },
                EngineRun(engine: foundation) { _ in { try JSONSerialization.jsonObject(with: json) } },
            ]),
            BenchmarkOperation(name: "JSON encode", bytesPerRun: json.count, engines: [
                EngineRun(engine: trove) { _ in { try Plist.write(portable, as: .json) } },
                EngineRun(engine: foundation) { _ in
                    let object = try JSONSerialization.jsonObject(with: json)
                    return { try JSONSerialization.data(withJSONObject: object) }
                },
            ]),
        ]
        return BenchmarkCase(
            name: name, summary: "OpenStep \(openStep.count) B, JSON \(json.count) B", origin: .generated,
            operations: operations)
    }

    /// Typed models: Foundation's `PropertyListDecoder`/`PropertyListEncoder` against Trove's
    /// `PlistDecoder`/`PlistEncoder` (which write the same bytes), and, in the "mapped" rows,
    /// against Trove's reader and writer plus a hand-written mapping between `PlistValue` and
    /// the model.
    static func codableRecords(name: String, count: Int) throws -> BenchmarkCase {
        let export = RecordExport.generate(count: count)
        var operations: [BenchmarkOperation] = []
        for format in DocumentFormat.allCases {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format == .binary ? .binary : .xml
            let document = try encoder.encode(export)
            let troveFormat: PlistFormat = format == .binary ? .binary : .xml
            let troveEncoder = PlistEncoder(outputFormat: troveFormat)
            guard try troveEncoder.encode(export) == document else {
                throw EngineFailure("PlistEncoder's \(format.label) differs from PropertyListEncoder's")
            }
            operations.append(BenchmarkOperation(name: "Codable \(format.label) decode", bytesPerRun: document.count, engines: [
                EngineRun(engine: "trove") { _ in { try PlistDecoder().decode(RecordExport.self, from: document) } },
                EngineRun(engine: "Foundation") { _ in { try PropertyListDecoder().decode(RecordExport.self, from: document) } },
            ]))
            operations.append(BenchmarkOperation(name: "Codable \(format.label) encode", bytesPerRun: document.count, engines: [
                EngineRun(engine: "trove") { _ in { try troveEncoder.encode(export) } },
                EngineRun(engine: "Foundation") { _ in { try encoder.encode(export) } },
            ]))
            operations.append(BenchmarkOperation(name: "Codable \(format.label) decode, mapped", bytesPerRun: document.count, engines: [
                EngineRun(engine: "trove") { _ in
                    { try RecordExport(plist: Plist.read(document, options: PlistReadOptions(keepsLayout: false)).value) }
                },
                EngineRun(engine: "Foundation") { _ in { try PropertyListDecoder().decode(RecordExport.self, from: document) } },
            ]))
            operations.append(BenchmarkOperation(name: "Codable \(format.label) encode, mapped", bytesPerRun: document.count, engines: [
                EngineRun(engine: "trove") { _ in { try Plist.write(export.plistValue, as: troveFormat) } },
                EngineRun(engine: "Foundation") { _ in { try encoder.encode(export) } },
            ]))
        }
        return BenchmarkCase(
            name: name, summary: "\(count) Codable records (PropertyListEncoder output)", origin: .generated,
            operations: operations)
    }
}

/// Makes any property list representable in JSON and OpenStep: dates become ISO 8601 strings,
/// data base64 strings, UIDs integers and non-finite reals zero.
enum TextFormatValue {
    static func portable(_ value: PlistValue) -> PlistValue {
        switch value {
        case .date(let d): return .string(d.description)
        case .data(let d): return .string(d.base64EncodedString())
        case .uid(let u): return .integer(PlistInteger(u))
        case .null: return .string("")
        case .real(let r) where !r.value.isFinite: return .real(PlistReal(0.0))
        case .array(let a): return .array(a.map(portable))
        case .dictionary(let d):
            var converted = PlistDictionary(minimumCapacity: d.count)
            for (key, element) in d { converted.updateValue(portable(element), forKey: key) }
            return .dictionary(converted)
        default: return value
        }
    }
}

/// A Codable model shaped like the `mixed-1m` records.
struct RecordExport: Codable {
    struct Owner: Codable {
        var name: String
        var email: String
        var level: Int
    }

    struct Record: Codable {
        var id: Int
        var uuid: String
        var name: String
        var score: Double
        var created: Date
        var active: Bool
        var thumbnail: Data
        var tags: [String]
        var history: [Int]
        var owner: Owner
    }

    var schemaVersion: Int
    var records: [Record]

    static func generate(count: Int) -> RecordExport {
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
    init(plist: PlistValue) throws {
        func field<T>(_ value: PlistValue?, _ key: String, _ read: (PlistValue) -> T?) throws -> T {
            guard let value, let typed = read(value) else { throw EngineFailure("record field \(key) missing or mistyped") }
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

    init(schemaVersion: Int, records: [Record]) {
        self.schemaVersion = schemaVersion
        self.records = records
    }

    /// The hand-written mapping to a property list, in `PropertyListEncoder`'s key order.
    var plistValue: PlistValue {
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
