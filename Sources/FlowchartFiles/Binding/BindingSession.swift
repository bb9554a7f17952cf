import Flowchart

extension ChartFile {
  /// The default of `flowchart(handlers:stateLimit:)`'s `stateLimit`: 1,000,000 states.
  public static var defaultStateLimit: Int { 1_000_000 }
}

/// One binding of a chart file, with the charts its subflows and maps run: each file's chart
/// is compiled once for each registry it is bound with, however many subflows run it, and
/// the states made are counted against the load's limit.
///
/// A compiled `Flowchart` is an immutable value, so the subflows that run one file share one
/// compiled chart. Not `Sendable`: a binding runs on one thread, from start to end.
package final class BindingSession {
  /// The most states the binding may make, included files and the charts run counted.
  let stateLimit: Int
  /// The states made so far.
  package private(set) var states = 0
  /// The problem that reported the limit, once it was reached; then nothing more is made.
  private(set) var limitProblem: DefinitionError.Problem?
  /// The number of charts compiled, the top one not counted (for tests).
  package private(set) var compiles = 0

  private struct Key: Hashable {
    var scope: String
    var path: String
  }

  private var charts: [Key: (file: ChartFile, chart: Any?)] = [:]
  private var sizes: [String: (file: ChartFile, size: Int)] = [:]

  package init(stateLimit: Int) {
    self.stateLimit = stateLimit
  }

  /// Counts one more state, declared at `location`; `false` once the limit is reached (its
  /// problem recorded the first time).
  func admitState(at location: SourceLocation) -> Bool {
    guard limitProblem == nil else { return false }
    guard states < stateLimit else {
      limitProblem = DefinitionError.Problem(
        .malformedFile, name: nil, at: location,
        message:
          "The chart makes more than \(stateLimit) states here, counting the files it includes and the charts its subflows and maps run: the limit of a load. Split the chart, or raise the limit (stateLimit)."
      )
      return false
    }
    states += 1
    return true
  }

  /// Whether `file`'s states fit in what is left of the limit, included where `location`
  /// says; `false` (and the limit's problem recorded) when they do not.
  func admitInclude(_ path: String, of file: ChartFile, at location: SourceLocation) -> Bool {
    guard limitProblem == nil else { return false }
    let size = self.size(of: file, depth: 1)
    guard size > stateLimit - states else { return true }
    let count = size == Int.max ? "more than \(Int.max)" : "\(size)"
    limitProblem = DefinitionError.Problem(
      .malformedFile, name: nil, at: location,
      message:
        "Including '\(path)' here adds \(count) states, counting what it includes, which takes the load past its limit of \(stateLimit) states. Include it fewer times, or raise the limit (stateLimit)."
    )
    return false
  }

  /// The chart `file` compiles to with a registry that `scope` identifies, compiled by
  /// `compile` the first time it is asked for; `nil` when it does not compile, with its
  /// problems the first time only (they are reported once).
  func chart<Inner>(
    for file: ChartFile, scope: String,
    compile: () throws(DefinitionError) -> Flowchart<Inner>
  ) -> (chart: Flowchart<Inner>?, problems: [DefinitionError.Problem]) {
    let key = Key(scope: "\(scope) \(Inner.self)", path: file.path)
    if let entry = charts[key], entry.file == file {
      return (entry.chart as? Flowchart<Inner>, [])
    }
    compiles += 1
    do throws(DefinitionError) {
      let chart = try compile()
      charts[key] = (file, chart)
      return (chart, [])
    } catch {
      charts[key] = (file, nil)
      return (nil, error.problems)
    }
  }

  /// `chart` compiled with `handlers`, which `scope` names, through ``chart(for:scope:compile:)``:
  /// its problems the first time, an error without problems after (they were reported), at
  /// `location`.
  func compiledChart<Inner>(
    _ chart: ChartFile, handlers: HandlerRegistry<Inner>, scope: String,
    at location: SourceLocation
  ) -> Result<Flowchart<Inner>, DefinitionError> {
    let (compiled, problems) = self.chart(for: chart, scope: scope) {
      () throws(DefinitionError) -> Flowchart<Inner> in
      try chart.flowchart(handlers: handlers, session: self, scope: scope)
    }
    if let compiled { return .success(compiled) }
    return .failure(DefinitionError(collecting: problems, at: location))
  }

  /// The number of states `file` declares, counting what it includes (`Int.max` when that
  /// does not fit), each file counted once however many times it is included.
  private func size(of file: ChartFile, depth: Int) -> Int {
    if let known = sizes[file.path], known.file == file { return known.size }
    let size = self.size(of: file.states, in: file, depth: depth)
    sizes[file.path] = (file, size)
    return size
  }

  private func size(of nodes: [ChartNode], in file: ChartFile, depth: Int) -> Int {
    // Deeper nesting is a problem of its own, which the binder reports.
    guard depth <= maximumStateDepth else { return 0 }
    var total = 0
    func add(_ count: Int) {
      let (sum, overflow) = total.addingReportingOverflow(count)
      total = overflow ? Int.max : sum
    }
    for node in nodes {
      switch node.kind {
      case .include(let path):
        if let included = file.includedFiles[path] { add(size(of: included, depth: depth)) }
        continue
      case .action, .goTo, .wait, .delay: break
      case .condition(let condition):
        add(size(of: condition.yes ?? [], in: file, depth: depth + 1))
        add(size(of: condition.no ?? [], in: file, depth: depth + 1))
      case .multipleCondition(let condition):
        for exit in condition.exits ?? [] { add(size(of: exit.states, in: file, depth: depth + 1)) }
      case .dispatch(let dispatch):
        for branch in dispatch.branches {
          add(size(of: branch.states, in: file, depth: depth + 1))
        }
      case .subflow(let subflow):
        switch subflow.exits {
        case .none: break
        case .yesNo(let yes, let no):
          add(size(of: yes, in: file, depth: depth + 1))
          add(size(of: no, in: file, depth: depth + 1))
        case .keyed(let exits):
          for exit in exits { add(size(of: exit.states, in: file, depth: depth + 1)) }
        }
      case .map(let map):
        if case .states(let states) = map.chart {
          add(size(of: states, in: file, depth: depth + 1))
        }
      }
      add(1)
    }
    return total
  }
}
