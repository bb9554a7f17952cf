import Flowchart
import Testing

struct Ctx: Sendable {
  enum Plan: CaseIterable, Sendable { case free, pro, team }
  var plan = Plan.pro
  var log: [String] = []
  var a = 0
  var b = 0
}

@Test func smoke() async throws {
  let chart = try Flowchart<Ctx> {
    MultipleCondition("Which plan?") {
      $0.plan
    } exits: {
      Case(.free) { Action("Ads") { $0.log.append("ads") } }
      Case(.pro) {
        Action("Pro") { ctx in
          try await Task.sleep(for: .milliseconds(1))
          ctx.log.append("pro")
        }
      }
      Default {}
    }
    Dispatch("Both") { context, branch in
      context.a += branch.a
      context.b += branch.b
    } branches: {
      Branch { Action("A", isFinal: true) { $0.a = 1 } }
      Branch {
        Action("B1") { $0.b = 1 }
        Action("B2", isFinal: true) { $0.b += 1 }
      }
    }
    MultipleCondition("Key", isFinal: true) { $0.log.joined() }
  }
  print(chart)
  let result = try await chart.run(with: Ctx())
  print(result.finalStateName, result.decision, result.context, result.path)
  #expect(!chart[chart.state(named: "Pro")!].isAsynchronous == false)
  #expect(chart[chart.state(named: "Ads")!].isAsynchronous == false)
}
