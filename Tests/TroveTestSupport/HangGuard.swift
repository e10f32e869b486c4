import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs work on a thread of its own and stops waiting for it after a deadline, so that a reader
/// that loops forever on hostile input fails one test case instead of hanging the whole run.
///
/// The deadline only detects hangs; no test asserts how fast anything is, so callers pass
/// generous limits (debug builds are slow, and the machine may be busy).
public enum HangGuard {
    /// The work's result, or nil when it did not finish within `seconds`.
    ///
    /// A dedicated thread with a 64 MB stack runs the work: a hung reader then blocks only that
    /// thread, never the test runner's cooperative pool, and deep (but legal) nesting has room,
    /// since debug builds spend far more stack per nesting level than release builds.
    public static func run<T: Sendable>(seconds: Double, _ work: @escaping @Sendable () -> T) async -> T? {
        let box = OnceBox<T?>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            box.setContinuation(continuation)
            startThread { box.resume(work()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { box.resume(nil) }
        }
    }

    /// Starts `body` on a new detached thread with a 64 MB stack.
    ///
    /// On Linux this uses pthreads directly: a Foundation `Thread` there crashed on the corpus's
    /// 100 000-level bplist (rejected at depth 512) even with `stackSize` set, while a pthread
    /// of the same size reads it fine.
    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        #if canImport(Glibc)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 64 << 20)
        let job = Unmanaged.passRetained(ThreadJob(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { raw in
                raw.map { Unmanaged<ThreadJob>.fromOpaque($0).takeRetainedValue().body() }
                return nil
            }, job)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread: run here rather than lose the work (only the hang guard is lost).
            Unmanaged<ThreadJob>.fromOpaque(job).release()
            body()
        }
        #else
        let thread = Thread(block: body)
        thread.stackSize = 64 << 20
        thread.start()
        #endif
    }
}

/// The closure a new thread runs, boxed to cross the C boundary.
private final class ThreadJob: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Resumes a continuation exactly once, whichever of the work and the timer comes first.
private final class OnceBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private var pending: T?
    private var resumed = false

    func setContinuation(_ c: CheckedContinuation<T, Never>) {
        lock.lock()
        defer { lock.unlock() }
        if resumed, let value = pending {
            pending = nil
            c.resume(returning: value)
        } else {
            continuation = c
        }
    }

    func resume(_ value: T) {
        lock.lock()
        defer { lock.unlock() }
        guard !resumed else { return }
        resumed = true
        if let c = continuation {
            continuation = nil
            c.resume(returning: value)
        } else {
            pending = value
        }
    }
}
