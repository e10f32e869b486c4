import Foundation
import Testing
import TroveTestSupport

@testable import TroveCore

/// Small random edits of OpenStep and JSON documents: whatever a reader accepts, odd spacing,
/// comments and escapes included, comes back byte for byte from its layout notes, and edits of it
/// write text that reads back as the edited value.
@Suite("Text formats: lossless rewrite of mutated documents")
struct TextLosslessMutationTests {
    static let openStepSeeds = [
        "// !$*UTF8*$!\n{\n\tname = Trove; // the product\n\tlist = (\n\t\ta,\n\t\t\"b c\",\n\t);\n\tdata = <0fbd 77>;\n}\n",
        "/* header */\n\n/* one */\n\"a\" = \"A\";\n'b' = b;\n\"c\";\n",
        "{a = 1; b = (x, y); c = {d = e; }; a = 2; }",
        "( one, /* two */ \"three\\n\", <>, {} )",
    ]
    static let jsonSeeds = [
        "{\n  \"pins\" : [\n    {\n      \"id\" : \"a\",\n      \"v\" : 1.0\n    }\n  ],\n  \"n\" : -0\n}\n",
        #"{"a":[1,2e3,true,null],"b":{"c":"caf\u00e9 \/"},"a":3}"#,
        "[ [], {}, \"x\" , 1 ]",
    ]

    @Test("accepted mutations come back byte for byte, and their edits read back", arguments: [PlistFormat.openStep, .json])
    func mutations(_ format: PlistFormat) throws {
        var mutator = ByteMutator(
            random: SplitMix(seed: format == .json ? 7 : 11),
            alphabet: Array("{}()[]<>=;:,\"'\\/* \t\n\r0aZ".utf8) + [0xC3, 0xA9],
            emptyReplacement: format == .json ? UInt8(ascii: "[") : UInt8(ascii: "("))
        let seeds = format == .json ? Self.jsonSeeds : Self.openStepSeeds
        var accepted = 0, edits = 0
        for round in 0..<3_000 {
            let bytes = mutator.mutated(Array(seeds[round % seeds.count].utf8))
            guard let document = try? bytes.withUnsafeBytes({ try format.reader().readDocument($0, keepingLayout: true) })
            else { continue }
            accepted += 1
            let input = String(decoding: bytes, as: UTF8.self).debugDescription
            #expect(Array(try Plist.write(document)) == bytes, "\(input)")
            for edited in Self.edits(of: document.value) {
                var changed = document
                changed.value = edited
                do {
                    let output = try Plist.write(changed)
                    let reread = try output.withUnsafeBytes { try format.reader().readDocument($0, keepingLayout: false) }
                    #expect(reread.value == edited, "\(input) -> \(String(decoding: output, as: UTF8.self).debugDescription)")
                    edits += 1
                } catch {
                    Issue.record("\(input): \(error)")
                }
            }
        }
        print("text lossless mutations (\(format)): \(accepted) accepted, \(edits) edits checked")
        #expect(accepted > 250)
    }

    /// A replaced first and last scalar, and a key or element added to and removed from the root.
    static func edits(of value: PlistValue) -> [PlistValue] {
        var results: [PlistValue] = []
        let leaves = TextLossless.leaves(of: value)
        for leaf in [leaves.first, leaves.last].compactMap({ $0 }) {
            if let edited = TextLossless.editing(value, at: leaf.path[...], { _ in .string("new \"text\" here") }) {
                results.append(edited)
            }
        }
        switch value {
        case .dictionary(var entries):
            var added = entries
            added["added"] = ["x", "y"]
            results.append(.dictionary(added))
            if let first = entries.keys.first {
                entries[first] = nil
                results.append(.dictionary(entries))
            }
        case .array(var items):
            results.append(.array(items + [["k": "v"]]))
            if !items.isEmpty {
                items.removeFirst()
                results.append(.array(items))
            }
        default:
            results.append(["became": "a dictionary"])
        }
        return results
    }
}
