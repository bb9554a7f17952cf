import Flowchart
import Foundation

extension ChartFile {
  /// Parses a chart file's bytes, without reading the files it includes.
  ///
  /// Its `include` statements stay unread: ``includedFiles`` is empty, and binding the chart
  /// reports them. Use ``read(contentsOf:)`` to read a file and what it includes, or
  /// ``parse(_:syntax:path:includes:)`` to read includes from elsewhere.
  ///
  /// - Parameters:
  ///   - bytes: The file's content, UTF-8.
  ///   - syntax: JSON or XML.
  ///   - path: The file's name in locations, such as `Samples/health.json`.
  /// - Throws: A `DefinitionError` with every problem of syntax and format found, each with
  ///   its line and column. A syntax error ends the reading: it is the only problem then.
  public static func parse(
    _ bytes: some Sequence<UInt8>, syntax: ChartSyntax, path: String
  ) throws(DefinitionError) -> ChartFile {
    let bytes = Array(bytes)
    var problems = ProblemList()
    let file: ChartFile
    do throws(SyntaxError) {
      switch syntax {
      case .json:
        var builder = JSONChartBuilder(path: path)
        file = builder.chart(try JSONReader.parse(bytes, path: path))
        problems = builder.problems
      case .xml:
        var builder = XMLChartBuilder(path: path)
        file = builder.chart(try XMLTreeReader.parse(bytes, path: path))
        problems = builder.problems
      }
    } catch {
      problems.malformed(error.message, at: error.location)
      throw problems.error(path: path)
    }
    guard problems.isEmpty else { throw problems.error(path: path) }
    return file
  }

  /// Parses a chart file's text, as its bytes are parsed: includes are left unread.
  public static func parse(
    _ text: String, syntax: ChartSyntax, path: String
  ) throws(DefinitionError) -> ChartFile {
    try parse(Array(text.utf8), syntax: syntax, path: path)
  }

  /// Parses a chart file's bytes and the files it includes, which `includes` reads.
  ///
  /// - Parameters:
  ///   - bytes: The file's content, UTF-8.
  ///   - syntax: JSON or XML.
  ///   - path: The file's name in locations.
  ///   - includes: Given an included file's path as the including file names it, and the
  ///     including file's path, returns the included file's path in locations (which also
  ///     identifies it, to find include cycles), its syntax and its bytes; throws (any
  ///     error) when it cannot be read.
  /// - Throws: A `DefinitionError` with every problem found in the file and what it
  ///   includes, missing files and include cycles among them.
  public static func parse(
    _ bytes: some Sequence<UInt8>, syntax: ChartSyntax, path: String,
    includes: (_ path: String, _ from: String) throws -> (
      path: String, syntax: ChartSyntax, bytes: [UInt8]
    )
  ) throws(DefinitionError) -> ChartFile {
    var file = try parse(bytes, syntax: syntax, path: path)
    var problems = ProblemList()
    var stack = [path]
    resolveIncludes(of: &file, stack: &stack, problems: &problems, read: includes)
    guard problems.isEmpty else { throw problems.error(path: path) }
    return file
  }

  /// Reads a chart file and the files it includes from the file system; the syntax comes from
  /// the extension (`.json` or `.xml`).
  ///
  /// An included file's path is relative to the folder of the file that includes it.
  ///
  /// - Throws: A `DefinitionError`, of kind `unreadableFile` when a file cannot be read,
  ///   `includeCycle` when a file includes itself, and every problem of format found.
  public static func read(contentsOf url: URL) throws(DefinitionError) -> ChartFile {
    let path = url.relativePath
    let (syntax, bytes) = try load(url, as: path, at: nil)
    return try parse(bytes, syntax: syntax, path: path) { included, from in
      let base = URL(fileURLWithPath: from).deletingLastPathComponent()
      let includedURL = URL(fileURLWithPath: included, relativeTo: base).standardizedFileURL
      let shown = relativePath(of: includedURL, from: from, included: included)
      let (syntax, bytes) = try load(includedURL, as: shown, at: nil)
      return (shown, syntax, bytes)
    }
  }

  /// How an included file is named in locations: the including file's folder joined with the
  /// path written, tidied (`Samples/parts/form.json`).
  private static func relativePath(of url: URL, from: String, included: String) -> String {
    if included.hasPrefix("/") { return included }
    let folder = (from as NSString).deletingLastPathComponent
    let joined = folder.isEmpty ? included : folder + "/" + included
    return (joined as NSString).standardizingPath
  }

  private static func load(_ url: URL, as path: String, at location: SourceLocation?)
    throws(DefinitionError) -> (ChartSyntax, [UInt8])
  {
    var problems = ProblemList()
    let at = location ?? SourceLocation(fileID: path, line: 1, column: 1)
    guard let syntax = ChartSyntax(pathExtension: url.pathExtension) else {
      problems.add(
        .unreadableFile,
        "'\(path)' does not end in .json or .xml, so its syntax is unknown: rename it.", at: at)
      throw problems.error(path: path)
    }
    do {
      return (syntax, Array(try Data(contentsOf: url)))
    } catch {
      problems.add(
        .unreadableFile, "'\(path)' cannot be read: \(describe(error)). Check the path.", at: at)
      throw problems.error(path: path)
    }
  }

  private static func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
      return "there is no such file"
    }
    return nsError.localizedDescription
  }

  /// Reads every file `file` includes, recursively, recording missing files, include cycles
  /// and their problems.
  private static func resolveIncludes(
    of file: inout ChartFile, stack: inout [String], problems: inout ProblemList,
    read: (String, String) throws -> (path: String, syntax: ChartSyntax, bytes: [UInt8])
  ) {
    for (includePath, location) in file.includes() where file.includedFiles[includePath] == nil {
      let loaded: (path: String, syntax: ChartSyntax, bytes: [UInt8])
      do {
        loaded = try read(includePath, file.path)
      } catch let error as DefinitionError {
        for problem in error.problems {
          problems.add(
            problem.kind, "The file included here cannot be read: \(problem.message)",
            at: location)
        }
        continue
      } catch {
        problems.add(
          .unreadableFile,
          "The file '\(includePath)' included here cannot be read: \(describe(error)). Check the path, relative to this file's folder.",
          at: location)
        continue
      }
      if let index = stack.firstIndex(of: loaded.path) {
        let cycle = (stack[index...] + [loaded.path]).joined(separator: " → ")
        problems.add(
          .includeCycle,
          "Including '\(includePath)' here makes a cycle (\(cycle)): a file cannot include itself. Use a goTo arrow to loop instead.",
          at: location)
        continue
      }
      guard stack.count < maximumStateDepth else {
        problems.add(
          .malformedFile,
          "Files include each other more than \(maximumStateDepth) levels deep: flatten the includes.",
          at: location)
        continue
      }
      var included: ChartFile
      do throws(DefinitionError) {
        included = try parse(loaded.bytes, syntax: loaded.syntax, path: loaded.path)
      } catch {
        problems.problems += error.problems
        continue
      }
      stack.append(loaded.path)
      resolveIncludes(of: &included, stack: &stack, problems: &problems, read: read)
      stack.removeLast()
      file.includedFiles[includePath] = included
    }
  }

  /// The paths of the `include` statements of the file, with the location of each, in order.
  func includes() -> [(String, SourceLocation)] {
    var found: [(String, SourceLocation)] = []
    var pending: [[ChartNode]] = [states]
    while let block = pending.popLast() {
      for node in block {
        switch node.kind {
        case .include(let path): found.append((path, node.location))
        case .action, .goTo: break
        case .condition(let condition):
          if let yes = condition.yes { pending.append(yes) }
          if let no = condition.no { pending.append(no) }
        case .multipleCondition(let condition):
          for exit in condition.exits ?? [] { pending.append(exit.states) }
        case .dispatch(let dispatch):
          for branch in dispatch.branches { pending.append(branch.states) }
        case .wait: break
        case .subflow(let subflow):
          found.append((subflow.chart, node.location))
          switch subflow.exits {
          case .none: break
          case .yesNo(let yes, let no): pending += [yes, no]
          case .keyed(let exits): pending += exits.map(\.states)
          }
        case .map(let map):
          switch map.chart {
          case .file(let path): found.append((path, node.location))
          case .states(let states): pending.append(states)
          }
        }
      }
    }
    return found.sorted { ($0.1.line, $0.1.column ?? 0) < ($1.1.line, $1.1.column ?? 0) }
  }
}
