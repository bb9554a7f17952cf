import Flowchart
import Testing

/// State IDs: dense from 0, in declaration order (a state, then the states of its blocks in
/// order, then the state after it), the same for every compile of the same declaration.
struct StateNumberingTests {
  @Test func conditionsYesStatesAreNumberedBeforeItsNoStates() throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      Action("A")
      Condition("C") { $0.isOn } yes: {
        Action("Y", isFinal: true)
      } no: {
        Action("N", isFinal: true)
      }
    }
    #expect(names(chart) == ["A", "C", "Y", "N"])
    #expect(chart.states == StateID(0)..<StateID(4))
  }

  @Test func everyKindOfBlockIsNumberedInDeclarationOrder() throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      Action("1")
      Condition("2") { $0.isOn } yes: {
        Action("3")
        Condition("4") { $0.isOn } yes: {
          Action("5")
        } no: {
          Action("6")
        }
        Action("7")
      } no: {
        Action("8")
        Action("9")
      }
      MultipleCondition("10") { $0.word } exits: {
        Case("a") { Action("11") }
        Case("b") {}
        Case("c") { Action("12"); Action("13") }
        Default { Action("14") }
      }
      Dispatch("15") {
        Branch { Action("16"); Action("17", isFinal: true) }
        Branch("Named") { Action("18", isFinal: true) }
        Branch { Action("19", isFinal: true) }
      }
      Action("20", isFinal: true)
    }
    #expect(names(chart) == (1...20).map(String.init))
    #expect(
      chart.describedExits(of: "15") == [
        "branch 1 -> 16", "branch 2 -> 18", "branch 3 -> 19", "next -> 20",
      ])
    #expect(
      chart.describedExits(of: "10") == ["a -> 11", "b -> 15", "c -> 12", "default -> 14"])
  }

  @Test(arguments: 0..<200)
  func randomNestedChartsAreNumberedInDeclarationOrder(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    var counter = 0
    let shapes = Shape.randomBlock(depth: 5, counter: &counter, using: &generator)
    let chart = try Flowchart<Switches> {
      declare(shapes)
      Action("End", isFinal: true)
    }
    let expected = shapes.flatMap(\.preOrder) + ["End"]
    #expect(names(chart) == expected, "seed \(seed)")
    // The same declaration compiles to the same IDs.
    let again = try Flowchart<Switches> {
      declare(shapes)
      Action("End", isFinal: true)
    }
    #expect(names(again) == names(chart), "seed \(seed)")
  }

  @Test func aDeepChainOfNoBlocksIsNumberedInDeclarationOrder() throws {
    let chart = try Flowchart<Switches> {
      nestedInNo(500)
    }
    let expected = (1...500).reversed().flatMap { ["Level \($0)", "Yes \($0)"] } + ["Bottom"]
    #expect(names(chart) == expected)
  }

  private func names(_ chart: Flowchart<Switches>) -> [String] {
    chart.states.map { chart[$0].name }
  }
}

/// A random declaration, and the names its states take, in declaration order.
private indirect enum Shape {
  case action(String)
  case condition(String, yes: [Shape], no: [Shape])
  case multipleCondition(String, exits: [[Shape]])

  /// The names in declaration order: the state, then its blocks' states in order.
  var preOrder: [String] {
    switch self {
    case .action(let name): [name]
    case .condition(let name, let yes, let no):
      [name] + yes.flatMap(\.preOrder) + no.flatMap(\.preOrder)
    case .multipleCondition(let name, let exits):
      [name] + exits.flatMap { $0.flatMap(\.preOrder) }
    }
  }

  static func randomBlock(
    depth: Int, counter: inout Int, using generator: inout SeededGenerator
  ) -> [Shape] {
    (0..<Int.random(in: 0...3, using: &generator)).map { _ in
      random(depth: depth, counter: &counter, using: &generator)
    }
  }

  static func random(
    depth: Int, counter: inout Int, using generator: inout SeededGenerator
  ) -> Shape {
    counter += 1
    let name = "S\(counter)"
    switch depth == 0 ? 0 : Int.random(in: 0...2, using: &generator) {
    case 0:
      return .action(name)
    case 1:
      return .condition(
        name, yes: randomBlock(depth: depth - 1, counter: &counter, using: &generator),
        no: randomBlock(depth: depth - 1, counter: &counter, using: &generator))
    default:
      return .multipleCondition(
        name,
        exits: (0..<Int.random(in: 1...3, using: &generator)).map { _ in
          randomBlock(depth: depth - 1, counter: &counter, using: &generator)
        })
    }
  }
}

@FlowBuilder<Switches>
private func declare(_ shapes: [Shape]) -> [Declaration<Switches>] {
  for shape in shapes {
    declare(shape)
  }
}

@FlowBuilder<Switches>
private func declare(_ shape: Shape) -> [Declaration<Switches>] {
  switch shape {
  case .action(let name):
    Action(name)
  case .condition(let name, let yes, let no):
    Condition(name) {
      $0.isOn
    } yes: {
      declare(yes)
    } no: {
      declare(no)
    }
  case .multipleCondition(let name, let exits):
    MultipleCondition(name) {
      $0.word
    } exits: {
      for (index, exit) in exits.enumerated() {
        Case("k\(index)") { declare(exit) }
      }
    }
  }
}

/// `depth` conditions, each nested in the `no` block of the one before, down to a final
/// `Bottom`.
@FlowBuilder<Switches>
private func nestedInNo(_ depth: Int) -> [Declaration<Switches>] {
  if depth == 0 {
    Action("Bottom", isFinal: true)
  } else {
    Condition("Level \(depth)") {
      $0.isOn
    } yes: {
      Action("Yes \(depth)", isFinal: true)
    } no: {
      nestedInNo(depth - 1)
    }
  }
}
