/// Hooks for front ends of this package that declare charts from elsewhere than Swift source
/// (the FlowchartFiles module): compiling with the words of their own syntax, and outcome rules
/// from an array rather than a result builder, each at a location with a column. The DSL's own
/// initializers do not use them.

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

extension Flowchart {
  /// Compiles `declarations`, declared at `location`, wording the compiler's advice with
  /// `vocabulary`: how a front end that reads charts from elsewhere than Swift source
  /// compiles them.
  package init(
    entryPoints: [String], location: SourceLocation, vocabulary: DeclarationVocabulary,
    declarations: [Declaration<Context>]
  ) throws(DefinitionError) {
    var compiler = Compiler(entryPoints: entryPoints, location: location)
    compiler.vocabulary = vocabulary
    self.init(graph: Graph(try compiler.compile(declarations.map { $0.node })))
  }

  /// As ``init(entryPoints:location:vocabulary:declarations:)``, for a chart whose runs map
  /// their ends to `outcomes`.
  package init<Outcome: Hashable & Sendable>(
    outcomes: Outcomes<Outcome>, entryPoints: [String], location: SourceLocation,
    vocabulary: DeclarationVocabulary, declarations: [Declaration<Context>]
  ) throws(DefinitionError) {
    var compiler = Compiler(entryPoints: entryPoints, location: location)
    compiler.vocabulary = vocabulary
    self.init(
      graph: try Graph(
        compiler.compile(declarations.map { $0.node }), outcomes: outcomes, chart: location))
  }
}
