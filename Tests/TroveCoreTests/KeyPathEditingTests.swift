import Foundation
import Testing
import TroveCore

/// Key paths with key and index components, the key-path edits the CLI's verbs and the store
/// layers share, typed value parsing, and extensible error codes.
@Suite("Key paths, edits and typed values")
struct KeyPathEditingTests {
    @Test("an index and a numeric key are different components; text paths read numbers as indices into arrays")
    func componentsAreKeyOrIndex() {
        #expect(PlistKeyPath(components: ["a", 0]) != PlistKeyPath(components: ["a", "0"]))
        #expect(PlistKeyPath("a.0").components == [.key("a"), .key("0")])
        #expect(PlistKeyPath(components: ["a", 0]).description == "a.0")
        let value: PlistValue = ["list": ["x", "y"], "map": ["0": "zero"]]
        #expect(value[keyPath: ["list", 1]] == "y")
        #expect(value[keyPath: "list.1"] == "y")
        #expect(value[keyPath: ["map", "0"]] == "zero")
        // An index never names a dictionary entry, even one whose key is that number.
        #expect(value[keyPath: ["map", 0]] == nil)
        #expect(PlistKeyPath(components: ["a", 3]).parent == ["a"])
        #expect(PlistKeyPath.root.appending(key: "k").appending(index: 2) == ["k", 2])
    }

    @Test("readers report array positions as indices")
    func readerPathsUseIndices() throws {
        let document = Data(
            "<plist><dict><key>a</key><array><integer>1</integer><dict><key>b</key><integer>x</integer></dict></array></dict></plist>".utf8)
        #expect(throws: PlistError.self) { try Plist.read(document) }
        do {
            _ = try Plist.read(document)
        } catch {
            #expect(error.keyPath == ["a", 1, "b"])
        }
    }

    @Test("insert, replace, append and remove follow plutil's rules")
    func edits() throws {
        var value: PlistValue = ["Window": ["Width": 800], "Recent": ["a"]]
        try value.insert(600, at: "Window.Height")
        #expect(value[keyPath: "Window.Height"] == 600)
        #expect(throws: PlistError.self) { try value.insert(1, at: "Window.Height") }
        try value.replace(900, at: "Window.Width")
        #expect(value[keyPath: "Window.Width"] == 900)
        try value.insert("b", at: "Recent", placement: .append)
        try value.insert("first", at: ["Recent", 0])
        #expect(value[keyPath: "Recent"] == ["first", "a", "b"])
        // Replacing at an array index inserts there, as plutil does.
        try value.replace("again", at: "Recent.1")
        #expect(value[keyPath: "Recent"] == ["first", "again", "a", "b"])
        #expect(try value.removeValue(at: "Recent.0") == "first")
        #expect(try value.removeValue(at: "Window.Height") == 600)
        do {
            try value.removeValue(at: "Window.Depth")
            Issue.record("removing a missing key succeeded")
        } catch {
            #expect(error.code == .keyPath)
            #expect(error.keyPath == "Window.Depth")
            #expect(error.message == "No value to remove at key path Window.Depth")
        }
        do {
            try value.insert(1, at: "Recent.9")
            Issue.record("an out-of-range insert succeeded")
        } catch {
            #expect(error.message == "Index 9 out of bounds in array at key path Recent.9")
        }
        do {
            try value.insert(1, at: "Window.Width", placement: .append)
            Issue.record("appending to an integer succeeded")
        } catch {
            #expect(error.message == "Appending to a non-array at key path Window.Width")
        }
        #expect(throws: PlistError.noValue(at: "nothing.here")) { try value.value(at: "nothing.here") }
    }

    @Test("typed text parses as each syntax says, and text that does not fit is an error")
    func typedParsing() throws {
        #expect(try PlistValue(parsing: " -12 ", as: .integer) == -12)
        #expect(try PlistValue(parsing: "18446744073709551615", as: .integer) == .integer(PlistInteger(UInt64.max)))
        for bad in ["abc", "", "1.5", "18446744073709551616", "-9223372036854775809", "0x10"] {
            #expect(throws: PlistError.self, "\(bad)") { try PlistValue(parsing: bad, as: .integer) }
        }
        for (text, expected) in [("YES", true), ("true", true), ("1", true), ("no", false), ("FALSE", false), ("0", false)] {
            #expect(try PlistValue(parsing: text, as: .bool) == .bool(expected))
        }
        #expect(throws: PlistError.self) { try PlistValue(parsing: "maybe", as: .bool) }
        #expect(try PlistValue(parsing: "2.5e3", as: .real) == 2500.0)
        #expect(throws: PlistError.self) { try PlistValue(parsing: "inf", as: .real) }
        #expect(try PlistValue(parsing: "2024-03-09T18:45:00Z", as: .date).kind == .date)
        #expect(throws: PlistError.self) { try PlistValue(parsing: "2024", as: .date) }
        #expect(try PlistValue(parsing: "AQID", as: .base64Data) == .data(Data([1, 2, 3])))
        #expect(try PlistValue(parsing: "01 02 ff", as: .hexData) == .data(Data([1, 2, 255])))
        #expect(throws: PlistError.self) { try PlistValue(parsing: "012", as: .hexData) }
        #expect(throws: PlistError.self) { try PlistValue(parsing: "0g", as: .hexData) }
        #expect(try PlistValue(parsing: "<dict><key>a</key><integer>1</integer></dict>", as: .propertyList) == ["a": 1])
        #expect(try PlistValue(parsing: "{a = (x, y);}", as: .propertyList) == ["a": ["x", "y"]])
        #expect(throws: PlistError.self) { try PlistValue(parsing: "(a, b", as: .propertyList) }
        #expect(try PlistValue(parsing: #"{"n": [1, 2.5]}"#, as: .json) == ["n": [1, 2.5]])
        do {
            _ = try PlistValue(parsing: "[null]", as: .json)
            Issue.record("JSON null was accepted")
        } catch {
            #expect(error.code == .invalidValue)
        }
    }

    @Test("error codes are open to other layers, and the underlying error stays out of equality")
    func extensibleCodes() {
        let custom = PlistError.Code("quota-exceeded")
        #expect(custom.rawValue == "quota-exceeded")
        #expect(PlistError.Code(rawValue: "bad-trailer") == .badTrailer)
        var a = PlistError.io("cannot open", path: "/x", systemErrorNumber: ENOENT)
        var b = a
        a.underlyingError = CocoaError(.fileNoSuchFile)
        #expect(a == b)
        b.systemErrorNumber = EACCES
        #expect(a != b)
        #expect(a.path == "/x" && a.code == .io)
        #expect(PlistError(.syntax, "x").inFile("/f").path == "/f")
    }
}
