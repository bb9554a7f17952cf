import Flowchart
import FlowchartFiles
import FlowchartStores
import Foundation

extension ExitCode {
  /// 2: the run rests unfinished (it waits for input or for a time): it is saved in the run
  /// store given with `--store`, and `flowchart resume` goes on with it.
  static let waiting = ExitCode(rawValue: 2)
}

extension Tool {
  /// `flowchart runs <store>`.
  static let runsCommand = CommandSpec(
    name: "runs", abstract: "List the runs saved in a run store.",
    discussion: """
      Prints one line per run that `run --store` or `resume` saved in the directory: its
      id, where it stands (finished, failed at a state, waiting for input at a state), the
      chart file it runs, and when it was last saved (UTC). A file of the store that
      cannot be read is reported on standard error, and the exit code is then 1.
      """,
    arguments: [storeArgument])

  /// `flowchart resume <store> <run-id> [--send <state=json> ...]`.
  static let resumeCommand = CommandSpec(
    name: "resume", abstract: "Go on with a run saved in a run store.",
    discussion: """
      Loads the run from the store, reads its chart from the file it was started with, and
      goes on from where the run was saved: a run waiting for input waits again, and
      takes the value --send gives its state; a failed run runs the state that failed
      again. The run is saved again as it goes. Prints what `run` prints, and exits as
      `run --store` does.

      A chart file that changed since the run was saved is used if every state the run
      stands at or went through still exists with the same kind and exits; otherwise
      the run is not resumed, the states that no longer fit are listed, and the stored
      run is left as it was.
      """,
    arguments: [
      storeArgument,
      ArgumentSpec(name: "run-id", help: "The run's id, as `run --store` or `runs` printed it."),
    ],
    options: [
      OptionSpec(
        name: "--send", valueName: "state=json",
        help:
          "Send a waiting state its input, a JSON value. Split at the first '='. Repeat for more states.",
        isRepeatable: true),
      OptionSpec(
        name: "--decide", valueName: "state=decision",
        help:
          "Force a state's decision: yes or no for a condition, a key for a multiple condition. Split at the last '='. Repeat for more states, or for one state's later visits.",
        isRepeatable: true),
      OptionSpec(
        name: "--log",
        help: "Print each state as the run enters it, and the exit it takes, as the run goes."),
      OptionSpec(
        name: "--log-file", valueName: "path",
        help:
          "Write the log of the resumed part of the run to a file, one JSON object per line: from where the run goes on (the part before is in the log file of the invocation that ran it). The file is created, or replaced, once the run goes on."
      ),
      OptionSpec(
        name: "--report", valueName: "path",
        help:
          "Write a report of the resumed part of the run to an HTML file, as `run --report` does."
      ),
    ])

  /// The run store's directory, as `runs` and `resume` take it.
  private static var storeArgument: ArgumentSpec {
    ArgumentSpec(name: "store", help: "The run store's directory, as given to `run --store`.")
  }

  /// The help line of `run --store`.
  static let storeHelp =
    "Save the run in this directory (a run store, created if missing) when it waits, fails or finishes, and print its id; go on with `resume`."

  // MARK: - runs

  /// `flowchart runs <store>`.
  static func listRuns(in directory: String) async -> Outcome {
    var outcome = Outcome()
    guard let store = openStore(directory, reportingTo: &outcome) else { return outcome }
    let listing: RunListing
    do throws(RunStoreError) {
      listing = try store.scan()
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    if listing.runs.isEmpty && listing.problems.isEmpty {
      outcome.say("No runs in '\(directory)'.")
    }
    let idWidth = listing.runs.map(\.id.text.count).max() ?? 0
    let statusWidth = listing.runs.map(\.status.description.count).max() ?? 0
    for run in listing.runs {
      let id = run.id.text.padding(toLength: idWidth, withPad: " ", startingAt: 0)
      let status = run.status.description.padding(
        toLength: statusWidth, withPad: " ", startingAt: 0)
      outcome.say("\(id)  \(status)  \(run.chart)  \(run.updated)")
    }
    for problem in listing.problems {
      outcome.complain("\(problem.location): error: \(problem.message)")
    }
    if !listing.problems.isEmpty {
      outcome.complain(
        "Error: \(counted(listing.problems.count, "file")) of the store could not be read.")
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// The run store in `directory`, which must exist: `runs` and `resume` read a store, they
  /// do not make one. On failure, says why in `outcome`.
  static func openStore(_ directory: String, reportingTo outcome: inout Outcome)
    -> DirectoryRunStore?
  {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      outcome.complain(
        "Error: No run store at '\(directory)': there is no such directory. Give the directory given to `flowchart run --store`."
      )
      outcome.exitCode = .failure
      return nil
    }
    do throws(RunStoreError) {
      return try DirectoryRunStore(directory: directory)
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return nil
    }
  }

  // MARK: - resume

  /// `flowchart resume <store> <run-id> --send <state=json> ... --decide <state=decision> ...`.
  static func resumeRun(
    in directory: String, id text: String, inputs: [String], decisions: [String], log: Bool,
    files: RunFiles = RunFiles(), output: OutputSink?
  ) async -> Outcome {
    var outcome = Outcome()
    let id: RunID
    let sent: [(name: String, value: ChartValue)]
    let forcedNames: [(name: String, decision: String)]
    do throws(UsageError) {
      guard let parsed = RunID(text) else {
        throw UsageError(
          message:
            "The value '\(quotedArgument(text))' is invalid for '<run-id>': \(RunID.problem(with: text) ?? "") Give an id that `flowchart runs` lists.",
          command: "resume")
      }
      id = parsed
      sent = try inputs.map(parseInput)
      forcedNames = try decisions.map(parseDecision)
    } catch {
      var error = error
      error.command = "resume"
      outcome.errorOutput = Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
    guard let store = openStore(directory, reportingTo: &outcome) else { return outcome }
    let stored: StoredRun
    do throws(RunStoreError) {
      guard let run = try store.read(id) else {
        outcome.complain(
          "Error: No run '\(id)' in the store '\(directory)': `flowchart runs \(directory)` lists the runs it holds."
        )
        outcome.exitCode = .failure
        return outcome
      }
      stored = run
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    let path = stored.summary.chart
    guard !path.isEmpty else {
      outcome.complain(
        "Error: Run '\(id)' names no chart file, so the tool cannot resume it: it was not saved by `flowchart run --store`. Resume it from the code that started it."
      )
      outcome.exitCode = .failure
      return outcome
    }
    let inner = InnerDecisions()
    guard let chart = load(path, decisions: inner, reportingTo: &outcome) else {
      outcome.complain(
        "Error: Run '\(id)' cannot be resumed: its chart file '\(path)' cannot be read (above). Restore it, then resume again; the stored run is unchanged."
      )
      return outcome
    }
    let steps = StepLog(chart, output: output)
    let scripted: Flowchart<ChartValue>
    do throws(UsageError) {
      for (name, _) in sent { try checkWaitingState(named: name, in: chart, command: "resume") }
      let forcing = try forced(forcedNames, in: chart, inner: inner)
      do throws(ScriptProblem) {
        let observer: (@Sendable (StateID, ObservedStep) -> Void)? =
          log ? { @Sendable state, step in steps.append(state, step) } : nil
        scripted = try chart.scripted(forcing: forcing, observer: observer)
      } catch {
        throw UsageError(message: error.message, command: "resume")
      }
    } catch {
      var error = error
      error.command = "resume"
      outcome.errorOutput = Help.text(of: error, commands: commands)
      if stored.summary.fingerprint != chart.structuralFingerprint {
        // The value may name a state the changed file no longer has as the run knew it.
        outcome.complain(
          "Note: the chart file '\(path)' changed since run '\(id)' was saved; run `flowchart resume \(directory) \(id)` without --send and --decide to see whether the run can follow it."
        )
      }
      outcome.exitCode = .usageError
      return outcome
    }
    for (option, file) in [("--log-file", files.logFile), ("--report", files.report)] {
      guard let file else { continue }
      let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        outcome.complain(
          "Error: '\(file)' cannot be written for \(option): there is no folder '\(folder)'. Give a file in a folder that exists; the stored run is unchanged."
        )
        outcome.exitCode = .failure
        return outcome
      }
    }
    // Created at the run's first line: a refused resume leaves a file of that name alone.
    let logging = RunLogging(
      files: files, file: files.logFile.map(StoredRunLogFile.init(creatingAtFirstLine:)),
      chart: chart)
    let durable: DurableRunHandle<ChartValue>
    do {
      if let log = logging.log {
        durable = try await scripted.start(resuming: id, in: store, chart: path, log: log)
      } else {
        durable = try await scripted.start(resuming: id, in: store, chart: path)
      }
    } catch let error as ResumeError {
      outcome.complain(
        "Error: Run '\(id)' cannot be resumed: its chart file '\(path)' changed since the run was saved, in a way the run cannot follow. The stored run is unchanged; restore the file's earlier version to resume it."
      )
      outcome.complain(error.description)
      outcome.exitCode = .failure
      return outcome
    } catch let error as StoredSnapshotError {
      outcome.complain("Error: \(error.message)")
      outcome.exitCode = .failure
      return outcome
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    return await finish(
      durable, sending: sent, store: directory, steps: steps,
      stepLimit: defaultStepLimit, logging: logging, outcome: outcome)
  }

  /// Refuses a `--send` to `name` unless one waiting state of `chart` has the name: checked
  /// before a stored run is resumed, so that a mistyped name changes nothing in the store.
  static func checkWaitingState(
    named name: String, in chart: Flowchart<ChartValue>, command: String
  ) throws(UsageError) {
    let waiting = chart.states.filter { chart[$0].name == name && chart[$0].kind.code == .waiting }
    guard waiting.count != 1 else { return }
    let names = chart.states.filter { chart[$0].kind.code == .waiting }.map {
      "'\(chart[$0].name)'"
    }
    let known =
      names.isEmpty ? "it has none" : "its waiting states are \(names.joined(separator: ", "))"
    throw UsageError(
      message: waiting.isEmpty
        ? "The value '\(name)=…' is invalid for '--send <state=json>': the chart has no waiting state '\(name)'; \(known)."
        : "The value '\(name)=…' is invalid for '--send <state=json>': the chart has \(waiting.count) waiting states named '\(name)'; rename them apart.",
      command: command)
  }

  // MARK: - run --store

  /// Runs `scripted` as `run --store` does: saved in `directory` when it rests.
  static func runStored(
    _ scripted: Flowchart<ChartValue>, path: String, context: ChartValue,
    inputs sent: [(name: String, value: ChartValue)], stepLimit: Int, store directory: String,
    steps: StepLog, logging: RunLogging
  ) async -> Outcome {
    var outcome = Outcome()
    do throws(UsageError) {
      for (name, _) in sent { try checkWaitingState(named: name, in: scripted, command: "run") }
    } catch {
      outcome.errorOutput = Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
    let store: DirectoryRunStore
    do throws(RunStoreError) {
      store = try DirectoryRunStore(directory: directory)
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    let identity = URL(fileURLWithPath: path).standardizedFileURL.path
    let durable =
      if let log = logging.log {
        scripted.start(
          with: context, chart: identity, store: store, stepLimit: stepLimit, log: log)
      } else {
        scripted.start(with: context, chart: identity, store: store, stepLimit: stepLimit)
      }
    return await finish(
      durable, sending: sent, store: directory, steps: steps, stepLimit: stepLimit,
      logging: logging, outcome: outcome)
  }

  /// Sends `sent` to `durable`, waits until it rests, saved, and says where it rests: the
  /// result of a run that ended, or its id and how to go on for one that waits.
  static func finish(
    _ durable: DurableRunHandle<ChartValue>, sending sent: [(name: String, value: ChartValue)],
    store directory: String, steps: StepLog, stepLimit: Int, logging: RunLogging,
    outcome: Outcome
  ) async -> Outcome {
    var outcome = outcome
    for (name, value) in sent {
      do throws(InputError) {
        try durable.send(value, to: name)
      } catch {
        outcome.complain("Error: The value '\(name)=…' given to --send was not taken: \(error)")
      }
    }
    let status: RunStatus
    do {
      status = try await durable.rested()
    } catch {
      outcome.output = steps.unwritten
      logging.file?.close()
      outcome.complain(
        "Error: Run '\(durable.id)' could not be saved in the store '\(directory)': \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    outcome.output = steps.unwritten
    logging.file?.close()
    if let error = logging.file?.error {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
    }
    if let report = logging.report {
      // The log so far: to the run's end, or to where it rests.
      do {
        try writeReport(of: durable.handle.log, chart: logging.chart, to: report)
      } catch {
        outcome.complain("Error: \(error)")
        outcome.exitCode = .failure
      }
    }
    let resume = "flowchart resume \(directory) \(durable.id)"
    switch status {
    case .finished, .failed, .cancelled:
      let result: Result<RunResult<ChartValue>, RunError>
      do throws(RunError) {
        result = .success(try await durable.handle.result)
      } catch {
        result = .failure(error)
      }
      describe(result, stepLimit: stepLimit, into: &outcome)
      if case .failed = status {
        outcome.say("Run ID: \(durable.id)")
        outcome.say("Try it again with: \(resume)")
      }
    case .waitingForInput(let state):
      outcome.say("Waiting for input at '\(state)'.")
      outcome.say("Run ID: \(durable.id)")
      outcome.say("Go on with: \(resume) --send '\(state)=<json>'")
      outcome.exitCode = .waiting
    case .waitingUntil(let time, let state):
      outcome.say("Waiting at '\(state)' until \(time).")
      outcome.say("Run ID: \(durable.id)")
      outcome.say("Go on with: \(resume)")
      outcome.exitCode = .waiting
    case .paused, .running:
      outcome.say("Stopped: \(status).")
      outcome.say("Run ID: \(durable.id)")
      outcome.say("Go on with: \(resume)")
      outcome.exitCode = .waiting
    }
    return outcome
  }

  /// What `run` prints of a run that ended: its final state, decision, outcome, path and
  /// context, or its error.
  static func describe(
    _ result: Result<RunResult<ChartValue>, RunError>, stepLimit: Int, into outcome: inout Outcome
  ) {
    switch result {
    case .success(let result):
      outcome.say("Final state: \(result.finalStateName)")
      outcome.say("Decision: \(result.decision)")
      if let value = result.outcome(as: String.self) { outcome.say("Outcome: \(value)") }
      outcome.say("Path: \(result.pathNames.joined(separator: " -> "))")
      outcome.say("Context: \(result.context.jsonText)")
    case .failure(let error) where error.kind == .stepLimitExceeded:
      outcome.complain("Error: \(stepLimitMessage(error, limit: stepLimit))")
      outcome.exitCode = .failure
    case .failure(let error):
      outcome.complain("Error: \(failureMessage(error))")
      outcome.exitCode = .failure
    }
  }
}

/// What `run --store` and `resume` keep besides their output: the run's log (with the sink
/// of `--log-file`), and where `--report` writes the report of the chart as loaded.
struct RunLogging: Sendable {
  /// The run's log options, when the run is logged (`--log-file` or `--report`).
  var log: RunLog.Options?
  /// The file of `--log-file`, if given: closed once the run rests.
  var file: StoredRunLogFile?
  /// Where `--report` writes, if given.
  var report: String?
  /// The chart as loaded (not the scripted copy, which has the same states): what the
  /// report draws.
  var chart: Flowchart<ChartValue>

  /// The logging `files` ask for, writing to `file` if `--log-file` is given.
  init(files: RunFiles, file: StoredRunLogFile?, chart: Flowchart<ChartValue>) {
    log = files.needsLog ? RunLog.Options(sink: file) : nil
    self.file = file
    report = files.report
    self.chart = chart
  }
}

/// The `--log-file` of a run saved in a store: it holds the run up to where it rests, and is
/// closed there, so that the lines of a run cut off when the process ends (cancelled as its
/// handle goes) do not follow. `resume` creates it at the resumed run's first line, so that
/// a resume that is refused (a chart that changed, an unknown run) leaves a file of that
/// name as it was, such as the log of the run's first part.
final class StoredRunLogFile: RunLogSink {
  private enum State {
    /// Created at the first line.
    case notCreated
    case open(RunLogFile)
    case failed(RunFileError)
    case closed
  }

  private let path: String
  private let state: Lock<State>

  /// The log file `file`, created at `path`.
  init(_ file: RunLogFile, path: String) {
    self.path = path
    state = Lock(.open(file))
  }

  /// A log file created at `path` when the first line comes.
  init(creatingAtFirstLine path: String) {
    self.path = path
    state = Lock(.notCreated)
  }

  func write(_ line: RunLog.Line) {
    let file = state.withLock { state -> RunLogFile? in
      switch state {
      case .open(let file): return file
      case .failed, .closed: return nil
      case .notCreated:
        do {
          let file = try RunLogFile(writingTo: URL(fileURLWithPath: path))
          state = .open(file)
          return file
        } catch {
          state = .failed(
            RunFileError(
              path: path, message: "cannot be created for --log-file (\(error)); check the folder"))
          return nil
        }
      }
    }
    file?.write(line)
  }

  /// Writes no more lines.
  func close() {
    state.withLock { state in
      if case .failed = state { return }
      state = .closed
    }
  }

  /// Why the file could not be created, once a line came.
  var error: RunFileError? {
    state.withLock { state in
      if case .failed(let error) = state { return error }
      return nil
    }
  }
}
