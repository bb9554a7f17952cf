import Flowchart

/// The package's seeded generator (SplitMix64), so every randomized case can be re-run
/// from its seed.
typealias SeededGenerator = SplitMix64
