// An app's configuration kept as a Codable struct in a property list, reloaded whenever
// another program (an editor, `trove replace`, a deploy script) saves the file.
//
//     swift run sample-config-hot-reload [FILE]
//
// With no FILE it makes one in a temporary directory, then plays the other program itself:
// an atomic save, a save with a typo (the app keeps its last good configuration), and a fix.
// With FILE it watches that file until interrupted; edit it meanwhile, e.g. with
// `trove replace port --integer 9000 FILE`.
import Foundation
import Trove

struct ServerConfig: Codable, Equatable, Sendable {
    var host = "localhost"
    var port = 8080
    var workers = 4
}

let arguments = CommandLine.arguments.dropFirst()
let path = arguments.first ?? FileManager.default.temporaryDirectory
    .appendingPathComponent("trove-hot-reload-\(getpid()).plist").path
let store = PlistStore(path: path, type: FormatStoreType.xml)
if try store.load() == nil { try store.save(ServerConfig()) }
var config = try store.load(ServerConfig.self) ?? ServerConfig()
print("started with \(config)")

let changes = try store.changes()
if arguments.isEmpty {
    // The other program, after the watch has started.
    Task.detached {
        try await Task.sleep(for: .milliseconds(300))
        try PlistFile.save(try PlistEncoder().encodeValue(ServerConfig(host: "0.0.0.0", port: 9000, workers: 8)), as: .xml, to: path)
        try await Task.sleep(for: .milliseconds(400))
        try Data("<plist><dict><key>port</key><integer>90".utf8).write(to: URL(fileURLWithPath: path))
        try await Task.sleep(for: .milliseconds(400))
        try PlistFile.save(try PlistEncoder().encodeValue(ServerConfig(host: "0.0.0.0", port: 9001, workers: 8)), as: .xml, to: path)
    }
}

var events = 0
for await change in changes {
    switch change {
    case .changed:
        do {
            config = try store.load(ServerConfig.self) ?? config
            print("reloaded: \(config)")
        } catch {
            print("the new file does not describe a configuration (\(error)); keeping \(config)")
        }
    case .failed(let error):
        print("cannot read the saved file (\(error)); keeping \(config)")
    case .removed:
        print("the file was removed; keeping \(config)")
    }
    events += 1
    if arguments.isEmpty && events == 3 { break }
}
if arguments.isEmpty { try? FileManager.default.removeItem(atPath: path) }
