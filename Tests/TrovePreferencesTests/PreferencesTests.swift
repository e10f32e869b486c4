import Foundation
import Testing
import Trove
import TroveTestSupport

/// The domain system: search list, conversions, typed keys, migrations, observation and damaged
/// files, each in a directory of its own.
@Suite("Preferences")
struct PreferencesTests {
    static func scratchDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trove-prefs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("the search list: arguments, volatile, application, global, registration")
    func searchList() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let domain = "com.example.search.\(UUID().uuidString)"
        let preferences = Preferences(
            suiteName: domain, directory: directory, arguments: ["prog", "file.txt", "-FromArgs", "(a, b)", "-Shadow", "args"])
        preferences.register(defaults: ["Registered": 1, "Shadow": "registration", "Global": "registration"])
        #expect(preferences.integer(forKey: "Registered") == 1)
        preferences.setPersistentDomain(["Global": "global", "Shadow": "global"], forName: "NSGlobalDomain")
        #expect(preferences.string(forKey: "Global") == "global")
        preferences.set("application", forKey: "Shadow")
        preferences.set("application", forKey: "Global")
        #expect(preferences.string(forKey: "Global") == "application")
        preferences.setVolatileDomain(["Shadow": "volatile", "Volatile": true], forName: "Session")
        #expect(preferences.bool(forKey: "Volatile"))
        #expect(preferences.string(forKey: "Shadow") == "args")
        #expect(preferences.stringArray(forKey: "FromArgs") == ["a", "b"])
        #expect(preferences.volatileDomainNames == ["NSArgumentDomain", "Session", "NSRegistrationDomain"])
        preferences.removeVolatileDomain(forName: "Session")
        #expect(preferences.value(forKey: "Volatile") == nil)
        let all = preferences.dictionaryRepresentation()
        #expect(all["Shadow"] == "args" && all["Global"] == "application" && all["Registered"] == 1)
        preferences.removeObject(forKey: "Global")
        #expect(preferences.string(forKey: "Global") == "global")
        try preferences.synchronize()
        let file = PreferencesLocation(directory: directory).path(forDomain: domain)
        #expect(try Plist.read(Data(contentsOf: URL(fileURLWithPath: file))).format == .binary)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(PreferencesLocation(directory: directory).domainNames() == [domain, "NSGlobalDomain"].sorted())
    }

    @Test("typed getters convert as UserDefaults does")
    func conversions() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "conversions", directory: directory, arguments: [])
        let cases: [(PlistValue, Bool, Int, Double, String?)] = [
            ("YES", true, 0, 0, "YES"), ("yes", true, 0, 0, "yes"), ("true", true, 0, 0, "true"), ("NO", false, 0, 0, "NO"),
            ("42", true, 42, 42, "42"), ("3.7", true, 3, 3.7, "3.7"), ("abc", false, 0, 0, "abc"), (" 7", true, 7, 7, " 7"),
            ("7x", true, 7, 7, "7x"), ("-5", true, -5, -5, "-5"), ("1e3", true, 1, 1000, "1e3"),
            (1, true, 1, 1, "1"), (0, false, 0, 0, "0"), (3.7, true, 3, 3.7, "3.7"), (true, true, 1, 1, "1"),
            (["a"], false, 0, 0, nil), (.data(Data([1])), false, 0, 0, nil),
        ]
        for (value, bool, integer, double, string) in cases {
            p.set(value, forKey: "k")
            #expect(p.bool(forKey: "k") == bool, "\(value)")
            #expect(p.integer(forKey: "k") == integer, "\(value)")
            #expect(p.double(forKey: "k") == double, "\(value)")
            #expect(p.string(forKey: "k") == string, "\(value)")
        }
        p.set("~/Documents/x.txt", forKey: "path")
        #expect(p.url(forKey: "path") == URL(fileURLWithPath: NSHomeDirectory() + "/Documents/x.txt"))
        p.set("https://example.com/a", forKey: "web")
        #expect(p.url(forKey: "web")?.absoluteString == "https://example.com/a")
        p.set(URL(fileURLWithPath: NSHomeDirectory() + "/file.txt"), forKey: "fileURL")
        #expect(p.value(forKey: "fileURL") == "~/file.txt")
        p.set(URL(string: "https://x.org/p")!, forKey: "webURL")
        #expect(p.url(forKey: "webURL") == URL(string: "https://x.org/p"))
        p.set(["a", 1], forKey: "mixed")
        #expect(p.stringArray(forKey: "mixed") == nil && p.array(forKey: "mixed")?.count == 2)
        p.set(.integer(PlistInteger(Int64.max)), forKey: "big")
        #expect(p.integer(forKey: "big") == Int.max)
        #expect(!p.bool(forKey: "missing") && p.integer(forKey: "missing") == 0 && p.string(forKey: "missing") == nil)
    }

    /// The same inputs through Foundation's UserDefaults on this machine. The cases where
    /// Foundation on Linux is broken are left out, named here: `Int64.max` reads as 0 and false;
    /// a non-file URL is stored as its path alone (`https://x.org/p` as `/p`); `url(forKey:)` on
    /// data that is not an archived URL stops the process; strings with a scheme read as relative
    /// file URLs.
    @Test("the conversions agree with Foundation's UserDefaults")
    func agreesWithFoundation() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let suite = "trove.compare.\(UUID().uuidString)"
        let foundation = try #require(UserDefaults(suiteName: suite))
        defer { foundation.removePersistentDomain(forName: suite) }
        let ours = Preferences(suiteName: suite, directory: directory, arguments: [])
        let inputs: [(Any, PlistValue)] = [
            ("YES", "YES"), ("yes", "yes"), ("true", "true"), ("1", "1"), ("NO", "NO"), ("42", "42"), ("3.7", "3.7"),
            ("abc", "abc"), ("-5", "-5"), (" 7", " 7"), ("1e3", "1e3"), ("7x", "7x"), (1, 1), (0, 0), (3.7, 3.7),
            (true, true), (false, false), (["a", "b"], ["a", "b"]), (["a", 1], ["a", 1]), ("~/x.txt", "~/x.txt"),
            ("/tmp/x", "/tmp/x"),
        ]
        for (index, (foundationValue, value)) in inputs.enumerated() {
            let key = "k\(index)"
            foundation.set(foundationValue, forKey: key)
            ours.set(value, forKey: key)
            #expect(ours.bool(forKey: key) == foundation.bool(forKey: key), "bool \(value)")
            #expect(ours.integer(forKey: key) == foundation.integer(forKey: key), "integer \(value)")
            #expect(ours.double(forKey: key) == foundation.double(forKey: key), "double \(value)")
            #expect(ours.float(forKey: key) == foundation.float(forKey: key), "float \(value)")
            #expect(ours.string(forKey: key) == foundation.string(forKey: key), "string \(value)")
            #expect(ours.stringArray(forKey: key) == foundation.stringArray(forKey: key), "stringArray \(value)")
            if case .string(let text) = value, text.hasPrefix("/") || text.hasPrefix("~") {
                #expect(ours.url(forKey: key) == foundation.url(forKey: key), "url \(value)")
            }
        }
        // The search list: the application (suite) domain above the registration domain, and a
        // removal uncovering the registered value. (Foundation on Linux ignores custom volatile
        // domains in lookups, and its argument domain is this test process's own command line,
        // so those two levels are checked against the documented order above instead.)
        foundation.register(defaults: ["reg": 5])
        ours.register(defaults: ["reg": 5])
        #expect(ours.integer(forKey: "reg") == foundation.integer(forKey: "reg"))
        foundation.set(6, forKey: "reg")
        ours.set(6, forKey: "reg")
        #expect(ours.integer(forKey: "reg") == 6 && foundation.integer(forKey: "reg") == 6)
        foundation.removeObject(forKey: "reg")
        ours.removeObject(forKey: "reg")
        #expect(ours.integer(forKey: "reg") == foundation.integer(forKey: "reg"))
        #expect(ours.dictionaryRepresentation()["reg"] == 5 && (foundation.dictionaryRepresentation()["reg"] as? Int) == 5)
    }

    @Test("typed keys read and write without casts, with defaults and conversions")
    func typedKeys() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "typed", directory: directory, arguments: [])
        let fontSize = Preferences.Key("FontSize", default: 13)
        let recent = Preferences.Key<[String]>("Recent", default: [])
        let zoom = Preferences.Key("Zoom", default: 1.0)
        #expect(p[fontSize] == 13)
        p[fontSize] += 2
        #expect(p[fontSize] == 15 && p.value(forKey: "FontSize") == 15)
        p.set("21", forKey: "FontSize")
        #expect(p[fontSize] == 21)
        p[recent] = ["a", "b"]
        #expect(p[recent] == ["a", "b"])
        p.set([1, 2], forKey: "Recent")
        #expect(p[recent] == ["1", "2"])  // elements convert as single values do
        p.set(["a", ["nested"]], forKey: "Recent")
        #expect(p[recent] == [])  // an element that does not convert: the default
        p[zoom] = 1.5
        #expect(p[zoom] == 1.5)
        p.reset(fontSize)
        #expect(p[fontSize] == 13)
        let seen = Collected<Int>()
        let observation = p.observe(fontSize) { seen.append($0) }
        p[fontSize] = 30
        p[fontSize] = 30  // unchanged: no event
        p.reset(fontSize)
        #expect(seen.values == [30, 13])
        observation.cancel()
        p[fontSize] = 40
        #expect(seen.values == [30, 13])
    }

    @Test("migrations run once, in order, and record the version")
    func migrations() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "migrate", directory: directory, arguments: [])
        p.set("12", forKey: "fontsize")
        p.set(true, forKey: "Legacy")
        let schema = PreferencesSchema(version: 2, migrations: [
            1: [.rename("fontsize", to: "FontSize")],
            2: [.convert("FontSize") { .integer(PlistInteger(Int($0.stringValue ?? "") ?? 13)) }, .remove("Legacy")],
        ])
        #expect(try p.migrate(to: schema) == 0)
        #expect(p.value(forKey: "FontSize") == 12 && p.value(forKey: "fontsize") == nil && p.value(forKey: "Legacy") == nil)
        #expect(p.integer(forKey: PreferencesSchema.versionKey) == 2)
        p.set(99, forKey: "FontSize")
        #expect(try p.migrate(to: schema) == 2)
        #expect(p.integer(forKey: "FontSize") == 99)
        // The version is in the file, for other processes.
        let file = PreferencesLocation(directory: directory).path(forDomain: "migrate")
        let stored = try Plist.read(Data(contentsOf: URL(fileURLWithPath: file))).value
        #expect(stored[keyPath: PlistKeyPath(keys: [PreferencesSchema.versionKey])] == 2)
    }

    @Test("a damaged file is moved aside, reported, and the domain keeps working")
    func damagedFile() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = PreferencesLocation(directory: directory).path(forDomain: "damaged")
        try Data("bplist00 this is not a plist".utf8).write(to: URL(fileURLWithPath: file))
        let p = Preferences(suiteName: "damaged", directory: directory, arguments: [])
        let reported = Collected<PlistError>()
        p.onError { reported.append($0) }
        #expect(p.value(forKey: "anything") == nil)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("damaged.plist.corrupt-") }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + aside[0])) == Data("bplist00 this is not a plist".utf8))
        #expect(reported.values.map(\.code).contains(.corruptDomain))
        p.set(1, forKey: "fresh")
        try p.synchronize()
        #expect(try Plist.read(Data(contentsOf: URL(fileURLWithPath: file))).value == ["fresh": 1])
    }

    @Test("other processes' changes are seen on the next read and reach observers")
    func changesFromOtherProcesses() async throws {
        let writer = try #require(TroveExecutable.product(named: "trove-preferences-writer"), "trove-preferences-writer is not built")
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "shared", directory: directory, arguments: [])
        p.set("mine", forKey: "local")
        try p.synchronize()
        let seen = Collected<PlistValue?>()
        let observation = p.observe("other-0") { seen.append($0) }
        defer { observation.cancel() }
        let child = try await ProcessRun.run(writer, [directory, "shared", "other", "3", "sync-each"])
        #expect(child.status == 0, "\(child.stderrText)")
        #expect(p.string(forKey: "other-2") == "other-value-2")
        #expect(seen.values == ["other-value-0"])
        #expect(p.string(forKey: "local") == "mine")
    }
}

extension PreferencesTests {
    @Test("an observer hears another process's flush without reading: the domain file is watched")
    func watchedChanges() async throws {
        let writer = try #require(TroveExecutable.product(named: "trove-preferences-writer"), "trove-preferences-writer is not built")
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "watched", directory: directory, arguments: [])
        let seen = Collected<PlistValue?>()
        let observation = p.observe("remote-1") { seen.append($0) }
        defer { observation.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        _ = try await ProcessRun.run(writer, [directory, "watched", "remote", "2", "sync-each"])
        let deadline = ContinuousClock.now + .seconds(20)
        while seen.values.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(seen.values == ["remote-value-1"])
    }

    struct Frame: Codable, Sendable, Equatable {
        var x = 0.0, y = 0.0, width = 800.0, height = 600.0
    }

    @Test("a Codable key keeps its value as the Codable encoder spells it")
    func codableKey() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let p = Preferences(suiteName: "codable", directory: directory, arguments: [])
        let window = Preferences.Key<Frame>.codable("WindowFrame", default: Frame())
        #expect(p[window] == Frame())
        p[window] = Frame(x: 10, y: 20, width: 300, height: 200)
        #expect(p.dictionary(forKey: "WindowFrame")?["width"] == 300.0)
        #expect(p[window] == Frame(x: 10, y: 20, width: 300, height: 200))
        p.set(["x": "not a number"], forKey: "WindowFrame")
        #expect(p[window] == Frame())
        // Without a declared key.
        try p.set(encoding: Frame(x: 1, y: 2, width: 3, height: 4), forKey: "Other")
        #expect(try p.decode(Frame.self, forKey: "Other") == Frame(x: 1, y: 2, width: 3, height: 4))
        #expect(try p.decode(Frame.self, forKey: "Missing") == nil)
        #expect(throws: DecodingError.self) { try p.decode(Frame.self, forKey: "WindowFrame") }
    }
}

