import Foundation

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
    public enum Termination: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit \(code)"
            case .signaled(let signal): return "signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    private var outputFD: Int32
    private var inputFD: Int32
    private var pending: [UInt8] = []
    private var termination: Termination?

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        var output: [Int32] = [0, 0]
        var input: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&input) == 0 else { throw POSIXError(.EMFILE) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        for fd in [input[0], input[1], output[0], output[1]] { posix_spawn_file_actions_addclose(&actions, fd) }

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(input[0])
        close(output[1])
        guard result == 0 else {
            close(input[1])
            close(output[0])
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL)
        }
        pid = child
        outputFD = output[0]
        inputFD = input[1]
        _ = fcntl(outputFD, F_SETFD, FD_CLOEXEC)
        _ = fcntl(inputFD, F_SETFD, FD_CLOEXEC)
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

    /// Waits for the child to end.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and friends are macros Swift does not import.
        let signal = status & 0x7f
        let result: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
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
                let signal = status & 0x7f
                termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
                return termination
            }
            usleep(2_000)
        }
        return termination
    }
}
