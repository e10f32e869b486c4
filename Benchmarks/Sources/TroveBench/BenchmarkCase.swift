/// One thing being measured: a named input and the operations run on it.
///
/// A case knows nothing about how it is timed or reported. New kinds of work (keyed archives,
/// Codable, preferences) become new cases whose operations carry their own engine closures, so
/// adding one never reshapes the runner or the table.
struct BenchmarkCase {
    /// Short name shown in the table's first column, also used for file names of its inputs.
    let name: String
    /// What the input is, printed with its checksum before the run.
    let summary: String
    /// Where the input came from: generated inputs are printed with a checksum, fixtures with their path.
    let origin: Origin
    /// The operations measured on this input, in table order.
    let operations: [BenchmarkOperation]

    enum Origin {
        case generated
        case fixture(path: String)
    }
}

/// One operation of a case (for example "binary decode") as every engine performs it.
struct BenchmarkOperation {
    /// Name shown in the table's second column.
    let name: String
    /// The work unit for throughput: the same byte count for every engine, so that MB/s of
    /// different engines compare the same job even when their outputs differ in size.
    let bytesPerRun: Int
    /// One entry per engine, in column order.
    let engines: [EngineRun]
}

/// How one engine performs one operation.
///
/// `prepare` does the untimed setup (say, decoding the value an encoder will write) and returns
/// the body that is timed. The body returns whatever it produced; the runner keeps that result
/// until the clock has stopped, so freeing it is never part of the measurement for any engine.
struct EngineRun {
    /// The engine's column name.
    let engine: String
    let prepare: (EngineScratch) throws -> TimedBody
}

/// Values one engine computed for one case that its other operations may reuse, chiefly the
/// decoded value an encoder starts from, so that a slow engine does not decode the same document
/// once more per operation. The runner keeps one per engine for the duration of a case.
final class EngineScratch {
    private var values: [String: Any] = [:]

    init() {}

    /// The value stored under `key`, if any and of type `T`.
    func value<T>(_ key: String, as type: T.Type = T.self) -> T? {
        // Unwrapped first: with `T == Any`, a missing entry cast directly would come back as a
        // non-nil `Any` holding nil.
        guard let stored = values[key] else { return nil }
        return stored as? T
    }

    /// Stores a value unless the key already holds one; the first stays, so that a timed body
    /// calling this on every run costs one dictionary lookup after the first run.
    func keepFirst(_ value: Any, as key: String) {
        if values[key] == nil { values[key] = value }
    }
}

/// The timed part of an engine run. Its result is released after the clock stops.
typealias TimedBody = () throws -> Any
