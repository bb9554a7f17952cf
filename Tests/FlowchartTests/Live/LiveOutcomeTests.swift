import Flowchart
import Testing

private struct Subject: Sendable {
  var isWillingToExercise: Bool
  var isInjured: Bool
}

private enum Verdict: Hashable, Sendable {
  case healthy, unhealthy, inconclusive
}

struct LiveOutcomeTests {
  // swift-format-ignore
  private func health(_ outcomes: Outcomes<Verdict>) throws(DefinitionError) -> Flowchart<Subject> {
    try Flowchart<Subject>(outcomes: outcomes) {
      Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
        Action("Lift weights") { _ in }
        Action("Do sit-ups", isFinal: true) { _ in }
      } no: {
        Condition("Injured?", isFinal: true) { $0.isInjured }
      }
    }
  }

  @Test func theResultCarriesTheOutcomeOfItsEnd() async throws {
    let chart = try health(
      Outcomes<Verdict>(mapsEveryEnd: true) {
        OutcomeRule(.healthy, at: "Do sit-ups")
        OutcomeRule(.inconclusive, at: "Injured?", deciding: .yes)
        OutcomeRule(.unhealthy, at: "Injured?", deciding: .no)
      })
    let willing = try await chart.run(with: Subject(isWillingToExercise: true, isInjured: false))
    #expect(willing.outcome(as: Verdict.self) == .healthy)
    let injured = try chart.runSynchronously(
      with: Subject(isWillingToExercise: false, isInjured: true))
    #expect(injured.outcome(as: Verdict.self) == .inconclusive)
    let handle = chart.start(with: Subject(isWillingToExercise: false, isInjured: false))
    #expect(try await handle.result.outcome(as: Verdict.self) == .unhealthy)
  }

  @Test func anUnmappedEndHasNoOutcomeUnlessEveryEndMustBeMapped() throws {
    let chart = try health(Outcomes<Verdict> { OutcomeRule(.healthy, at: "Do sit-ups") })
    let result = try chart.runSynchronously(
      with: Subject(isWillingToExercise: false, isInjured: true))
    #expect(result.outcome == nil)
    #expect(result.outcome(as: String.self) == nil)

    let error = #expect(throws: DefinitionError.self) {
      try health(Outcomes<Verdict>(mapsEveryEnd: true) { OutcomeRule(.healthy, at: "Do sit-ups") })
    }
    #expect(error?.problems.map(\.kind) == [.missingOutcome])
    #expect(
      error?.problems.first?.message.hasPrefix(
        "A run can end at condition 'Injured?' deciding yes or no, and no outcome maps that.")
        == true)
  }

  @Test func aRuleForAStateThatIsNotFinalIsAnError() {
    let error = #expect(throws: DefinitionError.self) {
      try health(Outcomes<Verdict> { OutcomeRule(.healthy, at: "Lift weights") })
    }
    #expect(error?.problems.map(\.kind) == [.invalidOutcome])
    #expect(
      error?.problems.first?.message
        == "The outcome healthy names action 'Lift weights', which is not final, so no run ends there. Name a final state, or declare it final (isFinal: true)."
    )
  }

  @Test func aDecisionTheStateCannotMakeIsAnError() {
    let error = #expect(throws: DefinitionError.self) {
      try health(
        Outcomes<Verdict> {
          OutcomeRule(.healthy, at: "Do sit-ups", deciding: .yes)
          OutcomeRule(.unhealthy, at: "Injured?", deciding: .done)
        })
    }
    #expect(error?.problems.map(\.kind) == [.invalidOutcome, .invalidOutcome])
    #expect(
      error?.problems.first?.message
        == "The outcome healthy expects action 'Do sit-ups' to decide yes, which it cannot: it decides done. Use one of those, or leave the decision out."
    )
  }

  @Test func unknownNamesAndRepeatedEndsAreErrors() {
    let error = #expect(throws: DefinitionError.self) {
      try health(
        Outcomes<Verdict> {
          OutcomeRule(.healthy, at: "Do situps")
          OutcomeRule(.unhealthy, at: "Injured?")
          OutcomeRule(.inconclusive, at: "Injured?", deciding: .yes)
        })
    }
    #expect(error?.problems.map(\.kind) == [.unknownName, .invalidOutcome])
    #expect(error?.problems.first?.name == "Do situps")
  }
}
