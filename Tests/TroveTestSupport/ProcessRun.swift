import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process run to its end under a time limit: what tests use to run the `trove` CLI,
/// plutil, python3 or a helper executable and look at what it printed and how it ended.
///
/// Nothing here waits on a thread of the concurrency pool. Swift Testing runs tests concurrently
/// on that pool, which has one thread per core; a test blocked there in `waitUntilExit()` starves
/// every other test's tasks, and a loop that sleeps until the child is gone needs a pool thread to
/// notice the exit at all. So each child gets two threads of its own: one blocks in `waitid` until
/// the child ends, and one feeds standard input and drains both outputs with `poll` (so that a
/// child filling one pipe while we wait on the other cannot deadlock) and enforces the time
/// limit. The test's task is resumed once, when everything is in.
///
/// A child still running at its time limit is killed with SIGKILL, together with its process
/// group (it leads one of its own, so a shell's commands go too), and the wait throws
/// ``TimeLimitExceeded`` naming the command and the limit. A child that hangs thus fails its
/// test instead of hanging the whole suite.
public final class ProcessRun: Sendable {
    /// What a finished child left behind.
    public struct Output: Sendable {
        public var command: String
        public var termination: ProcessTermination
        public var stdout: Data
        /// Empty when standard error was merged into standard output.
        public var stderr: Data
        /// From the spawn to the exit as the waiting thread saw it: what a speed check should
        /// use, since the test's own clock also counts the time its task waited for a thread.
        public var duration: Duration
        /// From the spawn to the moment both outputs were complete and the result was handed over.
        public var completion: Duration

        /// The exit code; for a child ended by a signal, the signal's number (as Foundation's
        /// `Process.terminationStatus` has it).
        public var status: Int32 {
            switch termination {
            case .exited(let code): return code
            case .signaled(let signal): return signal
            }
        }

        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
        public var seconds: Double { duration.seconds }

        /// Standard output as text without its final newline: the lines the child printed,
        /// joined, as tests compare them.
        public var printedLines: String {
            let text = stdoutText
            return text.hasSuffix("\n") ? String(text.dropLast()) : text
        }
    }

    /// The child did not finish within its time limit and was killed.
    public struct TimeLimitExceeded: Error, CustomStringConvertible, Sendable {
        public var command: String
        public var timeLimit: Duration
        /// How the child ended after the kill; nil when it had already exited (something it
        /// started kept its output open) or did not end even after SIGKILL.
        public var termination: ProcessTermination?
        public var what: String
        /// From the spawn to the moment the collector gave up on the child.
        public var elapsed: Duration
        /// What it printed before the kill.
        public var stdout: Data
        public var stderr: Data

        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }

        public var description: String {
            func tail(_ data: Data) -> String {
                let text = String(decoding: data.suffix(1_000), as: UTF8.self)
                return text.isEmpty ? "nothing" : "\"\(data.count > 1_000 ? "…" : "")\(text)\""
            }
            return "`\(command)` did not finish within its time limit of \(timeLimit.seconds) s: \(what). "
                + "Standard output so far: \(tail(stdout)); standard error so far: \(tail(stderr))"
        }
    }

    /// The limit when a caller sets none: far above any run that works (a debug build on a busy
    /// two-core machine included), far below CI's budget for the whole suite.
    public static let defaultTimeLimit: Duration = .seconds(300)

    /// How long the collector waits for a killed child to be reaped before it gives up on it.
    static let killGrace: Duration = .seconds(10)

    /// How long after the child's exit its pipes may stay quiet before the collector stops
    /// reading: a grandchild, or a process that inherited a pipe end, may hold them open forever.
    static let quietAfterExit: Duration = .milliseconds(250)

    public let pid: pid_t
    public let command: String
    public let timeLimit: Duration
    private let state: RunState

    /// Starts `executable` (a path) with `arguments`. The time limit counts from here.
    ///
    /// - Parameters:
    ///   - stdin: fed to the child's standard input through a pipe, which is then closed;
    ///     standard input is `/dev/null` when nil.
    ///   - environment: added to this process's environment, replacing equal names.
    ///   - directory: the child's working directory.
    ///   - mergeStandardError: standard error goes to the standard output pipe, in the order
    ///     the child wrote them.
    public init(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        directory: String? = nil, mergeStandardError: Bool = false, timeLimit: Duration = ProcessRun.defaultTimeLimit
    ) throws {
        let commandLine = ProcessSpawn.commandLine(executable, arguments)
        command = commandLine
        self.timeLimit = timeLimit
        let notify = try ProcessSpawn.closeOnExecPipe()
        let child: ProcessSpawn.Child
        do {
            child = try ProcessSpawn.start(
                executable, arguments, environment: environment, directory: directory, input: stdin == nil ? .null : .pipe,
                mergeErrorOutput: mergeStandardError, newProcessGroup: true)
        } catch {
            close(notify.read)
            close(notify.write)
            throw error
        }
        pid = child.pid
        let state = RunState(pid: child.pid, leadsGroup: true)
        self.state = state
        let started = ContinuousClock.now

        Self.startThread(name: "ProcessRun wait \(child.pid)") {
            state.waitForExit()
            var byte: UInt8 = 1
            _ = write(notify.write, &byte, 1)
            close(notify.write)
        }
        let collector = Collector(
            command: commandLine, timeLimit: timeLimit, started: started, input: child.input, stdin: stdin ?? Data(),
            output: child.output, errorOutput: child.errorOutput, exitNotification: notify.read, state: state)
        Self.startThread(name: "ProcessRun collect \(child.pid)") { state.finish(collector.run()) }
    }

    deinit {
        // A run dropped before its end (a test that threw early) is not left to its time limit.
        state.killIfRunning()
    }

    /// Runs a child to its end; see ``init(_:_:stdin:environment:directory:mergeStandardError:timeLimit:)``.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        directory: String? = nil, mergeStandardError: Bool = false, timeLimit: Duration = defaultTimeLimit
    ) async throws -> Output {
        try await ProcessRun(
            executable, arguments, stdin: stdin, environment: environment, directory: directory,
            mergeStandardError: mergeStandardError, timeLimit: timeLimit
        ).output()
    }

    /// ``run(_:_:stdin:environment:directory:mergeStandardError:timeLimit:)`` for synchronous
    /// callers (a static property's initializer, a test that must not suspend): it blocks the
    /// calling thread, still no longer than the time limit allows.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        directory: String? = nil, mergeStandardError: Bool = false, timeLimit: Duration = defaultTimeLimit
    ) throws -> Output {
        try ProcessRun(
            executable, arguments, stdin: stdin, environment: environment, directory: directory,
            mergeStandardError: mergeStandardError, timeLimit: timeLimit
        ).blockingOutput()
    }

    /// Sends `signal` to the child (not to its group), unless it has already exited.
    public func send(_ signal: Int32) { state.send(signal) }

    /// Waits, suspended, for the child's end and its whole output.
    public func output() async throws -> Output {
        try await withCheckedContinuation { continuation in state.whenFinished { continuation.resume(returning: $0) } }.get()
    }

    /// Waits, blocking this thread, for the child's end and its whole output.
    public func blockingOutput() throws -> Output { try state.blockingResult().get() }

    private static func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}

/// The child's lifecycle and the run's result, shared by the waiting thread, the collecting
/// thread and whoever awaits the result.
private final class RunState: @unchecked Sendable {
    // Unchecked: every field is touched only under `condition`.
    private let condition = NSCondition()
    private let pid: pid_t
    private let leadsGroup: Bool
    private var exited = false
    private var exitInstant: ContinuousClock.Instant?
    private var termination: ProcessTermination?
    private var result: Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded>?
    private var waiters: [@Sendable (Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded>) -> Void] = []

    init(pid: pid_t, leadsGroup: Bool) {
        self.pid = pid
        self.leadsGroup = leadsGroup
    }

    /// Blocks until the child ends, then reaps it. It is marked exited before it is reaped, so
    /// that a signal sent meanwhile reaches the zombie and never a process that reused its pid.
    func waitForExit() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        condition.withLock {
            exited = true
            exitInstant = .now
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        condition.withLock {
            exitInstant = exitInstant ?? .now
            termination = ProcessTermination(waitStatus: status)
        }
    }

    /// The exit's moment and how the child ended, once it was reaped.
    var ending: (instant: ContinuousClock.Instant, termination: ProcessTermination)? {
        condition.withLock {
            guard let exitInstant, let termination else { return nil }
            return (exitInstant, termination)
        }
    }

    func send(_ signal: Int32) {
        condition.withLock { if !exited { kill(pid, signal) } }
    }

    /// SIGKILL to the child and, when it leads one, its process group; the group is killed even
    /// after the child exited, since what it started may still hold the pipes.
    func killChild() {
        condition.withLock {
            if leadsGroup { kill(-pid, SIGKILL) }
            if !exited { kill(pid, SIGKILL) }
        }
    }

    func killIfRunning() {
        let running = condition.withLock { result == nil }
        if running { killChild() }
    }

    func finish(_ value: Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded>) {
        let toResume = condition.withLock {
            result = value
            condition.broadcast()
            defer { waiters = [] }
            return waiters
        }
        for waiter in toResume { waiter(value) }
    }

    func whenFinished(_ waiter: @escaping @Sendable (Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded>) -> Void) {
        let ready: Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded>? = condition.withLock {
            if result == nil { waiters.append(waiter) }
            return result
        }
        if let ready { waiter(ready) }
    }

    func blockingResult() -> Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded> {
        condition.withLock {
            while result == nil { condition.wait() }
            return result!
        }
    }
}

/// The collecting thread's work: feeds standard input, drains both outputs, notices the exit,
/// and kills the child at its time limit.
private struct Collector: Sendable {
    let command: String
    let timeLimit: Duration
    let started: ContinuousClock.Instant
    let input: Int32
    let stdin: Data
    let output: Int32
    let errorOutput: Int32
    let exitNotification: Int32
    let state: RunState

    func run() -> Result<ProcessRun.Output, ProcessRun.TimeLimitExceeded> {
        // A child that stops reading its input makes our write fail with EPIPE; the SIGPIPE that
        // comes with it must stay pending on this thread rather than end the test process.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

        var input = self.input
        var output = self.output
        var errorOutput = self.errorOutput
        var exitNotification = self.exitNotification
        defer { for fd in [input, output, errorOutput, exitNotification] where fd >= 0 { close(fd) } }
        for fd in [input, output, errorOutput] where fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let bytes = [UInt8](stdin)
        var written = 0
        if input >= 0 && bytes.isEmpty {
            close(input)
            input = -1
        }

        var collected: [[UInt8]] = [[], []]
        let deadline = started + timeLimit
        var exitSeen: ContinuousClock.Instant?
        var lastRead = started
        var killedAt: ContinuousClock.Instant?
        var what = ""
        var buffer = [UInt8](repeating: 0, count: 1 << 16)

        /// Reads what is there; false at the end of the stream (or an error, which ends it too).
        func drain(_ fd: Int32, into slot: Int) -> Bool {
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[slot] += buffer[0..<count]
                    lastRead = .now
                    continue
                }
                if count < 0 && errno == EINTR { continue }
                return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            }
        }

        while true {
            let now = ContinuousClock.now
            if exitSeen != nil && output < 0 && errorOutput < 0 { break }
            if killedAt == nil && now >= deadline {
                state.killChild()
                killedAt = now
                what = exitSeen == nil
                    ? "killed it and its process group with SIGKILL"
                    : "it had exited, but something it started kept its output open; killed its process group with SIGKILL"
            }
            if let killedAt, now >= killedAt + ProcessRun.killGrace {
                if exitSeen == nil { what += ", and it had not ended \(ProcessRun.killGrace.seconds) s later" }
                break
            }
            if let exitSeen, killedAt == nil, now >= max(exitSeen, lastRead) + ProcessRun.quietAfterExit { break }

            var wake = killedAt.map { $0 + ProcessRun.killGrace } ?? deadline
            if let exitSeen { wake = min(wake, max(exitSeen, lastRead) + ProcessRun.quietAfterExit) }
            let left = wake - now
            let milliseconds = Int32(clamping: max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))

            var fds: [pollfd] = []
            if input >= 0 { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            if output >= 0 { fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
            if errorOutput >= 0 { fds.append(pollfd(fd: errorOutput, events: Int16(POLLIN), revents: 0)) }
            if exitNotification >= 0 { fds.append(pollfd(fd: exitNotification, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }

            for entry in fds where entry.revents != 0 {
                if entry.fd == input {
                    let count = bytes.withUnsafeBytes { write(input, $0.baseAddress! + written, min($0.count - written, 1 << 16)) }
                    if count > 0 { written += count }
                    let blocked = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                    if written == bytes.count || (count < 0 && !blocked) {
                        close(input)
                        input = -1
                    }
                } else if entry.fd == output {
                    if !drain(output, into: 0) {
                        close(output)
                        output = -1
                    }
                } else if entry.fd == errorOutput {
                    if !drain(errorOutput, into: 1) {
                        close(errorOutput)
                        errorOutput = -1
                    }
                } else if entry.fd == exitNotification {
                    close(exitNotification)
                    exitNotification = -1
                    exitSeen = .now
                }
            }
        }

        let ending = state.ending
        if killedAt != nil || ending == nil {
            return .failure(
                ProcessRun.TimeLimitExceeded(
                    command: command, timeLimit: timeLimit, termination: ending?.termination, what: what,
                    elapsed: .now - started, stdout: Data(collected[0]), stderr: Data(collected[1])))
        }
        let (exitInstant, termination) = ending!
        return .success(
            ProcessRun.Output(
                command: command, termination: termination, stdout: Data(collected[0]), stderr: Data(collected[1]),
                duration: exitInstant - started, completion: .now - started))
    }
}

extension Duration {
    /// The duration in seconds, for messages and speed checks.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
