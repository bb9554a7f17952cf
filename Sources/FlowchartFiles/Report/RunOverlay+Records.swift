import Flowchart
import Foundation

extension RunOverlay {
  /// The overlay of a run log file's records (``RunLogFile/records(in:)``), to draw the run
  /// on its chart: `chart.mermaidDescription(showing: try RunOverlay(records: records))`.
  ///
  /// - Parameters:
  ///   - records: The file's records, in order.
  ///   - chart: The chart the run ran, if known: each record's state is then checked
  ///     against it (its position and its name), so that a log is not drawn on another
  ///     chart.
  ///   - spanLimit: The most spans of the timeline to keep, the newest.
  /// - Throws: ``RunLogFile/ReadingError`` for a file that records no event (written
  ///   before events were recorded), or whose state is not the chart's.
  public init<Context>(
    records: [RunLogFile.Record], chart: Flowchart<Context>? = nil,
    spanLimit: Int = RunOverlay.standardSpanLimit
  ) throws(RunLogFile.ReadingError) {
    self.init(spanLimit: spanLimit)
    var sawEvent = false
    for entry in records {
      guard let event = entry.event else { continue }
      sawEvent = true
      let state = entry.stateIndex.map(StateID.init)
      if let chart, let state {
        guard chart.states.contains(state), chart[state].name == entry.state else {
          let found =
            chart.states.contains(state)
            ? "the chart's state \(state) is '\(chart[state].name)'"
            : "the chart has \(chart.states.count) states"
          throw RunLogFile.ReadingError(
            line: entry.line,
            message:
              "state \(state) '\(entry.state ?? "")' is not a state of the chart (\(found)): draw a run log on the chart that ran it"
          )
        }
      }
      if let chart, let errorState = entry.errorStateIndex,
        !chart.states.contains(StateID(errorState))
      {
        throw RunLogFile.ReadingError(
          line: entry.line,
          message:
            "the error's state \(errorState) is not a state of the chart (it has \(chart.states.count) states): draw a run log on the chart that ran it"
        )
      }
      let time = Duration.seconds(entry.time ?? 0)
      let flow = entry.flow ?? 0
      let happening: Happening
      switch event {
      case "entered": happening = .entered
      case "decided": happening = .decided(Self.label(of: entry))
      case "failed": happening = .failed(Self.failure(of: entry, at: state))
      case "attemptFailed": happening = .attemptFailed
      case "caught":
        guard let target = entry.target else {
          throw RunLogFile.ReadingError(
            line: entry.line, message: "a 'caught' event has no 'target'")
        }
        happening = .caught(target: StateID(target))
      case "branchStarted", "branchEnded", "branchFailed", "branchSkipped", "branchCancelled":
        guard let branch = entry.branch else {
          throw RunLogFile.ReadingError(
            line: entry.line, message: "a '\(event)' event has no 'branch'")
        }
        happening =
          switch event {
          case "branchStarted": .branchStarted(branch)
          case "branchEnded": .branchEnded(branch)
          case "branchFailed": .branchFailed(branch)
          case "branchSkipped": .branchSkipped(branch)
          default: .branchCancelled(branch)
          }
      case "dispatchJoined": happening = .dispatchJoined
      case "mapEnded":
        happening = .mapEnded(
          finished: entry.finished ?? 0, failed: entry.failed ?? 0, skipped: entry.skipped ?? 0)
      case "runFinished": happening = .runFinished
      case "runFailed": happening = .runFailed(Self.failure(of: entry, at: state))
      // Events a drawing does not show, and those of later versions.
      default: continue
      }
      record(happening, state: state, flow: flow, time: time)
    }
    guard sawEvent || records.isEmpty else {
      throw RunLogFile.ReadingError(
        line: records[0].line,
        message:
          "the file records no event (no 'event' field): it was written by an older version; run the chart again to write a log that can be drawn"
      )
    }
  }

  /// The exit a `decided` record took.
  private static func label(of record: RunLogFile.Record) -> Exit.Label? {
    switch record.decision {
    case "yes": .yes
    case "no": .no
    case "done": .next
    case "key": record.key.map { $0 == "default" ? .default : .key($0) }
    default: nil
    }
  }

  /// The failure a `failed` or `runFailed` record tells: at the state where the error
  /// happened (inside a branch, for a dispatch's), as the run's own log tells it, or at
  /// the record's state for a file that does not say.
  private static func failure(of record: RunLogFile.Record, at state: StateID?) -> Failure {
    Failure(
      state: record.errorStateIndex.map(StateID.init) ?? state, kind: record.errorKind ?? "",
      reason: record.reason ?? record.text)
  }
}

extension RunLogFile {
  /// A run log file whose records cannot be drawn: the line, and what is wrong with it.
  public struct ReadingError: Error, Sendable, CustomStringConvertible {
    /// The record's line number (``Record/line``).
    public var line: Int
    /// What is wrong, and what to do.
    public var message: String

    /// `line 5: …`.
    public var description: String { "line \(line): \(message)" }
  }
}
