import Foundation
import Trove

/// Converts many files in parallel, one task per file on all cores, and reports as it goes.
///
/// Each file is converted exactly as a single-file `convert` would convert it (read, convert,
/// write atomically), so a failed file is left untouched and the others still convert. Outcomes
/// are gathered by the one task that runs the loop, so the counters and the display need no locks.
struct BatchConversion: Sendable {
    let plan: ConversionPlan
    let verbose: Bool
    let silent: Bool

    /// What happened to one file.
    struct Outcome: Sendable {
        let job: BatchJob
        let destination: OutputTarget?
        let result: Result<(read: Int, written: Int), PlistError>
    }

    /// Running totals for the summary line.
    struct Totals: Equatable {
        var converted = 0
        var failed = 0
        var bytesRead = 0
        var bytesWritten = 0

        var done: Int { converted + failed }
    }

    /// ``run(_:)`` from synchronous code: the batch runs on the concurrency runtime's threads
    /// while the calling thread waits. The rest of the CLI is synchronous and runs on the main
    /// thread, so only a directory conversion starts those threads.
    func runWaiting(_ collected: sending BatchInputs.Collected) -> Bool {
        let outcome = BatchOutcome()
        let done = DispatchSemaphore(value: 0)
        Task { [self] in
            outcome.succeeded = await run(collected)
            done.signal()
        }
        done.wait()
        return outcome.succeeded
    }

    /// Converts every job and prints the summary; true when nothing failed.
    func run(_ collected: BatchInputs.Collected) async -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        let jobs = collected.jobs
        var display = ProgressDisplay(total: jobs.count, isEnabled: !silent && ProgressDisplay.standardErrorIsTerminal)
        var totals = Totals()
        for failure in collected.failures {
            totals.failed += 1
            display.printLine(Console.describe(failure.error, file: failure.path))
        }
        display.update(done: 0, bytesRead: 0, elapsed: .zero, force: true)

        let parallelism = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: Outcome.self) { group in
            var nextJob = 0
            // Only `parallelism` files are in flight at once, so memory stays bounded by the
            // largest few files rather than growing with the number of files.
            while nextJob < jobs.count, nextJob < parallelism {
                let job = jobs[nextJob]
                group.addTask { convert(job) }
                nextJob += 1
            }
            for await outcome in group {
                record(outcome, into: &totals, display: &display)
                display.update(done: totals.done, bytesRead: totals.bytesRead, elapsed: clock.now - start)
                if nextJob < jobs.count {
                    let job = jobs[nextJob]
                    group.addTask { convert(job) }
                    nextJob += 1
                }
            }
        }
        display.clear()
        if !silent {
            Console.reportLine(Self.summary(totals, elapsed: clock.now - start))
        }
        return totals.failed == 0
    }

    /// Counts an outcome and prints its line: every failure, and each success with `-v`.
    private func record(_ outcome: Outcome, into totals: inout Totals, display: inout ProgressDisplay) {
        let name = InputFile.displayName(for: outcome.job.input)
        switch outcome.result {
        case .success(let bytes):
            totals.converted += 1
            totals.bytesRead += bytes.read
            totals.bytesWritten += bytes.written
            if verbose, !silent {
                let destination = outcome.destination?.filePath ?? "<stdout>"
                display.printLine("\(name) -> \(destination)")
            }
        case .failure(let error):
            totals.failed += 1
            display.printLine(Console.describe(error, file: name))
        }
    }

    /// Converts one file; never throws, so one failure cannot cancel the others.
    private func convert(_ job: BatchJob) -> Outcome {
        let input = InputFile(path: job.input)
        let destination: OutputTarget
        do {
            destination = try self.destination(for: job, input: input)
        } catch {
            return Outcome(job: job, destination: nil, result: .failure(error))
        }
        do {
            return Outcome(job: job, destination: destination, result: .success(try plan.convert(input, to: destination)))
        } catch {
            return Outcome(job: job, destination: destination, result: .failure(error))
        }
    }

    /// Where a job's result goes: into the mirrored tree (creating its directories), or where a
    /// single-file convert would put it.
    private func destination(for job: BatchJob, input: InputFile) throws(PlistError) -> OutputTarget {
        guard let mirrored = job.mirroredPath else { return plan.destination(for: input, outputPath: nil) }
        let path = plan.outputExtension.map { OutputTarget.replacingExtension(of: mirrored, with: $0) } ?? mirrored
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw PlistError(.io, "\(directory): cannot create directory: \((error as NSError).localizedDescription)")
            }
        }
        return .file(path)
    }

    /// `12 files converted, 1 failed; 1.2 MB read, 3.4 MB written in 0.25 s`.
    static func summary(_ totals: Totals, elapsed: Duration) -> String {
        let files = totals.converted == 1 ? "1 file" : "\(totals.converted) files"
        return "\(files) converted, \(totals.failed) failed; "
            + "\(ByteCountText.format(totals.bytesRead)) read, \(ByteCountText.format(totals.bytesWritten)) written "
            + "in " + String(format: "%.2f", elapsed.secondsValue) + " s"
    }
}

/// The batch's result, handed from the task that computes it to the thread waiting for it.
/// Unchecked: it is written once, before the semaphore is signalled, and read only after the
/// wait returns, and the semaphore orders the two.
private final class BatchOutcome: @unchecked Sendable {
    var succeeded = false
}
