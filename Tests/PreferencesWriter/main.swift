// A child process for the preferences tests: writes keys to a domain through the library, as
// another program sharing the domain would.
//
//     trove-preferences-writer DIRECTORY DOMAIN PREFIX COUNT [sync-each|coalesce|forever]
//
// `coalesce` sets every key and lets the background flush and the exit flush write them;
// `sync-each` synchronizes after every key; `forever` rewrites PREFIX-i = n, n+1, ... until killed,
// synchronizing each round.
import Foundation
import Trove

let arguments = CommandLine.arguments
guard arguments.count >= 5, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: trove-preferences-writer DIRECTORY DOMAIN PREFIX COUNT [mode]\n".utf8))
    exit(64)
}
let preferences = Preferences(suiteName: arguments[2], directory: arguments[1], arguments: [])
let prefix = arguments[3]
let mode = arguments.count > 5 ? arguments[5] : "coalesce"
switch mode {
case "forever":
    var round = 0
    while true {
        for i in 0..<count { preferences.set(round, forKey: "\(prefix)-\(i)") }
        try preferences.synchronize()
        round += 1
    }
case "sync-each":
    for i in 0..<count {
        preferences.set("\(prefix)-value-\(i)", forKey: "\(prefix)-\(i)")
        try preferences.synchronize()
    }
default:
    for i in 0..<count {
        preferences.set("\(prefix)-value-\(i)", forKey: "\(prefix)-\(i)")
        if i % 50 == 49 { usleep(2_000) }
    }
}
// The exit flush writes whatever is still pending.
