import Flowchart
import Testing

/// The shorter forms of the declarations: work that ignores the context, and conditions with
/// only a `yes` exit.
struct DeclaringConvenienceTests {
  struct Cart: Sendable {
    var hasCoupon: Bool
    var steps: [String] = []
  }

  @Test func actionWorkMayIgnoreTheContext() async throws {
    let calls = Counter()
    let chart = try Flowchart<Cart> {
      Action("Count") { calls.increment() }
      Action("Count again") { await Task.yield() }
      Action("Done", isFinal: true) { calls.increment() }
    }
    let result = try await chart.run(with: Cart(hasCoupon: false))
    #expect(result.finalStateName == "Done")
    #expect(calls.value == 2)
    #expect(!chart[chart.states.first!].isAsynchronous)
    #expect(chart[chart.states.first!.advanced(by: 1)].isAsynchronous)
  }

  /// A state a team declares often, packaged as a type of its own.
  struct Stamp<Context: Sendable>: FlowComponent {
    var name: String
    var isFinal = false
    var declaration: Declaration<Context> { Action(name, isFinal: isFinal).declaration }
  }

  @Test func aTypeOfYoursDeclaresAStateLikeTheBuiltInOnes() throws {
    let chart = try Flowchart<Cart> {
      Stamp(name: "Received")
      Condition("Has coupon?") {
        $0.hasCoupon
      } yes: {
        Stamp(name: "Discounted")
      }
      Stamp(name: "Shipped", isFinal: true)
    }
    let result = try chart.runSynchronously(with: Cart(hasCoupon: true))
    #expect(result.pathNames == ["Received", "Has coupon?", "Discounted", "Shipped"])
    #expect(chart[chart.start].kind == .action)
  }

  @Test func workThatIgnoresTheContextStillFailsTheRun() {
    struct Broken: Error {}
    #expect(throws: RunError.self) {
      try Flowchart<Cart> { Action("Fail", isFinal: true) { throw Broken() } }
        .runSynchronously(with: Cart(hasCoupon: false))
    }
  }

  @Test(arguments: [true, false])
  func conditionWithOnlyYesGoesOnWhenItDecidesNo(hasCoupon: Bool) throws {
    let chart = try Flowchart<Cart> {
      Condition("Has coupon?") {
        $0.hasCoupon
      } yes: {
        Action("Apply coupon") { $0.steps.append("coupon") }
      }
      Action("Check out", isFinal: true) { $0.steps.append("checkout") }
    }
    let result = try chart.runSynchronously(with: Cart(hasCoupon: hasCoupon))
    #expect(result.context.steps == (hasCoupon ? ["coupon", "checkout"] : ["checkout"]))
    #expect(
      chart.treeDescription == """
        Has coupon? (S)
        Y- Apply coupon (A)
        |  Check out (A) !
        N- Check out (A) !

        """)
  }

  @Test func asynchronousConditionWithOnlyYes() async throws {
    let chart = try Flowchart<Cart> {
      Condition("Has coupon?") { cart async in
        cart.hasCoupon
      } yes: {
        Action("Apply coupon") { $0.steps.append("coupon") }
      }
      Action("Check out", isFinal: true)
    }
    let result = try await chart.run(with: Cart(hasCoupon: true))
    #expect(result.context.steps == ["coupon"])
  }
}

/// A thread-safe count, for work that cannot reach the context.
final class Counter: Sendable {
  private let count = Lock(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}

/// Every builder supports the same block syntax, since they share ``ListBuilder``'s rules.
struct SharedBuilderRulesTests {
  struct Load: Sendable {
    var parts: [String] = []
  }

  @BranchBuilder<Load>
  static func loaders(_ names: [String]) -> [Branch<Load>] {
    for name in names {
      Branch(name) { Action("Load \(name)", isFinal: true) { $0.parts.append(name) } }
    }
  }

  @Test func branchBlocksSpliceListsAndCheckAvailability() throws {
    let chart = try Flowchart<Load> {
      Dispatch("Load", isFinal: true) { load, branch, original in
        load.parts += branch.parts.dropFirst(original.parts.count)
      } branches: {
        Self.loaders(["profile", "feed"])
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
          Branch { Action("Load settings", isFinal: true) { $0.parts.append("settings") } }
        }
      }
    }
    let result = try chart.runSynchronously(with: Load())
    #expect(result.context.parts == ["profile", "feed", "settings"])
  }

  @Test func exitBlocksSpliceListsAndCheckAvailability() throws {
    @ExitBuilder<Load, Int>
    func small() -> [KeyedExit<Load, Int>] {
      Case(0) { Action("Zero", isFinal: true) }
      Case(1) { Action("One", isFinal: true) }
    }
    let chart = try Flowchart<Load> {
      MultipleCondition("Count") {
        $0.parts.count
      } exits: {
        small()
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
          Case(2) { Action("Two", isFinal: true) }
        }
        Default { Action("Many", isFinal: true) }
      }
    }
    #expect(try chart.runSynchronously(with: Load(parts: ["a"])).finalStateName == "One")
    #expect(try chart.runSynchronously(with: Load(parts: ["a", "b"])).finalStateName == "Two")
    #expect(
      try chart.runSynchronously(with: Load(parts: ["a", "b", "c"])).finalStateName == "Many")
  }
}
