import Flowchart
import Testing

/// The public value types that grow with new kinds of state: they compare, hash and read
/// as their static members say.
struct PublicTypesTests {
  @Test func stateKindsHaveTheirLettersAndWords() {
    #expect(
      StateKind.allCases == [
        .condition, .multipleCondition, .action, .dispatch, .subflow, .map, .waiting, .delay,
      ])
    #expect(StateKind.allCases.map(\.letter) == ["S", "M", "A", "D", "F", "E", "W", "T"])
    #expect(
      StateKind.allCases.map(\.description)
        == [
          "condition", "multiple condition", "action", "dispatch", "subflow", "map",
          "waiting state", "delay",
        ])
    #expect(Set(StateKind.allCases).count == 8)
  }

  @Test func exitLabelsCarryTheirKeyOrBranch() {
    #expect(Exit.Label.key("pro").key == "pro")
    #expect(Exit.Label.key("pro").branch == nil)
    #expect(Exit.Label.branch(2).branch == 2)
    #expect(Exit.Label.branch(2).key == nil)
    #expect(Exit.Label.yes.key == nil && Exit.Label.yes.branch == nil)
    #expect(Exit.Label.key("pro") == .key("pro"))
    #expect(Exit.Label.key("pro") != .key("free"))
    #expect(Exit.Label.branch(0) != .next)
    #expect(
      [Exit.Label.next, .yes, .no, .default, .key("pro"), .branch(1)].map(\.description)
        == ["next", "yes", "no", "default", "pro", "branch 2"])
  }

  @Test func decisionsCompareAndHashKeysAsAnyHashable() {
    enum Plan: Hashable, Sendable { case free, pro }
    #expect(Decision.key(Plan.pro) == .key(Plan.pro))
    #expect(Decision.key(Plan.pro) != .key(Plan.free))
    #expect(Decision.key(1) != .key("1"))
    #expect(Decision.yes != .no && Decision.done != .yes)
    #expect(Decision.key(Plan.pro).key(as: Plan.self) == .pro)
    #expect(Decision.key(Plan.pro).key(as: Int.self) == nil)
    #expect(Decision.yes.key == nil)
    #expect(Set<Decision>([.yes, .no, .done, .key(Plan.pro), .key(Plan.pro)]).count == 4)
    #expect(
      [Decision.yes, .no, .done, .key(3)].map(\.description) == ["yes", "no", "done", "key(3)"])
  }

  @Test func decisionsShowKeysAsTheTreeDoes() {
    #expect(Decision.key(Optional("A")).description == "key(A)")
    #expect(Decision.key(String?.none).description == "key(nil)")
    #expect(Decision.key("x: y").description == #"key("x: y")"#)
  }

  @Test func decisionsMatchInTuplePatterns() {
    func outcome(_ name: String, _ decision: Decision) -> String? {
      switch (name, decision) {
      case ("Injured?", .yes): "inconclusive"
      case ("Injured?", .no): "unhealthy"
      case ("Do sit-ups", .done): "healthy"
      default: nil
      }
    }
    #expect(outcome("Injured?", .yes) == "inconclusive")
    #expect(outcome("Injured?", .no) == "unhealthy")
    #expect(outcome("Do sit-ups", .done) == "healthy")
    #expect(outcome("Do sit-ups", .yes) == nil)
  }
}
