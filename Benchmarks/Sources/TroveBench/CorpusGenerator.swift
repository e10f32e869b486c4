import Foundation
import BenchmarkModels
import Trove

/// Builds the synthetic inputs. Every shape has its own fixed seed, so adding or resizing one
/// shape leaves the bytes of the others unchanged.
///
/// Values are chosen so that all three engines can represent them exactly and identically in both
/// formats: integers stay within `Int64`, dates are whole seconds (XML dates have no fraction),
/// reals are finite, and there are no UIDs or nulls (XML cannot hold them).
struct CorpusGenerator {
    /// A small application configuration, about 2 KB of XML.
    func configuration() -> PlistValue {
        var random = SeededGenerator(seed: 0xC0F1_6000)
        var window: PlistDictionary = [:]
        window.updateValue(.integer(PlistInteger(1280)), forKey: "Width")
        window.updateValue(.integer(PlistInteger(800)), forKey: "Height")
        window.updateValue(.real(PlistReal(0.85)), forKey: "Opacity")
        window.updateValue(.bool(true), forKey: "RestoresPosition")
        var root: PlistDictionary = [:]
        root.updateValue(.string("com.example.Trove.Bench"), forKey: "CFBundleIdentifier")
        root.updateValue(.string("4.2.1"), forKey: "CFBundleShortVersionString")
        root.updateValue(.integer(PlistInteger(4021)), forKey: "CFBundleVersion")
        root.updateValue(.bool(false), forKey: "LSUIElement")
        root.updateValue(.bool(true), forKey: "AutomaticallyChecksForUpdates")
        root.updateValue(.integer(PlistInteger(86_400)), forKey: "UpdateCheckInterval")
        root.updateValue(.date(date(&random)), forKey: "LastUpdateCheck")
        root.updateValue(.dictionary(window), forKey: "MainWindow")
        root.updateValue(.array((0..<8).map { _ in .string(path(&random)) }), forKey: "RecentDocuments")
        root.updateValue(.array((0..<6).map { _ in .string(words(&random, count: 2)) }), forKey: "FavoriteTags")
        root.updateValue(.data(bytes(&random, count: 48)), forKey: "LicenseToken")
        var servers: [PlistValue] = []
        for index in 0..<4 {
            var server: PlistDictionary = [:]
            server.updateValue(.string("server-\(index).example.net"), forKey: "Host")
            server.updateValue(.integer(PlistInteger(8000 + index)), forKey: "Port")
            server.updateValue(.bool(index % 2 == 0), forKey: "UsesTLS")
            server.updateValue(.real(PlistReal(Double(random.between(50, 5000)) / 100)), forKey: "TimeoutSeconds")
            servers.append(.dictionary(server))
        }
        root.updateValue(.array(servers), forKey: "Servers")
        return .dictionary(root)
    }

    /// Mixed records: every value type, nested dictionaries and arrays.
    func mixedRecords(count: Int) -> PlistValue {
        var random = SeededGenerator(seed: 0x000D_1CED)
        var records: [PlistValue] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            records.append(.dictionary(record(&random, index: index)))
        }
        var root: PlistDictionary = [:]
        root.updateValue(.integer(PlistInteger(3)), forKey: "schemaVersion")
        root.updateValue(.date(date(&random)), forKey: "exportedAt")
        root.updateValue(.array(records), forKey: "records")
        return .dictionary(root)
    }

    /// Long, mostly distinct strings (a sixth of the entries non-ASCII, some with XML
    /// metacharacters), so that both string encodings and escaping are exercised.
    func stringHeavy(entries: Int) -> PlistValue {
        var random = SeededGenerator(seed: 0x5781_4600)
        var list: [PlistValue] = []
        list.reserveCapacity(entries)
        for index in 0..<entries {
            var entry: PlistDictionary = [:]
            let foreign = random.chance(1.0 / 6)
            entry.updateValue(.string("Article \(index): " + sentence(&random, foreign: foreign)), forKey: "title")
            entry.updateValue(.string(random.pick(["en", "de", "el", "ja", "ru", "fr"])), forKey: "locale")
            let paragraphs = (0..<random.between(1, 4)).map { _ in paragraph(&random, foreign: foreign) }
            entry.updateValue(.string(paragraphs.joined(separator: "\n\n")), forKey: "body")
            entry.updateValue(.array((0..<random.between(0, 4)).map { _ in .string(sentence(&random, foreign: foreign)) }), forKey: "notes")
            list.append(.dictionary(entry))
        }
        return .dictionary(["entries": .array(list)])
    }

    /// Series of integers of every width and sign and of reals, with little else.
    func numberHeavy(series: Int, length: Int) -> PlistValue {
        var random = SeededGenerator(seed: 0x0000_5EED_0F1E)
        var list: [PlistValue] = []
        list.reserveCapacity(series)
        for index in 0..<series {
            var entry: PlistDictionary = [:]
            entry.updateValue(.integer(PlistInteger(index)), forKey: "id")
            entry.updateValue(.array((0..<length).map { _ in .integer(integer(&random)) }), forKey: "counts")
            entry.updateValue(.array((0..<length).map { _ in .real(PlistReal(real(&random))) }), forKey: "samples")
            list.append(.dictionary(entry))
        }
        return .dictionary(["series": .array(list)])
    }

    /// One flat dictionary with `count` distinct keys (preference-domain style).
    func wideDictionary(count: Int) -> PlistValue {
        var random = SeededGenerator(seed: 0x0000_0000_00D1_C700)
        var root = PlistDictionary(minimumCapacity: count)
        for index in 0..<count {
            let key = "\(random.pick(groupNames)).\(syllables(&random, count: 2)).\(index)"
            let value: PlistValue
            switch random.below(4) {
            case 0: value = .integer(integer(&random))
            case 1: value = .string(words(&random, count: random.between(1, 3)))
            case 2: value = .bool(random.chance(0.5))
            default: value = .real(PlistReal(real(&random)))
            }
            root.updateValue(value, forKey: key)
        }
        return .dictionary(root)
    }

    /// Containers nested `depth` levels deep, alternating dictionaries and arrays, with a few
    /// scalars at every level so that each level is real work.
    func deepNesting(depth: Int) -> PlistValue {
        var random = SeededGenerator(seed: 0x0000_0000_DEE9_0000)
        var innermost: PlistValue = .string("bottom")
        for level in stride(from: depth - 1, through: 1, by: -1) {
            if level % 2 == 0 {
                var node: PlistDictionary = [:]
                node.updateValue(.integer(PlistInteger(level)), forKey: "level")
                node.updateValue(.string(words(&random, count: 2)), forKey: "name")
                node.updateValue(.real(PlistReal(real(&random))), forKey: "weight")
                node.updateValue(innermost, forKey: "child")
                innermost = .dictionary(node)
            } else {
                innermost = .array([.integer(PlistInteger(level)), .bool(level % 3 == 0), innermost, .string(words(&random, count: 1))])
            }
        }
        return .array([innermost])
    }

    // MARK: - Pieces

    private let syllableList = [
        "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "den", "gar", "pol", "quin", "bra", "est",
        "ful", "ion", "ter", "ack", "zo", "wen", "tri", "ox", "pha", "lun",
    ]
    private let foreignWords = [
        "Zürich", "naïve", "façade", "smörgåsbord", "Ελλάδα", "καλημέρα", "日本語", "東京都",
        "Москва", "привет", "café", "😀", "数据", "ﬁnance", "Ærø", "İstanbul",
    ]
    private let markupWords = ["R&D", "<draft>", "a > b", "\"quoted\"", "it's", "x < y && y > z"]
    private let groupNames = ["NSNavPanel", "AppleLanguages", "Window", "Sync", "Editor", "Recent", "Toolbar", "Network"]

    private func syllables(_ random: inout SeededGenerator, count: Int) -> String {
        (0..<count).map { _ in random.pick(syllableList) }.joined()
    }

    private func words(_ random: inout SeededGenerator, count: Int) -> String {
        (0..<count).map { _ in syllables(&random, count: random.between(1, 3)) }.joined(separator: " ")
    }

    /// A sentence of made-up words; `foreign` mixes in non-ASCII words (UTF-16 in binary files).
    private func sentence(_ random: inout SeededGenerator, foreign: Bool) -> String {
        var parts: [String] = []
        let length = random.between(5, 14)
        for _ in 0..<length {
            if foreign && random.chance(0.4) {
                parts.append(random.pick(foreignWords))
            } else if random.chance(0.03) {
                parts.append(random.pick(markupWords))
            } else {
                parts.append(syllables(&random, count: random.between(1, 3)))
            }
        }
        return parts.joined(separator: " ").capitalizedFirst + "."
    }

    private func paragraph(_ random: inout SeededGenerator, foreign: Bool) -> String {
        (0..<random.between(3, 9)).map { _ in sentence(&random, foreign: foreign) }.joined(separator: " ")
    }

    private func path(_ random: inout SeededGenerator) -> String {
        "/Users/bench/" + (0..<random.between(1, 4)).map { _ in syllables(&random, count: 2) }.joined(separator: "/") + ".txt"
    }

    private func bytes(_ random: inout SeededGenerator, count: Int) -> Data {
        var data = Data(capacity: count)
        for _ in 0..<count { data.append(UInt8(truncatingIfNeeded: random.next())) }
        return data
    }

    /// Mostly small numbers, as real files hold, with every binary integer width represented.
    private func integer(_ random: inout SeededGenerator) -> PlistInteger {
        switch random.below(10) {
        case 0...3: return PlistInteger(random.between(0, 255))
        case 4...5: return PlistInteger(random.between(256, 65_535))
        case 6: return PlistInteger(random.between(65_536, Int(Int32.max)))
        case 7: return PlistInteger(Int64(bitPattern: random.next() >> 1))
        default: return PlistInteger(-random.between(1, 1_000_000))
        }
    }

    private func real(_ random: inout SeededGenerator) -> Double {
        if random.chance(0.5) {
            return Double(random.between(-1_000_000, 1_000_000)) / 1000
        }
        let unit = Double(random.next() >> 11) / Double(UInt64(1) << 53)
        let scale = [1e-6, 1e-3, 1, 1e3, 1e9][random.below(5)]
        return random.chance(0.2) ? -unit * scale : unit * scale
    }

    /// Whole seconds between 1990 and 2035.
    private func date(_ random: inout SeededGenerator) -> PlistDate {
        PlistDate(secondsSinceReferenceDate: Double(random.between(-347_155_200, 1_104_537_600)))
    }

    private func record(_ random: inout SeededGenerator, index: Int) -> PlistDictionary {
        var owner: PlistDictionary = [:]
        owner.updateValue(.string(words(&random, count: 2).capitalizedFirst), forKey: "name")
        owner.updateValue(.string("\(syllables(&random, count: 3))@example.org"), forKey: "email")
        owner.updateValue(.integer(PlistInteger(random.between(0, 9))), forKey: "level")

        var record: PlistDictionary = [:]
        record.updateValue(.integer(PlistInteger(index)), forKey: "id")
        record.updateValue(.string(String(random.next(), radix: 16) + String(random.next(), radix: 16)), forKey: "uuid")
        record.updateValue(.string(random.chance(0.2) ? sentence(&random, foreign: random.chance(0.2)) : words(&random, count: 3)), forKey: "name")
        record.updateValue(.real(PlistReal(real(&random))), forKey: "score")
        record.updateValue(.date(date(&random)), forKey: "created")
        record.updateValue(.date(date(&random)), forKey: "modified")
        record.updateValue(.bool(random.chance(0.7)), forKey: "active")
        record.updateValue(.data(bytes(&random, count: random.between(8, 160))), forKey: "thumbnail")
        record.updateValue(.array((0..<random.between(0, 5)).map { _ in .string(random.pick(groupNames)) }), forKey: "tags")
        record.updateValue(.array((0..<random.between(2, 10)).map { _ in .integer(integer(&random)) }), forKey: "history")
        record.updateValue(.dictionary(owner), forKey: "owner")
        if random.chance(0.3) {
            let children: [PlistValue] = (0..<random.between(1, 3)).map { _ in
                .dictionary(["label": .string(words(&random, count: 1)), "weight": .real(PlistReal(real(&random)))])
            }
            record.updateValue(.array(children), forKey: "children")
        }
        return record
    }
}

extension String {
    /// The string with its first character uppercased (the rest untouched).
    fileprivate var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
