import Foundation
import BenchmarkModels
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
