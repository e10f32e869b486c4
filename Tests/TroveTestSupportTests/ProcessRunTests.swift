import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ProcessRun: children run to their end under a time limit")
struct ProcessRunTests {
    static let shell = "/bin/sh"

    @Test("a child sleeping past its limit is killed, with its process group, and the failure names command and limit")
    func timeLimit() async throws {
        // The shell prints the pid of a grandchild it puts in the background, which the group
        // kill must reach as well: left alive, it would hold the output pipe open.
        let run = try ProcessRun(Self.shell, ["-c", "sleep 60 & echo $!; sleep 60"], timeLimit: .seconds(1))
        let failure = try await #require(throws: ProcessRun.TimeLimitExceeded.self) { try await run.output() }
        #expect(failure.termination == .signaled(SIGKILL))
        #expect(failure.description.contains("/bin/sh -c 'sleep 60 & echo $!; sleep 60'"), "\(failure)")
        #expect(failure.description.contains("time limit of 1.0 s"), "\(failure)")
        // Given up on soon after the limit, not after the children's 60 s. Measured by the run,
        // not by this test's clock, which also counts how long a busy pool kept this task waiting.
        #expect(failure.elapsed < .seconds(10), "gave up after \(failure.elapsed)")
        let grandchild = try #require(pid_t(failure.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(failure)")
        #expect(Self.isGone(grandchild), "the background sleep \(grandchild) survived the kill")
        #expect(Self.isGone(run.pid))
    }

    @Test("the blocking variant enforces the limit too")
    func blockingTimeLimit() throws {
        let failure = #expect(throws: ProcessRun.TimeLimitExceeded.self) {
            try ProcessRun.runBlocking(Self.shell, ["-c", "echo started; exec sleep 60"], timeLimit: .milliseconds(500))
        }
        #expect(failure?.stdoutText == "started\n")
        #expect(failure?.termination == .signaled(SIGKILL))
    }

    @Test("4 MB through standard input, echoed to both outputs, neither deadlocks nor loses a byte")
    func largeOutputOnBothStreams() async throws {
        var random = SplitMix(seed: 0xB16)
        let input = Data((0..<(4 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        // tee writes each block to stdout and stderr in turn: reading one stream to its end
        // before the other would stall it on a full pipe.
        let output = try await ProcessRun.run("/usr/bin/env", ["tee", "/dev/stderr"], stdin: input, timeLimit: .seconds(120))
        #expect(output.termination == .exited(0), "\(output.stderrText.prefix(200))")
        #expect(output.stdout.count == input.count && output.stdout == input)
        #expect(output.stderr.count == input.count && output.stderr == input)
    }

    @Test("a child that writes one stream full before touching the other does not deadlock")
    func oneStreamThenTheOther() throws {
        let script = "head -c 1000000 /dev/zero >&2; head -c 1000000 /dev/zero; echo done >&2"
        let output = try ProcessRun.runBlocking(Self.shell, ["-c", script], timeLimit: .seconds(120))
        #expect(output.termination == .exited(0))
        #expect(output.stdout == Data(count: 1_000_000))
        #expect(output.stderr == Data(count: 1_000_000) + Data("done\n".utf8))
    }

    @Test("a child that ignores its input still ends the run, and merged output keeps the child's order")
    func ignoredInputAndMergedOutput() async throws {
        let output = try await ProcessRun.run(
            Self.shell, ["-c", "echo one; echo two >&2; echo three"], stdin: Data(count: 1 << 20), mergeStandardError: true,
            timeLimit: .seconds(60))
        #expect(output.termination == .exited(0))
        #expect(output.stdoutText == "one\ntwo\nthree\n")
        #expect(output.stderr.isEmpty)
    }

    @Test("exit codes and signals are reported as the child ended")
    func exitStatusAndSignal() async throws {
        let failed = try await ProcessRun.run(Self.shell, ["-c", "exit 3"], timeLimit: .seconds(60))
        #expect(failed.termination == .exited(3) && failed.status == 3)
        let terminated = try await ProcessRun.run(Self.shell, ["-c", "kill -TERM $$"], timeLimit: .seconds(60))
        #expect(terminated.termination == .signaled(SIGTERM) && terminated.status == SIGTERM)

        let sleeper = try ProcessRun(Self.shell, ["-c", "exec sleep 60"], timeLimit: .seconds(60))
        sleeper.send(SIGKILL)
        let killed = try await sleeper.output()
        #expect(killed.termination == .signaled(SIGKILL))
        #expect(killed.duration < .seconds(30), "\(killed.duration)")
    }

    @Test("environment and working directory reach the child; a missing executable throws at once")
    func environmentAndDirectory() async throws {
        let directory = try TemporaryDirectory()
        let output = try await ProcessRun.run(
            Self.shell, ["-c", "pwd; echo \"$TROVE_PROCESS_RUN_TEST\""], environment: ["TROVE_PROCESS_RUN_TEST": "seen"],
            directory: directory.url.path, timeLimit: .seconds(60))
        let expectedDirectory = URL(fileURLWithPath: directory.url.path).resolvingSymlinksInPath().path
        #expect(output.stdoutText == "\(expectedDirectory)\nseen\n")
        #expect(throws: POSIXError.self) { try ProcessRun("/nonexistent/trove-no-such-program", []) }
    }

    /// While every thread of the concurrency pool spins, 50 children must still be seen to end
    /// and be collected at once: their waits must not need the pool, as a loop that sleeps
    /// until a child is gone does.
    @Test("50 children started while the pool is saturated are all collected promptly")
    func manyChildrenUnderABusyPool() async throws {
        let runs = try (0..<50).map { n in
            try ProcessRun(Self.shell, ["-c", "sleep 0.2; echo \(n)"], timeLimit: .seconds(120))
        }
        // Every spinner stops at one moment, so that those the pool only starts once others
        // end do not prolong the saturation.
        let spin = Duration.seconds(8)
        let end = ContinuousClock.now + spin
        let spinners = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2)).map { _ in
            Task.detached {
                var sum: UInt64 = 0
                while ContinuousClock.now < end { sum &+= 1 }
                return sum
            }
        }
        var outputs: [ProcessRun.Output] = []
        for run in runs { outputs.append(try await run.output()) }
        for spinner in spinners { _ = await spinner.value }
        for (n, output) in outputs.enumerated() {
            #expect(output.termination == .exited(0) && output.stdoutText == "\(n)\n")
            // Every child was started before the spinners, so a completion shorter than the spin
            // came while they still held every pool thread; a second's margin for the children,
            // which share the cores with the spinners.
            #expect(output.completion < spin - .seconds(1), "child \(n) was collected only after \(output.completion)")
        }
    }

    /// True once `pid` is no process, or only a zombie nobody has reaped yet (a container's
    /// first process may never reap what it inherits). It blocks rather than sleeps in a task:
    /// the kill is already delivered, and a task's sleep can last minutes on a busy pool.
    static func isGone(_ pid: pid_t) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard kill(pid, 0) == 0 else { return true }
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let state = stat.split(separator: ")").last?.split(separator: " ").first, state == "Z"
            {
                return true
            }
            usleep(10_000)
        }
        return false
    }
}
