import Foundation

/// The later children of a split container, cut into a few jobs that the worker thread and the
/// calling thread take in turn, first come first served, until none is left.
///
/// The calling thread decodes the children before ``BinarySplitPlan/firstOfWorker`` itself, then
/// takes whatever jobs the worker has not taken yet. On an idle machine the worker has taken most
/// of them by then and the two threads finish close together, whatever the plan's estimate of
/// the work was; on a busy one, where the worker may not get a processor for milliseconds, the
/// calling thread takes every job and the read costs about what a one-thread read costs, instead
/// of waiting for a thread that has not run.
///
/// `@unchecked Sendable`: the bytes are the caller's, which are not `Sendable`. That is sound
/// because the worker reads them only for a job it took, and the caller waits for every job the
/// worker took (``waitForWorker()``) before its read returns or throws; once the caller has
/// ended the taking (``takeAllRemaining()``, or taking until none is left), the worker takes
/// nothing more and ends without touching them. Each job's outcome is written by the thread that
/// took the job; the worker signals after writing it, and the caller reads it only after waiting,
/// which orders the two.
final class BinarySplitJobs: @unchecked Sendable {
    /// How many jobs the worker's part of a split container is cut into. More jobs balance the
    /// two threads more finely; each one the calling thread takes costs a value stack of its own
    /// and a copy of its values when the container is assembled.
    static let count = 4

    private let bytes: UnsafeRawBufferPointer
    private let trailer: BinaryTrailer
    private let limits: PlistLimits
    /// Whether the jobs record layout notes; the worker's scanner, which holds them, is then
    /// kept for the caller (``takeWorkerScanner()``).
    private let keepsLayout: Bool
    /// The split container and the containers on the path to it, open in every scanner.
    let open: [Int]
    /// The split container's frame, as the calling thread opened it.
    let container: BinaryObjectScanner.Frame
    /// The calling thread's value count when the split began; a job of the worker counts from it.
    let startValueCount: Int
    /// The children each job decodes, in order; together they are the worker's part.
    let ranges: [Range<Int>]

    private let lock = NSLock()
    /// The next job to take; `ranges.count` once none is left. Guarded by `lock`.
    private var nextJob = 0
    /// How many jobs the worker and the caller took. Guarded by `lock`.
    private var takenByWorker = 0
    private var takenByCaller = 0
    /// True once ``takeAllRemaining()`` ended the taking early. Guarded by `lock`.
    private var cancelled = false
    /// How many of the worker's jobs the caller has waited for.
    private var waitedFor = 0
    private let finished = DispatchSemaphore(value: 0)
    /// Each job's decoded children, or its error, written once by the thread that took it.
    private let halves: UnsafeMutablePointer<BinarySplitHalf?>
    private let errors: UnsafeMutablePointer<PlistError?>
    /// The worker's scanner: made with the jobs, taken by the worker with its first job, and put
    /// back after its last when the jobs keep layout notes (before the worker's last signal, to
    /// be read after the caller's wait).
    private var workerScanner: BinaryObjectScanner?

    init(
        bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, limits: PlistLimits, keepsLayout: Bool, open: [Int],
        container: BinaryObjectScanner.Frame, workerStart: Int, valueCount: Int
    ) {
        self.bytes = bytes
        self.trailer = trailer
        self.limits = limits
        self.keepsLayout = keepsLayout
        self.open = open
        self.container = container
        startValueCount = valueCount
        // By count, not weight: taking jobs in turn evens out what the plan misjudges.
        let children = container.count - workerStart
        let jobs = Swift.max(1, Swift.min(Self.count, children))
        ranges = (0..<jobs).map { job in
            workerStart + children * job / jobs..<workerStart + children * (job + 1) / jobs
        }
        halves = .allocate(capacity: ranges.count)
        errors = .allocate(capacity: ranges.count)
        for job in ranges.indices {
            (halves + job).initialize(to: nil)
            (errors + job).initialize(to: nil)
        }
        // Made here, on the calling thread, so that the worker's tables come from the calling
        // thread's heap (glibc gives each thread an arena of its own, and memory freed into the
        // worker's is not reused by the calling thread's allocations after the join). Making
        // it reads nothing of the bytes.
        workerScanner = BinaryObjectScanner(bytes: bytes, trailer: trailer, limits: limits, keepsLayout: keepsLayout)
    }

    deinit {
        halves.deinitialize(count: ranges.count)
        halves.deallocate()
        errors.deinitialize(count: ranges.count)
        errors.deallocate()
    }

    /// Starts the worker on one of Dispatch's threads, which outlive the read: no thread is
    /// created per read. Nothing waits for the worker to start (the caller takes what it has
    /// not), so a pool with no thread free only costs the second processor.
    func startWorker() {
        DispatchQueue.global(qos: .userInitiated).async { [self] in runWorker() }
    }

    /// The next job for the worker or the caller, or nil when every job has been taken.
    private func take(byWorker: Bool) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextJob < ranges.count else { return nil }
        nextJob += 1
        if byWorker { takenByWorker += 1 } else { takenByCaller += 1 }
        return nextJob - 1
    }

    /// The next job for the caller, or nil when every job has been taken.
    func takeForCaller() -> Int? { take(byWorker: false) }

    /// Ends the taking: the worker takes no job after this (the caller's half failed).
    func takeAllRemaining() {
        lock.lock()
        nextJob = ranges.count
        cancelled = true
        lock.unlock()
    }

    /// Records the decoded children of job `job`, which the calling thread took.
    func record(_ half: consuming BinarySplitHalf, ofJob job: Int) {
        store(half, ofJob: job)
    }

    /// Keeps a job's children; by the thread that took the job.
    private func store(_ half: consuming BinarySplitHalf, ofJob job: Int) {
        (halves + job).pointee = consume half
    }

    /// Where the walk steps of job `job`, which succeeded, lie in the walk of the scanner that
    /// decoded it; read after ``waitForWorker()``, before the job's children are taken.
    func walkSegment(ofJob job: Int) -> BinarySplitHalf.WalkSegment {
        guard let segment = (halves + job).pointee?.walkSegment else { preconditionFailure("a split job that was never done") }
        return segment
    }

    /// Records the error of job `job`, which the calling thread took.
    func record(_ error: PlistError, ofJob job: Int) {
        errors[job] = error
    }

    /// Waits until every job the worker took, or will take, is done: every job the caller did
    /// not take, or after ``takeAllRemaining()`` those the worker had taken by then.
    func waitForWorker() {
        lock.lock()
        let workerJobs = cancelled ? takenByWorker : ranges.count - takenByCaller
        lock.unlock()
        while waitedFor < workerJobs {
            finished.wait()
            waitedFor += 1
        }
    }

    /// Moves out the decoded children of job `job`, which succeeded; called once per job, after
    /// ``waitForWorker()`` and ``firstFailure``.
    func takeHalf(ofJob job: Int) -> BinarySplitHalf {
        guard let half = (halves + job).pointee.take() else { preconditionFailure("a split job that was never done") }
        return half
    }

    /// The first error of any job; read after ``waitForWorker()``.
    var firstFailure: PlistError? {
        ranges.indices.lazy.compactMap { self.errors[$0] }.first
    }

    /// The scanner that decoded the worker's jobs, with their layout notes, or nil when the
    /// worker took no job or the jobs keep no notes; read after ``waitForWorker()``.
    func takeWorkerScanner() -> BinaryObjectScanner? {
        lock.lock()
        let workerTookAJob = takenByWorker > 0
        lock.unlock()
        // A worker that took no job left its scanner unused, and may still be starting.
        guard keepsLayout, workerTookAJob else { return nil }
        return workerScanner.take()
    }

    private func runWorker() {
        // The first job is taken before the scanner: a worker that starts after the caller took
        // every job must not read the bytes, which may be gone by then.
        guard var job = take(byWorker: true) else { return }
        // Never nil: only the worker takes it before its last signal.
        var scanner = workerScanner.take()!
        while true {
            do {
                store(try scanner.decodeHalf(ranges[job], of: container, open: open, valueCount: startValueCount), ofJob: job)
            } catch {
                errors[job] = error
            }
            // The next job is taken before this one is signalled, so that the scanner is handed
            // over before the last signal, after which the caller may read it.
            guard let next = take(byWorker: true) else {
                if keepsLayout { workerScanner = consume scanner }
                finished.signal()
                return
            }
            finished.signal()
            job = next
        }
    }
}
