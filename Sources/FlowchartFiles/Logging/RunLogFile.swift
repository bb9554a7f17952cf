import Flowchart
import Foundation

/// A `RunLogSink` (from the Flowchart module) that writes each line of a live run's log to a file as it
/// happens, one JSON object per line ("JSON lines"), so that a run of any length keeps its
/// whole log on disk while its handle's `log` keeps only the newest lines.
///
/// ```swift
/// let file = try RunLogFile(writingTo: URL(fileURLWithPath: "run.jsonl"))
/// let handle = chart.start(with: context, log: RunLog.Options(keepingLast: 100, sink: file))
/// _ = try await handle.result
/// let records = try RunLogFile.records(in: URL(fileURLWithPath: "run.jsonl"))
/// ```
///
/// Each line of the file is a ``Record``:
///
/// ```json
/// {"flow":0,"line":5,"state":"Lift weights","text":"  0.300s  'Lift weights' finished in 0.300s","time":0.3}
/// {"line":6,"text":"            log: [] → [\"lifted weights\"]"}
/// ```
///
/// Each line is written to the file at once (no buffer to flush), so what a run wrote is in
/// the file even if the process ends before the run does. A write that fails (a full disk)
/// does not stop the run: the first such error is kept in ``writeError``, and the lines after
/// it are not written.
public final class RunLogFile: RunLogSink {
  /// One line of the file: a line of the run's log, with its event's time, flow and state
  /// when it reports an event.
  public struct Record: Codable, Sendable, Hashable {
    /// The line's position among the run's lines, from 1.
    public var line: Int
    /// The line as the log shows it.
    public var text: String
    /// When the event happened, in seconds since the run started; `nil` for a line that
    /// shows a change to the context.
    public var time: Double?
    /// The flow that reported the event (0 for the top level, a branch's number for a
    /// dispatch branch); `nil` for a line that shows a change.
    public var flow: Int?
    /// The name of the state the event is about, if any.
    public var state: String?
    /// What the event is, for a line that reports one: `entered`, `decided`, `failed`,
    /// `branchStarted`, … (see ``RunLogFile/Record/init(_:)``); `nil` for a change, or in a
    /// file written before events were recorded.
    public var event: String?
    /// The state's position in the chart (`StateID.index`), if the event is about one.
    public var stateIndex: Int?
    /// What a state decided (`decided`, `runFinished`): `yes`, `no`, `done` or `key`.
    public var decision: String?
    /// The key decided, as the printed tree shows it, when ``decision`` is `key`.
    public var key: String?
    /// The branch's position among its dispatch's branches, from zero, for a branch's
    /// event.
    public var branch: Int?
    /// Where a catch route went (`StateID.index`), for `caught`.
    public var target: Int?
    /// The kind of error (`thrown error`, `cancelled`, …), for `failed`, `runFailed` and
    /// `branchFailed`.
    public var errorKind: String?
    /// Why, without the path, for `failed`, `runFailed`, `branchFailed`, `attemptFailed`
    /// and `caught`.
    public var reason: String?
    /// The state where the error happened (`StateID.index`), for `failed`, `runFailed`
    /// and `branchFailed`: the state inside the branch that failed, where ``stateIndex`` is
    /// the dispatch that reports it. `nil` for an error before any state, or in a file
    /// written before it was recorded.
    public var errorStateIndex: Int?
    /// How many elements finished, failed and were skipped, for `mapEnded` (the map's
    /// elements summarised on its box when the file is drawn); `nil` otherwise.
    public var finished: Int?
    /// How many elements failed, for `mapEnded`.
    public var failed: Int?
    /// How many elements were skipped, for `mapEnded`.
    public var skipped: Int?
    /// When a delay ends, as an RFC 3339 time, for `waitingUntil`.
    public var until: String?

    /// A record of the line numbered `line`.
    public init(
      line: Int, text: String, time: Double? = nil, flow: Int? = nil, state: String? = nil
    ) {
      self.line = line
      self.text = text
      self.time = time
      self.flow = flow
      self.state = state
    }

    /// The record of `line`: its event (if any) as `event`, with the fields that event
    /// has. The events are `runStarted`, `entered`, `decided`, `failed`, `attemptFailed`,
    /// `retrying`, `caught`, `dispatchStarted`, `branchStarted`, `branchEnded`,
    /// `branchFailed`, `branchSkipped`, `branchCancelled`, `dispatchJoined`, `mapEnded`, `waiting`,
    /// `paused`, `resumed`, `runFinished` and `runFailed`.
    public init(_ line: RunLog.Line) {
      self.init(line: line.number, text: line.text)
      guard let event = line.event else { return }
      let (seconds, attoseconds) = event.time.components
      time = Double(seconds) + Double(attoseconds) / 1e18
      flow = event.flow
      state = event.state == nil ? nil : event.stateName
      stateIndex = event.state?.index
      switch event.kind {
      case .runStarted: self.event = "runStarted"
      case .stateEntered: self.event = "entered"
      case .stateDecided(let decision): set("decided", decision: decision)
      case .stateFailed(let error): set("failed", error: error)
      case .attemptFailed(_, let reason):
        self.event = "attemptFailed"
        self.reason = reason
      case .retrying: self.event = "retrying"
      case .caught(let reason, let target, _):
        self.event = "caught"
        self.reason = reason
        self.target = target.index
      case .dispatchStarted: self.event = "dispatchStarted"
      case .branchStarted(let index): (self.event, branch) = ("branchStarted", index)
      case .branchEnded(let index): (self.event, branch) = ("branchEnded", index)
      case .branchFailed(let index, let error):
        branch = index
        set("branchFailed", error: error)
      case .branchSkipped(let index): (self.event, branch) = ("branchSkipped", index)
      case .branchCancelled(let index): (self.event, branch) = ("branchCancelled", index)
      case .dispatchJoined: self.event = "dispatchJoined"
      case .mapEnded(let finished, let failed, let skipped):
        (self.event, self.finished, self.failed, self.skipped) = (
          "mapEnded", finished, failed, skipped
        )
      case .waitingForInput: self.event = "waiting"
      case .waitingUntil(let deadline): (self.event, until) = ("waitingUntil", deadline.description)
      case .paused: self.event = "paused"
      case .resumed: self.event = "resumed"
      case .runFinished(let decision): set("runFinished", decision: decision)
      case .runFailed(let error): set("runFailed", error: error)
      }
    }

    /// Sets `event`, and the fields of the decision it took.
    private mutating func set(_ event: String, decision: Decision) {
      self.event = event
      if decision == .yes {
        self.decision = "yes"
      } else if decision == .no {
        self.decision = "no"
      } else if decision == .done {
        self.decision = "done"
      } else {
        self.decision = "key"
        key = RunOverlay.label(of: decision)?.key ?? "default"
      }
    }

    /// Sets `event`, and the fields of the error it ended with.
    private mutating func set(_ event: String, error: RunError) {
      self.event = event
      errorKind = error.kind.description
      reason = RunOverlay.Failure(error).reason
      errorStateIndex = error.state?.index
    }
  }

  /// What the lock guards: the file, and the first error writing to it.
  private struct Output: @unchecked Sendable {
    // @unchecked: `FileHandle` is not `Sendable` on every platform; this one is reached only
    // inside `output.withLock`, which serializes every use of it, and never escapes.
    var handle: FileHandle?
    var error: (any Error)?
  }

  private let output: Lock<Output>
  private let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// Creates the file at `url` (emptying it if it exists) for a run's log.
  ///
  /// - Throws: The error creating or opening the file, such as a folder that does not exist.
  public init(writingTo url: URL) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    output = Lock(Output(handle: try FileHandle(forWritingTo: url)))
  }

  deinit {
    output.withLock { try? $0.handle?.close() }
  }

  /// The first error writing to the file, if any: the lines after it were not written.
  public var writeError: (any Error)? { output.withLock { $0.error } }

  /// Writes `line` to the file as one JSON line; called by the run.
  public func write(_ line: RunLog.Line) {
    guard var data = try? encoder.encode(Record(line)) else { return }
    data.append(UInt8(ascii: "\n"))
    output.withLock { output in
      guard output.error == nil, let handle = output.handle else { return }
      do {
        try handle.write(contentsOf: data)
      } catch {
        output.error = error
      }
    }
  }

  /// Closes the file; the lines the run writes after it are dropped. Closing is optional:
  /// the file is closed when the sink is released.
  public func close() {
    output.withLock { output in
      try? output.handle?.close()
      output.handle = nil
    }
  }

  /// The records of a file a ``RunLogFile`` wrote, in order.
  ///
  /// - Throws: The error reading the file, or a `DecodingError` naming the line that is not
  ///   a record.
  public static func records(in url: URL) throws -> [Record] {
    let data = try Data(contentsOf: url)
    let decoder = JSONDecoder()
    return try data.split(separator: UInt8(ascii: "\n")).map {
      try decoder.decode(Record.self, from: Data($0))
    }
  }
}
