import Flowchart
import Testing

/// The spellings of a dispatch the README's table of kinds shows compile, and declare the
/// same branches.
struct DispatchSpellingTests {
  struct Order: Sendable {
    var reserved = false
    var charged = false
  }

  @Test func aDispatchWithoutAMergeTakesItsBranchesAsItsTrailingClosure() throws {
    let chart = try Flowchart<Order> {
      Dispatch("Fulfil", isFinal: true) {
        Branch("Stock") { Action("Reserve stock", isFinal: true) { $0.reserved = true } }
        Branch("Payment") { Action("Charge the card", isFinal: true) { $0.charged = true } }
      }
    }
    expectText(
      "\(chart)",
      """
      Fulfil (D) !
      |- Stock: Reserve stock (A) !
      |- Payment: Charge the card (A) !
      """)
  }

  @Test func aDispatchWithAMergeTakesItFirstAndItsBranchesLabelled() throws {
    let chart = try Flowchart<Order> {
      Dispatch("Fulfil") { context, branch in
        context.reserved = context.reserved || branch.reserved
        context.charged = context.charged || branch.charged
      } branches: {
        Branch("Stock") { Action("Reserve stock", isFinal: true) { $0.reserved = true } }
        Branch("Payment") { Action("Charge the card", isFinal: true) { $0.charged = true } }
      }
      Action("Ship", isFinal: true)
    }
    let result = try chart.runSynchronously(with: Order())
    #expect(result.context.reserved && result.context.charged)
  }
}
