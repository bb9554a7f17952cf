import Flowchart
import Testing

/// How ``FlowBuilder`` assembles a block: every way of combining statements keeps the
/// declarations in the order they were written.
struct FlowBuilderTests {
  /// One statement, or a statement-like construct, of a random block.
  private indirect enum Part {
    /// `if false { … }`, an empty block or an empty splice: no declarations.
    case empty(Int)
    /// One action.
    case action
    /// A function's declarations, spliced in: `count` actions.
    case splice(count: Int)
    /// `if true { … }` around a block.
    case optional([Part])
    /// `if`-`else` or `switch`: one of two blocks.
    case either(first: Bool, [Part])
    /// A `for` loop: one block per iteration.
    case loop([[Part]])

    /// A random part, nested at most `depth` levels.
    static func random(depth: Int, using generator: inout SeededGenerator) -> Part {
      let choice = Int.random(in: 0..<(depth > 0 ? 6 : 3), using: &generator)
      func block() -> [Part] {
        (0..<Int.random(in: 0...3, using: &generator)).map { _ in
          random(depth: depth - 1, using: &generator)
        }
      }
      switch choice {
      case 0: return .empty(Int.random(in: 0..<3, using: &generator))
      case 1: return .action
      case 2: return .splice(count: Int.random(in: 0...4, using: &generator))
      case 3: return .optional(block())
      case 4: return .either(first: Bool.random(using: &generator), block())
      default: return .loop((0..<Int.random(in: 0...3, using: &generator)).map { _ in block() })
      }
    }
  }

  private typealias Builder = FlowBuilder<Switches>

  /// Builds `parts` the way the compiler does for a written block, naming each action
  /// with the next number of `counter`.
  private static func build(_ parts: [Part], counter: inout Int) -> Builder.PartialBlock {
    guard let first = parts.first else { return Builder.buildBlock() }
    var block = Builder.buildPartialBlock(first: build(first, counter: &counter))
    for part in parts.dropFirst() {
      block = Builder.buildPartialBlock(accumulated: block, next: build(part, counter: &counter))
    }
    return block
  }

  private static func build(_ part: Part, counter: inout Int) -> Builder.PartialBlock {
    func next() -> String {
      counter += 1
      return "S\(counter)"
    }
    switch part {
    case .empty(0):
      return Builder.buildOptional(nil)
    case .empty(1):
      return Builder.buildBlock()
    case .empty:
      return Builder.buildExpression([Declaration<Switches>]())
    case .action:
      return Builder.buildExpression(Action(next()))
    case .splice(let count):
      var names: [String] = []
      for _ in 0..<count { names.append(next()) }
      return Builder.buildExpression(chain(names))
    case .optional(let parts):
      return Builder.buildOptional(build(parts, counter: &counter))
    case .either(let first, let parts):
      let block = build(parts, counter: &counter)
      return first ? Builder.buildEither(first: block) : Builder.buildEither(second: block)
    case .loop(let iterations):
      return Builder.buildArray(iterations.map { build($0, counter: &counter) })
    }
  }

  /// The names `parts` declare, in order: the reference the builder must agree with.
  private static func expectedNames(_ parts: [Part], counter: inout Int) -> [String] {
    var names: [String] = []
    for part in parts {
      switch part {
      case .empty:
        break
      case .action:
        counter += 1
        names.append("S\(counter)")
      case .splice(let count):
        for _ in 0..<count {
          counter += 1
          names.append("S\(counter)")
        }
      case .optional(let parts), .either(_, let parts):
        names += expectedNames(parts, counter: &counter)
      case .loop(let iterations):
        for parts in iterations {
          names += expectedNames(parts, counter: &counter)
        }
      }
    }
    return names
  }

  @Test(arguments: 0..<300)
  func randomBlocksKeepTheirDeclarationsInWrittenOrder(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let parts = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
      Part.random(depth: 3, using: &generator)
    }
    var counter = 0
    let declarations = Builder.buildFinalResult(Self.build(parts, counter: &counter))
    var expectedCounter = 0
    let expected = Self.expectedNames(parts, counter: &expectedCounter) + ["End"]

    let chart = try Flowchart<Switches> {
      declarations
      Action("End", isFinal: true)
    }
    // A chain's states are numbered in the order they are declared.
    #expect(chart.states.map { chart[$0].name } == expected, "seed \(seed)")
    for (name, next) in zip(expected, expected.dropFirst()) {
      #expect(chart.describedExits(of: name) == ["next -> \(next)"], "seed \(seed)")
    }
  }

  @Test func availabilityCheckDeclaresTheBlockOfTheRunningSystem() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      if #available(macOS 999, iOS 999, tvOS 999, watchOS 999, visionOS 999, *) {
        Action("Future")
      } else {
        Action("Today")
      }
      Action("Done", isFinal: true)
    }
    // `*` covers Linux and Windows, where the check always passes.
    #if canImport(Darwin)
      let expected = "Today"
    #else
      let expected = "Future"
    #endif
    #expect(chart.describedExits(of: "Start") == ["next -> \(expected)"])
    #expect(chart.describedExits(of: expected) == ["next -> Done"])
  }

  @Test func availabilityCheckWithoutElseDeclaresItsBlockOrNothing() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        Action("Supported")
      }
      Action("Done", isFinal: true)
    }
    // The package's minimum platforms pass this check everywhere.
    #expect(chart.describedExits(of: "Start") == ["next -> Supported"])
  }

  @Test func aDeclarationUsedTwiceDeclaresTwoStates() throws {
    let log = Action<Switches>("Log") { $0.log.append("logged") }
    let chart = try Flowchart<Switches> {
      log
      Action("Middle")
      log
      Action("Done", isFinal: true)
    }
    #expect(chart.states.map { chart[$0].name } == ["Log", "Middle", "Log", "Done"])
    #expect(chart.states(named: "Log").count == 2)
    let result = try chart.runSynchronously(with: Switches())
    #expect(result.context.log == ["logged", "logged"])
    #expect(result.path.map { chart[$0].name } == ["Log", "Middle", "Log", "Done"])
  }

  @Test func aFunctionMayReturnAnEmptyBlock() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      chain([])
      Action("Done", isFinal: true)
    }
    #expect(chart.describedExits(of: "Start") == ["next -> Done"])
  }
}

/// Actions named `names`, in order.
@FlowBuilder<Switches>
private func chain(_ names: [String]) -> [Declaration<Switches>] {
  for name in names {
    Action(name)
  }
}
