import Flowchart
import FlowchartFiles
import Foundation

/// The files `flowchart run` writes besides its output: the run's log as JSON lines
/// (`--log-file`) and an HTML report (`--report`).
struct RunFiles: Sendable {
  /// Where `--log-file` writes the log, if given.
  var logFile: String?
  /// Where `--report` writes the report, if given.
  var report: String?

  /// Whether the run needs a log: a live run, logged.
  var needsLog: Bool { logFile != nil || report != nil }

  /// The run's log options: the file's sink when `--log-file` is given.
  ///
  /// - Throws: ``RunFileError`` when the file cannot be created.
  func logOptions() throws(RunFileError) -> RunLog.Options {
    guard let logFile else { return .standard }
    do {
      return RunLog.Options(sink: try RunLogFile(writingTo: URL(fileURLWithPath: logFile)))
    } catch {
      throw RunFileError(
        path: logFile, message: "cannot be created for --log-file (\(error)); check the folder")
    }
  }
}

/// A file the tool cannot read or write, and why.
struct RunFileError: Error, CustomStringConvertible {
  var path: String
  var message: String
  var description: String { "'\(path)' \(message)." }
}

extension Tool {
  /// Writes the HTML report of the run whose log is `log`, on `chart`, to `path`: with the
  /// diagram as SVG when Graphviz's `dot` is on `PATH`.
  static func writeReport(
    of log: RunLog, chart: Flowchart<ChartValue>, to path: String
  ) throws(RunFileError) {
    let title = "Run of " + URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    let page = chart.htmlReport(
      of: RunOverlay(log: log), logLines: log.lines, title: title, render: renderSVG)
    do {
      try Data(page.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw RunFileError(
        path: path, message: "cannot be written for --report (\(error)); check the folder")
    }
  }

  /// `flowchart diagram <file> --run <run-log>`: the chart with the run the log recorded
  /// drawn on it.
  static func diagram(_ path: String, run logPath: String, isDOT: Bool) -> Outcome {
    var outcome = Outcome()
    guard let chart = load(path, reportingTo: &outcome) else { return outcome }
    do {
      let records: [RunLogFile.Record]
      do {
        records = try RunLogFile.records(in: URL(fileURLWithPath: logPath))
      } catch let error as DecodingError {
        throw RunFileError(
          path: logPath,
          message:
            "is not a run log: a line is not a JSON record (\(Self.decodingContext(error))); give a file that run --log-file wrote"
        )
      } catch {
        throw RunFileError(path: logPath, message: "cannot be read (\(error.localizedDescription))")
      }
      let run: RunOverlay
      do {
        run = try RunOverlay(records: records, chart: chart)
      } catch {
        throw RunFileError(path: logPath, message: "cannot be drawn on '\(path)': \(error)")
      }
      outcome.output =
        isDOT ? chart.dotDescription(showing: run) : chart.mermaidDescription(showing: run)
    } catch let error as RunFileError {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
    } catch {
      outcome.complain("Error: '\(logPath)': \(error)")
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// What a decoding error says of where it failed.
  private static func decodingContext(_ error: DecodingError) -> String {
    switch error {
    case .dataCorrupted(let context), .keyNotFound(_, let context),
      .typeMismatch(_, let context), .valueNotFound(_, let context):
      context.debugDescription
    @unknown default:
      "\(error)"
    }
  }

  /// SVG that Graphviz's `dot` on `PATH` makes of `dot` text, or `nil` when there is no
  /// `dot` or it fails.
  static func renderSVG(_ dot: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    guard
      let executable = directories.map({ "\($0)/dot" }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["-Tsvg"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return nil
    }
    // Written from another thread, so that a large SVG cannot fill the output pipe while
    // the input is still being written.
    let text = Data(dot.utf8)
    let writer = Thread {
      input.fileHandleForWriting.write(text)
      try? input.fileHandleForWriting.close()
    }
    writer.start()
    let svg = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: svg, as: UTF8.self)
  }
}
