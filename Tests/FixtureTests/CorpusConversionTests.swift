import Foundation
import Testing
import Trove
import TroveTestSupport

/// Every valid binary and XML file survives conversion to the other format (and a standard-layout
/// rewrite in its own), losing only what the target format cannot hold.
@Suite(
    "Corpus: format conversion", .serialized,
    .enabled(if: FixtureCorpus.isAvailable, FixtureCorpus.unavailableReason))
struct CorpusConversionTests {
    /// What happened to one file in one target format.
    enum Outcome: Equatable {
        case equal
        /// XML has no null: the writer refused with `.unsupportedValue`, as it must.
        case refusedNull
        case failed(String)
    }

    /// Writes `value` in `target`'s standard layout and reads it back.
    static func convert(_ value: PlistValue, to target: PlistFormat) -> Outcome {
        let holdsNull = ValueComparison.containsNull(value)
        let written: Data
        do {
            written = try Plist.write(value, as: target)
        } catch {
            if target == .xml && holdsNull {
                return error.code == .unsupportedValue
                    ? .refusedNull : .failed("null in XML gave \(error.code.rawValue), expected unsupported-value: \(error)")
            }
            return .failed("writing \(target.displayName) failed: \(error.code.rawValue): \(error)")
        }
        if target == .xml && holdsNull { return .failed("the XML writer accepted a value holding null") }
        let reread: PlistDocument
        do {
            reread = try Plist.read(written)
        } catch {
            return .failed("reading our own \(target.displayName) output failed: \(error.code.rawValue): \(error)")
        }
        guard reread.format == target else { return .failed("our \(target.displayName) output reads as \(reread.format)") }
        // XML dates are whole seconds, zero loses its sign and UIDs keep 32 bits, as through
        // Foundation; real widths are already ignored by equality.
        let rules: ComparisonRules = target == .xml ? .throughXML : .exact
        if let difference = ValueComparison.firstDifference(reread.value, value, rules: rules) {
            return .failed("\(target.displayName) round trip changed the value: \(difference)")
        }
        return .equal
    }

    @Test("Valid files convert to XML and to binary and back without change", arguments: CorpusRowSets.valid)
    func fileConverts(_ row: FixtureRow) async throws {
        let bytes = try FixtureCorpus.contents(of: row)
        let read = await HangGuard.read(bytes, seconds: HangGuard.validDeadline)
        guard case .success(let document)? = read else {
            Issue.record("\(row.path): cannot test conversion, the file does not read: \(String(describing: read))")
            return
        }
        for target in [PlistFormat.xml, .binary] {
            let outcome = await HangGuard.run(seconds: HangGuard.validDeadline) { Self.convert(document.value, to: target) }
            switch outcome {
            case .equal?, .refusedNull?:
                break
            case .failed(let why)?:
                Issue.record("\(row.path) -> \(target.displayName): \(why)")
            case nil:
                Issue.record("\(row.path) -> \(target.displayName): did not finish within \(HangGuard.validDeadline) s")
            }
        }
    }

    @Test("Summary: conversion numbers")
    func summary() async throws {
        var toXML = 0, refusedNull = 0, toBinary = 0, readable = 0
        for row in CorpusRowSets.valid {
            let bytes = try FixtureCorpus.contents(of: row)
            guard case .success(let document)? = await HangGuard.read(bytes, seconds: HangGuard.validDeadline) else { continue }
            readable += 1
            switch await HangGuard.run(seconds: HangGuard.validDeadline, { Self.convert(document.value, to: .xml) }) {
            case .equal?: toXML += 1
            case .refusedNull?: refusedNull += 1
            default: break
            }
            if await HangGuard.run(seconds: HangGuard.validDeadline, { Self.convert(document.value, to: .binary) }) == .equal {
                toBinary += 1
            }
        }
        print(
            "conversion: \(readable) readable of \(CorpusRowSets.valid.count) valid files; to XML and back equal \(toXML), "
                + "refused for null (XML has none) \(refusedNull); to binary and back equal \(toBinary)")
        #expect(toXML + refusedNull == readable, "some files do not survive XML conversion (see the per-file test)")
        #expect(toBinary == readable, "some files do not survive binary conversion (see the per-file test)")
    }
}
