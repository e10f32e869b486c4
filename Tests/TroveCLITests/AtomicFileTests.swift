import Foundation
import Testing
import Trove

@Suite("AtomicFile and FileReader")
struct AtomicFileTests {
    @Test("writes a new file with 0644 minus the umask")
    func newFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.plist")
        try AtomicFile.write(Data("hello".utf8), to: path)
        #expect(try bytes(of: path) == Data("hello".utf8))
        let mask = umask(0o022)
        umask(mask)
        #expect(try permissions(of: path) == Int(0o644 & ~mask))
        #expect(try directory.contents() == ["new.plist"])
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

    @Test("a device or a pipe is written to directly, since it cannot be replaced")
    func streams() throws {
        try AtomicFile.write(Data("discarded".utf8), to: "/dev/null")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/null is still the device")

        let directory = try TemporaryDirectory()
        let fifo = directory.path("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Holding the read end open first lets the write proceed without a second thread; the
        // message fits in the pipe's buffer.
        let readEnd = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(readEnd >= 0)
        defer { close(readEnd) }
        try AtomicFile.write(Data("through the pipe".utf8), to: fifo)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(readEnd, &buffer, buffer.count)
        #expect(count == 16)
        #expect(Array(buffer.prefix(max(0, count))) == Array("through the pipe".utf8))
        #expect(try directory.contents() == ["fifo"])
        var fifoInfo = stat()
        #expect(stat(fifo, &fifoInfo) == 0 && fifoInfo.st_mode & S_IFMT == S_IFIFO, "the pipe was not replaced by a file")
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
        #expect(try directory.contents() == ["sub"])
    }

    @Test("an empty path is refused")
    func emptyPath() throws {
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data(), to: "") }
        #expect(error.code == .io)
    }

    @Test("a directory that cannot be written leaves the original untouched",
          .enabled(if: geteuid() != 0, "root may write into read-only directories"))
    func readOnlyDirectory() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Data("original".utf8), as: "target.plist")
        #expect(chmod(directory.url.path, 0o555) == 0)
        defer { chmod(directory.url.path, 0o755) }
        let error = try #require(throws: PlistError.self) { try AtomicFile.write(Data("new".utf8), to: path) }
        #expect(error.code == .io)
        #expect(error.message.contains("Permission denied"))
        #expect(try bytes(of: path) == Data("original".utf8))
        #expect(try directory.contents() == ["target.plist"])
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

        let isDirectory = try #require(throws: PlistError.self) { try FileReader.read(directory.url.path) }
        #expect(isDirectory.code == .io)
        #expect(isDirectory.message.hasPrefix(directory.url.path + ": "))
        #expect(isDirectory.message.contains("Is a directory"))

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

    @Test("'-' names standard input")
    func standardInputName() {
        #expect(FileReader.displayName(for: "-") == "<stdin>")
        #expect(FileReader.displayName(for: "a.plist") == "a.plist")
    }
}
