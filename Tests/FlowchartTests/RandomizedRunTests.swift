import Flowchart
import Testing

/// A small, fast, seedable generator (SplitMix64), so every randomized case can be re-run.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The context of a random chart: a value every state transforms, and the trace of the
/// states that ran.
private struct Walk: Sendable, Equatable {
  var value = 1
  var trace: [Int] = []
}

/// A random chart described as plain data, from which both a ``Flowchart`` and a simple
/// reference interpreter are built.
private struct RandomPlan {
  enum Kind {
    /// Transforms the value, then goes on to the next state.
    case action
    /// Decides `value % modulus == 0`; yes jumps to `yes`, no goes on to the next state.
    case condition(modulus: Int, yes: Jump)
    /// Decides `value % 3`; keys 0 and 1 jump, key 2 goes on to the next state.
    case multiple(zero: Jump, one: Jump)
    /// The last state: a final action, condition or multiple condition.
    case finalAction
    case finalCondition
    case finalMultiple
  }

  /// Where a yes or keyed exit leads.
  enum Jump {
    /// A `GoTo` to another state of the chart.
    case state(Int)
    /// An inline final action.
    case final
  }

  var kinds: [Kind]
  var isAsynchronous: [Bool]

  init(using generator: inout SeededGenerator) {
    let count = Int.random(in: 1...24, using: &generator)
    func jump() -> Jump {
      Int.random(in: 0..<5, using: &generator) == 0
        ? .final : .state(Int.random(in: 0..<count, using: &generator))
    }
    kinds = (0..<count - 1).map { _ in
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: .action
      case 1: .condition(modulus: Int.random(in: 2...4, using: &generator), yes: jump())
      default: .multiple(zero: jump(), one: jump())
      }
    }
    kinds.append([.finalAction, .finalCondition, .finalMultiple].randomElement(using: &generator)!)
    let asynchronousShare = Int.random(in: 0...2, using: &generator)
    isAsynchronous = kinds.map { _ in Int.random(in: 0..<2, using: &generator) < asynchronousShare }
  }

  /// Every state's code: record the state, transform the value. Shared by both sides.
  static func step(_ walk: inout Walk, _ index: Int) {
    walk.trace.append(index)
    walk.value = (walk.value &* 7 &+ index &+ 3) % 1_009
  }

  // MARK: The reference

  /// How the reference run ended.
  enum Outcome: Equatable {
    case final(name: String, decision: String, walk: Walk)
    /// The run hit its step limit after entering the states of `trace`.
    case stepLimit(trace: [Int])
  }

  /// Walks the plan directly: the simplest interpreter that could be right.
  func referenceRun(stepLimit: Int) -> Outcome {
    var walk = Walk()
    var index = 0
    var steps = 0
    while true {
      if steps >= stepLimit { return .stepLimit(trace: walk.trace) }
      steps += 1
      Self.step(&walk, index)
      switch kinds[index] {
      case .action:
        index += 1
      case .condition(let modulus, let yes):
        guard walk.value % modulus == 0 else {
          index += 1
          continue
        }
        switch yes {
        case .state(let next): index = next
        case .final:
          if steps >= stepLimit { return .stepLimit(trace: walk.trace) }
          return .final(name: "F\(index)", decision: "done", walk: walk)
        }
      case .multiple(let zero, let one):
        let key = walk.value % 3
        guard key != 2 else {
          index += 1
          continue
        }
        switch key == 0 ? zero : one {
        case .state(let next): index = next
        case .final:
          if steps >= stepLimit { return .stepLimit(trace: walk.trace) }
          return .final(name: "F\(index)", decision: "done", walk: walk)
        }
      case .finalAction:
        return .final(name: "S\(index)", decision: "done", walk: walk)
      case .finalCondition:
        return .final(name: "S\(index)", decision: walk.value % 2 == 0 ? "yes" : "no", walk: walk)
      case .finalMultiple:
        return .final(name: "S\(index)", decision: "key(\(walk.value % 3))", walk: walk)
      }
    }
  }

  // MARK: The chart

  func chart() throws -> Flowchart<Walk> {
    try Flowchart<Walk> {
      for index in kinds.indices {
        declaration(index)
      }
    }
  }

  @FlowBuilder<Walk>
  private func declaration(_ index: Int) -> [Declaration<Walk>] {
    let name = "S\(index)"
    let isAsynchronous = isAsynchronous[index]
    switch kinds[index] {
    case .action:
      if isAsynchronous {
        Action(name) { walk async in Self.step(&walk, index) }
      } else {
        Action(name) { walk in Self.step(&walk, index) }
      }
    case .condition(let modulus, let yes):
      Condition(name) { walk in
        Self.step(&walk, index)
        return walk.value % modulus == 0
      } yes: {
        exit(yes, from: index)
      } no: {
      }
    case .multiple(let zero, let one):
      MultipleCondition(name) { walk in
        Self.step(&walk, index)
        return walk.value % 3
      } exits: {
        Case(0) { exit(zero, from: index) }
        Case(1) { exit(one, from: index) }
        Case(2) {}
      }
    case .finalAction:
      Action(name, isFinal: true) { walk in Self.step(&walk, index) }
    case .finalCondition:
      if isAsynchronous {
        Condition(name, isFinal: true) { walk async in
          Self.step(&walk, index)
          return walk.value % 2 == 0
        }
      } else {
        Condition(name, isFinal: true) { walk in
          Self.step(&walk, index)
          return walk.value % 2 == 0
        }
      }
    case .finalMultiple:
      MultipleCondition(name, isFinal: true) { walk in
        Self.step(&walk, index)
        return walk.value % 3
      }
    }
  }

  @FlowBuilder<Walk>
  private func exit(_ jump: Jump, from index: Int) -> [Declaration<Walk>] {
    switch jump {
    case .state(let target): GoTo("S\(target)")
    case .final: Action("F\(index)", isFinal: true)
    }
  }
}

struct RandomizedRunTests {
  @Test(arguments: 0..<200)
  func runsAgreeWithAReferenceInterpreter(seed: UInt64) async throws {
    var generator = SeededGenerator(seed: seed)
    let plan = RandomPlan(using: &generator)
    let chart = try plan.chart()
    let stepLimit = 300
    let expected = plan.referenceRun(stepLimit: stepLimit)

    func outcome(_ run: () async throws(RunError) -> RunResult<Walk>) async throws
      -> RandomPlan
      .Outcome
    {
      do {
        let result = try await run()
        let inlineFinal = result.finalStateName.hasPrefix("F") ? 1 : 0
        #expect(result.stepCount == result.context.trace.count + inlineFinal)
        return .final(
          name: result.finalStateName, decision: result.decision.description,
          walk: result.context)
      } catch {
        try #require(error.kind == .stepLimitExceeded, "\(error)")
        let names = error.path.map { chart[$0].name }
        return .stepLimit(trace: names.compactMap { Int($0.dropFirst()) })
      }
    }

    let asynchronous = try await outcome { () async throws(RunError) in
      try await chart.run(with: Walk(), stepLimit: stepLimit)
    }
    #expect(asynchronous == expected, "seed \(seed)")
    if chart.isSynchronous {
      let synchronous = try await outcome { () async throws(RunError) in
        try chart.runSynchronously(with: Walk(), stepLimit: stepLimit)
      }
      #expect(synchronous == expected, "seed \(seed)")
    }
  }
}
