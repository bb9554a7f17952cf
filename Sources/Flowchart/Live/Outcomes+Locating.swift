/// Hooks for front ends of this package that declare outcomes from elsewhere than Swift source
/// (the FlowchartFiles module): rules from an array rather than a result builder, each at a
/// location with a column. The DSL's own initializers do not use them.

extension Outcomes {
  /// Outcomes of `rules`, in order, declared at `location`.
  package init(rules: [OutcomeRule<Outcome>], mapsEveryEnd: Bool, at location: SourceLocation) {
    self.rules = rules
    self.mapsEveryEnd = mapsEveryEnd
    self.location = location
  }
}

extension OutcomeRule {
  /// A rule declared at `location`.
  package init(
    _ outcome: Outcome, at stateName: String, deciding decision: Decision?,
    location: SourceLocation
  ) {
    self.outcome = outcome
    self.stateName = stateName
    self.decision = decision
    self.location = location
  }
}
