import Flowchart
import Testing

/// A chart used as one state of another: as an action, a condition and a multiple
/// condition; its context mapping, its errors, its cancellation and its printing.
@Suite(.timeLimit(.minutes(5)))
struct SubflowTests {
  struct Payment: Sendable, Equatable {
    var amount = 0
    var cardIsValid = true
    var log: [String] = []
  }

  struct Shop: Sendable {
    var payment = Payment()
    var log: [String] = []
  }

  struct Declined: Error {}

  /// Decides yes when the card is valid: a chart that ends at a final condition.
  static func payment() throws -> Flowchart<Payment> {
    try Flowchart<Payment> {
      Action("Charge") { $0.log.append("charged \($0.amount)") }
      Condition("Card accepted?", isFinal: true) { $0.cardIsValid }
    }
  }

  /// Ends at one of two final actions.
  static func checkout() throws -> Flowchart<Payment> {
    try Flowchart<Payment> {
      Condition("Card accepted?") {
        $0.cardIsValid
      } yes: {
        Action("Paid", isFinal: true) { $0.log.append("paid") }
      } no: {
        Action("Refused", isFinal: true) { $0.log.append("refused") }
      }
    }
  }

  // MARK: - The three shapes

  @Test func aSubflowUsedAsAnActionRunsItsChartOnTheMappedContext() throws {
    let payment = try Self.payment()
    let shop = try Flowchart<Shop> {
      Action("Basket") { $0.payment.amount = 30 }
      Subflow("Pay", running: payment, context: .keyPath(\.payment))
      Action("Done", isFinal: true) { $0.log.append("done") }
    }
    #expect(shop.isSynchronous)
    let result = try shop.runSynchronously(with: Shop())
    #expect(result.pathNames == ["Basket", "Pay", "Done"])
    #expect(result.stepCount == 3)
    #expect(result.context.payment.log == ["charged 30"])
    #expect(result.context.log == ["done"])
    #expect(shop[shop.state(named: "Pay")!].kind == .subflow)
  }

  @Test(arguments: [true, false])
  func aSubflowUsedAsAConditionTakesTheInnerDecision(cardIsValid: Bool) throws {
    let payment = try Self.payment()
    let shop = try Flowchart<Shop> {
      Subflow("Pay", running: payment, context: .keyPath(\.payment)) {
        Action("Ship", isFinal: true)
      } no: {
        Action("Cancel", isFinal: true)
      }
    }
    var start = Shop()
    start.payment.cardIsValid = cardIsValid
    let result = try shop.runSynchronously(with: start)
    #expect(result.finalStateName == (cardIsValid ? "Ship" : "Cancel"))
    #expect(result.pathNames == ["Pay", cardIsValid ? "Ship" : "Cancel"])
  }

  @Test(arguments: [true, false])
  func aKeyedSubflowFollowsTheExitOfTheInnerFinalState(cardIsValid: Bool) async throws {
    let checkout = try Self.checkout()
    let shop = try Flowchart<Shop> {
      Subflow("Check out", running: checkout, context: .keyPath(\.payment)) {
        Case("Paid") { Action("Ship", isFinal: true) }
        Case("Refused") { Action("Apologise", isFinal: true) }
      }
    }
    var start = Shop()
    start.payment.cardIsValid = cardIsValid
    let result = try await shop.run(with: start)
    #expect(result.finalStateName == (cardIsValid ? "Ship" : "Apologise"))
    #expect(result.context.payment.log == [cardIsValid ? "paid" : "refused"])
    #expect(
      shop.describedExits(of: "Check out") == ["Paid -> Ship", "Refused -> Apologise"])
  }

  @Test func aFinalSubflowEndsTheRunWithTheInnerContextWrittenBack() throws {
    let checkout = try Self.checkout()
    let shop = try Flowchart<Shop> {
      Subflow("Check out", isFinal: true, running: checkout, context: .keyPath(\.payment))
    }
    let result = try shop.runSynchronously(with: Shop())
    #expect(result.decision == .done)
    #expect(result.finalStateName == "Check out")
    #expect(result.context.payment.log == ["paid"])
  }

  // MARK: - Context mappings

  @Test func closuresMapContextsOfDifferentShapes() throws {
    let payment = try Self.payment()
    let mapping = ContextMapping<Shop, Payment>(
      enter: { shop in Payment(amount: shop.log.count) },
      leave: { shop, payment in shop.log += payment.log })
    let shop = try Flowchart<Shop> {
      Action("Note") { $0.log.append("note") }
      Subflow("Pay", isFinal: true, running: payment, context: mapping)
    }
    let result = try shop.runSynchronously(with: Shop())
    #expect(result.context.log == ["note", "charged 1"])
    #expect(result.context.payment == Payment())
  }

  @Test func theWholeContextPassesWhenTheTypesAreTheSame() throws {
    let inner = try Flowchart<Int> { Action("Double", isFinal: true) { $0 *= 2 } }
    let outer = try Flowchart<Int> {
      Subflow("Twice", running: inner, context: .whole)
      Subflow("Again", isFinal: true, running: inner, context: .whole)
    }
    #expect(try outer.runSynchronously(with: 3).context == 12)
  }

  /// A `.whole` subflow runs its chart on the outer context in place; when it fails part
  /// way, a catch route and a retry still start from the context as it was before it.
  @Test func aWholeSubflowThatFailsPartWayLeavesNoTraceForACatchRouteOrARetry() async throws {
    let seen = Lock<[Int]>([])
    let inner = try Flowchart<Int> {
      Action("Add") { value in
        seen.withLock { $0.append(value) }
        value += 1
      }
      Action("Fail", isFinal: true) { _ in throw Declined() }
    }
    let guarded = try Flowchart<Int> {
      Subflow("Inner", running: inner, context: .whole).catch(goTo: "Recover")
      Action("Never", isFinal: true) { $0 = -1 }
      Action("Recover", isFinal: true) { $0 += 100 }
    }
    #expect(try guarded.runSynchronously(with: 3).context == 103)
    #expect(try await guarded.run(with: 3).context == 103)
    #expect(try await guarded.start(with: 3).result.context == 103)

    let unguarded = try Flowchart<Int> {
      Subflow("Inner", isFinal: true, running: inner, context: .whole)
    }
    seen.withLock { $0 = [] }
    let failed = unguarded.start(with: 3)
    await #expect(throws: RunError.self) { try await failed.result }
    let retried = try failed.retry()
    let error = await #expect(throws: RunError.self) { try await retried.result }
    #expect(error?.stateName == "Inner")
    // The retry ran the subflow again from the context before it: 3, not 4.
    #expect(seen.withLock { $0 } == [3, 3])
  }

  @Test func aMappingThatThrowsFailsTheOuterRunAtTheSubflow() throws {
    let payment = try Self.payment()
    let refusing = ContextMapping<Shop, Payment>(
      enter: { _ in throw Declined() }, leave: { _, _ in })
    let shop = try Flowchart<Shop> {
      Subflow("Pay", isFinal: true, running: payment, context: refusing)
    }
    let error = try #require(throws: RunError.self) { try shop.runSynchronously(with: Shop()) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Pay")
    #expect(error.underlyingError is Declined)
  }

  // MARK: - Asynchronous charts and cancellation

  @Test func anAsynchronousInnerChartMakesTheSubflowAsynchronous() async throws {
    let inner = try Flowchart<Int> {
      Action("Wait", isFinal: true) { value in
        await Task.yield()
        value += 1
      }
    }
    let outer = try Flowchart<Int> {
      Subflow("Inner", isFinal: true, running: inner, context: .whole)
    }
    #expect(!outer.isSynchronous)
    #expect(outer[outer.start].isAsynchronous)
    #expect(try await outer.run(with: 1).context == 2)
    let error = try #require(throws: RunError.self) { try outer.runSynchronously(with: 1) }
    #expect(error.kind == .asynchronousState)
  }

  @Test func cancellingTheOuterRunCancelsTheInnerRun() async throws {
    let inner = try Flowchart<Int> {
      Action("Cancel the task") { _ in withUnsafeCurrentTask { $0?.cancel() } }
      Action("Inner wait", isFinal: true) { _ in try await Task.sleep(for: .seconds(600)) }
    }
    let outer = try Flowchart<Int> {
      Subflow("Inner", running: inner, context: .whole)
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try await outer.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Inner")
    #expect(error.pathNames == ["Inner"])
  }

  // MARK: - Errors

  @Test func anInnerFailureNamesTheWayThroughBothCharts() throws {
    let inner = try Flowchart<Payment> {
      Action("Charge") { $0.amount += 1 }
      Action("Confirm", isFinal: true) { _ in throw Declined() }
    }
    let shop = try Flowchart<Shop> {
      Action("Basket")
      Subflow("Pay", isFinal: true, running: inner, context: .keyPath(\.payment))
    }
    let error = try #require(throws: RunError.self) { try shop.runSynchronously(with: Shop()) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Pay")
    #expect(error.pathNames == ["Basket", "Pay"])
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.stateName == "Confirm")
    #expect(innerError.pathNames == ["Charge", "Confirm"])
    #expect(innerError.underlyingError is Declined)
    let payLine = #line - 10
    let confirmLine = #line - 15
    expectText(
      error.description,
      """
      The run stopped at subflow 'Pay' (FlowchartTests/SubflowTests.swift:\(payLine)), whose \
      chart failed: The run stopped at action 'Confirm' \
      (FlowchartTests/SubflowTests.swift:\(confirmLine)): it threw \
      FlowchartTests.SubflowTests.Declined(). (Path in the subflow: Charge → Confirm.)
      Path: Basket → Pay
      """)
  }

  @Test func anInnerKeyWithoutExitKeepsItsKind() throws {
    let inner = try Flowchart<Int> {
      MultipleCondition("Pick") {
        $0
      } exits: {
        Case(1) { Action("One", isFinal: true) }
      }
    }
    let outer = try Flowchart<Int> {
      Subflow("Inner", isFinal: true, running: inner, context: .whole)
    }
    let error = try #require(throws: RunError.self) { try outer.runSynchronously(with: 2) }
    #expect(error.kind == .unmatchedKey)
    #expect(error.unmatchedKey as? Int == 2)
    #expect(error.stateName == "Inner")
  }

  @Test func aConditionSubflowWhoseChartEndsWithoutYesOrNoFails() throws {
    let checkout = try Self.checkout()
    let shop = try Flowchart<Shop> {
      Subflow("Pay", running: checkout, context: .keyPath(\.payment)) {
        Action("Ship", isFinal: true)
      } no: {
        Action("Cancel", isFinal: true)
      }
    }
    let error = try #require(throws: RunError.self) { try shop.runSynchronously(with: Shop()) }
    #expect(error.kind == .thrown)
    let payLine = #line - 8
    expectText(
      error.description,
      """
      The run stopped at subflow 'Pay' (FlowchartTests/SubflowTests.swift:\(payLine)): its chart ended at action 'Paid', which decided done \
      where the subflow needs yes or no. End the chart at final conditions, or use the subflow \
      as an action or with a Case per final state.
      Path: Pay
      """)
  }

  @Test func aKeyedSubflowNeedsACaseForEachFinalStateOfItsChart() throws {
    let checkout = try Self.checkout()
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Shop> {
        Subflow("Check out", running: checkout, context: .keyPath(\.payment)) {
          Case("Paid") { Action("Ship", isFinal: true) }
        }
      }
    }
    let problem = expectOnlyProblem(error, .missingCase, name: "Check out", line: line)
    #expect(
      problem?.message
        == "Subflow 'Check out' has no exit for 'Refused'. Add a Case for each, or a Default.")
  }

  @Test func aDefaultCoversTheFinalStatesWithoutACase() throws {
    let checkout = try Self.checkout()
    let shop = try Flowchart<Shop> {
      Subflow("Check out", running: checkout, context: .keyPath(\.payment)) {
        Case("Paid") { Action("Ship", isFinal: true) }
        Default { Action("Other", isFinal: true) }
      }
    }
    var start = Shop()
    start.payment.cardIsValid = false
    #expect(try shop.runSynchronously(with: start).finalStateName == "Other")
  }

  // MARK: - Printing

  @Test func theTreeShowsASubflowAsOneStateOrItsChartNested() throws {
    let payment = try Self.payment()
    let checkout = try Flowchart<Shop> {
      Action("Basket")
      Subflow("Pay", running: payment, context: .keyPath(\.payment)) {
        Action("Ship", isFinal: true)
      } no: {
        Action("Cancel", isFinal: true)
      }
    }
    let shop = try Flowchart<Shop> {
      Subflow("Check out", running: checkout, context: .whole) {
        Case("Ship") { Action("Thank", isFinal: true) }
        Case("Cancel") { GoTo("Check out") }
      }
    }
    expectTree(
      shop,
      """
      Check out (F)
      +- Ship: Thank (A) !
      +- Cancel: Check out (F) *
      """)
    var expanded = ""
    shop.printTree(to: &expanded, expandingSubflows: true)
    expectText(
      expanded,
      """
      Check out (F)
      :  Basket (A)
      :  Pay (F)
      :  :  Charge (A)
      :  :  Card accepted? (S) !
      :  Y- Ship (A) !
      :  N- Cancel (A) !
      +- Ship: Thank (A) !
      +- Cancel: Check out (F) *

      """)
  }
}
