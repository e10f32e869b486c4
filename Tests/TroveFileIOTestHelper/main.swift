// A child process for TroveFileIOTests: each command does one thing another process (or a killed
// one) would do to a file, and reports on standard output, one line per fact, so that the test
// can assert on it. Not a tool: only the tests run it.

import Foundation
import SystemPackage
import TroveFileIO
import TroveCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints one line at once, unbuffered, so the parent sees it before anything else happens.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `ok`, or `error code=... errno=... path=...` for a PlistError, as one line.
func report(_ body: () throws(PlistError) -> Void) -> Int32 {
    do {
        try body()
        say("ok")
        return 0
    } catch {
        say("error code=\(error.code) errno=\(error.systemErrorNumber.map(String.init) ?? "none") path=\(error.path ?? "none") message=\(error.message)")
        return 1
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data("usage: TroveFileIOTestHelper COMMAND ARGS...\n".utf8))
    exit(64)
}

switch command {
case "save-loop":
    // save-loop TARGET flushed|unflushed VERSION... : replaces TARGET with each version in turn,
    // forever; prints "ready" after the first save so the parent knows saving has begun.
    let target = arguments[1]
    let durability: AtomicFile.Durability = arguments[2] == "flushed" ? .flushed : .unflushed
    let versions = try arguments[3...].map { path throws in try FileReader.read(path) }
    var index = 0
    while true {
        do {
            try AtomicFile.write(versions[index % versions.count], to: target, durability: durability)
        } catch {
            say("error \(error.message)")
            exit(1)
        }
        if index == 0 { say("ready") }
        index += 1
    }

case "write-limited":
    // write-limited TARGET LIMIT SIZE : a write of SIZE bytes under RLIMIT_FSIZE = LIMIT, with
    // SIGXFSZ ignored so that the write fails with EFBIG instead of killing the process.
    let target = arguments[1]
    var limit = rlimit(rlim_cur: rlim_t(arguments[2])!, rlim_max: rlim_t(arguments[2])!)
    signal(SIGXFSZ, SIG_IGN)
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
    #else
    let resource = RLIMIT_FSIZE
    #endif
    guard setrlimit(resource, &limit) == 0 else { say("setrlimit failed"); exit(2) }
    let size = Int(arguments[3])!
    exit(report { () throws(PlistError) in try AtomicFile.write(Data(repeating: 0x5a, count: size), to: target) })

case "write-unprivileged":
    // write-unprivileged TARGET : drops to nobody when run as root (root ignores directory
    // permissions), then tries to replace TARGET.
    if geteuid() == 0 {
        guard setgid(65534) == 0, setuid(65534) == 0 else { say("cannot drop privileges"); exit(2) }
    }
    exit(report { () throws(PlistError) in try AtomicFile.write(Data("new".utf8), to: arguments[1]) })

case "lock-increment":
    // lock-increment LOCKFILE COUNTER N : N times, under the exclusive lock, reads the number in
    // COUNTER and writes it back plus one, in place and slowly, so that without the lock the
    // processes would overwrite each other's increments.
    let (lockFile, counter, count) = (arguments[1], arguments[2], Int(arguments[3])!)
    for _ in 0..<count {
        let failed = report { () throws(PlistError) in
            try FileLock.withLock(.exclusive, lockFile: lockFile, timeout: .seconds(30)) { () throws(PlistError) in
                let text = String(decoding: try FileReader.read(counter), as: UTF8.self)
                let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                sched_yield()
                let fd = open(counter, O_WRONLY | O_TRUNC)
                let bytes = Array("\(value + 1)\n".utf8)
                _ = write(fd, bytes, bytes.count)
                close(fd)
            }
        }
        if failed != 0 { exit(1) }
    }
    exit(0)

case "hold-lock":
    // hold-lock LOCKFILE shared|exclusive : takes the lock, prints "locked", and holds it until
    // standard input is closed.
    let mode: FileLock.Mode = arguments[2] == "shared" ? .shared : .exclusive
    do {
        let lock = try FileLock.acquire(mode, lockFile: arguments[1], timeout: .seconds(30))
        say("locked")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        while ((try? FileDescriptor.standardInput.read(into: buffer)) ?? 0) > 0 {}
        withExtendedLifetime(lock) {}
        exit(0)
    } catch {
        say("error \(error.message)")
        exit(1)
    }

case "lazy-read":
    // lazy-read PATH read|mapped : opens a binary plist as `trove type` does and decodes all of
    // it; run with TROVE_TEST_PAUSE_AFTER_OPEN, the test truncates the file in between.
    let access: FileContents.Access = arguments[2] == "mapped" ? .mapped : .read
    exit(report { () throws(PlistError) in
        _ = try LazyBinaryPlist(contentsOfFile: arguments[1], access: access).materialize()
    })

case "count-descriptors":
    // count-descriptors PATH... : loads each path with PlistFile.load (errors are expected), then
    // prints the number of open descriptors before and after.
    func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
    let before = openDescriptors()
    for path in arguments[1...] { _ = try? PlistFile.load(path) }
    say("before=\(before) after=\(openDescriptors())")
    exit(0)

default:
    FileHandle.standardError.write(Data("unknown command \(command)\n".utf8))
    exit(64)
}
