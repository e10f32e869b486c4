import BenchmarkModels
import Foundation

/// How long and how often each operation is timed.
struct RunPlan {
    let name: String
    /// Untimed runs of every engine first: caches, lazily loaded code and allocator pools.
    let warmups: Int
    /// Target timing per engine and operation; the run count is derived from the warm-up time.
    let budgetPerEngine: Duration
    let minimumRuns: Int
    let maximumRuns: Int
    /// A run at least this long is too slow to spend on warming up: one-time costs are noise
    /// beside it, so it counts as the first sample.
    let slowRun: Duration
    /// Time an engine may spend on one operation once its runs are slow; it gets at least one
    /// run and at most `minimumRuns`. This keeps a slow peer (Foundation encodes some 10 MB
    /// inputs at 2 MB/s) from dominating the whole benchmark.
    let slowEngineBudget: Duration

    static let quick = RunPlan(
        name: "quick", warmups: 1, budgetPerEngine: .milliseconds(150), minimumRuns: 3, maximumRuns: 25,
        slowRun: .milliseconds(250), slowEngineBudget: .seconds(1))
    static let standard = RunPlan(
        name: "default", warmups: 2, budgetPerEngine: .milliseconds(300), minimumRuns: 5, maximumRuns: 40,
        slowRun: .milliseconds(250), slowEngineBudget: .seconds(2))
    static let full = RunPlan(
        name: "full", warmups: 3, budgetPerEngine: .seconds(3), minimumRuns: 15, maximumRuns: 500,
        slowRun: .seconds(2), slowEngineBudget: .seconds(30))
}

/// What became of one engine on one operation.
enum EngineOutcome {
    case measured(median: Duration, runs: Int)
    case failed(String)

    var median: Duration? {
        if case .measured(let median, _) = self { return median }
        return nil
    }
}

/// The timing of one operation of one case, per engine.
struct OperationResult {
    let caseName: String
    let operation: String
    let bytesPerRun: Int
    let outcomes: [String: EngineOutcome]
    /// Memory per engine, filled in by the memory probes.
    var memory: [String: MemoryUse] = [:]

    /// Throughput in MB/s (10^6 bytes per second) of the operation's reference document.
    func throughput(_ engine: String) -> Double? {
        guard let median = outcomes[engine]?.median else { return nil }
        let seconds = Double(median.components.seconds) + Double(median.components.attoseconds) * 1e-18
        return seconds > 0 ? Double(bytesPerRun) / 1e6 / seconds : nil
    }
}

/// Times the engines of each operation in the same process, alternating between them run by
/// run, so that a change in machine load affects all engines alike.
struct Runner {
    let plan: RunPlan
    /// Whether to gauge each engine's peak memory growth on its last warm-up run.
    let gaugesMemory: Bool
    /// Whether each timed run follows an untimed run of the same engine (see `measure`).
    let settles: Bool
    private let clock = ContinuousClock()

    init(plan: RunPlan, gaugesMemory: Bool, settles: Bool = true) {
        self.plan = plan
        self.gaugesMemory = gaugesMemory
        self.settles = settles
    }

    /// Runs every operation of a case. `scratch` holds one ``EngineScratch`` per engine name,
    /// possibly pre-filled (the corpus check leaves the decoded values there).
    func run(_ benchmark: BenchmarkCase, scratch: [String: EngineScratch]) -> [OperationResult] {
        benchmark.operations.map { operation in
            let (outcomes, growth) = measure(operation, scratch: scratch)
            return OperationResult(caseName: benchmark.name, operation: operation.name, bytesPerRun: operation.bytesPerRun,
                                   outcomes: outcomes, memory: growth)
        }
    }

    private func measure(_ operation: BenchmarkOperation, scratch: [String: EngineScratch]) -> ([String: EngineOutcome], [String: MemoryUse]) {
        var outcomes: [String: EngineOutcome] = [:]
        var growth: [String: MemoryUse] = [:]
        var bodies: [(engine: String, body: TimedBody)] = []
        for run in operation.engines {
            do {
                bodies.append((run.engine, try run.prepare(scratch[run.engine] ?? EngineScratch())))
            } catch {
                outcomes[run.engine] = .failed("\(error)")
            }
        }

        // Warm-up, which also decides each engine's number of timed runs and gauges its memory
        // (the last warm-up run has its code paged in and its one-time setup done).
        var samples: [String: [Duration]] = [:]
        var wanted: [String: Int] = [:]
        var settling: Set<String> = []
        for (engine, body) in bodies {
            var last = Duration.zero
            for warmup in 0..<max(plan.warmups, 1) {
                let gauge = gaugesMemory ? MemoryGauge.start() : nil
                switch time(body, gauge: gauge) {
                case .success(let (elapsed, use)):
                    last = elapsed
                    if let use { growth[engine] = use }
                case .failure(let error): outcomes[engine] = .failed("\(error)")
                }
                guard outcomes[engine] == nil else { break }
                if last >= plan.slowRun {
                    if warmup == 0 { samples[engine] = [last] }
                    break
                }
            }
            guard outcomes[engine] == nil else { continue }
            wanted[engine] = runCount(estimate: last)
            // A slow run's own work dwarfs what it inherits; settling it would double the time of
            // the slowest engines for nothing.
            if settles && last < plan.slowRun { settling.insert(engine) }
        }

        // Timed runs, alternating between engines; an engine with enough samples sits out.
        let live = bodies.filter { outcomes[$0.engine] == nil }
        // Each round runs the engines in a new order, and (unless `settles` is off) every timed
        // run shorter than `plan.slowRun` follows an untimed run of the same engine. A run
        // inherits the state its predecessor left: the caches it filled, and the allocator's free
        // lists after its tree was released.
        // glibc defers merging small freed chunks until the next request of 1 KB or more, so the
        // engine that runs next pays for its predecessor's frees: a 1.2 KB binary decode that
        // takes 5 us takes 12 us after 1,000 small chunks were freed, 75 us after 10,000.
        // libplist allocates only small nodes and never pays; Trove's arrays and scratch buffers
        // do. Rotating one fixed order kept Trove behind libplist in every round (and Trove's
        // lossless column, which does strictly more work, behind Trove, where it measured
        // faster). The settling run makes each engine pay for its own garbage, as it would in a
        // loop of its own; the shuffle, with a fixed seed, spreads load changes over all engines.
        var orders = SeededGenerator(seed: 0x0DE5_1A7E)
        while live.contains(where: { (samples[$0.engine]?.count ?? 0) < (wanted[$0.engine] ?? 0) && outcomes[$0.engine] == nil }) {
            for (engine, body) in live.shuffled(using: &orders) {
                guard outcomes[engine] == nil, (samples[engine]?.count ?? 0) < (wanted[engine] ?? 0) else { continue }
                if settling.contains(engine), case .failure(let error) = time(body, gauge: nil) {
                    outcomes[engine] = .failed("\(error)")
                    continue
                }
                switch time(body, gauge: nil) {
                case .success(let (elapsed, _)): samples[engine, default: []].append(elapsed)
                case .failure(let error): outcomes[engine] = .failed("\(error)")
                }
            }
        }
        for (engine, durations) in samples where outcomes[engine] == nil && !durations.isEmpty {
            outcomes[engine] = .measured(median: median(durations), runs: durations.count)
        }
        return (outcomes, growth)
    }

    /// Timed runs for an engine whose warm-up run took `estimate`.
    private func runCount(estimate: Duration) -> Int {
        if estimate >= plan.slowRun {
            return min(max(Int(plan.slowEngineBudget / estimate), 1), plan.minimumRuns)
        }
        let affordable = estimate > .zero ? Int(plan.budgetPerEngine / estimate) : plan.maximumRuns
        return min(max(affordable, plan.minimumRuns), plan.maximumRuns)
    }

    /// Times one call; the result is released only after the clock has been read and, with a
    /// gauge, after the peak and what the result holds have been read.
    private func time(_ body: TimedBody, gauge: MemoryGauge?) -> Result<(Duration, MemoryUse?), any Error> {
        let start = clock.now
        let produced: Any
        do {
            produced = try body()
        } catch {
            return .failure(error)
        }
        let elapsed = clock.now - start
        let use = gauge?.use()
        withExtendedLifetime(produced) {}
        return .success((elapsed, use))
    }

    private func median(_ durations: [Duration]) -> Duration {
        let sorted = durations.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
