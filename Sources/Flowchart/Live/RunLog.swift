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
///   0.300s  'Lift weights' finished in 0.300s
///             log: [] → ["lifted weights"]
///   0.300s  entered 'Do sit-ups'
///   0.400s  'Do sit-ups' failed in 0.100s (cancelled): The run was cancelled while in …
///   0.400s  run failed at 'Do sit-ups' (cancelled)
/// ```
///
/// Changes are found by reflection (`Mirror`), comparing each stored property's
/// `String(reflecting:)` text, and only for a logged run: a run that is not logged pays
/// nothing for it. A context without stored properties shows as a whole.
///
/// A log stays small however long the run: it keeps the newest lines only, at most
/// ``Options/standardLineLimit`` (10,000) unless the run's ``Options`` say otherwise, and
/// its ``description`` starts with a line that says how many earlier lines it did not keep
/// (`… 1,234,567 earlier lines not kept`). What it keeps of every line is a few counters per
/// state (``counts``: visits, failures, time), which grow with the chart, not the run. To
/// keep every line, give the run a ``RunLogSink`` (``Options/init(keepingLast:sink:)``),
/// which receives each line as it happens, in order: `FlowchartFiles`' `RunLogFile` writes
/// them to a file as JSON lines.
///
/// ```swift
/// let handle = chart.start(with: context, log: RunLog.Options(keepingLast: 1_000))
/// _ = try await handle.result
/// print(handle.log)          // "… 41,000 earlier lines not kept", then the last 1,000
/// print(handle.log.summary)  // one line per state the run entered: visits, failures, time
/// ```
public struct RunLog: Sendable, CustomStringConvertible {
  /// The log's lines that it kept, oldest first: the newest of all the run's lines, at most
  /// as many as the run's ``Options/lineLimit``.
  public let lines: [String]

  /// How many of the run's earlier lines the log did not keep, to stay within its
  /// ``Options/lineLimit``; 0 when it kept every line.
  public let droppedLineCount: Int

  /// What each state the run reported did, by state: how many times the run entered it,
  /// how many times it failed, and how long it took in all. Counted over every line, kept
  /// or not.
  public let counts: [StateID: StateCounts]

  /// The names of the states in ``counts``, for ``summary``.
  private let names: [StateID: String]

  /// What the run did, for a diagram: see ``RunOverlay/init(log:)``.
  let overlay: RunOverlay

  /// A log with `lines`, none dropped and no counts.
  init(lines: [String]) {
    self.init(lines: lines, droppedLineCount: 0, counts: [:], names: [:])
  }

  init(
    lines: [String], droppedLineCount: Int, counts: [StateID: StateCounts],
    names: [StateID: String], overlay: RunOverlay = RunOverlay()
  ) {
    self.overlay = overlay
    self.lines = lines
    self.droppedLineCount = droppedLineCount
    self.counts = counts
    self.names = names
  }

  /// How many lines the run wrote: those kept and those dropped.
  public var lineCount: Int { droppedLineCount + lines.count }

  /// The lines, one per line, after a line that says how many earlier lines were not kept
  /// when there were any: `… 1,234,567 earlier lines not kept`.
  public var description: String {
    guard droppedLineCount > 0 else { return lines.joined(separator: "\n") }
    let noun = droppedLineCount == 1 ? "line" : "lines"
    let marker = "… \(Self.grouped(droppedLineCount)) earlier \(noun) not kept"
    return ([marker] + lines).joined(separator: "\n")
  }

  /// One line per state in ``counts``, in the order of the chart's states: its name, how
  /// many times the run entered it, how many times it failed, and how long it took in all.
  ///
  /// ```text
  /// 'Willing to exercise?': 1 visit, 0 failures, 0.000s
  /// 'Lift weights': 3 visits, 1 failure, 0.900s
  /// ```
  public var summary: String {
    counts.keys.sorted { $0.index < $1.index }.map { state in
      let count = counts[state] ?? StateCounts()
      let name = DisplayText.quoted(name: names[state] ?? "\(state)")
      let visits = "\(Self.grouped(count.visits)) visit\(count.visits == 1 ? "" : "s")"
      let failures = "\(Self.grouped(count.failures)) failure\(count.failures == 1 ? "" : "s")"
      return "\(name): \(visits), \(failures), \(Self.seconds(count.time))"
    }.joined(separator: "\n")
  }

  /// `1,234,567`: a count with its thousands grouped, for the truncation line.
  static func grouped(_ count: Int) -> String {
    let digits = String(count.magnitude)
    var text = ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0, (digits.count - offset) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return count < 0 ? "-" + text : text
  }

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
    case .stateDecided(let decision):
      text =
        decision == .done ? "\(name) finished\(took)" : "\(name) decided \(decision)\(took)"
    case .stateFailed(let error): text = "\(name) failed\(took) (\(error.kind)): \(error.reason)"
    case .dispatchStarted: text = "\(name) started its branches"
    case .branchStarted(let index): text = "\(event.branchText(index)) of \(name) started"
    case .branchEnded(let index): text = "\(event.branchText(index)) of \(name) ended"
    case .dispatchJoined: text = "\(name) joined its branches"
    case .waitingForInput: text = "\(name) waits for input"
    case .waitingUntil(let deadline): text = "\(name) waits until \(deadline)"
    case .paused: text = "paused before \(name)"
    case .resumed: text = "resumed before \(name)"
    case .runFinished(let decision):
      text =
        decision == .done
        ? "run finished at \(name)" : "run finished at \(name) deciding \(decision)"
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
        "\(event.branchText(index)) of \(name) failed (\(error.kind)), tolerated: \(error.reason)"
    case .branchSkipped(let index):
      text = "\(event.branchText(index)) of \(name) skipped: a prerequisite did not succeed"
    case .branchCancelled(let index):
      text = "\(event.branchText(index)) of \(name) cancelled: the quorum was met"
    case .mapEnded(let finished, let failed, let skipped):
      text =
        "\(name) ended its elements: \(finished) finished, \(failed) failed, \(skipped) skipped"
    }
    let time = seconds(event.time)
    let padded = String(repeating: " ", count: max(0, 8 - time.count)) + time
    let flow = event.flow == 0 ? "" : "[\(event.flow)] "
    return "\(padded)  \(flow)\(text)"
  }

  /// `1.234s`: whole milliseconds, truncated toward zero. Any duration prints, up to
  /// `Duration`'s own bounds (the seconds are not multiplied into milliseconds, which would
  /// overflow past 292 million years).
  static func seconds(_ duration: Duration) -> String {
    var (whole, milliseconds) = duration.components
    milliseconds /= 1_000_000_000_000_000
    // The two parts may differ in sign; give the milliseconds the seconds' sign.
    if whole > 0 && milliseconds < 0 {
      (whole, milliseconds) = (whole - 1, milliseconds + 1000)
    } else if whole < 0 && milliseconds > 0 {
      (whole, milliseconds) = (whole + 1, milliseconds - 1000)
    }
    let sign = whole < 0 || milliseconds < 0 ? "-" : ""
    let fraction = String(milliseconds.magnitude)
    return
      "\(sign)\(whole.magnitude).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
  }

  /// The stored properties that differ between `old` and `new`, as `name: old → new`.
  static func changes<Context>(from old: Context, to new: Context) -> [String] {
    let before = Array(Mirror(reflecting: old).children)
    let after = Array(Mirror(reflecting: new).children)
    guard !before.isEmpty, before.count == after.count else {
      let (oldText, newText) = (DisplayText.value(old), DisplayText.value(new))
      return oldText == newText ? [] : ["context: \(oldText) → \(newText)"]
    }
    var changes: [String] = []
    for (index, (first, second)) in zip(before, after).enumerated() {
      let (oldText, newText) = (DisplayText.value(first.value), DisplayText.value(second.value))
      if oldText != newText {
        changes.append("\(first.label ?? "\(index)"): \(oldText) → \(newText)")
      }
    }
    return changes
  }
}

extension RunLog {
  /// What one state did over a run, as its log counts it: a few numbers, however long the
  /// run.
  public struct StateCounts: Sendable, Hashable {
    /// How many times a flow entered the state.
    public var visits = 0
    /// How many times the state's code failed: each attempt that failed and was retried,
    /// each failure a catch route took, and each failure that stopped its flow there
    /// (including a cancellation or a step limit reached at the state).
    public var failures = 0
    /// How long the state took in all, by the run's clock: from each entry to its
    /// decision or failure, as the log's `in 0.300s` shows.
    public var time = Duration.zero

    /// Counts of a state: by default, one the run has not entered.
    public init(visits: Int = 0, failures: Int = 0, time: Duration = .zero) {
      self.visits = visits
      self.failures = failures
      self.time = time
    }
  }

  /// One line of a run's log, as a ``RunLogSink`` receives it.
  public struct Line: Sendable {
    /// The line's position among all the lines of the run, from 1: a sink can tell a gap
    /// from it, and a log's ``RunLog/droppedLineCount`` counts the lines before its first.
    public let number: Int
    /// The line as the log shows it: `  0.300s  'Lift weights' finished in 0.300s`.
    public let text: String
    /// The event the line reports, or `nil` for a line that shows a property of the
    /// context a decision changed (`            sets: 0 → 3`).
    public let event: RunEvent?
  }

  /// How a live run keeps its log: how many lines it keeps in memory, and where it writes
  /// every line as it happens.
  ///
  /// ```swift
  /// // The default of `isLogged: true`: the newest 10,000 lines and the counts.
  /// chart.start(with: context, log: .standard)
  /// // Every line to a sink, and only the newest 100 in memory.
  /// chart.start(with: context, log: RunLog.Options(keepingLast: 100, sink: mySink))
  /// ```
  public struct Options: Sendable {
    /// How many lines ``RunLog/lines`` keeps unless told otherwise: 10,000, about a
    /// megabyte.
    public static var standardLineLimit: Int { 10_000 }

    /// The options of `isLogged: true`: the newest ``standardLineLimit`` lines, no sink.
    public static var standard: Options { Options() }

    /// The most lines the log keeps in memory, the newest; 0 keeps none (the counts and a
    /// sink still see every line).
    public var lineLimit: Int
    /// Where each line goes as it happens, if anywhere.
    public var sink: (any RunLogSink)?

    /// Keeps the newest `lineLimit` lines (a negative limit keeps none, as 0 does) and
    /// writes every line to `sink`, if any, as it happens.
    public init(keepingLast lineLimit: Int = standardLineLimit, sink: (any RunLogSink)? = nil) {
      self.lineLimit = max(lineLimit, 0)
      self.sink = sink
    }

    /// Keeps the newest `lineLimit` lines and calls `write` with every line as it happens,
    /// in order; see ``RunLogSink``.
    public init(
      keepingLast lineLimit: Int = standardLineLimit,
      writing write: @escaping @Sendable (Line) -> Void
    ) {
      self.init(keepingLast: lineLimit, sink: ClosureSink(write: write))
    }
  }

  /// A sink that calls a closure.
  private struct ClosureSink: RunLogSink {
    let write: @Sendable (Line) -> Void
    func write(_ line: Line) { write(line) }
  }
}

/// Where a live run's log writes each line as it happens: a file, a logger, a test's array.
///
/// Give one to ``Flowchart/start(with:stepLimit:clock:isPaused:log:observer:isolation:)``
/// in ``RunLog/Options``. The run calls ``write(_:)`` with every line of its log, in order
/// (numbered from 1, with no gap), one call at a time, after its lock is released: a sink
/// that takes its time holds back the flow that reported the line (and any other flow that
/// reports meanwhile), never the handle's other calls, so the lines waiting for a sink stay
/// few however long the run. A run's last line is written before its
/// ``RunHandle/result`` is available. `FlowchartFiles`' `RunLogFile` writes JSON lines.
///
/// ```swift
/// struct PrintingSink: RunLogSink {
///   func write(_ line: RunLog.Line) { print(line.text) }
/// }
/// let handle = chart.start(with: context, log: RunLog.Options(sink: PrintingSink()))
/// ```
///
/// A sink may read the handle (its ``RunHandle/log``, its positions), but what it does
/// with the run (pausing, sending a value) writes the lines it causes after the sink
/// returns, from the same loop.
public protocol RunLogSink: Sendable {
  /// Receives the next line of the run's log.
  func write(_ line: RunLog.Line)
}

/// A live run's log as it grows, under the run's lock: the newest lines in a ring, the
/// counts by state, when each flow entered its state, and the lines a sink has not taken
/// yet. Holds at most ``RunLog/Options/lineLimit`` lines, a count per state the run
/// entered, an entry per running flow, and the lines of the events reported since the sink
/// last took them.
struct RunLogRecorder {
  /// The most lines kept.
  private let limit: Int
  /// Whether a sink takes the lines: only then are they kept for it.
  private let hasSink: Bool
  /// The newest lines; once it holds `limit`, `oldest` is where the oldest is and the next
  /// line goes.
  private var ring: [String] = []
  private var oldest = 0
  /// Every line so far, kept or not.
  private var total = 0
  private var counts: [StateID: RunLog.StateCounts] = [:]
  private var names: [StateID: String] = [:]
  /// When each running flow entered the state it is in, by flow.
  private var entered: [Int32: (state: StateID?, time: Duration)] = [:]
  /// The lines the sink has not taken yet, oldest first.
  private var pending: [RunLog.Line] = []
  /// What the run did, for a diagram, kept as long as the lines.
  private var overlay: RunOverlay

  init(_ options: RunLog.Options) {
    overlay = RunOverlay(spanLimit: options.lineLimit)
    limit = options.lineLimit
    hasSink = options.sink != nil
  }

  /// The log so far.
  var log: RunLog {
    RunLog(
      lines: Array(ring[oldest...] + ring[..<oldest]), droppedLineCount: total - ring.count,
      counts: counts, names: names, overlay: overlay)
  }

  /// Writes the line of `event` (with `suffix` after it), and counts it.
  mutating func record(_ event: RunEvent, suffix: String = "") {
    let flow = Int32(truncatingIfNeeded: event.flow)
    let started = entered[flow]
    keep(RunLog.line(for: event, enteredAt: started?.time) + suffix, event: event)
    overlay.record(event)
    guard let state = event.state else { return }
    /// The time since the flow entered `state`, if it is the state it entered.
    var took: Duration { started.map { $0.state == state ? event.time - $0.time : .zero } ?? .zero }
    switch event.kind {
    case .stateEntered:
      entered[flow] = (state, event.time)
      names[state] = event.stateName
      counts[state, default: RunLog.StateCounts()].visits += 1
    case .stateDecided:
      counts[state, default: RunLog.StateCounts()].time += took
    case .stateFailed, .caught:
      counts[state, default: RunLog.StateCounts()].failures += 1
      counts[state, default: RunLog.StateCounts()].time += took
      names[state] = names[state] ?? event.stateName
    case .attemptFailed:
      counts[state, default: RunLog.StateCounts()].failures += 1
    case .branchEnded, .runFinished, .runFailed:
      // The flow ends: its entry goes, so that a run of many branches keeps none of theirs.
      entered[flow] = nil
    case .runStarted, .dispatchStarted, .branchStarted, .dispatchJoined, .waitingForInput,
      .waitingUntil, .paused, .resumed, .retrying, .branchFailed, .branchSkipped,
      .branchCancelled, .mapEnded:
      break
    }
  }

  /// Writes `lines` (the changes a decision made) after the line of the decision.
  mutating func append(contentsOf lines: [String]) {
    for line in lines { keep(line, event: nil) }
  }

  /// Keeps `text` among the newest lines, and for the sink.
  private mutating func keep(_ text: String, event: RunEvent?) {
    total += 1
    if hasSink { pending.append(RunLog.Line(number: total, text: text, event: event)) }
    guard limit > 0 else { return }
    if ring.count < limit {
      ring.append(text)
    } else {
      ring[oldest] = text
      oldest = oldest + 1 == limit ? 0 : oldest + 1
    }
  }

  /// The writing session that hands the sink its lines, if one goes on (see
  /// `LiveRun.writeLog()`).
  private(set) var session: Int?
  private var sessions = 0

  /// Starts a writing session, and returns its number.
  mutating func beginSession() -> Int {
    sessions += 1
    session = sessions
    return sessions
  }

  /// The lines the sink has not taken yet, which it takes now; none ends the session, in
  /// the same step, so that a line written later starts a new one.
  mutating func takePending() -> [RunLog.Line] {
    if pending.isEmpty { session = nil }
    defer { pending = [] }
    return pending
  }
}

extension Flowchart {
  /// Starts a logged run with `context` and returns its handle at once:
  /// ``start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` with the run's
  /// log kept as `log` says.
  ///
  /// ```swift
  /// let file = try RunLogFile(writingTo: url)  // FlowchartFiles: one JSON line per line
  /// let handle = chart.start(with: context, log: RunLog.Options(keepingLast: 100, sink: file))
  /// _ = try await handle.result  // every line is in the file by now
  /// print(handle.log)            // the newest 100 lines, after how many were not kept
  /// ```
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - stepLimit: As for ``run(with:stepLimit:isolation:)``; an invalid limit fails the run.
  ///   - clock: The clock that times the run's events.
  ///   - isPaused: Whether the run waits for ``RunHandle/resume()`` before it reports
  ///     anything.
  ///   - log: How many lines ``RunHandle/log`` keeps, and the sink that takes each line as
  ///     it happens, if any.
  ///   - observer: Callbacks the run calls as it enters and finishes states, and when it
  ///     ends.
  ///   - isolation: The actor the synchronous states run on: by default the caller's.
  /// - Returns: The handle of the run, already going (or waiting for `resume()`).
  @inlinable
  public func start<C: Clock>(
    with context: Context, stepLimit: Int? = nil, clock: C = ContinuousClock(),
    isPaused: Bool = false, log: RunLog.Options, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) -> RunHandle<Context> where C.Duration == Duration {
    start(
      with: context, stepLimit: stepLimit, clock: clock, isPaused: isPaused, log: log,
      observer: observer, isolation: isolation, flow: liveFlow())
  }
}
