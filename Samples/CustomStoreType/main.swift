// A store type of your own: flat `key = value` text files (think `.env` or `.properties`),
// registered beside the built-in ones so that PlistStore saves, loads and detects them.
//
//     swift run sample-custom-store-type [DIRECTORY]
import Foundation
import Trove

/// Flat dictionaries of strings as `key = value` lines; `#` starts a comment line.
struct KeyValueTextStoreType: PlistStoreType {
    var name: String { "key-value-text" }
    var fileExtensions: [String] { ["env", "properties"] }

    /// Text whose first significant line is `# key-value-text` or looks like `key = value`.
    func recognizes(_ bytes: Data) -> Bool {
        guard let text = String(data: bytes.prefix(4096), encoding: .utf8) else { return false }
        let firstLine = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return firstLine == "# key-value-text" || (firstLine.contains(" = ") && !firstLine.hasPrefix("{"))
    }

    func decode(_ bytes: Data, options: PlistStoreOptions) throws(PlistError) -> StoreSnapshot {
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw PlistError(.badEncoding, "key-value text must be UTF-8")
        }
        var keys: [String] = []
        var values: [PlistValue] = []
        var seen = Set<String>()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.range(of: "=") else {
                throw PlistError(.syntax, at: .lineColumn(line: number + 1, column: 1), "expected key = value")
            }
            let key = trimmed[..<equals.lowerBound].trimmingCharacters(in: .whitespaces)
            guard seen.insert(key).inserted else { continue }
            keys.append(key)
            values.append(.string(trimmed[equals.upperBound...].trimmingCharacters(in: .whitespaces)))
        }
        return StoreSnapshot(value: .dictionary(PlistDictionary(uniqueKeys: keys, values: values)), typeName: name)
    }

    func encode(_ snapshot: StoreSnapshot, options: PlistStoreOptions) throws(PlistError) -> Data {
        guard case .dictionary(let entries) = snapshot.value else {
            throw PlistError(.unsupportedValue, "key-value text holds one flat dictionary")
        }
        var text = "# key-value-text\n"
        for (key, value) in entries {
            guard case .string(let string) = value else {
                throw PlistError(.unsupportedValue, keyPath: PlistKeyPath(keys: [key]), "key-value text holds strings only")
            }
            text += "\(key) = \(string)\n"
        }
        return Data(text.utf8)
    }
}

let directory = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("trove-sample-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
PlistStoreRegistry.shared.register(KeyValueTextStoreType())

// The extension picks the new type for a new file.
let path = directory + "/server.env"
let store = PlistStore(path: path)
try store.save(["HOST": "localhost", "PORT": "8080"])
print("saved as \(store.type.name):")
print(try String(contentsOfFile: path, encoding: .utf8), terminator: "")

// Under another name, the content is recognized.
let copy = directory + "/server-copy.txt"
try? FileManager.default.removeItem(atPath: copy)
try FileManager.default.copyItem(atPath: path, toPath: copy)
let reopened = PlistStore(path: copy)
var settings = try reopened.load() ?? [:]
print("detected \(reopened.type.name): \(settings)")

// Edits go back in the same type.
try settings.replace("9090", at: "PORT")
try reopened.save(settings)
print(try String(contentsOfFile: copy, encoding: .utf8), terminator: "")

// And a value it cannot hold is refused, leaving the file as it was.
do {
    try reopened.save(["PORT": 9090])
} catch {
    print("refused: \(error)")
}
