import Foundation
import SystemPackage
import Testing
import TroveCore
import TroveFileIO
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("AtomicFile and FileReader")
struct AtomicFileTests {
    @Test("writes a new file with 0644 minus the umask")
    func newFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.plist")
        try AtomicFile.write(Data("hello".utf8), to: path)
        #expect(try bytes(of: path) == Data("hello".utf8))
        #expect(try permissions(of: path) == Int(0o644 & ~currentUmask()))
        #expect(try directory.contents() == ["new.plist"])
    }

    @Test("a new file gets the permissions asked for; an existing one keeps its own")
    func newFilePermissions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("prefs.plist")
        try AtomicFile.write(Data("a".utf8), to: path, permissions: [.ownerReadWrite])
        #expect(try permissions(of: path) == 0o600)
        #expect(chmod(path, 0o640) == 0)
        try AtomicFile.write(Data("b".utf8), to: path, permissions: [.ownerReadWrite])
        #expect(try permissions(of: path) == 0o640)
        #expect(try bytes(of: path) == Data("b".utf8))
        // The umask still applies, as with open(2).
        let wide = directory.path("wide.plist")
        try AtomicFile.write(Data("c".utf8), to: wide, permissions: FilePermissions(rawValue: 0o666))
        #expect(try permissions(of: wide) == Int(0o666 & ~currentUmask()))
    }

    @Test("replaces an existing file and keeps its permission bits", arguments: [0o600, 0o640, 0o755, 0o444])
    func replaceKeepsPermissions(mode: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("old content".utf8), as: "target.plist")
        #expect(chmod(path, mode_t(mode)) == 0)
        try AtomicFile.write(Data("new".utf8), to: path)
        #expect(try bytes(of: path) == Data("new".utf8))
        #expect(try permissions(of: path) == mode)
        #expect(try directory.contents() == ["target.plist"])
    }

    @Test("an empty write leaves an empty file; a large one arrives whole")
    func sizes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("f")
        try AtomicFile.write(Data(), to: path)
        #expect(try bytes(of: path).isEmpty)
        let large = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try AtomicFile.write(large, to: path)
        #expect(try bytes(of: path) == large)
    }

    @Test("a symbolic link stays a link and its target is replaced")
    func symbolicLink() throws {
        let directory = try TemporaryDirectory()
        let real = try directory.write(Data("old".utf8), as: "real.plist")
        let link = directory.path("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.plist")
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.plist")
        #expect(try bytes(of: real) == Data("new".utf8))
        #expect(try directory.contents() == ["link.plist", "real.plist"])
    }

    @Test("a device or a pipe is refused with EINVAL and left alone (the CLI writes into those itself)")
    func streamsRefused() throws {
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: "/dev/null") }
        #expect(error.code == .io && error.errno == .invalidArgument && error.path == "/dev/null")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/null is still the device")

        let directory = try TemporaryDirectory()
        let fifo = directory.path("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let fifoError = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: fifo) }
        #expect(fifoError.errno == .invalidArgument)
        #expect(try directory.contents() == ["fifo"])
    }

    @Test("a chain of links is followed to the file; relative links resolve against their own directory")
    func linkChain() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("real"), withIntermediateDirectories: false)
        let real = try directory.write(Data("old".utf8), as: "real/file.plist")
        try FileManager.default.createSymbolicLink(atPath: directory.path("real/alias"), withDestinationPath: "file.plist")
        try FileManager.default.createSymbolicLink(atPath: directory.path("outer"), withDestinationPath: "real/alias")
        try AtomicFile.write(Data("new".utf8), to: directory.path("outer"))
        #expect(try bytes(of: real) == Data("new".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.path("outer")) == "real/alias")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("real")).sorted() == ["alias", "file.plist"])
    }

    @Test("a dangling link gets the file it names created, and stays a link")
    func danglingLink() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "missing.plist")
        try AtomicFile.write(Data("new".utf8), to: link, permissions: [.ownerReadWrite])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "missing.plist")
        #expect(try bytes(of: directory.path("missing.plist")) == Data("new".utf8))
        #expect(try permissions(of: directory.path("missing.plist")) == 0o600)

        // A dangling link into a directory that does not exist fails, naming the path.
        let deep = directory.path("deep.plist")
        try FileManager.default.createSymbolicLink(atPath: deep, withDestinationPath: "absent/x.plist")
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: deep) }
        #expect(error.errno == .noSuchFileOrDirectory && error.path == deep)
        #expect(try directory.contents() == ["deep.plist", "link.plist", "missing.plist"])
    }

    @Test("a symbolic link loop fails with ELOOP, naming the path, and leaves nothing behind")
    func linkLoop() throws {
        let directory = try TemporaryDirectory()
        let a = directory.path("a.plist")
        try FileManager.default.createSymbolicLink(atPath: a, withDestinationPath: "b.plist")
        try FileManager.default.createSymbolicLink(atPath: directory.path("b.plist"), withDestinationPath: "a.plist")
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: a) }
        #expect(error.code == .io && error.errno == .tooManySymbolicLinkLevels && error.path == a)
        #expect(error.message == "\(a): cannot follow the symbolic link: Too many levels of symbolic links")
        #expect(try directory.contents() == ["a.plist", "b.plist"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: a) == "b.plist")
    }

    @Test("a file name near the 255-byte limit still gets a temporary file")
    func longName() throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "é", count: 120) + ".plist"
        try AtomicFile.write(Data("x".utf8), to: directory.path(name))
        #expect(try directory.contents() == [name])
    }

    @Test("a missing parent directory fails with an io error naming the path")
    func missingParent() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("absent/target.plist")
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: path) }
        #expect(error.code == .io)
        #expect(error.message.hasPrefix("\(path): "))
        #expect(error.message.hasSuffix("No such file or directory"))
        #expect(error.path == path && error.errno == .noSuchFileOrDirectory)
        #expect(try directory.contents().isEmpty)
    }

    @Test("a directory in the way is refused and left alone")
    func directoryTarget() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sub")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("x".utf8), to: path) }
        #expect(error.code == .io)
        #expect(error.message.contains("Is a directory"))
        #expect(error.path == path && error.errno == .isDirectory)
        #expect(try directory.contents() == ["sub"])
    }

    @Test("an empty path is refused")
    func emptyPath() throws {
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data(), to: "") }
        #expect(error.code == .io && error.errno == .noSuchFileOrDirectory)
    }

    @Test("a directory that cannot be written leaves the original untouched, with EACCES",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func readOnlyDirectory() throws {
        // Root may write into any directory, so the write runs in a child that drops to nobody
        // when the tests run as root, and in a directory without write permission otherwise.
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("original".utf8), as: "target.plist")
        #expect(chmod(directory.url.path, 0o555) == 0)
        defer { chmod(directory.url.path, 0o755) }
        let (output, termination) = try Helper.run(["write-unprivileged", path])
        #expect(termination == .exited(1), "\(output)")
        #expect(output.hasPrefix("error code=io errno=\(EACCES) path=\(path) "), "\(output)")
        #expect(output.hasSuffix("Permission denied"), "\(output)")
        #expect(try bytes(of: path) == Data("original".utf8))
        #expect(try directory.contents() == ["target.plist"])
    }

    @Test("a write past RLIMIT_FSIZE fails with EFBIG, keeps the original and leaves no temporary",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func fileSizeLimit() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("original".utf8), as: "target.plist")
        let (output, termination) = try Helper.run(["write-limited", path, String(64 << 10), String(1 << 20)])
        #expect(termination == .exited(1), "\(output)")
        #expect(output.hasPrefix("error code=io errno=\(EFBIG) path=\(path) message=\(path): cannot write: "), "\(output)")
        #expect(try bytes(of: path) == Data("original".utf8))
        #expect(try directory.contents() == ["target.plist"])
        // Under the limit the same child succeeds, so the limit is what failed the write above.
        let small = try Helper.run(["write-limited", path, String(64 << 10), String(1000)])
        #expect(small.output == "ok" && small.termination == .exited(0), "\(small.output)")
        #expect(try bytes(of: path).count == 1000)
    }

    @Test("temporary file names are recognisable")
    func temporaryNames() {
        #expect(AtomicFile.isTemporaryFileName(".Info.plist.trove-a1B2c3"))
        #expect(!AtomicFile.isTemporaryFileName("Info.plist"))
        #expect(!AtomicFile.isTemporaryFileName(".Info.plist.trove-abc"))
        #expect(!AtomicFile.isTemporaryFileName("Info.plist.trove-a1B2c3"))
    }

    // MARK: Reading

    @Test("reads a whole file")
    func readWhole() throws {
        let directory = try TemporaryDirectory()
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let path = try directory.write(content, as: "data")
        #expect(try FileReader.read(path) == content)
        #expect(try FileReader.read(try directory.write(Data(), as: "empty")).isEmpty)
    }

    @Test("a missing file, a directory and an empty path are io errors naming the path")
    func readFailures() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing")
        let notFound = try #require(throws: PlistError.self) { try FileReader.read(missing) }
        #expect(notFound.code == .io)
        #expect(notFound.message == "\(missing): cannot open for reading: No such file or directory")
        #expect(notFound.path == missing && notFound.errno == .noSuchFileOrDirectory)

        let isDirectory = try #require(throws: PlistError.self) { try FileReader.read(directory.url.path) }
        #expect(isDirectory.code == .io)
        #expect(isDirectory.message.hasPrefix(directory.url.path + ": "))
        #expect(isDirectory.message.contains("Is a directory"))
        #expect(isDirectory.errno == .isDirectory)
        // '-' is a file name to the library; standard input is the CLI's convention.
        #expect(try #require(throws: PlistError.self) { try FileReader.read("-") }.errno == .noSuchFileOrDirectory)

        #expect(throws: PlistError.self) { try FileReader.read("") }
    }

    @Test("a file beyond the size limit is refused")
    func readLimit() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data(count: 1000), as: "big")
        let error = try #require(throws: PlistError.self) { try FileReader.read(path, maxBytes: 999) }
        #expect(error.code == .sizeLimit)
        #expect(try FileReader.read(path, maxBytes: 1000).count == 1000)
    }

    @Test("a device that never ends stops at the limit instead of filling memory",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/zero"), "no /dev/zero"))
    func endlessInput() throws {
        let error = try #require(throws: PlistError.self) { try FileReader.read("/dev/zero", maxBytes: 1 << 20) }
        #expect(error.code == .sizeLimit)
        #expect(error.message.hasPrefix("/dev/zero: "))
    }
}
