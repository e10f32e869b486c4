import Foundation
import Trove

/// What every fuzz target checks about one input.
///
/// A reader may accept or refuse any input, but refusing must be a thrown ``PlistError``: a trap,
/// a sanitizer report, a timeout or a memory blow-up is a finding. What a reader accepts must
/// also survive being written back: the re-encoded bytes read back to an equal value, and
/// re-encoding that second reading gives the same bytes again. A broken promise stops the process
/// with a message that says which, so libFuzzer saves the input as a crash.
public enum FuzzChecks {
    /// Reads `bytes` with the reader of `format` only (no detection), and round-trips what it accepts.
    public static func checkReader(_ format: PlistFormat, _ bytes: UnsafeRawBufferPointer) {
        let document: PlistDocument
        do {
            document = try read(bytes, as: format)
        } catch {
            if !bytes.isEmpty { checkRefusal(error, expecting: format) }
            return
        }
        checkRoundTrip(document, origin: "\(format.displayName) reader")
        checkStandardLayoutKept(document, input: bytes)
        checkTextKept(document, input: bytes)
    }

    /// With `TROVE_FUZZ_STRICT_ERRORS=1` in the environment, a refusal must also say which format
    /// and where (empty input has no place to point at). Off by default: it is a quality bar for messages, not a safety property.
    static let strictErrors = ProcessInfo.processInfo.environment["TROVE_FUZZ_STRICT_ERRORS"] == "1"

    static func checkRefusal(_ error: PlistError, expecting format: PlistFormat) {
        guard strictErrors else { return }
        require(error.format == format, "a refusal names format \(String(describing: error.format)), expected \(format): \(error)")
        require(error.location != nil, "a refusal has no location: \(error.code.rawValue): \(error)")
    }

    /// Detects the format and reads, as `Plist.read` does for every caller; nothing more.
    public static func checkDetection(_ bytes: UnsafeRawBufferPointer) {
        let detected = PlistFormat.detect(bytes)
        do {
            let document = try Plist.read(bytes: bytes)
            // `Plist.read` falls back from OpenStep to JSON, never to anything else.
            let consistent = document.format == detected || (detected == .openStep && document.format == .json)
            require(consistent, "detected \(String(describing: detected)) but Plist.read says \(document.format)")
        } catch {
            require(detected != nil || error.code == .unknownFormat, "empty input failed with \(error.code.rawValue): \(error)")
        }
    }

    /// Detects and reads, then checks the lossless rewrite in the document's own format and an
    /// exact conversion to binary, the one format that can hold every value.
    public static func checkDetectedRoundTrip(_ bytes: UnsafeRawBufferPointer) {
        guard let document = try? Plist.read(bytes: bytes) else { return }
        checkRoundTrip(document, origin: "Plist.read (\(document.format.displayName))")
        checkStandardLayoutKept(document, input: bytes)
        checkTextKept(document, input: bytes)
        let binary: Data
        do {
            binary = try Plist.write(document.value, as: .binary)
        } catch {
            fail("the binary writer refused a value read from \(document.format.displayName): \(error)")
        }
        do {
            let reread = try read(binary, as: .binary)
            if let difference = ValueDifference.first(reread.value, document.value) {
                fail("converting \(document.format.displayName) to binary changed the value: \(difference)")
            }
        } catch {
            fail("the binary reader refused the binary writer's output: \(error)")
        }
    }

    // MARK: - Round trip

    /// Re-encodes `document` in its own format, reads that back with the same reader, and
    /// re-encodes again: the value must come back equal and the second encoding must repeat the first.
    static func checkRoundTrip(_ document: PlistDocument, origin: String) {
        let format = document.format
        let first: Data
        do {
            first = try encode(document)
        } catch {
            fail("\(origin): the \(format.displayName) writer refused what the reader accepted: \(error)")
        }
        let second: PlistDocument
        do {
            second = try read(first, as: format)
        } catch {
            fail("\(origin): the \(format.displayName) reader refused the writer's output: \(error)\n\(preview(first))")
        }
        if let difference = ValueDifference.first(second.value, document.value, integralRealsMayBecomeIntegers: format == .json) {
            fail("\(origin): the value changed in a \(format.displayName) round trip: \(difference)\n\(preview(first))")
        }
        let again: Data
        do {
            again = try encode(second)
        } catch {
            fail("\(origin): the \(format.displayName) writer refused its own re-read output: \(error)")
        }
        if again == first { return }
        // JSON may take one step to settle, as in Foundation: -0.0 is written `-0`, which reads
        // back as the integer 0 and is then written `0`. From there on the bytes must repeat.
        if format == .json, let third = try? read(again, as: format), (try? encode(third)) == again { return }
        fail("\(origin): re-encoding the re-read \(format.displayName) document is not byte-stable: \(firstDifference(first, again))")
    }

    /// An input that is exactly what our writer makes of its value must come back byte for byte
    /// from the lossless writer, whatever notes the reader took.
    static func checkStandardLayoutKept(_ document: PlistDocument, input: UnsafeRawBufferPointer) {
        guard document.format == .binary || document.format == .xml,
            let standard = try? Plist.write(document.value, as: document.format), standard.elementsEqual(input)
        else { return }
        let lossless: Data
        do {
            lossless = try encode(document)
        } catch {
            fail("the lossless \(document.format.displayName) writer refused a document in its own standard layout: \(error)")
        }
        require(lossless == standard, "the lossless \(document.format.displayName) writer changed a document in its own standard layout")
    }

    /// An OpenStep or JSON document written back with its layout notes is its input, byte for
    /// byte, whatever the input was.
    static func checkTextKept(_ document: PlistDocument, input: UnsafeRawBufferPointer) {
        guard document.format == .openStep || document.format == .json else { return }
        require(document.layout != nil, "the \(document.format.displayName) reader kept no layout notes")
        let lossless: Data
        do {
            lossless = try Plist.write(document)
        } catch {
            fail("the lossless \(document.format.displayName) writer refused a document it read: \(error)")
        }
        if lossless.elementsEqual(input) { return }
        fail("the lossless \(document.format.displayName) rewrite is not the input: \(firstDifference(lossless, Data(input)))")
    }

    /// The lossless writer for binary and XML (which follow layout notes); the standard writer
    /// for OpenStep and JSON, whose lossless writer only copies the text back (checked by
    /// `checkTextKept`). JSON is written with fragments allowed because the reader accepts a
    /// top-level scalar.
    static func encode(_ document: PlistDocument) throws(PlistError) -> Data {
        switch document.format {
        case .binary, .xml: return try Plist.write(document)
        case .openStep: return Data(try OpenStepPlistWriter().write(document.value))
        case .json: return Data(try JSONPlistWriter([.allowsFragments]).write(document.value))
        }
    }

    static func read(_ data: Data, as format: PlistFormat) throws(PlistError) -> PlistDocument {
        // `withUnsafeBytes` rethrows untyped errors, so the typed error travels in a Result.
        let result: Result<PlistDocument, PlistError> = data.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try read(raw, as: format) }
        }
        return try result.get()
    }

    /// Reads with one format's reader, as a document that keeps the layout notes.
    static func read(_ bytes: UnsafeRawBufferPointer, as format: PlistFormat) throws(PlistError) -> PlistDocument {
        switch format {
        case .binary:
            let (value, layout) = try BinaryPlistReader().read(bytes)
            return PlistDocument(value: value, format: .binary, layout: layout.map { .binary($0) })
        case .xml:
            let (value, layout) = try XMLPlistReader().read(bytes)
            return PlistDocument(value: value, format: .xml, layout: layout.map { .xml($0) })
        case .openStep:
            let (value, layout) = try OpenStepPlistReader().read(bytes, keepingLayout: true)
            return PlistDocument(value: value, format: .openStep, layout: layout.map { .openStep($0) })
        case .json:
            let (value, layout) = try JSONPlistReader().read(bytes, keepingLayout: true)
            return PlistDocument(value: value, format: .json, layout: layout.map { .json($0) })
        }
    }

    // MARK: - Reporting

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// Prints why and stops with a trap, which libFuzzer records as a crash with this input.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\n==trove-fuzz== check failed: \(message)\n".utf8))
        fatalError("trove fuzz check failed")
    }

    /// Where two encodings part, with the bytes around that place in each.
    static func firstDifference(_ a: Data, _ b: Data) -> String {
        let index = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        func window(_ d: Data) -> String {
            let start = max(0, index - 16)
            let bytes = d.dropFirst(start).prefix(48)
            return bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
        }
        return "sizes \(a.count) and \(b.count), first difference at byte \(index)\nfirst:  \(window(a))\nsecond: \(window(b))"
    }

    /// The first bytes of an encoding, as text when they are text.
    static func preview(_ data: Data) -> String {
        let head = data.prefix(400)
        if let text = String(data: head, encoding: .utf8) { return text }
        return head.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
