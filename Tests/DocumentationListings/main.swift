// Runs one code listing of README.md or of the DocC catalog (Sources/Trove/Trove.docc) in a
// directory, so that DocumentationTests can check what it prints and leaves there:
//
//     trove-doc-listings NAME DIRECTORY
//
// The listings use relative paths, as an app would, so each runs in a process of its own whose
// working directory is the test's scratch directory.
import Foundation

let listings: [String: () async throws -> Void] = [
    "readme-keep-a-value": readmeKeepAValue,
    "readme-documents": readmeDocuments,
    "readme-archives": readmeArchives,
    "readme-preferences": readmePreferences,
    "config-load-save": configLoadAndSave,
    "config-xml-store": configReadableFile,
    "config-encoder": configEncoderDecoder,
    "config-hot-reload": configHotReload,
    "graph-archive": graphArchive,
    "graph-secure": graphSecureDecoding,
    "graph-stores": graphStores,
    "graph-codable": graphCodable,
    "preferences-basics": preferencesBasics,
    "preferences-typed": preferencesTypedKeys,
    "preferences-observe": preferencesObserve,
    "preferences-migrate": preferencesMigrate,
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let listing = listings[arguments[0]] else {
    FileHandle.standardError.write(Data("usage: trove-doc-listings NAME DIRECTORY; names: \(listings.keys.sorted())\n".utf8))
    exit(64)
}
guard FileManager.default.changeCurrentDirectoryPath(arguments[1]) else {
    FileHandle.standardError.write(Data("cannot enter \(arguments[1])\n".utf8))
    exit(66)
}
// Listings that watch print as events come, and a test reads them line by line, but C buffers
// a pipe's output whole: flush it often (stdio locks the stream, so another thread may).
Thread.detachNewThread {
    while true {
        fflush(nil)
        usleep(20_000)
    }
}
do {
    try await listing()
} catch {
    print("error: \(error)")
    exit(1)
}
