import Foundation
import Testing
import TroveCore

/// The one reader and writer shape every format has, and the public unique-keys builder.
@Suite("Format readers and writers behind one protocol")
struct FormatCodecTests {
    static let sample: PlistValue = ["name": "Trove", "list": ["a", "b"], "nested": ["k": "v"]]

    @Test("every format's writer and reader round-trip through the protocol", arguments: PlistFormat.allCases)
    func roundTrip(format: PlistFormat) throws {
        let writer = format.writer()
        #expect(writer.format == format)
        let data = try writer.writeDocument(PlistDocument(value: Self.sample, format: format))
        #expect(data == (try Plist.write(Self.sample, as: format)))
        let reader = format.reader()
        #expect(reader.format == format)
        let document = try data.withUnsafeBytes { raw throws(PlistError) in try reader.readDocument(raw, keepingLayout: true) }
        #expect(document.value == Self.sample)
        #expect(document.format == format)
        // Written back through the writer with its notes, the bytes are the same.
        #expect(try writer.writeDocument(document) == data)
    }

    @Test("format options pass through Plist.read and Plist.write")
    func optionsPassThrough() throws {
        let document = PlistDocument(value: ["b": 1, "a": [true]], format: .json)
        let compact = try Plist.write(document, options: PlistWriteOptions())
        let pretty = try Plist.write(document, options: PlistWriteOptions(json: .plutilPretty))
        #expect(String(decoding: compact, as: UTF8.self) == #"{"b":1,"a":[true]}"#)
        #expect(String(decoding: pretty, as: UTF8.self).contains("\n"))
        let typed = Data("{ n = <*I5>; }".utf8)
        #expect(throws: PlistError.self) { try Plist.read(typed) }
        #expect(try Plist.read(typed, options: PlistReadOptions(openStep: .gnustepExtensions)).value == ["n": 5])
        // A trailing comma is JSON that only the strict reader refuses.
        let trailing = Data(#"{"a": [1,],}"#.utf8)
        #expect(throws: PlistError.self) {
            try trailing.withUnsafeBytes { raw throws(PlistError) in
                try PlistFormat.json.reader(PlistReadOptions(json: .strict)).readDocument(raw, keepingLayout: false)
            }
        }
    }

    @Test("the unique-keys builder keeps order and finds every key, small and large", arguments: [0, 3, 16, 17, 500])
    func uniqueKeysBuilder(count: Int) {
        let keys = (0..<count).map { "key\($0)" }
        let values = (0..<count).map { PlistValue.integer(PlistInteger($0)) }
        let dictionary = PlistDictionary(uniqueKeys: keys, values: values)
        #expect(dictionary.keys == keys)
        for (i, key) in keys.enumerated() { #expect(dictionary[key] == values[i]) }
        #expect(dictionary["missing"] == nil)
        #expect(dictionary == PlistDictionary(zip(keys, values)))
    }

    @Test("text that neither OpenStep nor JSON reads gets the error of the one it resembles more")
    func resemblance() throws {
        func error(_ text: String) -> PlistError? {
            do { _ = try Plist.read(Data(text.utf8)); return nil } catch { return error }
        }
        let deepJSON = String(repeating: #"{"a": "#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(error(deepJSON)?.format == .json)
        #expect(error(deepJSON)?.code == .depthLimit)
        #expect(error(#"{"a": 1, "b": [1, 2 3]}"#)?.format == .json)
        #expect(error("{ a = 1; b = (1, 2; }")?.format == .openStep)
        #expect(error("{ a = 1 }")?.format == .openStep)
    }
}
