import Flowchart
import FlowchartTesting
import Testing

/// A dispatch inside a dispatch's branch, each branch with a decision:
///
/// - `Outer` runs `Inner` (whose branches `A?` and `B` have 2 and 1 routes, so 2
///   combinations, then `After inner`) and `C?` (2 routes): 2 × 2 = 4 combinations;
/// - then `Last?`, a final condition: 2 routes each. So 8 routes.
private func nestedDispatches() throws -> Flowchart<Counter> {
  // swift-format-ignore
  try Flowchart<Counter> {
    Dispatch("Outer") {
      Branch {
        Dispatch("Inner") {
          Branch {
            Condition("A?") { _ in true } yes: {
              Action("A yes", isFinal: true)
            } no: {
              Action("A no", isFinal: true)
            }
          }
          Branch { Action("B", isFinal: true) }
        }
        Action("After inner", isFinal: true)
      }
      Branch {
        Condition("C?", isFinal: true) { _ in true }
      }
    }
    Condition("Last?", isFinal: true) { _ in true }
  }
}

struct NestedDispatchRouteTests {
  @Test func nestedDispatchesMultiplyTheirBranches() throws {
    let routes = try nestedDispatches().routes()
    #expect(routes.count == 8)
    #expect(
      routes.first?.description
        == "Outer { Inner { A? [yes] → A yes [done] | B [done] } → After inner [done] | C? [yes] } → Last? [yes]"
    )
  }

  @Test(arguments: try nestedDispatches().routes())
  func everyNestedRouteIsTheRunItsScriptMakes(route: Route) async throws {
    let result = try await nestedDispatches().run(with: Counter(), script: route.script)
    #expect(result.pathNames == route.stateNames)
    #expect(result.decision == route.last.decision)
  }

  @Test func theShortestRouteIntoANestedBranch() throws {
    let route = try #require(try nestedDispatches().shortestRoute(toStateNamed: "B"))
    #expect(route.description == "Outer { Inner { A? [yes] → A yes [done] | B } }")
  }
}
