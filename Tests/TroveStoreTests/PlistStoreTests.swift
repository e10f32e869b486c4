import Foundation
import Testing
import Trove
import TroveTestSupport

/// Store types behind one protocol, the registry, detection on open, and saves that keep a file's
/// format and layout.
@Suite("Stores")
struct PlistStoreTests {
    static let settings: PlistValue = [
        "Name": "Trove", "Window": ["Width": 800, "Height": 600], "Recent": ["a.txt", "b.txt"], "Enabled": true,
    ]

    /// A fresh directory for one test.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func format(ofFileAt path: String) throws -> PlistFormat? {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return try Plist.read(bytes).format
    }

    @Test("each format's store type saves in its format and loads the value back", arguments: ["xml1", "binary1", "openstep", "json"])
    func formatTypesRoundTrip(name: String) throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("settings").path
        let store = try PlistStore(path: path, typeName: name)
        #expect(try store.load() == nil)
        // OpenStep keeps strings only; the others keep the value as it is.
        let value: PlistValue = name == "openstep" ? ["Name": "Trove", "Recent": ["a", "b"]] : Self.settings
        try store.save(value)
        #expect(try Self.format(ofFileAt: path)?.rawValue == name)
        #expect(try PlistStore(path: path).load() == value)
        #expect(try store.load() == value)
    }

    @Test("a file opened without a type keeps its format and layout when saved")
    func detectionKeepsFormatAndLayout() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("prefs.plist").path
        // Hand-written XML with a layout the standard writer would not produce.
        let original = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
              <key>Zeta</key>   <integer>1</integer>
              <key>Alpha</key>  <string>kept as written</string>
            </dict>
            </plist>

            """
        try Data(original.utf8).write(to: URL(fileURLWithPath: path))
        let store = PlistStore(path: path)
        var value = try #require(try store.load())
        #expect(store.type.name == "xml1")
        // Saved unchanged: byte for byte.
        try store.save(value)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
        // An edit changes the edited entry only.
        try value.replace(2, at: "Zeta")
        try store.save(value)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original.replacingOccurrences(of: "<integer>1</integer>", with: "<integer>2</integer>"))
        // A save through a store that never loaded still keeps the format.
        try PlistStore(path: path).save(["Only": "one"])
        #expect(try Self.format(ofFileAt: path) == .xml)
        // Naming a type converts.
        try PlistStore(path: path, type: FormatStoreType.binary).save(["Only": "one"])
        #expect(try Self.format(ofFileAt: path) == .binary)
        #expect(try PlistStore(path: path).load() == ["Only": "one"])
    }

    @Test("an OpenStep or JSON file keeps its comments and layout when an edited value is saved", arguments: [
        (
            "Localizable.strings",
            "/* Greeting */\n\"hello\" = \"Hello\";\n\n/* Farewell */\n\"bye\" = \"Bye\";\n",
            "/* Greeting */\n\"hello\" = \"Hi\";\n\n/* Farewell */\n\"bye\" = \"Bye\";\n\"new\" = \"New\";\n"
        ),
        (
            "settings.json",
            "{\n    \"hello\" : \"Hello\",\n    \"bye\" : \"Bye\"\n}\n",
            "{\n    \"hello\" : \"Hi\",\n    \"bye\" : \"Bye\",\n    \"new\" : \"New\"\n}\n"
        ),
    ])
    func textFileSavesKeepTheText(name: String, original: String, expected: String) throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        try Data(original.utf8).write(to: URL(fileURLWithPath: path))
        let store = PlistStore(path: path)
        var value = try #require(try store.load())
        try store.save(value)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)
        try value.replace("Hi", at: "hello")
        try value.insert("New", at: "new")
        try store.save(value)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        #expect(try PlistStore(path: path).load() == value)
    }

    @Test("a new file's type comes from its extension, else binary")
    func newFileTypeFromExtension() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (file, format) in [("a.json", PlistFormat.json), ("b.strings", .openStep), ("c.plist", .xml), ("d", .binary)] {
            let path = directory.appendingPathComponent(file).path
            let store = PlistStore(path: path)
            try store.save(["k": "v"])
            let expected = file == "c.plist" ? try #require(store.type as? FormatStoreType).format : format
            #expect(try Self.format(ofFileAt: path) == expected, "\(file)")
        }
        // `.plist` names both XML and binary; the registry's most recent claim wins (binary1).
        #expect(PlistStoreRegistry.shared.type(forPath: "x.plist")?.name == "binary1")
        #expect(PlistStoreRegistry.shared.type(forPath: "x.JSON")?.name == "json")
        #expect(PlistStoreRegistry.shared.type(forPath: "x") == nil)
    }

    @Test("the registry knows the built-in names, and a third party's type is used for its files")
    func registryAndThirdPartyType() throws {
        let registry = PlistStoreRegistry()
        for name in ["xml1", "binary1", "openstep", "json", "memory"] {
            #expect(registry.type(named: name)?.name == name)
        }
        #expect(registry.type(named: "yaml") == nil)
        #expect(throws: PlistError.self) { try PlistStore(path: "/x", typeName: "yaml", registry: registry) }
        registry.register(HexPlistStoreType())
        #expect(registry.type(forPath: "notes.hexplist")?.name == "hexplist")

        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.hexplist").path
        try PlistStore(path: path, registry: registry).save(Self.settings)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("62706c6973743030"))  // "bplist00" in hex
        // Opened without a type, under any name, the content is recognized.
        let renamed = directory.appendingPathComponent("renamed.dat").path
        try FileManager.default.moveItem(atPath: path, toPath: renamed)
        let store = PlistStore(path: renamed, registry: registry)
        #expect(try store.load() == Self.settings)
        #expect(store.type.name == "hexplist")
        // The shared registry does not know it: to the built-in types the text is an OpenStep string.
        let plain = PlistStore(path: renamed)
        #expect(try plain.load() == .string(text.trimmingCharacters(in: .newlines)))
        #expect(plain.type.name == "openstep")
    }

    @Test("the memory type keeps values without touching the disk")
    func memoryStore() throws {
        let volume = MemoryStoreType()
        let path = "/nonexistent-directory/settings.plist"
        let store = PlistStore(path: path, type: volume)
        #expect(try store.load() == nil)
        try store.save(Self.settings)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try PlistStore(path: path, type: volume).load() == Self.settings)
        #expect(volume.paths == [path])
        #expect(try PlistStore(path: path, type: MemoryStoreType()).load() == nil)
        let bytes = try volume.encode(StoreSnapshot(value: Self.settings, typeName: "memory"), options: PlistStoreOptions())
        #expect(try Plist.read(bytes).format == .binary)
        volume.removeAll()
        #expect(try store.load() == nil)
        #expect(try PlistStore(path: "/m", typeName: "memory").type is MemoryStoreType)
    }

    @Test("errors name the path and what is wrong; a failed save leaves the file as it was")
    func errors() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("broken.plist").path
        try Data("<plist><dict><key>a</key></dict></plist>".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try PlistStore(path: path).load()
            Issue.record("a malformed file loaded")
        } catch {
            #expect(error.path == path)
            #expect(error.format == .xml)
            #expect(error.location != nil)
        }
        // JSON has no dates: the save fails and the file keeps its bytes.
        let jsonPath = directory.appendingPathComponent("a.json").path
        let store = PlistStore(path: jsonPath)
        try store.save(["k": 1])
        let before = try Data(contentsOf: URL(fileURLWithPath: jsonPath))
        do {
            try store.save(["k": .date(PlistDate(secondsSinceReferenceDate: 0))])
            Issue.record("a date was saved as JSON")
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.path == jsonPath)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: jsonPath)) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
        // A directory where the file should be: an I/O error with the path.
        do {
            try PlistStore(path: directory.path).save(["k": 1])
            Issue.record("a directory was replaced")
        } catch {
            #expect(error.code == .io)
        }
    }

    @Test("new files get the permissions asked for")
    func newFilePermissions() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("private.plist").path
        let store = PlistStore(path: path, options: PlistStoreOptions(newFilePermissions: .ownerReadWrite))
        try store.save(["secret": "x"])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}

/// A store type of the kind a third party would write: a binary plist spelled in hexadecimal.
struct HexPlistStoreType: PlistStoreType {
    var name: String { "hexplist" }
    var fileExtensions: [String] { ["hexplist"] }

    func recognizes(_ bytes: Data) -> Bool { bytes.starts(with: Data("62706c697374".utf8)) }

    func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard case .data(let binary) = try PlistValue(parsing: text, as: .hexData) else {
            throw PlistError(.badData, "not hexadecimal")
        }
        return StoreSnapshot(value: try Plist.read(binary, options: options.read).value, typeName: name)
    }

    func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data {
        let binary = try Plist.write(snapshot.value, as: .binary)
        return Data((binary.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
    }
}

/// Codable values in stores, and watching a store's file for hot reload.
@Suite("Stores: Codable and changes")
struct PlistStoreCodableAndChangesTests {
    struct Config: Codable, Equatable {
        var port = 8080
        var hosts: [String] = []
        var started: Date?
    }

    @Test("a Codable value saves in the store's format, exactly as Foundation's encoder spells it, and loads back")
    func codable() throws {
        let directory = try PlistStoreTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = Config(port: 9090, hosts: ["a", "b"], started: Date(timeIntervalSinceReferenceDate: 1000))
        for (file, format) in [("c.plist", PlistFormat.binary), ("c.json", .json), ("x.plist", .xml)] {
            let path = directory.appendingPathComponent(file).path
            let store = file == "x.plist" ? PlistStore(path: path, type: FormatStoreType.xml) : PlistStore(path: path)
            #expect(try store.load(Config.self) == nil)
            let value = file == "c.json" ? Config(port: 1, hosts: ["h"], started: nil) : config
            try store.save(value)
            #expect(try PlistStore(path: path).load(Config.self) == value)
            #expect(try Plist.read(Data(contentsOf: URL(fileURLWithPath: path))).format == format)
            if format == .xml {
                let foundation = PropertyListEncoder()
                foundation.outputFormat = .xml
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == foundation.encode(value))
            }
        }
        // A value that does not fit the type is Foundation's DecodingError, with its coding path.
        let path = directory.appendingPathComponent("bad.plist").path
        try PlistStore(path: path).save(["port": "eighty"])
        do {
            _ = try PlistStore(path: path).load(Config.self)
            Issue.record("a string decoded as an Int")
        } catch let DecodingError.typeMismatch(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["port"])
        }
    }

    @Test("another program's saves arrive as changes; a corrupt save is an error and the last good value stays")
    func changes() async throws {
        let directory = try PlistStoreTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("live.plist").path
        let store = PlistStore(path: path)
        try store.save(["version": 1])
        let stream = try store.changes(debounce: .milliseconds(50))
        let seen = Collected<String>()
        let consumer = Task {
            for await change in stream {
                switch change {
                case .changed(let value): seen.append("value \(value[keyPath: "version"]?.description ?? "?")")
                case .failed(let error): seen.append("error \(error.code)")
                case .removed: seen.append("removed")
                }
            }
        }
        defer { consumer.cancel() }
        /// The `n`th change, described, or "timeout" after 300 s: in a full parallel run on a
        /// loaded machine, each task hop of a change waits behind every test case queued before
        /// it, and one took over a minute.
        func next() async -> String {
            let n = seen.count
            let deadline = ContinuousClock.now + .seconds(300)
            while seen.count == n, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return seen.count > n ? seen.values[n] : "timeout"
        }
        // Another writer: an atomic save, a torn one, a good one again, then a deletion, each
        // after the change before it was seen.
        try await Task.sleep(for: .milliseconds(100))
        try PlistFile.save(["version": 2], as: .xml, to: path)
        #expect(await next() == "value 2")
        try Data("<plist><dict><key>version</key>".utf8).write(to: URL(fileURLWithPath: path))
        #expect(await next() == "error unexpected-end")
        #expect(store.current == ["version": 2])
        try PlistFile.save(["version": 3], as: .xml, to: path)
        #expect(await next() == "value 3")
        try FileManager.default.removeItem(atPath: path)
        #expect(await next() == "removed")
        #expect(store.current == ["version": 3])
        // The file was replaced by XML: the store follows its content.
        #expect(store.type.name == "xml1")
    }
}
