/// SplitMix64: a small, well-mixed generator whose sequence is the same on every machine and
/// every run, so that a randomized test checks the same values each time and a failure can be
/// reproduced from its seed.
///
/// Every test target draws from this one copy; a test that needs its own stream derives its own
/// seed at the call site (`SplitMix(seed: UInt64(seed) &* 7919)`), so changing one test's seed
/// never shifts another's values.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` by plain remainder of one draw. Slightly biased, but it uses
    /// exactly one draw, which keeps the tests' recorded sequences; `Int.random(in:using:)`
    /// may draw more than once and so picks other values from the same seed.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
