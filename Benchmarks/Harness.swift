/// Measures elapsed wall-clock time with the monotonic `ContinuousClock`.
enum Stopwatch {
  /// Runs `body` once and returns how long it took, in nanoseconds.
  static func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return Self.nanoseconds(in: clock.now - start)
  }

  /// Runs the asynchronous `body` once and returns how long it took, in nanoseconds.
  static func nanoseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    return Self.nanoseconds(in: clock.now - start)
  }

  private static func nanoseconds(in duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}

/// The values one side of a comparison took over the repetitions, in the row's unit.
struct Samples: Sendable {
  /// Every repetition's value, in the order measured (warm-up excluded).
  private(set) var values: [Double] = []

  /// Adds one repetition's value.
  mutating func append(_ value: Double) {
    values.append(value)
  }

  /// The smallest value: the run least disturbed by the rest of the machine.
  var min: Double { values.min() ?? .nan }

  /// The middle value (the mean of the two middle values for an even count).
  var median: Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}

/// Runs measurements interleaved: every repetition runs each contender once, in turn
/// (A B A B …), so that a slow phase of the shared machine hits all of them alike.
///
/// Each contender returns one repetition's value in the row's unit (for example
/// nanoseconds per transition). One warm-up round runs first and is not recorded.
enum Interleaver {
  /// Measures synchronous contenders; returns one ``Samples`` per contender, in order.
  static func run(
    repetitions: Int, _ contenders: [() throws -> Double]
  ) throws -> [Samples] {
    var samples = [Samples](repeating: Samples(), count: contenders.count)
    for contender in contenders {
      _ = try contender()
    }
    for _ in 0..<repetitions {
      for (index, contender) in contenders.enumerated() {
        samples[index].append(try contender())
      }
    }
    return samples
  }

  /// Measures asynchronous contenders; returns one ``Samples`` per contender, in order.
  static func run(
    repetitions: Int, _ contenders: [() async throws -> Double]
  ) async throws -> [Samples] {
    var samples = [Samples](repeating: Samples(), count: contenders.count)
    for contender in contenders {
      _ = try await contender()
    }
    for _ in 0..<repetitions {
      for (index, contender) in contenders.enumerated() {
        samples[index].append(try await contender())
      }
    }
    return samples
  }
}

/// The sizes and repetition counts of one benchmark run.
struct Configuration: Sendable {
  /// Whether this is the short `--quick` run, which checks that everything builds and runs.
  var isQuick: Bool
  /// Measured repetitions per contender (after one warm-up round).
  var repetitions: Int
  /// Transitions per run of the synchronous cycle.
  var syncTransitions: Int
  /// Transitions per run of the asynchronous cycle.
  var asyncTransitions: Int
  /// Branch counts of the dispatch workloads.
  var dispatchBranches: [Int]
  /// Roughly how many branches each dispatch sample runs in all; small dispatches are
  /// repeated within one sample so that it lasts long enough to time.
  var dispatchBranchesPerSample: Int
  /// Elements of the map workload.
  var mapElements: Int
  /// State counts of the compile and print workloads, smallest first.
  var chartSizes: [Int]
  /// Steps (states entered) of the two memory probes, smaller first.
  var memorySteps: [Int]
  /// Child processes per memory probe and side.
  var memoryRepetitions: Int

  /// The full run: the sizes the benchmark issue asks for. Eleven repetitions, because on a
  /// shared two-core machine a burst of load from another tenant can cover three of seven
  /// samples of one side and decide its median.
  static let full = Configuration(
    isQuick: false, repetitions: 11, syncTransitions: 10_000_000, asyncTransitions: 10_000_000,
    dispatchBranches: [10, 1_000, 10_000], dispatchBranchesPerSample: 50_000,
    mapElements: 100_000,
    chartSizes: [1_000, 10_000, 100_000], memorySteps: [1_000_000, 10_000_000],
    memoryRepetitions: 3)

  /// The `--quick` run: small sizes, few repetitions, a few seconds in all.
  static let quick = Configuration(
    isQuick: true, repetitions: 3, syncTransitions: 200_000, asyncTransitions: 20_000,
    dispatchBranches: [10, 100, 1_000], dispatchBranchesPerSample: 2_000, mapElements: 1_000,
    chartSizes: [100, 1_000, 10_000], memorySteps: [100_000, 1_000_000], memoryRepetitions: 1)
}

/// Formats counts the way the report labels workloads: `1k`, `10k`, `10M`.
func compactCount(_ count: Int) -> String {
  if count >= 1_000_000, count % 1_000_000 == 0 { return "\(count / 1_000_000)M" }
  if count >= 1_000, count % 1_000 == 0 { return "\(count / 1_000)k" }
  return "\(count)"
}
