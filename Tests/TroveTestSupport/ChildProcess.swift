import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for tests that kill it, feed it, or read what it
/// says line by line with a bounded wait. Foundation's `Process` cannot deliver SIGKILL at a
/// chosen moment cheaply or give a line with a timeout; this can.
///
/// Standard output and standard error both go to one pipe the test reads; standard input is a
/// pipe the test may close (children that wait for it then go on).
public final class ChildProcess {
    /// How a child ended.
    public typealias Termination = ProcessTermination

    public let pid: pid_t
    /// The command line, for failure messages.
    public let command: String
    private var outputFD: Int32
    private var inputFD: Int32
    private var pending: [UInt8] = []
    private var termination: Termination?

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let child = try ProcessSpawn.start(
            executable, arguments, environment: environment, directory: nil, input: .pipe, mergeErrorOutput: true,
            newProcessGroup: false)
        pid = child.pid
        command = ProcessSpawn.commandLine(executable, arguments)
        outputFD = child.output
        inputFD = child.input
    }

    deinit {
        if termination == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
        closeInput()
        if outputFD >= 0 { close(outputFD) }
    }

    /// The next line the child prints (without its newline), or nil when it ends its output or
    /// `timeout` passes first.
    public func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero, outputFD >= 0 else { return nil }
            var poller = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(outputFD, &buffer, buffer.count)
            if count <= 0 {
                if !pending.isEmpty {
                    let line = String(decoding: pending, as: UTF8.self)
                    pending = []
                    return line
                }
                return nil
            }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    /// Everything the child prints until it closes its output (or `timeout` passes).
    public func readRemaining(timeout: Duration = .seconds(30)) -> String {
        var lines: [String] = []
        while let line = readLine(timeout: timeout) { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// Closes the child's standard input.
    public func closeInput() {
        if inputFD >= 0 { close(inputFD) }
        inputFD = -1
    }

    /// Sends `signal`.
    public func send(_ signal: Int32) {
        if termination == nil { kill(pid, signal) }
    }

    /// Waits for the child to end. A child still running after `limit` is killed with SIGKILL
    /// and the test records an issue naming the command and the limit, so that a hung child
    /// fails its test instead of hanging the suite.
    @discardableResult
    public func wait(limit: Duration = ProcessRun.defaultTimeLimit, sourceLocation: SourceLocation = #_sourceLocation) -> Termination {
        if let termination = wait(timeout: limit) { return termination }
        Issue.record("`\(command)` did not end within its time limit of \(limit.seconds) s; killed it with SIGKILL", sourceLocation: sourceLocation)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let result = Termination(waitStatus: status)
        termination = result
        return result
    }

    /// Waits at most `timeout` for the child to end; nil when it is still running.
    public func wait(timeout: Duration) -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination { return termination }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                termination = Termination(waitStatus: status)
                return termination
            }
            usleep(2_000)
        }
        return termination
    }
}
