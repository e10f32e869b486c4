import Foundation
import Trove

/// The work of each `trove defaults` verb, over the library's ``Preferences``.
struct DefaultsSession {
    let location = PreferencesLocation()

    /// The domain a command-line name means: `-g` and `NSGlobalDomain` the global one.
    private func domainName(_ word: String) -> String {
        word == "-g" || word == "-globalDomain" ? PreferencesLocation.globalDomainName : word
    }

    private func preferences(for domain: String) -> Preferences {
        Preferences(suiteName: domain, directory: location.directory, arguments: [])
    }

    private func existingDomain(_ domain: String) throws -> PlistDictionary {
        let preferences = preferences(for: domain)
        guard preferences.persistentDomainExists(domain) else { throw DefaultsFailure("Domain \(domain) does not exist") }
        return preferences.persistentDomain(forName: domain)
    }

    func read(_ words: [String]) throws {
        switch words.count {
        case 0:
            var all = PlistDictionary()
            for name in location.domainNames() { all[name] = .dictionary(preferences(for: name).persistentDomain(forName: name)) }
            try Console.write(DefaultsDescription.text(.dictionary(all)) + "\n")
        case 1:
            let domain = domainName(words[0])
            try Console.write(DefaultsDescription.text(.dictionary(try existingDomain(domain))) + "\n")
        case 2:
            let domain = domainName(words[0])
            guard let value = try existingDomain(domain)[words[1]] else {
                throw DefaultsFailure("The domain/default pair of (\(domain), \(words[1])) does not exist")
            }
            try Console.write(DefaultsDescription.bareText(value) + "\n")
        default:
            throw DefaultsUsage("read takes at most a domain and a key")
        }
    }

    func readType(_ words: [String]) throws {
        guard words.count == 2 else { throw DefaultsUsage("read-type takes a domain and a key") }
        let domain = domainName(words[0])
        guard let value = try existingDomain(domain)[words[1]] else {
            throw DefaultsFailure("The domain/default pair of (\(domain), \(words[1])) does not exist")
        }
        let names: [PlistValue.Kind: String] = [.real: "float", .bool: "boolean"]
        try Console.write("Type is \(names[value.kind] ?? value.kind.rawValue)\n")
    }

    func write(_ words: [String]) throws {
        guard words.count >= 2 else { throw DefaultsUsage("write takes a domain, a key and a value, or a domain and a dictionary") }
        let domain = domainName(words[0])
        let preferences = preferences(for: domain)
        if words.count == 2 {
            guard case .dictionary(let entries) = try Self.plist(words[1]) else {
                throw DefaultsUsage("write DOMAIN PLIST needs a dictionary")
            }
            preferences.setPersistentDomain(entries, forName: domain)
        } else {
            let key = words[1]
            let value = try Self.value(for: Array(words.dropFirst(2)), existing: preferences.persistentDomain(forName: domain)[key])
            preferences.set(value, forKey: key)
        }
        try preferences.synchronize(domain: domain)
    }

    func delete(_ words: [String]) throws {
        guard words.count == 1 || words.count == 2 else { throw DefaultsUsage("delete takes a domain and optionally a key") }
        let domain = domainName(words[0])
        let preferences = preferences(for: domain)
        guard preferences.persistentDomainExists(domain) else {
            throw DefaultsFailure("Domain (\(domain)) not found.\nDefaults have not been changed.")
        }
        if words.count == 1 {
            try preferences.deletePersistentDomain(forName: domain)
            return
        }
        guard preferences.persistentDomain(forName: domain)[words[1]] != nil else {
            throw DefaultsFailure("Domain (\(domain)) not found.\nDefaults have not been changed.")
        }
        preferences.removeObject(forKey: words[1])
        try preferences.synchronize(domain: domain)
    }

    func rename(_ words: [String]) throws {
        guard words.count == 3 else { throw DefaultsUsage("rename takes a domain, an old key and a new key") }
        let domain = domainName(words[0])
        let preferences = preferences(for: domain)
        guard let value = try existingDomain(domain)[words[1]] else {
            throw DefaultsFailure("Key \(words[1]) does not exist in domain \(domain); leaving defaults unchanged")
        }
        preferences.removeObject(forKey: words[1])
        preferences.set(value, forKey: words[2])
        try preferences.synchronize(domain: domain)
    }

    func domains(_ words: [String]) throws {
        guard words.isEmpty else { throw DefaultsUsage("domains takes no arguments") }
        let names = location.domainNames().filter { $0 != PreferencesLocation.globalDomainName }
        try Console.write(names.joined(separator: ", ") + "\n")
    }

    func find(_ words: [String]) throws {
        guard words.count == 1 else { throw DefaultsUsage("find takes one word") }
        let word = words[0]
        var found = false
        for name in location.domainNames() {
            let entries = preferences(for: name).persistentDomain(forName: name)
            var matches = PlistDictionary()
            for (key, value) in entries where Self.mentions(key: key, value: value, word) { matches[key] = value }
            guard !matches.isEmpty || name.localizedCaseInsensitiveContains(word) else { continue }
            found = true
            let shown = matches.isEmpty ? entries : matches
            try Console.write("Found \(shown.count) keys in domain '\(name)': \(DefaultsDescription.text(.dictionary(shown)))\n")
        }
        if !found { try Console.write("No domain, key, nor value containing '\(word)'\n") }
    }

    func export(_ words: [String]) throws {
        guard words.count == 2 else { throw DefaultsUsage("export takes a domain and a file (or -)") }
        let domain = domainName(words[0])
        let bytes = try Plist.write(.dictionary(try existingDomain(domain)), as: .xml)
        if words[1] == "-" { try Console.write(bytes) } else { try AtomicFile.write(bytes, to: words[1]) }
    }

    func `import`(_ words: [String]) throws {
        guard words.count == 2 else { throw DefaultsUsage("import takes a domain and a file (or -)") }
        let domain = domainName(words[0])
        let bytes = try InputFile(path: words[1]).readData()
        guard case .dictionary(let entries) = try Plist.read(bytes, options: PlistReadOptions(keepsLayout: false)).value else {
            throw DefaultsFailure("\(words[1]): a domain is imported from a property list whose root is a dictionary")
        }
        let preferences = preferences(for: domain)
        preferences.setPersistentDomain(entries, forName: domain)
        try preferences.synchronize(domain: domain)
    }

    // MARK: - Values

    private static let typeFlags: [String: PlistValueSyntax] = [
        "-string": .string, "-int": .integer, "-integer": .integer, "-float": .real, "-bool": .bool, "-boolean": .bool,
        "-date": .date, "-data": .hexData,
    ]

    /// The value `write DOMAIN KEY ...` describes; `existing` is the key's current value, for the
    /// `-add` forms.
    static func value(for words: [String], existing: PlistValue?) throws -> PlistValue {
        guard let first = words.first else { throw DefaultsUsage("write needs a value") }
        switch first {
        case "-array", "-array-add":
            var elements = try typedList(Array(words.dropFirst()))
            if first == "-array-add", case .array(let current)? = existing { elements = current + elements }
            return .array(elements)
        case "-dict", "-dict-add":
            let items = try typedList(Array(words.dropFirst()), keyed: true)
            guard items.count % 2 == 0 else { throw DefaultsUsage("\(first) takes key and value pairs") }
            var entries = PlistDictionary()
            if first == "-dict-add", case .dictionary(let current)? = existing { entries = current }
            for pair in stride(from: 0, to: items.count, by: 2) {
                guard case .string(let key) = items[pair] else { throw DefaultsUsage("\(first): keys are strings") }
                entries[key] = items[pair + 1]
            }
            return .dictionary(entries)
        default:
            let values = try typedList(words)
            guard values.count == 1 else { throw DefaultsUsage("write takes one value (use -array or -dict for several)") }
            return values[0]
        }
    }

    /// Values, each one word, optionally preceded by a type flag; an untyped word is read as
    /// property-list text when it is one, else as a string (keys of `-dict` are always strings).
    private static func typedList(_ words: [String], keyed: Bool = false) throws -> [PlistValue] {
        var values: [PlistValue] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if let syntax = typeFlags[word] {
                guard index + 1 < words.count else { throw DefaultsUsage("\(word) needs a value") }
                let text = words[index + 1]
                do {
                    values.append(syntax == .date ? try date(text) : try PlistValue(parsing: text, as: syntax))
                } catch let error as PlistError {
                    throw DefaultsUsage("\(word) \(text): \(error.message)")
                }
                index += 2
            } else if word.hasPrefix("-"), word.count > 1, Int(word) == nil, Double(word) == nil {
                throw DefaultsUsage("unknown type \(word)")
            } else {
                let isKey = keyed && values.count % 2 == 0
                values.append(isKey ? .string(word) : try plist(word))
                index += 1
            }
        }
        return values
    }

    /// An untyped value: property-list text when it looks like a container or quoted string,
    /// else the word as a string, as `defaults` reads it.
    static func plist(_ text: String) throws -> PlistValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first, "({<\"".contains(first) else { return .string(text) }
        do {
            return try PlistValue(parsing: text, as: .propertyList)
        } catch {
            throw DefaultsUsage("not a valid property list: \(error.message)")
        }
    }

    /// `-date`: the XML form, or `defaults`' own `2024-03-09 18:45:00 +0000`.
    private static func date(_ text: String) throws -> PlistValue {
        if let value = try? PlistValue(parsing: text, as: .date) { return value }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        guard let date = formatter.date(from: text) else {
            throw DefaultsUsage("-date \(text): not a date (2024-03-09T18:45:00Z or 2024-03-09 18:45:00 +0000)")
        }
        return .date(PlistDate(date))
    }

    /// Whether a key or any string inside its value contains `word`, ignoring case.
    private static func mentions(key: String, value: PlistValue, _ word: String) -> Bool {
        if key.localizedCaseInsensitiveContains(word) { return true }
        switch value {
        case .string(let text): return text.localizedCaseInsensitiveContains(word)
        case .array(let elements): return elements.contains { mentions(key: "", value: $0, word) }
        case .dictionary(let entries): return entries.contains { mentions(key: $0.key, value: $0.value, word) }
        default: return false
        }
    }
}
