import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a test's child process ended.
public enum ProcessTermination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a `waitpid` status (WIFEXITED and friends are macros Swift does not import).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "signal \(signal)"
        }
    }
}

/// Starts a child with `posix_spawn`, the one way every test helper here starts one.
///
/// Our ends of its pipes are close-on-exec from the moment they exist, and the child closes every
/// descriptor above 2: a pipe end leaked into a concurrently started child would hold that pipe
/// open, and its reader would wait for that other child's exit instead of this one's.
enum ProcessSpawn {
    enum Input {
        /// A pipe whose write end the caller gets.
        case pipe
        /// `/dev/null`.
        case null
    }

    /// The started child and our ends of its pipes (-1 where there is none).
    struct Child {
        var pid: pid_t
        var input: Int32
        var output: Int32
        var errorOutput: Int32
    }

    /// Starts `executable` (a path; `PATH` is not searched) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: added to this process's own environment, replacing equal names.
    ///   - directory: the child's working directory; this process's when nil.
    ///   - mergeErrorOutput: standard error goes to the standard output pipe, and
    ///     `errorOutput` is -1.
    ///   - newProcessGroup: the child leads a process group of its own, so that a kill of that
    ///     group also reaches what it started (a shell's commands).
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String?,
        input: Input, mergeErrorOutput: Bool, newProcessGroup: Bool
    ) throws -> Child {
        var opened: [Int32] = []
        func closeOpened() { for fd in opened { close(fd) } }
        func makePipe() throws -> (read: Int32, write: Int32) {
            let ends = try closeOnExecPipe()
            opened += [ends.read, ends.write]
            return ends
        }

        do {
            let inputPipe = input == .pipe ? try makePipe() : nil
            let outputPipe = try makePipe()
            let errorPipe = mergeErrorOutput ? nil : try makePipe()

            #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
            #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }

            if let inputPipe {
                posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1)
            posix_spawn_file_actions_adddup2(&actions, errorPipe?.write ?? outputPipe.write, 2)
            #if canImport(Glibc)
            if let closeFrom = GNUExtensions.addCloseFrom() { _ = closeFrom(&actions, 3) }
            if let directory {
                guard let changeDirectory = GNUExtensions.addChangeDirectory() else { throw POSIXError(.ENOSYS) }
                _ = changeDirectory(&actions, directory)
            }
            #else
            if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory) }
            #endif

            // The child starts with no signal blocked and every signal at its default action,
            // whatever this thread blocks or this process ignores (an ignored SIGPIPE would
            // otherwise survive the exec and change how a pipeline in the child ends).
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            var catchable = sigset_t()
            sigemptyset(&catchable)
            for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&catchable, signal) }
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &catchable)
            var flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
            #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
            #endif
            if newProcessGroup {
                flags |= Int32(POSIX_SPAWN_SETPGROUP)
                posix_spawnattr_setpgroup(&attributes, 0)
            }
            posix_spawnattr_setflags(&attributes, Int16(flags))

            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in argv { free(pointer) }
                for pointer in envp { free(pointer) }
            }
            var pid: pid_t = 0
            let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }

            // The child's ends now live in the child only.
            for fd in [inputPipe?.read, outputPipe.write, errorPipe?.write].compactMap({ $0 }) {
                close(fd)
                opened.removeAll { $0 == fd }
            }
            return Child(pid: pid, input: inputPipe?.write ?? -1, output: outputPipe.read, errorOutput: errorPipe?.read ?? -1)
        } catch {
            closeOpened()
            throw error
        }
    }

    /// A pipe whose ends are close-on-exec from the start (on Darwin, which has no `pipe2`,
    /// from just after; children there close what they do not inherit by name instead).
    static func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let made = GNUExtensions.pipe2()?(&fds, O_CLOEXEC) ?? -1
        #else
        let made = pipe(&fds)
        for fd in fds where made == 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard made == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        return (fds[0], fds[1])
    }

    /// The command line as a reader would type it, for failure messages.
    static func commandLine(_ executable: String, _ arguments: [String]) -> String {
        ([executable] + arguments).map { word in
            let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

#if canImport(Glibc)
/// glibc functions the Glibc module does not import (it is built without `_GNU_SOURCE`), looked
/// up by name; nil where this glibc lacks them (`addclosefrom_np` came in 2.34).
private enum GNUExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    static func pipe2() -> Pipe2? { symbol("pipe2") }
    static func addCloseFrom() -> AddCloseFrom? { symbol("posix_spawn_file_actions_addclosefrom_np") }
    static func addChangeDirectory() -> AddChangeDirectory? { symbol("posix_spawn_file_actions_addchdir_np") }

    private static func symbol<Function>(_ name: String) -> Function? {
        // A null handle is RTLD_DEFAULT: the global scope, where libc is.
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
#endif
