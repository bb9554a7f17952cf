/// A summary of a live run, one line per event, readable in a bug report: Flow's
/// `generateSummary()`.
///
/// Ask for it when you start the run (`chart.start(with: context, isLogged: true)`), then
/// read ``RunHandle/log`` during the run or after it. Each line starts with the time since
/// the run started, by the run's clock; a branch's lines carry its flow number; a state's
/// decision or failure gives how long the state took; and after each decision come the
/// stored properties of the context that the state changed, old → new:
///
/// ```text
///   0.000s  run started at 'Willing to exercise?'
///   0.000s  entered 'Willing to exercise?'
///   0.000s  'Willing to exercise?' decided yes in 0.000s
///   0.000s  entered 'Lift weights'
///   0.300s  'Lift weights' decided done in 0.300s
///             log: [] → ["lifted weights"]
///   0.300s  entered 'Do sit-ups'
///   0.400s  'Do sit-ups' failed in 0.100s (cancelled): The run was cancelled while in …
///   0.400s  run failed at 'Do sit-ups' (cancelled)
/// ```
///
/// Changes are found by reflection (`Mirror`), comparing each stored property's
/// `String(reflecting:)` text, and only for a logged run: a run that is not logged pays
/// nothing for it. A context without stored properties shows as a whole.
public struct RunLog: Sendable, CustomStringConvertible {
  /// The log's lines, oldest first.
  public let lines: [String]

  /// The lines, one per line.
  public var description: String { lines.joined(separator: "\n") }

  /// Where a change line starts, under the time column.
  static var continuation: String { String(repeating: " ", count: 12) }

  /// The line of one event; `enteredAt` is when its flow entered its current state.
  static func line(for event: RunEvent, enteredAt: Duration?) -> String {
    let name = DisplayText.quoted(name: event.stateName)
    let took = enteredAt.map { " in \(seconds(event.time - $0))" } ?? ""
    let text: String
    switch event.kind {
    case .runStarted: text = "run started at \(name)"
    case .stateEntered: text = "entered \(name)"
    case .stateDecided(let decision): text = "\(name) decided \(decision)\(took)"
    case .stateFailed(let error): text = "\(name) failed\(took) (\(error.kind)): \(error.reason)"
    case .dispatchStarted: text = "\(name) started its branches"
    case .branchStarted(let index): text = "branch \(index + 1) of \(name) started"
    case .branchEnded(let index): text = "branch \(index + 1) of \(name) ended"
    case .dispatchJoined: text = "\(name) joined its branches"
    case .waitingForInput: text = "\(name) waits for input"
    case .paused: text = "paused before \(name)"
    case .resumed: text = "resumed before \(name)"
    case .runFinished(let decision): text = "run finished at \(name) deciding \(decision)"
    case .runFailed(let error):
      text =
        event.state == nil ? "run failed (\(error.kind))" : "run failed at \(name) (\(error.kind))"
    case .attemptFailed(let attempt, let reason):
      text = "\(name) attempt \(attempt) failed\(took): \(reason)"
    case .retrying(let attempt, let delay):
      text = "\(name) starts attempt \(attempt) after \(seconds(delay))"
    case .caught(let reason, _, let targetName):
      text =
        "\(name) failed\(took), caught: \(reason); going to \(DisplayText.quoted(name: targetName))"
    case .branchFailed(let index, let error):
      text =
        "branch \(index + 1) of \(name) failed (\(error.kind)), tolerated: \(error.reason)"
    case .branchSkipped(let index):
      text = "branch \(index + 1) of \(name) skipped: a prerequisite did not succeed"
    case .branchCancelled(let index):
      text = "branch \(index + 1) of \(name) cancelled: the quorum was met"
    }
    let time = seconds(event.time)
    let padded = String(repeating: " ", count: max(0, 8 - time.count)) + time
    let flow = event.flow == 0 ? "" : "[\(event.flow)] "
    return "\(padded)  \(flow)\(text)"
  }

  /// `1.234s`: whole milliseconds.
  static func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    let milliseconds = whole * 1000 + attoseconds / 1_000_000_000_000_000
    let fraction = String(abs(milliseconds % 1000))
    let sign = milliseconds < 0 ? "-" : ""
    return
      "\(sign)\(abs(milliseconds / 1000)).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
  }

  /// The stored properties that differ between `old` and `new`, as `name: old → new`.
  static func changes<Context>(from old: Context, to new: Context) -> [String] {
    let before = Array(Mirror(reflecting: old).children)
    let after = Array(Mirror(reflecting: new).children)
    guard !before.isEmpty, before.count == after.count else {
      let (oldText, newText) = (String(reflecting: old), String(reflecting: new))
      return oldText == newText ? [] : ["context: \(oldText) → \(newText)"]
    }
    var changes: [String] = []
    for (index, (first, second)) in zip(before, after).enumerated() {
      let (oldText, newText) = (String(reflecting: first.value), String(reflecting: second.value))
      if oldText != newText {
        changes.append("\(first.label ?? "\(index)"): \(oldText) → \(newText)")
      }
    }
    return changes
  }
}
