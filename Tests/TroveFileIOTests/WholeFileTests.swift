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

@Suite("FileContents and PlistFile")
struct WholeFileTests {
    @Test("a file is read by default, mapped only when asked, and either way outlives the file's name")
    func readOrMap() throws {
        let directory = try TemporaryDirectory()
        let data = try Plist.write(["k": [1, "two", 3.5]], as: .binary)
        let path = try directory.write(data, as: "file.plist")
        let read = try FileContents(path)
        #expect(!read.isMapped && Data(read.bytes) == data)
        let mapped = try FileContents(path, access: .mapped)
        #expect(mapped.isMapped && Data(mapped.bytes) == data)
        let plist = try LazyBinaryPlist(contentsOfFile: path)
        try FileManager.default.removeItem(atPath: path)
        #expect(try plist.node(at: "k.1")?.materialize() == "two")
        #expect(try plist.materialize() == Plist.read(data).value)
        #expect(Data(mapped.bytes) == data)
    }

    @Test("files without a size, devices and empty files are read even when mapping is asked for")
    func readsWhatCannotBeMapped() throws {
        let status = try FileContents("/proc/self/status", access: .mapped)
        #expect(!status.isMapped)
        #expect(String(decoding: status.bytes, as: UTF8.self).contains("VmRSS"))
        let null = try FileContents("/dev/null", access: .mapped)
        #expect(!null.isMapped && null.bytes.isEmpty)
        let directory = try TemporaryDirectory()
        let empty = try FileContents(try directory.write(Data(), as: "empty"))
        #expect(empty.bytes.isEmpty)
        #expect(throws: PlistError.self) { _ = try LazyBinaryPlist(source: empty) }
    }

    @Test("failures are the typed errors FileReader gives, with the same messages, paths and errno")
    func failuresMatchFileReader() throws {
        let directory = try TemporaryDirectory()
        let big = try directory.write(Data(count: 100), as: "big")
        for (path, limit) in [(directory.path("missing"), 1 << 20), (directory.url.path, 1 << 20), (big, 10), ("", 1 << 20)] {
            for access in [FileContents.Access.read, .mapped] {
                var contentsError: PlistError?
                var readerError: PlistError?
                do { _ = try FileContents(path, access: access, maxBytes: limit) } catch { contentsError = error }
                do { _ = try FileReader.read(path, maxBytes: limit) } catch { readerError = error }
                #expect(contentsError != nil)
                #expect(contentsError == readerError, "\(path)")
                #expect(contentsError?.path == path)
            }
        }
        // Reads that are not mapped honour the limit too.
        #expect(throws: PlistError.self) { _ = try FileContents("/proc/self/status", maxBytes: 8) }
    }

    @Test("standard input (or any descriptor) is read to its end", .enabled(if: Helper.isBuilt))
    func descriptor() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let message = Array("hello through a pipe".utf8)
        #expect(write(ends[1], message, message.count) == message.count)
        close(ends[1])
        let contents = try FileContents(readingFrom: FileDescriptor(rawValue: ends[0]), name: "<pipe>")
        close(ends[0])
        #expect(Array(contents.bytes) == message)
    }

    // MARK: PlistFile

    @Test("load detects the format and keeps layout notes; save writes an unchanged document back byte for byte")
    func loadAndSave() throws {
        let directory = try TemporaryDirectory()
        let xml = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>b</key>   <integer>2</integer>
            \t<key>a</key>
            \t<string>x</string>
            </dict>
            </plist>

            """.utf8)
        let path = try directory.write(xml, as: "odd.plist")
        var document = try PlistFile.load(path)
        #expect(document.format == .xml && document.layout != nil)
        try PlistFile.save(document, to: path)
        #expect(try bytes(of: path) == xml)
        document.value["a"] = "y"
        try PlistFile.save(document, to: path)
        #expect(try PlistFile.load(path).value == ["b": 2, "a": "y"])

        let binary = directory.path("new.plist")
        try PlistFile.save(["n": 1], as: .binary, to: binary, permissions: [.ownerReadWrite])
        #expect(try PlistFile.load(binary).format == .binary)
        #expect(try permissions(of: binary) == 0o600)
    }

    @Test("load errors name the path, and the format and position for bad content; a missing file is ENOENT")
    func loadErrors() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.plist")
        let notFound = try #require(throws: PlistError.self) { try PlistFile.load(missing) }
        #expect(notFound.code == .io && notFound.errno == .noSuchFileOrDirectory && notFound.path == missing)

        let bad = try directory.write(Data("<plist><dict><key>a</key></dict></plist>".utf8), as: "bad.plist")
        let malformed = try #require(throws: PlistError.self) { try PlistFile.load(bad) }
        #expect(malformed.path == bad && malformed.format == .xml && malformed.location != nil)
        #expect(malformed.errno == nil)

        var binary = try Plist.write(["k": "value"], as: .binary)
        binary.removeLast(3)
        let truncated = try directory.write(binary, as: "truncated.plist")
        let short = try #require(throws: PlistError.self) { try PlistFile.load(truncated) }
        #expect(short.path == truncated && short.format == .binary)
        let lazy = try #require(throws: PlistError.self) { try LazyBinaryPlist(contentsOfFile: truncated) }
        #expect(lazy.path == truncated && lazy.format == .binary)

        let unsupported = try #require(throws: PlistError.self) {
            try PlistFile.save(PlistValue.null, as: .xml, to: directory.path("null.plist"))
        }
        #expect(unsupported.code == .unsupportedValue && unsupported.path == directory.path("null.plist"))
        #expect(try directory.contents() == ["bad.plist", "truncated.plist"])
    }

    @Test("no descriptor stays open after loads that succeed or fail", .enabled(if: Helper.isBuilt))
    func noDescriptorLeaks() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write(try Plist.write(["k": 1], as: .binary), as: "good.plist")
        let bad = try directory.write(Data("bplist00garbage".utf8), as: "bad.plist")
        let paths = [good, bad, directory.path("missing"), directory.url.path, good, bad]
        // In a child process, so that the tests running beside this one do not move the count.
        let (output, termination) = try Helper.run(["count-descriptors"] + paths + paths + paths)
        #expect(termination == .exited(0))
        let numbers = output.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(output)")
        // And here: nothing under the test's directory is open after the same loads.
        for path in paths { _ = try? PlistFile.load(path) }
        #expect(!openDescriptorTargets().contains { $0.hasPrefix(directory.url.path) })
    }

    // MARK: A file truncated under a reader

    /// Starts the helper's `lazy-read` on a file, lets it open the file, truncates the file, then
    /// lets it read: deterministic, through the TROVE_TEST_PAUSE_AFTER_OPEN hook.
    static func truncateWhileOpen(access: String) throws -> (output: String, termination: ProcessTermination) {
        let directory = try TemporaryDirectory()
        var records: [PlistValue] = []
        for index in 0..<20_000 { records.append(["name": .string("record \(index)"), "n": .integer(PlistInteger(index))]) }
        let path = try directory.write(try Plist.write(["records": .array(records)], as: .binary), as: "big.plist")
        let fifo = directory.path("pause")
        try #require(mkfifo(fifo, 0o600) == 0)
        let helper = try #require(Helper.path, "TroveFileIOTestHelper was not built next to the tests")
        let child = try ProcessRun(
            helper, ["lazy-read", path, access], environment: ["TROVE_TEST_PAUSE_AFTER_OPEN": fifo], mergeStandardError: true,
            timeLimit: .seconds(120))
        // Opening the FIFO for writing blocks until the child opens it, which it does after
        // opening (and mapping) the file.
        let writer = open(fifo, O_WRONLY)
        try #require(writer >= 0)
        #expect(truncate(path, 4096) == 0)
        close(writer)
        let run = try child.blockingOutput()
        return (run.printedLines, run.termination)
    }

    @Test("a file truncated after opening fails the read with a typed error instead of crashing",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func truncatedWhileReading() throws {
        let (output, termination) = try Self.truncateWhileOpen(access: "read")
        #expect(termination == .exited(1), "\(output)")
        #expect(output.hasPrefix("error code="), "\(output)")
    }

    @Test("the same truncation under a mapping kills the reader with SIGBUS (why reading is the default)",
          .enabled(if: Helper.isBuilt, "the test helper was not built"))
    func truncatedWhileMapped() throws {
        let (output, termination) = try Self.truncateWhileOpen(access: "mapped")
        #expect(termination == .signaled(SIGBUS), "\(output)")
    }
}
