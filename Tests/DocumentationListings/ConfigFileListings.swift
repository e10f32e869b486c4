import Foundation
import Trove

// The listings of "Keeping a configuration file" (Trove.docc/KeepingAConfigurationFile.md).

// begin listing config-type
struct ServerConfig: Codable, Equatable {
    var host = "localhost"
    var port = 8080
    var workers = 4
}
// end listing

/// Loads the configuration (or the defaults), changes it, and saves it.
func configLoadAndSave() throws {
    // begin listing config-load-save
    let store = PlistStore(path: "Server.plist")
    var config = try store.load(ServerConfig.self) ?? ServerConfig()  // nil: no file yet
    config.workers = 8
    try store.save(config)
    // end listing
    print("saved \(store.type.name): \(config.workers) workers")
}

/// Starts a configuration file that people edit by hand.
func configReadableFile() throws {
    // begin listing config-xml-store
    let store = PlistStore(path: "Server.plist", type: FormatStoreType.xml)
    try store.save(ServerConfig())
    // end listing
    print("saved \(store.type.name)")
}

/// Encodes and decodes without a store.
func configEncoderDecoder() throws {
    // begin listing config-encoder
    let xml = try PlistEncoder(outputFormat: .xml).encode(ServerConfig())  // PropertyListEncoder's bytes
    var value = try PlistEncoder().encodeValue(ServerConfig())            // the same as a PlistValue
    try value.replace(9000, at: "port")
    let config = try PlistDecoder().decode(ServerConfig.self, from: value)
    let fromBytes = try PlistDecoder().decode(ServerConfig.self, from: xml)
    // end listing
    try xml.write(to: URL(fileURLWithPath: "Encoded.plist"))
    print("port \(config.port), decoded back: \(fromBytes == ServerConfig())")
}

/// Serves with the configuration and reloads it each time another program saves the file; runs
/// until killed.
func configHotReload() async throws {
    // begin listing config-hot-reload
    let store = PlistStore(path: "Server.plist")
    var config = try store.load(ServerConfig.self) ?? ServerConfig()
    let changes = try store.changes()  // watching starts here, before the first request is served
    print("serving on port \(config.port)")
    for await change in changes {
        switch change {
        case .changed:
            do {
                config = try store.load(ServerConfig.self) ?? config
                print("now serving on port \(config.port)")
            } catch {
                print("kept port \(config.port): the file is not a ServerConfig (\(error))")
            }
        case .failed(let error):
            print("kept port \(config.port): the file cannot be read (\(error))")
        case .removed:
            print("kept port \(config.port): the file was removed")
        }
    }
    // end listing
}
