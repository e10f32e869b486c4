import Foundation
import BenchmarkModels
import Trove

// TroveProfile: runs one Trove operation on one file in a loop, with nothing else in the process,
// so that a profiler (`valgrind --tool=callgrind`, `perf record`) sees only that operation.
//
//   TroveProfile OPERATION FILE [REPEATS]
//
// OPERATION is `decode` (layout notes off, as the benchmark's trove column), `decode-kept` (the
// same, but every decoded value lives until the process exits, so that the profile holds no
// tree destruction: the benchmark frees results outside its timing too), `decode-timed` (each
// read timed alone and its value released after the clock stops, as the benchmark does; it also
// prints the thread's CPU time per read, which a busy machine disturbs less; `TROVE_FREED_CHUNKS=N`
// frees N small chunks before each read), `decode-layout`, `decode-layout-timed` (as
// `decode-timed`, with layout notes; the document is released whole after the clock stops),
// `encode-binary`, `encode-xml`, `encode-openstep`, `encode-json` (each writes the value decoded
// from FILE without layout notes) or `roundtrip-layout` (writes FILE back following its notes).
// The input is decoded once before the loop for the encoders, so their profile holds only writing.
// `decode-cold`, `encode-binary-cold` and `encode-xml-cold` flush the caches before each call and
// print the median call: a small document's time in the benchmark, where each call follows the
// other engines' work.
//
// The `codable-*` operations take a document of the benchmark's Codable model (`RecordExport`, as
// `TroveBench --write-corpus` writes `codable-2k.binary.plist` and `codable-2k.xml.plist`):
// `codable-decode` (PlistDecoder), `codable-encode-binary` and `codable-encode-xml` (PlistEncoder),
// and the same three with a `foundation-` prefix for PropertyListDecoder/PropertyListEncoder, so
// that both sides of the Codable ratio can be counted by the same tool.
//
//   TroveProfile unarchive-graph OBJECTS [REPEATS]
//
// archives the archive benchmark's graph of about OBJECTS entries (`BenchNode.graph`) once and
// unarchives it REPEATS times with `KeyedUnarchiver`.

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "unarchive-graph", arguments.count >= 2, let objects = Int(arguments[arguments.startIndex + 1]) {
    let repeats = arguments.count >= 3 ? Int(arguments[arguments.startIndex + 2]) ?? 1 : 1
    do {
        let archive = try KeyedArchiver().archive(BenchNode.graph(objects: objects))
        let unarchiver = KeyedUnarchiver(registry: ArchiveClassRegistry([BenchNode.self]))
        var produced = 0
        let started = ContinuousClock.now
        for _ in 0..<repeats { produced &+= try unarchiver.decode([BenchNode].self, from: archive).count }
        print("unarchive-graph x\(repeats): \((ContinuousClock.now - started) / repeats) per run (checksum \(produced))")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("TroveProfile: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 2, let data = FileManager.default.contents(atPath: arguments[arguments.startIndex + 1]) else {
    FileHandle.standardError.write(Data("usage: TroveProfile OPERATION FILE [REPEATS]\n".utf8))
    exit(2)
}
let operation = arguments[arguments.startIndex]
let repeats = arguments.count >= 3 ? Int(arguments[arguments.startIndex + 2]) ?? 1 : 1

do {
    var plain = PlistReadOptions(keepsLayout: false)
    var lossless = PlistReadOptions()
    // Set to time the one-thread binary decode of a file large enough for two (and to count its
    // instructions: under valgrind the two threads' share of the work depends on scheduling).
    if ProcessInfo.processInfo.environment["TROVE_ONE_THREAD"] != nil {
        plain.decodesBinaryInParallel = false
        lossless.decodesBinaryInParallel = false
    }
    var produced = 0
    let started = ContinuousClock.now
    switch operation {
    case "decode":
        for _ in 0..<repeats { produced &+= try Plist.read(data, options: plain).value.isContainer ? 1 : 0 }
    case "decode-kept":
        var kept: [PlistValue] = []
        kept.reserveCapacity(repeats)
        for _ in 0..<repeats { kept.append(try Plist.read(data, options: plain).value) }
        produced = kept.count
        withExtendedLifetime(kept) {
            print("\(operation) x\(repeats): \((ContinuousClock.now - started) / repeats) per run")
            exit(0)
        }
    case "decode-timed", "decode-layout-timed":
        // As the benchmark times a decode: the clock stops before the value is released.
        // The thread's CPU time too: on a busy machine, wall time also counts the time the thread
        // waited for a core.
        var reading = Duration.zero
        var computing = Duration.zero
        // TROVE_FREED_CHUNKS=N frees N small chunks (24-88 bytes) before each read, untimed, as
        // another engine's released tree leaves them: what a read pays for freed memory it did
        // not free itself (glibc merges such chunks at the next request of 1 KB or more).
        let freedChunks = Int(ProcessInfo.processInfo.environment["TROVE_FREED_CHUNKS"] ?? "0") ?? 0
        var chunks = [UnsafeMutableRawPointer?](repeating: nil, count: freedChunks)
        let options = operation == "decode-timed" ? plain : lossless
        for _ in 0..<repeats {
            for i in 0..<freedChunks { chunks[i] = malloc(24 + (i % 5) * 16) }
            for i in 0..<freedChunks { free(chunks[i]) }
            let cpuStart = threadCPUTime()
            let start = ContinuousClock.now
            // The whole document, as the benchmark holds it: the layout is released with the value.
            let document = try Plist.read(data, options: options)
            reading += ContinuousClock.now - start
            computing += threadCPUTime() - cpuStart
            produced &+= document.value.isContainer ? 1 : 0
        }
        print("\(operation) x\(repeats): \(reading / repeats) per read, release excluded (checksum \(produced)); CPU \(computing / repeats)")
        exit(0)
    case "decode-layout":
        // As `decode` does: reading the layout out of the document would copy it, a retain and a
        // release per array it holds, which no caller that writes the document back pays.
        for _ in 0..<repeats { produced &+= try Plist.read(data, options: lossless).value.isContainer ? 1 : 0 }
    case "decode-cold", "encode-binary-cold", "encode-xml-cold":
        // Each call with cold caches: the benchmark alternates engines run by run, so a small
        // document's call follows the other engines' work, and its time is mostly misses that a
        // warm loop never shows. Writing a buffer larger than the last-level cache before each
        // call stands in for them; under `valgrind --tool=callgrind --cache-sim=yes` the misses of
        // the call itself can then be counted, deterministically.
        var flush = [UInt8](repeating: 0, count: 32 << 20)
        let value = operation == "decode-cold" ? nil : try Plist.read(data, options: plain).value
        let format: PlistFormat = operation == "encode-xml-cold" ? .xml : .binary
        var timed: [Duration] = []
        timed.reserveCapacity(repeats)
        for _ in 0..<repeats {
            flush.withUnsafeMutableBytes { bytes in
                for k in stride(from: 0, to: bytes.count, by: 64) { bytes[k] &+= 1 }
            }
            let start = ContinuousClock.now
            if let value {
                produced &+= try Plist.write(value, as: format).count
                timed.append(ContinuousClock.now - start)
            } else {
                let read = try Plist.read(data, options: plain).value
                timed.append(ContinuousClock.now - start)
                produced &+= read.isContainer ? 1 : 0
            }
        }
        timed.sort()
        print("\(operation) x\(repeats): median \(timed.isEmpty ? .zero : timed[timed.count / 2]) per call (checksum \(produced))")
        exit(0)
    case "encode-binary", "encode-xml", "encode-openstep", "encode-json":
        let format: PlistFormat = switch operation {
        case "encode-binary": .binary
        case "encode-xml": .xml
        case "encode-openstep": .openStep
        default: .json
        }
        let value = try Plist.read(data, options: plain).value
        for _ in 0..<repeats { produced &+= try Plist.write(value, as: format).count }
    case "roundtrip-layout":
        let document = try Plist.read(data)
        for _ in 0..<repeats { produced &+= try Plist.write(document).count }
    case "codable-decode":
        let decoder = PlistDecoder()
        for _ in 0..<repeats { produced &+= try decoder.decode(RecordExport.self, from: data).records.count }
    case "foundation-codable-decode":
        let decoder = PropertyListDecoder()
        for _ in 0..<repeats { produced &+= try decoder.decode(RecordExport.self, from: data).records.count }
    case "codable-encode-binary", "codable-encode-xml":
        let model = try PlistDecoder().decode(RecordExport.self, from: data)
        let encoder = PlistEncoder(outputFormat: operation.hasSuffix("xml") ? .xml : .binary)
        for _ in 0..<repeats { produced &+= try encoder.encode(model).count }
    case "foundation-codable-encode-binary", "foundation-codable-encode-xml":
        let model = try PropertyListDecoder().decode(RecordExport.self, from: data)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = operation.hasSuffix("xml") ? .xml : .binary
        for _ in 0..<repeats { produced &+= try encoder.encode(model).count }
    default:
        FileHandle.standardError.write(Data("TroveProfile: unknown operation \(operation)\n".utf8))
        exit(2)
    }
    let elapsed = ContinuousClock.now - started
    print("\(operation) x\(repeats): \(elapsed / repeats) per run (checksum \(produced))")
} catch {
    FileHandle.standardError.write(Data("TroveProfile: \(error)\n".utf8))
    exit(1)
}

/// The calling thread's CPU time so far.
func threadCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}
