import Foundation
import Testing
import Trove

/// Cross-checks with the live peers: what we write, Foundation and plistlib read back equal; what
/// they write, we read equal to the value they were given.
@Suite("Peers: plistlib and Foundation cross-checks", .serialized)
struct PeerCrossCheckTests {
    static let cases = GeneratedValues.all

    /// Our standard-layout outputs of every case.
    static let ourBinary: [Int: Result<Data, PlistError>] = Dictionary(
        uniqueKeysWithValues: cases.map { c in (c.id, Result { () throws(PlistError) in try Plist.write(c.value, as: .binary) }) })
    static let ourXML: [Int: Result<Data, PlistError>] = Dictionary(
        uniqueKeysWithValues: cases.map { c in (c.id, Result { () throws(PlistError) in try Plist.write(c.value, as: .xml) }) })

    /// plistlib's results for the whole batch (one `python3` run).
    static let python: Result<[Int: PythonPeer.CaseResult], any Error> = Result {
        try PythonPeer.run(
            cases: cases, ourBinary: ourBinary.compactMapValues { try? $0.get() }, ourXML: ourXML.compactMapValues { try? $0.get() })
    }

    /// Runs one check over every case: counts exclusions by reason, records a named issue for each
    /// mismatch, and prints one line of numbers.
    static func runCheck(_ check: PeerCheck, _ body: (GeneratedValues.Case) -> String?) {
        var checked = 0
        var excluded: [PeerLimit: Int] = [:]
        var failures: [String] = []
        for c in cases {
            let limits = check.limits(for: c.value)
            if !limits.isEmpty {
                for limit in limits { excluded[limit, default: 0] += 1 }
                continue
            }
            checked += 1
            if let failure = body(c) { failures.append("\(c): \(failure)") }
        }
        let reasons = PeerLimit.allCases.compactMap { limit in excluded[limit].map { "\($0) for \"\(limit.rawValue)\"" } }
        print("\(check.rawValue): \(checked - failures.count) of \(checked) equal; excluded \(reasons.isEmpty ? "none" : reasons.joined(separator: ", "))")
        for failure in failures.prefix(25) { Issue.record(Comment(rawValue: "\(check.rawValue): \(failure)")) }
        if failures.count > 25 { Issue.record(Comment(rawValue: "\(check.rawValue): \(failures.count - 25) more failures")) }
        #expect(checked > 0, "\(check.rawValue): every case was excluded")
    }

    /// Our output for a case, or why there is none.
    enum OurOutput {
        case written(Data)
        case failure(String)
    }

    static func ours(_ c: GeneratedValues.Case, xml: Bool) -> OurOutput {
        switch (xml ? ourXML : ourBinary)[c.id] {
        case .success(let data)?: return .written(data)
        case .failure(let error)?: return .failure("our \(xml ? "XML" : "binary") writer failed: \(error.code.rawValue): \(error)")
        case nil: return .failure("no output recorded")
        }
    }

    static func compare(_ found: PlistValue, _ c: GeneratedValues.Case, _ check: PeerCheck) -> String? {
        ValueComparison.firstDifference(found, c.value, rules: check.rules)
    }

    // MARK: - Our writers, read by the peers

    @Test("The XML writer refuses null with unsupported-value")
    func xmlWriterRefusesNull() {
        let withNull = Self.cases.filter { ValueComparison.containsNull($0.value) }
        #expect(!withNull.isEmpty)
        for c in withNull {
            switch Self.ourXML[c.id] {
            case .failure(let error)?:
                #expect(error.code == .unsupportedValue, "\(c): null in XML gave \(error.code.rawValue): \(error)")
            default:
                Issue.record("\(c): the XML writer accepted a value holding null")
            }
        }
    }

    @Test("plistlib reads our binary output as the value written", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"))
    func plistlibReadsOurBinary() throws {
        let results = try Self.python.get()
        Self.runCheck(.plistlibReadsOurBinary) { c in
            if case .failure(let why) = Self.ours(c, xml: false) { return why }
            switch results[c.id]?.readOurBinary {
            case .ok(let v)?: return Self.compare(v, c, .plistlibReadsOurBinary)
            case .failed(let why)?: return "plistlib rejected our binary: \(why)"
            case nil: return "plistlib did not read our binary"
            }
        }
    }

    @Test("plistlib reads our XML output as the value written", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"))
    func plistlibReadsOurXML() throws {
        let results = try Self.python.get()
        Self.runCheck(.plistlibReadsOurXML) { c in
            if case .failure(let why) = Self.ours(c, xml: true) { return why }
            switch results[c.id]?.readOurXML {
            case .ok(let v)?: return Self.compare(v, c, .plistlibReadsOurXML)
            case .failed(let why)?: return "plistlib rejected our XML: \(why)"
            case nil: return "plistlib did not read our XML"
            }
        }
    }

    @Test("Foundation reads our binary output as the value written")
    func foundationReadsOurBinary() {
        Self.runCheck(.foundationReadsOurBinary) { c in
            switch Self.ours(c, xml: false) {
            case .failure(let why): return why
            case .written(let data):
                do { return Self.compare(try FoundationPeer.read(data), c, .foundationReadsOurBinary) } catch {
                    return "Foundation rejected our binary: \(error)"
                }
            }
        }
    }

    @Test("Foundation reads our XML output as the value written")
    func foundationReadsOurXML() {
        Self.runCheck(.foundationReadsOurXML) { c in
            switch Self.ours(c, xml: true) {
            case .failure(let why): return why
            case .written(let data):
                do { return Self.compare(try FoundationPeer.read(data), c, .foundationReadsOurXML) } catch {
                    return "Foundation rejected our XML: \(error)"
                }
            }
        }
    }

    // MARK: - Our writers, read by our readers

    @Test("Our readers read our writers' output as the value written", arguments: [PlistFormat.binary, .xml])
    func ourOwnRoundTrip(_ format: PlistFormat) {
        var checked = 0, equal = 0
        for c in Self.cases {
            if format == .xml && ValueComparison.containsNull(c.value) { continue }  // refused; checked above
            checked += 1
            guard case .written(let data) = Self.ours(c, xml: format == .xml) else {
                Issue.record("\(c): our \(format.displayName) writer failed")
                continue
            }
            do {
                let document = try Plist.read(data)
                if let d = ValueComparison.firstDifference(document.value, c.value, rules: format == .xml ? .throughXML : .exact) {
                    Issue.record("\(c): our \(format.displayName) round trip differs: \(d)")
                } else {
                    equal += 1
                }
            } catch {
                Issue.record("\(c): our \(format.displayName) reader rejects our writer's output: \(error)")
            }
        }
        print("our \(format.displayName) round trip: \(equal) of \(checked) equal (XML: values with null left out, see the refusal test)")
        #expect(checked > 0)
    }

    // MARK: - The peers' writers, read by us

    /// Reads a peer's bytes with our reader and compares with the value the peer was given.
    static func readPeerOutput(_ data: Data, _ c: GeneratedValues.Case, _ check: PeerCheck) -> String? {
        do {
            let document = try Plist.read(data)
            let expectedFormat: PlistFormat = check.isXML ? .xml : .binary
            guard document.format == expectedFormat else { return "read as \(document.format), expected \(expectedFormat)" }
            return compare(document.value, c, check)
        } catch {
            return "we rejected it: \(error.code.rawValue): \(error)"
        }
    }

    @Test("We read plistlib's binary output as the value it was given", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"))
    func weReadPlistlibBinary() throws {
        let results = try Self.python.get()
        Self.runCheck(.weReadPlistlibBinary) { c in
            switch results[c.id]?.binary {
            case .ok(let data)?: return Self.readPeerOutput(data, c, .weReadPlistlibBinary)
            case .failed(let why)?: return "plistlib could not write it: \(why)"
            case nil: return "plistlib wrote nothing"
            }
        }
    }

    @Test("We read plistlib's XML output as the value it was given", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"))
    func weReadPlistlibXML() throws {
        let results = try Self.python.get()
        Self.runCheck(.weReadPlistlibXML) { c in
            switch results[c.id]?.xml {
            case .ok(let data)?: return Self.readPeerOutput(data, c, .weReadPlistlibXML)
            case .failed(let why)?: return "plistlib could not write it: \(why)"
            case nil: return "plistlib wrote nothing"
            }
        }
    }

    @Test("We read Foundation's binary output as the value it was given")
    func weReadFoundationBinary() {
        Self.runCheck(.weReadFoundationBinary) { c in
            do { return Self.readPeerOutput(try FoundationPeer.write(c.value, as: .binary), c, .weReadFoundationBinary) } catch {
                return "Foundation could not write it: \(error)"
            }
        }
    }

    @Test("We read Foundation's XML output as the value it was given")
    func weReadFoundationXML() {
        Self.runCheck(.weReadFoundationXML) { c in
            do { return Self.readPeerOutput(try FoundationPeer.write(c.value, as: .xml), c, .weReadFoundationXML) } catch {
                return "Foundation could not write it: \(error)"
            }
        }
    }

    // MARK: - The harness itself

    @Test("Harness sanity: generated values survive the trip to Python and back", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"))
    func valuesReachPythonIntact() throws {
        let results = try Self.python.get()
        var intact = 0
        for c in Self.cases {
            switch results[c.id]?.echo {
            case .ok(let v)?:
                if let d = ValueComparison.firstDifference(v, c.value, rules: .microsecondDates) {
                    Issue.record("\(c): the value plistlib was given differs: \(d)")
                } else {
                    intact += 1
                }
            case .failed(let why)?: Issue.record("\(c): Python could not build the value: \(why)")
            case nil: Issue.record("\(c): no result from Python")
            }
        }
        print("harness: \(intact) of \(Self.cases.count) generated values reach plistlib intact")
    }

    @Test("Harness sanity: Foundation round-trips the generated values through its own writer")
    func foundationRoundTripsItsOwnOutput() {
        var checked = 0
        for c in Self.cases where PeerCheck.weReadFoundationBinary.limits(for: c.value).isEmpty {
            checked += 1
            do {
                let value = try FoundationPeer.read(try FoundationPeer.write(c.value, as: .binary))
                if let d = ValueComparison.firstDifference(value, c.value) {
                    Issue.record("\(c): Foundation's own binary round trip differs: \(d)")
                }
            } catch {
                Issue.record("\(c): Foundation's own binary round trip failed: \(error)")
            }
        }
        #expect(checked > 0)
    }

    /// The peers must agree with each other on the generated values, or the checks above measure
    /// the harness rather than the library: Foundation reads plistlib's output as the value given,
    /// under the same exclusions and comparison rules as the checks of our reader.
    @Test(
        "Harness sanity: Foundation reads plistlib's output", .enabled(if: PythonPeer.isAvailable, "python3 with plistlib not found"),
        arguments: [PeerCheck.weReadPlistlibBinary, .weReadPlistlibXML])
    func peersAgree(_ check: PeerCheck) throws {
        let results = try Self.python.get()
        var agreed = 0, compared = 0
        // Foundation reads these, so its own limits apply too.
        let foundationLimit = PeerCheck.weReadFoundationBinary
        for c in Self.cases
        where check.limits(for: c.value).isEmpty && !ValueComparison.containsUID(c.value)
            && !foundationLimit.limits(for: c.value).contains(.foundationMergesEquivalentKeys) {
            guard case .ok(let data)? = (check.isXML ? results[c.id]?.xml : results[c.id]?.binary) else { continue }
            compared += 1
            do {
                let value = try FoundationPeer.read(data)
                if let d = ValueComparison.firstDifference(value, c.value, rules: check.rules) {
                    Issue.record("\(c): Foundation reads plistlib's \(check.isXML ? "XML" : "binary") differently: \(d)")
                } else {
                    agreed += 1
                }
            } catch {
                Issue.record("\(c): Foundation rejects plistlib's \(check.isXML ? "XML" : "binary"): \(error)")
            }
        }
        print("harness: Foundation agrees with plistlib's \(check.isXML ? "XML" : "binary") on \(agreed) of \(compared) cases")
        #expect(compared > 0)
    }
}
