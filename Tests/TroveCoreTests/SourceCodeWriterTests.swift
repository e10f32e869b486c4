import Foundation
import Testing

@testable import TroveCore

/// The Swift and Objective-C literal writers. Every expected text below was printed by the
/// toolchain's `plutil -convert swift|objc` (6.3.1) for the same value; `SourceCodeOutputTests`
/// in the CLI tests compares the two live on generated values and the fixture corpus.
@Suite("Source-code literal writers")
struct SourceCodeWriterTests {
    /// The dictionary plutil was given: one value of each kind it can write in both languages.
    static let mixed: PlistValue = [
        "str": "hello \"world\" \\ é 😀\ntab\tx",
        "int": -42,
        "big": .integer(PlistInteger(UInt64.max)),
        "real": 3.25,
        "realint": 3.0,
        "t": true,
        "f": false,
        "arr": ["a", 1, .dictionary([:]), []],
        "nested": ["k": "v"],
    ]

    @Test("a mixed dictionary in Swift: annotation, sorted keys, %f reals, escaped line feed")
    func swiftMixedDictionary() throws {
        let text = try SwiftLiteralWriter(sourcePath: "/tmp/a.plist").write(Self.mixed)
        #expect(text == """
            /// Generated from a.plist
            let a : [String : Any] = [
                "arr" : [
                    "a",
                    1,
                    [
                    ],
                    [
                    ],
                ],
                "big" : 18446744073709551615,
                "f" : false,
                "int" : -42,
                "nested" : [
                    "k" : "v",
                ],
                "real" : 3.250000,
                "realint" : 3.000000,
                "str" : "hello \\"world\\" \\ é 😀\\ntab\tx",
                "t" : true,
            ]

            """)
    }

    @Test("the same dictionary in Objective-C: @-literals, YES/NO, raw line feed")
    func objcMixedDictionary() throws {
        let text = try ObjCLiteralWriter(sourcePath: "a.plist", outputPath: "-").implementation(Self.mixed)
        #expect(text == """
            /// Generated from a.plist
            __attribute__((visibility("hidden")))
            NSDictionary * const a = @{
                @"arr" : @[
                    @"a",
                    @1,
                    @{
                    },
                    @[
                    ],
                ],
                @"big" : @18446744073709551615,
                @"f" : @NO,
                @"int" : @-42,
                @"nested" : @{
                    @"k" : @"v",
                },
                @"real" : @3.250000,
                @"realint" : @3.000000,
                @"str" : @"hello \\"world\\" \\ é 😀
            tab\tx",
                @"t" : @YES,
            };

            """)
    }

    @Test("an implementation written to a file imports its header; the header declares the constant")
    func objcHeaderPair() throws {
        let value: PlistValue = ["a": "x", "b": "y"]
        let writer = ObjCLiteralWriter(sourcePath: "dir/hd.plist", outputPath: "out/hd.m")
        #expect(try writer.implementation(value) == """
            #import "hd.h"

            /// Generated from hd.plist
            __attribute__((visibility("hidden")))
            NSDictionary * const hd = @{
                @"a" : @"x",
                @"b" : @"y",
            };

            """)
        #expect(try writer.header(value) == """
            #import <Foundation/Foundation.h>

            /// Generated from hd.plist
            __attribute__((visibility("hidden")))
            extern NSDictionary * const hd;

            """)
        // plutil names the import after the output file, not the input.
        let renamed = ObjCLiteralWriter(sourcePath: "hd.plist", outputPath: "out.xyz")
        #expect(try renamed.implementation(value).hasPrefix("#import \"out.h\"\n\n/// Generated from hd.plist\n"))
    }

    @Test("header paths replace the extension of the last component only", arguments: [
        ("a/b.m", "a/b.h"), ("b.m", "b.h"), ("out.xyz", "out.h"), ("dir.d/noext", "dir.d/noext.h"),
        (".hidden", ".hidden.h"), ("a/b.c.m", "a/b.c.h"),
    ])
    func headerPaths(output: String, header: String) {
        #expect(ObjCLiteralWriter.headerPath(forOutputPath: output) == header)
    }

    @Test("homogeneous collections have no annotation; heterogeneous ones get [Any] or [String : Any]")
    func annotations() throws {
        func firstLine(_ value: PlistValue) throws -> String {
            let text = try SwiftLiteralWriter(sourcePath: "v.plist").write(value)
            return String(text.split(separator: "\n")[1])
        }
        #expect(try firstLine(["x", "y"]) == "let v = [")
        #expect(try firstLine(["x", 1]) == "let v : [Any] = [")
        #expect(try firstLine(["a": "x", "b": "y"]) == "let v = [")
        #expect(try firstLine(["a": "x", "b": 2]) == "let v : [String : Any] = [")
        // Integers of both signs are one kind, and so are reals of both widths.
        #expect(try firstLine([-1, .integer(PlistInteger(UInt64.max))]) == "let v = [")
        #expect(try firstLine([.real(PlistReal(Float(0.5))), 0.25]) == "let v = [")
        #expect(try firstLine([1, 1.5]) == "let v : [Any] = [")
        #expect(try firstLine([:]) == "let v = [")
        #expect(try firstLine([]) == "let v = [")
    }

    @Test("top-level scalars are single-line constants")
    func topLevelScalars() throws {
        #expect(try SwiftLiteralWriter(sourcePath: "top.plist").write("top") == "/// Generated from top.plist\nlet top = \"top\"\n")
        #expect(try SwiftLiteralWriter(sourcePath: "topint.plist").write(5) == "/// Generated from topint.plist\nlet topint = 5\n")
        #expect(try SwiftLiteralWriter(sourcePath: "topbool.plist").write(true) == "/// Generated from topbool.plist\nlet topbool = true\n")
        #expect(try ObjCLiteralWriter(sourcePath: "top.plist", outputPath: nil).implementation("top")
            == "/// Generated from top.plist\n__attribute__((visibility(\"hidden\")))\nNSString * const top = @\"top\";\n")
        #expect(try ObjCLiteralWriter(sourcePath: "topint.plist", outputPath: nil).implementation(5)
            == "/// Generated from topint.plist\n__attribute__((visibility(\"hidden\")))\nNSNumber * const topint = @5;\n")
        #expect(try ObjCLiteralWriter(sourcePath: "topbool.plist", outputPath: nil).implementation(true)
            == "/// Generated from topbool.plist\n__attribute__((visibility(\"hidden\")))\nNSNumber * const topbool = @YES;\n")
        // An empty dictionary comes out as Swift's empty *array* literal; plutil does the same.
        #expect(try SwiftLiteralWriter(sourcePath: "empty.plist").write([:]) == "/// Generated from empty.plist\nlet empty = [\n]\n")
        #expect(try ObjCLiteralWriter(sourcePath: "empty.plist", outputPath: nil).implementation([:])
            == "/// Generated from empty.plist\n__attribute__((visibility(\"hidden\")))\nNSDictionary * const empty = @{\n};\n")
    }

    @Test("Swift writes data as byte arrays and dates as exact reference-date seconds")
    func swiftDataAndDates() throws {
        let value: PlistValue = [
            "d": .data(Data([0x00, 0xAB, 0xFF])),
            "dt": .date(PlistDate(secondsSinceReferenceDate: 599_627_045)),
            "empty": .data(Data()),
        ]
        let text = try SwiftLiteralWriter(sourcePath: "b.plist").write(value)
        #expect(text == """
            /// Generated from b.plist
            let b : [String : Any] = [
                "d" : Data(bytes: [0x00,0xAB,0xFF,]),
                "dt" : Date(timeIntervalSinceReferenceDate: 599627045.0),
                "empty" : Data(bytes: []),
            ]

            """)
    }

    @Test("reals are printed with %f in both languages", arguments: [
        (0.1, "0.100000"), (Double.nan, "nan"), (Double.infinity, "inf"), (-Double.infinity, "-inf"),
        (-0.0, "-0.000000"), (1e-7, "0.000000"), (-3.14, "-3.140000"),
        (1e300, "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160.000000"),
    ])
    func reals(value: Double, spelled: String) throws {
        let swift = try SwiftLiteralWriter(sourcePath: "r.plist").write([.real(PlistReal(value))])
        #expect(swift == "/// Generated from r.plist\nlet r = [\n    \(spelled),\n]\n")
        let objc = try ObjCLiteralWriter(sourcePath: "r.plist", outputPath: nil).implementation([.real(PlistReal(value))])
        #expect(objc.hasSuffix("NSArray * const r = @[\n    @\(spelled),\n];\n"))
    }

    @Test("a 32-bit real is printed from its exact value, not its shortest form")
    func singleWidthReal() throws {
        let text = try SwiftLiteralWriter(sourcePath: "r.plist").write([.real(PlistReal(Float(0.1)))])
        #expect(text.contains("    0.100000,\n"))
        let wide = try SwiftLiteralWriter(sourcePath: "r.plist").write([.real(PlistReal(Float(16_777_217)))])
        #expect(wide.contains("    16777216.000000,\n"))
    }

    @Test("strings escape only quotes and plutil's regular-expression sequences, in order", arguments: [
        (#"a\b"#, #"a\\b"#), (#"\s \w \. \| \* \) \("#, #"\\s \\w \\. \\| \\* \\) \\("#),
        (#"\n"#, #"\n"#), (#"\\b"#, #"\\\b"#), (#"\""#, #"\\""#), (#"\"w"#, #"\\"w"#),
        ("lone \\ backslash", "lone \\ backslash"), ("\"\u{301}", "\"\u{301}"), ("tab\t", "tab\t"),
    ])
    func escaping(raw: String, escaped: String) {
        #expect(SourceLiteralSpelling.escapedText(raw) == escaped)
    }

    @Test("Swift turns line feeds into \\n, even the LF of a CR LF pair; Objective-C leaves them")
    func lineFeeds() throws {
        let swift = try SwiftLiteralWriter(sourcePath: "s.plist").write(["a\r\nb\nc"])
        #expect(swift.contains("    \"a\r\\nb\\nc\",\n"))
        let objc = try ObjCLiteralWriter(sourcePath: "s.plist", outputPath: nil).implementation(["a\r\nb\nc"])
        #expect(objc.contains("    @\"a\r\nb\nc\",\n"))
    }

    @Test("keys are sorted as plutil sorts them and written without escaping")
    func keyOrderAndSpelling() throws {
        let value: PlistValue = ["k\"ey\\": 1, "é": 2, "E": 3, "a10": 4, "a9": 5, "A9": 6, "_": 7, "line\nbreak": 8]
        let text = try SwiftLiteralWriter(sourcePath: "keys.plist").write(value)
        #expect(text == """
            /// Generated from keys.plist
            let keys = [
                "_" : 7,
                "a9" : 5,
                "A9" : 6,
                "a10" : 4,
                "E" : 3,
                "é" : 2,
                "k"ey\\" : 1,
                "line
            break" : 8,
            ]

            """)
    }

    @Test("constant names come from the file name as plutil derives them", arguments: [
        ("a.b.plist", "a.b"), (".hidden", ".hidden"), ("noext", "noext"), ("x+y=z~q^w`e|r<t>.plist", "xyzqwert"),
        ("caf€$£.plist", "caf"), ("mixed-arr name.plist", "mixed_arr_name"), ("emoji😀\u{200D}x.plist", "emojix"),
        ("uni-é ü.plist", "uni_é_ü"), ("a(b)[c]{d}.plist", "a(b)[c]{d}"), ("dots..plist", "dots."),
        ("1abc.plist", "1abc"), ("tab\tx.plist", "tabx"), ("a+\u{301}b.plist", "a\u{301}b"), ("k\u{AD}m.plist", "km"),
        ("-", "_"), ("dir/sub/x.plist", "x"), ("dir.d/noext", "noext"),
    ])
    func variableNames(path: String, name: String) {
        #expect(PlistSourceLanguage.variableName(forSourcePath: path) == name)
    }

    @Test("Objective-C refuses dates and data with plutil's message and the key path")
    func objcRefusesDatesAndData() {
        let writer = ObjCLiteralWriter(sourcePath: "b.plist", outputPath: nil)
        for (value, path) in [
            (["list": [1, .data(Data([1]))]] as PlistValue, "list.1"),
            (["z": .date(PlistDate(secondsSinceReferenceDate: 0)), "a": ["b": .data(Data())]] as PlistValue, "a.b"),
            (.date(PlistDate(secondsSinceReferenceDate: 0)), ""),
        ] {
            let error = #expect(throws: PlistError.self) { _ = try writer.implementation(value) }
            #expect(error?.code == .unsupportedValue)
            #expect(error?.message == "Input contains an object that cannot be represented in Obj-C literal syntax")
            #expect(error?.keyPath?.description == path)
            #expect(throws: PlistError.self) { _ = try writer.header(value) }
        }
    }

    @Test("UIDs and null are refused in both languages, before anything else, with plutil's message")
    func uidAndNullRefused() {
        let message = "Dictionaries are required to have string keys in property lists"
        let values: [PlistValue] = [
            ["$top": ["root": .uid(1)]], [.null], ["a": .data(Data()), "b": .uid(0)],
        ]
        for value in values {
            for write in [
                { try SwiftLiteralWriter(sourcePath: "k.plist").write(value) },
                { try ObjCLiteralWriter(sourcePath: "k.plist", outputPath: nil).implementation(value) },
            ] {
                let error = #expect(throws: PlistError.self) { _ = try write() }
                #expect(error?.message == message)
                #expect(error?.code == .unsupportedValue)
            }
        }
    }

    @Test("nesting deeper than the limit is a depth-limit error, not a stack overflow")
    func depthLimit() throws {
        var deep: PlistValue = "leaf"
        for _ in 0..<100 { deep = [deep] }
        #expect(throws: PlistError.self) { _ = try SwiftLiteralWriter(sourcePath: "d.plist", maxDepth: 50).write(deep) }
        #expect(throws: PlistError.self) {
            _ = try ObjCLiteralWriter(sourcePath: "d.plist", outputPath: nil, maxDepth: 50).implementation(deep)
        }
        let text = try SwiftLiteralWriter(sourcePath: "d.plist", maxDepth: 101).write(deep)
        #expect(text.contains(String(repeating: "    ", count: 100) + "\"leaf\",\n"))
    }

    @Test("the languages' names and file extensions")
    func languages() {
        #expect(PlistSourceLanguage(rawValue: "swift")?.fileExtension == "swift")
        #expect(PlistSourceLanguage(rawValue: "objc")?.fileExtension == "m")
        #expect(PlistSourceLanguage.allCases.map(\.description) == ["swift", "objc"])
    }
}
