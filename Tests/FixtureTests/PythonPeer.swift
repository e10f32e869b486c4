import Foundation
import Trove
import TroveTestSupport

/// Python's `plistlib` as a live peer: one `python3` process reads every file we wrote and writes
/// every generated value in both formats, so the batch costs one interpreter start.
enum PythonPeer {
    /// What plistlib did with one file or one value.
    enum Outcome<T: Sendable>: Sendable {
        case ok(T)
        case failed(String)
    }

    /// plistlib's results for one generated case.
    struct CaseResult: Sendable {
        /// plistlib's reading of our binary / XML output (nil when we wrote none).
        var readOurBinary: Outcome<PlistValue>?
        var readOurXML: Outcome<PlistValue>?
        /// plistlib's own binary / XML rendering of the value.
        var binary: Outcome<Data>?
        var xml: Outcome<Data>?
        /// The value as plistlib built it, rendered back: checks the harness's own plumbing.
        var echo: Outcome<PlistValue>?
    }

    /// The interpreter: `python3` from PATH, else the system one.
    static let interpreter: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/python3" } + ["/usr/bin/python3"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    /// True when a `python3` with `plistlib` runs.
    static let isAvailable: Bool = {
        guard let interpreter else { return false }
        let probe = try? ProcessRun.runBlocking(interpreter.path, ["-c", "import plistlib"], timeLimit: .seconds(60))
        return probe?.status == 0
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the whole batch: writes our outputs and the value list to a temporary directory, runs
    /// the script once, and collects its reading of our files and its own renderings.
    static func run(cases: [GeneratedValues.Case], ourBinary: [Int: Data], ourXML: [Int: Data]) throws -> [Int: CaseResult] {
        guard let interpreter else { throw Failure(description: "python3 not found") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (id, data) in ourBinary { try data.write(to: directory.appendingPathComponent("ours-\(id).bplist")) }
        for (id, data) in ourXML { try data.write(to: directory.appendingPathComponent("ours-\(id).xml")) }
        var list = "["
        for (n, c) in cases.enumerated() {
            if n > 0 { list += ",\n" }
            list += "{\"id\": \(c.id), \"value\": \(TypedJSONWriter.render(c.value))}"
        }
        list += "]\n"
        try Data(list.utf8).write(to: directory.appendingPathComponent("cases.json"))
        let script = directory.appendingPathComponent("peer.py")
        try Data(pythonScript.utf8).write(to: script)

        // A stuck interpreter fails the batch after 5 minutes instead of hanging the run.
        let peer = try ProcessRun.runBlocking(interpreter.path, [script.path, directory.path], timeLimit: .seconds(300))
        guard peer.status == 0 else {
            throw Failure(description: "python3 exited with \(peer.termination): \(peer.stderrText.suffix(2_000))")
        }
        guard case .object(let byID) = try TinyJSON.parse(Data(contentsOf: directory.appendingPathComponent("results.json"))) else {
            throw Failure(description: "results.json is not an object")
        }
        var results: [Int: CaseResult] = [:]
        for (key, node) in byID {
            guard let id = Int(key), case .object(let fields) = node else { throw Failure(description: "bad result entry \(key)") }
            var result = CaseResult()
            for (name, outcome) in fields {
                switch name {
                case "read_binary": result.readOurBinary = try valueOutcome(outcome)
                case "read_xml": result.readOurXML = try valueOutcome(outcome)
                case "dump_binary": result.binary = try fileOutcome(outcome, directory.appendingPathComponent("py-\(id).bplist"))
                case "dump_xml": result.xml = try fileOutcome(outcome, directory.appendingPathComponent("py-\(id).xml"))
                case "echo": result.echo = try valueOutcome(outcome)
                default: throw Failure(description: "unknown result field \(name)")
                }
            }
            results[id] = result
        }
        return results
    }

    private static func valueOutcome(_ node: TinyJSON.Node) throws -> Outcome<PlistValue> {
        guard case .object(let m) = node, let (tag, payload) = m.first else { throw Failure(description: "bad outcome \(node.brief)") }
        if tag == "error", case .string(let message) = payload { return .failed(message) }
        return .ok(try GoldenValue.value(from: payload))
    }

    private static func fileOutcome(_ node: TinyJSON.Node, _ url: URL) throws -> Outcome<Data> {
        guard case .object(let m) = node, let (tag, payload) = m.first else { throw Failure(description: "bad outcome \(node.brief)") }
        if tag == "error", case .string(let message) = payload { return .failed(message) }
        return .ok(try Data(contentsOf: url))
    }

    /// Reads `ours-N.*` with `plistlib.load` and prints the corpus's typed-JSON form (null added
    /// for the binary null object); builds each value and writes `py-N.*` with `plistlib.dumps`.
    /// Dates arrive as seconds since 2001 so plistlib gets them as exactly as `datetime` allows.
    static let pythonScript = #"""
        import base64, datetime, json, math, os, plistlib, sys
        sys.setrecursionlimit(10000)
        directory = sys.argv[1]
        EPOCH = datetime.datetime(2001, 1, 1)

        def build(node):
            (tag, v), = node.items()
            if tag == 'string': return v
            if tag == 'integer': return int(v)
            if tag == 'real': return float(v)
            if tag == 'bool': return v
            if tag == 'date_seconds': return EPOCH + datetime.timedelta(seconds=float(v))
            if tag == 'data': return base64.b64decode(v)
            if tag == 'uid': return plistlib.UID(v)
            if tag == 'null': return None
            if tag == 'array': return [build(x) for x in v]
            if tag == 'dict': return {k: build(x) for k, x in v}
            raise TypeError('unknown tag %r' % tag)

        def fmt_real(x):
            if math.isnan(x): return 'nan'
            if math.isinf(x): return 'inf' if x > 0 else '-inf'
            return repr(x)

        def fmt_date(d):
            if d.tzinfo is not None:
                d = d.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            s = '%04d-%02d-%02dT%02d:%02d:%02d' % (d.year, d.month, d.day, d.hour, d.minute, d.second)
            if d.microsecond:
                s += ('.%06d' % d.microsecond).rstrip('0')
            return s + 'Z'

        def typed(v):
            if v is None: return {'null': True}
            if isinstance(v, bool): return {'bool': v}
            if isinstance(v, int): return {'integer': str(v)}
            if isinstance(v, float): return {'real': fmt_real(v)}
            if isinstance(v, str): return {'string': v}
            if isinstance(v, (bytes, bytearray)): return {'data': base64.b64encode(bytes(v)).decode('ascii')}
            if isinstance(v, datetime.datetime): return {'date': fmt_date(v)}
            if isinstance(v, plistlib.UID): return {'uid': v.data}
            if isinstance(v, list): return {'array': [typed(x) for x in v]}
            if isinstance(v, dict): return {'dict': [[k, typed(x)] for k, x in v.items()]}
            raise TypeError('unexpected plistlib value type %r' % type(v))

        def describe(e):
            return '%s: %s' % (type(e).__name__, str(e)[:300])

        with open(os.path.join(directory, 'cases.json'), encoding='utf-8') as f:
            cases = json.load(f)
        results = {}
        for case in cases:
            cid = case['id']
            result = {}
            for fmt, ext in (('binary', 'bplist'), ('xml', 'xml')):
                path = os.path.join(directory, 'ours-%d.%s' % (cid, ext))
                if os.path.exists(path):
                    try:
                        with open(path, 'rb') as f:
                            result['read_' + fmt] = {'ok': typed(plistlib.load(f))}
                    except Exception as e:
                        result['read_' + fmt] = {'error': describe(e)}
            try:
                value = build(case['value'])
                result['echo'] = {'ok': typed(value)}
                for fmt, pfmt, ext in (('binary', plistlib.FMT_BINARY, 'bplist'), ('xml', plistlib.FMT_XML, 'xml')):
                    try:
                        data = plistlib.dumps(value, fmt=pfmt, sort_keys=False)
                        with open(os.path.join(directory, 'py-%d.%s' % (cid, ext)), 'wb') as f:
                            f.write(data)
                        result['dump_' + fmt] = {'ok': True}
                    except Exception as e:
                        result['dump_' + fmt] = {'error': describe(e)}
            except Exception as e:
                result['dump_binary'] = result['dump_xml'] = {'error': 'building the value: ' + describe(e)}
            results[str(cid)] = result
        with open(os.path.join(directory, 'results.json'), 'w', encoding='utf-8') as f:
            json.dump(results, f, ensure_ascii=True)
        """#
}

/// Renders a value in the typed-JSON form the Python script builds values from: the corpus golden
/// form, except that dates are `{"date_seconds": "<seconds since 2001>"}` so no precision is lost
/// on the way in.
enum TypedJSONWriter {
    static func render(_ value: PlistValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    private static func write(_ value: PlistValue, into out: inout String) {
        switch value {
        case .string(let s): out += "{\"string\": \(quoted(s))}"
        case .integer(let n): out += "{\"integer\": \"\(n)\"}"
        case .real(let r): out += "{\"real\": \"\(r.value.description)\"}"
        case .bool(let b): out += "{\"bool\": \(b)}"
        case .date(let d): out += "{\"date_seconds\": \"\(d.secondsSinceReferenceDate.description)\"}"
        case .data(let d): out += "{\"data\": \"\(d.base64EncodedString())\"}"
        case .uid(let u): out += "{\"uid\": \(u)}"
        case .null: out += "{\"null\": true}"
        case .array(let items):
            out += "{\"array\": ["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                write(item, into: &out)
            }
            out += "]}"
        case .dictionary(let dict):
            out += "{\"dict\": ["
            for (i, (key, item)) in dict.enumerated() {
                if i > 0 { out += ", " }
                out += "[\(quoted(key)), "
                write(item, into: &out)
                out += "]"
            }
            out += "]}"
        }
    }

    /// A JSON string literal; control characters are escaped, everything else is literal UTF-8.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
