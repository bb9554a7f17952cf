import Flowchart
import Foundation

extension ChartFile {
  /// Parses a chart file's bytes, without reading the files it includes.
  ///
  /// Its `include` statements stay unread, and binding the chart reports them. Use ``read(contentsOf:fileSizeLimit:)`` to read a file and what it includes, or
  /// ``parse(_:syntax:path:includes:)`` to read includes from elsewhere.
  ///
  /// - Parameters:
  ///   - bytes: The file's content, UTF-8.
  ///   - syntax: JSON or XML.
  ///   - path: The file's name in locations, such as `Samples/health.json`.
  /// - Throws: A `DefinitionError` with every problem of syntax and format found, each with
  ///   its line and column, and the problems with the names it uses when it includes no
  ///   file (with includes, names can only be checked once they are read: see
  ///   ``parse(_:syntax:path:includes:)``). A syntax error ends the reading: it is the only
  ///   problem then.
  public static func parse(
    _ bytes: some Sequence<UInt8>, syntax: ChartSyntax, path: String
  ) throws(DefinitionError) -> ChartFile {
    let (file, problems) = try parsed(bytes, syntax: syntax, path: path)
    guard problems.isEmpty else {
      var problems = problems
      if file.includes().isEmpty {
        problems.problems += file.nameProblems(besides: problems.droppedStates)
      }
      throw problems.error(path: path)
    }
    return file
  }

  /// A chart file's bytes parsed as far as their format allows, with the problems of format
  /// found (and the states left out for one); throws only at a syntax error, which ends the
  /// reading and is the only problem then.
  static func parsed(
    _ bytes: some Sequence<UInt8>, syntax: ChartSyntax, path: String
  ) throws(DefinitionError) -> (file: ChartFile, problems: ProblemList) {
    let bytes = Array(bytes)
    do throws(SyntaxError) {
      switch syntax {
      case .json:
        var builder = JSONChartBuilder(path: path)
        let file = builder.chart(try JSONReader.parse(bytes, path: path))
        return (file, builder.problems)
      case .xml:
        var builder = XMLChartBuilder(path: path)
        let file = builder.chart(try XMLTreeReader.parse(bytes, path: path))
        return (file, builder.problems)
      }
    } catch {
      // A syntax error ends the reading, so it hides whatever problems come after it: say so.
      var problems = ProblemList()
      problems.malformed(
        error.message
          + (error.hidesWhatFollows
            ? " Reading stops at a syntax error: fix it to see any problem after it." : ""),
        at: error.location)
      throw problems.error(path: path)
    }
  }

  /// Parses a chart file's text, as its bytes are parsed: includes are left unread.
  public static func parse(
    _ text: String, syntax: ChartSyntax, path: String
  ) throws(DefinitionError) -> ChartFile {
    try parse(Array(text.utf8), syntax: syntax, path: path)
  }

  /// Parses a chart file's bytes and the files it includes, which `includes` reads.
  ///
  /// Each file is parsed once however many statements name it: a file two subflows run, or
  /// that two files include, is the same ``ChartFile`` value in both places.
  ///
  /// - Parameters:
  ///   - bytes: The file's content, UTF-8.
  ///   - syntax: JSON or XML.
  ///   - path: The file's name in locations.
  ///   - includes: Given an included file's path as the including file names it, and the
  ///     including file's path, returns the included file's path in locations (which also
  ///     identifies it, to find include cycles and files already read), its syntax and its
  ///     bytes; throws (any error) when it cannot be read.
  /// - Throws: A `DefinitionError` with every problem found in the file and what it
  ///   includes, missing files and include cycles among them; with problems of format, the
  ///   problems with names across the whole chart too, unless an included file could not be
  ///   read (its problem then says that names were not checked).
  public static func parse(
    _ bytes: some Sequence<UInt8>, syntax: ChartSyntax, path: String,
    includes: (_ path: String, _ from: String) throws -> (
      path: String, syntax: ChartSyntax, bytes: [UInt8]
    )
  ) throws(DefinitionError) -> ChartFile {
    let (file, found) = try parsed(bytes, syntax: syntax, path: path)
    var load = IncludeLoad(top: IncludedSource(key: path, path: path), problems: found)
    let resolved = load.resolve(
      file,
      locate: { included, from in
        let read = try includes(included, from.path)
        return IncludedSource(key: read.path, path: read.path, content: (read.syntax, read.bytes))
      },
      content: { source in
        guard let content = source.content else {
          preconditionFailure("a source an includes closure returns carries its bytes")
        }
        return content
      })
    try load.finish(resolved, path: path)
    return resolved
  }

  /// The default of `read(contentsOf:fileSizeLimit:)`'s `fileSizeLimit`: 64 MiB.
  public static var defaultFileSizeLimit: Int { 64 << 20 }

  /// Reads a chart file and the files it includes from the file system; the syntax comes from
  /// the extension (`.json` or `.xml`).
  ///
  /// An included file's path is relative to the folder of the file that includes it. Each
  /// file is read once however many statements name it, by any spelling of its path (`..`,
  /// `.` and symbolic links resolved): a file two subflows run, or that two files include, is
  /// the same ``ChartFile`` value in both places, and a file that includes itself by another
  /// spelling is an include cycle. Locations name an included file by its path from the
  /// including file's folder, tidied (`Samples/parts/form.json`).
  ///
  /// Only regular files are read (not a folder, a pipe or a device), each of at most
  /// `fileSizeLimit` bytes.
  ///
  /// - Parameters:
  ///   - url: The chart file.
  ///   - fileSizeLimit: The largest file read, in bytes; ``defaultFileSizeLimit`` (64 MiB)
  ///     unless given.
  /// - Throws: A `DefinitionError`, of kind `unreadableFile` when a file cannot be read (it is
  ///   missing, not a regular file, larger than `fileSizeLimit`, or not readable),
  ///   `includeCycle` when a file includes itself, and every problem of format found.
  public static func read(
    contentsOf url: URL, fileSizeLimit: Int = defaultFileSizeLimit
  ) throws(DefinitionError) -> ChartFile {
    var reads = 0
    return try read(contentsOf: url, fileSizeLimit: fileSizeLimit, reads: &reads)
  }

  /// `read(contentsOf:fileSizeLimit:)`, counting the files read in `reads`.
  package static func read(
    contentsOf url: URL, fileSizeLimit: Int, reads: inout Int
  ) throws(DefinitionError) -> ChartFile {
    let path = url.relativePath
    let top = IncludedSource(key: FilePaths.identity(of: url), path: path)
    reads += 1
    let (syntax, bytes) = try load(url, as: path, sizeLimit: fileSizeLimit)
    let (file, found) = try parsed(bytes, syntax: syntax, path: path)
    // Where each file read was found, by its key: relative includes start from its folder
    // as it was named, not from where its symbolic links lead.
    var urls = [top.key: url]
    var load = IncludeLoad(top: top, problems: found)
    let resolved = load.resolve(
      file,
      locate: { included, from in
        let base = (urls[from.key] ?? URL(fileURLWithPath: from.path)).deletingLastPathComponent()
        let includedURL = URL(fileURLWithPath: included, relativeTo: base).standardizedFileURL
        let key = FilePaths.identity(of: includedURL)
        if urls[key] == nil { urls[key] = includedURL }
        let shown = FilePaths.joined(FilePaths.folder(of: from.path), included)
        return IncludedSource(key: key, path: shown)
      },
      content: { source throws(DefinitionError) in
        reads += 1
        return try Self.load(
          urls[source.key] ?? URL(fileURLWithPath: source.path), as: source.path,
          sizeLimit: fileSizeLimit)
      })
    try load.finish(resolved, path: path)
    return resolved
  }

  /// The syntax and the bytes of the regular file at `url`, named `path` in messages.
  private static func load(_ url: URL, as path: String, sizeLimit: Int)
    throws(DefinitionError) -> (ChartSyntax, [UInt8])
  {
    var problems = ProblemList()
    let at = SourceLocation(fileID: path, line: 1, column: 1)
    guard let syntax = ChartSyntax(pathExtension: url.pathExtension) else {
      problems.add(
        .unreadableFile,
        "'\(path)' does not end in .json or .xml, so its syntax is unknown: rename it.", at: at)
      throw problems.error(path: path)
    }
    switch RegularFile.contents(of: url.path, limit: sizeLimit) {
    case .success(let bytes):
      return (syntax, bytes)
    case .failure(let failure):
      problems.add(.unreadableFile, "'\(path)' cannot be read: \(failure.description)", at: at)
      throw problems.error(path: path)
    }
  }

  /// An error of the file system, or of an `includes` closure, in words, without a final
  /// period.
  static func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
      return "there is no such file"
    }
    var text = nsError.localizedDescription
    while text.hasSuffix(".") { text.removeLast() }
    return text
  }
}

/// An included file, before it is read: the key that identifies it (its resolved path, to
/// find cycles and files already read), its path in locations, and its content when the
/// source gave it already.
struct IncludedSource {
  var key: String
  var path: String
  var content: (ChartSyntax, [UInt8])?
}

/// One reading of a chart file and what it includes: each file is parsed once, however many
/// statements name it; include cycles and problems are recorded.
struct IncludeLoad {
  /// The files being read, from the top one to the current one.
  private var stack: [IncludedSource]
  /// The files read, by key, with what they include resolved (as far as their format
  /// allows); `nil` for one that did not parse (its problems were recorded once).
  private var done: [String: ChartFile?] = [:]
  /// The problems of every file read, with the states their readers left out.
  var problems: ProblemList
  /// The indices in `problems` of those about an include left unread (a file that cannot be
  /// read or parsed, includes too deep; not a cycle, whose file is read higher up): names cannot be checked across the chart
  /// while one is.
  private var unreadIncludes: [Int] = []
  /// The number of files parsed, the top one counted.
  private(set) var parses = 1

  init(top: IncludedSource, problems: ProblemList = ProblemList()) {
    stack = [top]
    self.problems = problems
  }

  /// Throws every problem found in `resolved`, the top file with what it includes read, and
  /// its files: when there are problems of format, which stop the chart before binding, the
  /// problems with its names are checked in the same pass across the whole chart, or, when
  /// an include is unread, the first problem about it says that names were not checked.
  func finish(_ resolved: ChartFile, path: String) throws(DefinitionError) {
    guard !problems.isEmpty else { return }
    var problems = problems
    if let first = unreadIncludes.min(by: {
      let (left, right) = (problems.problems[$0].location, problems.problems[$1].location)
      return (left.fileID, left.line, left.column ?? 0, $0)
        < (right.fileID, right.line, right.column ?? 0, $1)
    }) {
      let problem = problems.problems[first]
      problems.problems[first] = DefinitionError.Problem(
        problem.kind, name: problem.name, at: problem.location,
        message: problem.message + " " + Self.namesUnchecked)
    } else {
      problems.problems += resolved.nameProblems(
        besides: problems.droppedStates, includesRead: true)
    }
    throw problems.error(path: path)
  }

  /// The sentence that ends the first problem about an unread include.
  static let namesUnchecked =
    "Names are not checked while an included file is unread: fix this to see any misspelled name."

  /// `file`, which the top of the stack holds, with every file it includes read, recursively.
  mutating func resolve(
    _ file: ChartFile,
    locate: (_ included: String, _ from: IncludedSource) throws -> IncludedSource,
    content: (IncludedSource) throws -> (ChartSyntax, [UInt8])
  ) -> ChartFile {
    var file = file
    for (includePath, location) in file.includes() where file.includedFiles[includePath] == nil {
      let source: IncludedSource
      do {
        source = try locate(includePath, stack[stack.count - 1])
      } catch {
        record(error, reading: includePath, at: location)
        continue
      }
      if let index = stack.firstIndex(where: { $0.key == source.key }) {
        let cycle = (stack[index...].map(\.path) + [source.path]).joined(separator: " → ")
        // The file is read already, higher up: the names it declares are known.
        problems.add(
          .includeCycle,
          "Including '\(includePath)' here makes a cycle (\(cycle)): a file cannot include itself. Use a goTo arrow to loop instead.",
          at: location)
        continue
      }
      if let read = done[source.key] {
        if let read { file.includedFiles[includePath] = read }
        continue
      }
      guard stack.count < maximumStateDepth else {
        unreadIncludes.append(problems.problems.count)
        problems.add(
          .malformedFile,
          "Files include each other more than \(maximumStateDepth) levels deep: flatten the includes.",
          at: location)
        continue
      }
      let bytes: (ChartSyntax, [UInt8])
      do {
        bytes = try content(source)
      } catch {
        record(error, reading: includePath, at: location)
        continue
      }
      let included: ChartFile
      do throws(DefinitionError) {
        parses += 1
        let parsed = try ChartFile.parsed(bytes.1, syntax: bytes.0, path: source.path)
        included = parsed.file
        problems.problems += parsed.problems.problems
        problems.droppedStates.formUnion(parsed.problems.droppedStates)
      } catch {
        unreadIncludes.append(problems.problems.count)
        problems.problems += error.problems
        done[source.key] = .some(nil)
        continue
      }
      stack.append(source)
      let resolved = resolve(included, locate: locate, content: content)
      stack.removeLast()
      done[source.key] = resolved
      file.includedFiles[includePath] = resolved
    }
    return file
  }

  /// Records that the file `includePath` names at `location` cannot be read.
  private mutating func record(
    _ error: any Error, reading includePath: String, at location: SourceLocation
  ) {
    unreadIncludes.append(problems.problems.count)
    if let error = error as? DefinitionError {
      for problem in error.problems {
        problems.add(
          problem.kind, "The file included here cannot be read: \(problem.message)",
          at: location)
      }
      return
    }
    let reason = ChartFile.describe(error)
    problems.add(
      .unreadableFile,
      "The file '\(includePath)' included here cannot be read: \(reason). Check the path, relative to this file's folder.",
      at: location)
  }
}

extension ChartFile {
  /// The problems with the names a file uses (a `goTo`'s target, an entry point, a branch's
  /// prerequisite) when its reading found problems of format, which stop it before binding:
  /// so that one pass reports a misspelled target with a misspelled key, rather than after
  /// the key is fixed. The file is compiled as far as its format allows (a state whose
  /// format has a problem is kept where its name is known); only problems with names are
  /// kept, the others may come from what the format's problems left out. A file whose
  /// includes or the files it runs are unread at this point is not checked, unless
  /// `includesRead` says that they were read as far as they can be (the reading says where
  /// one could not be, and checks nothing then), nor an arrow to a state in `dropped`, which
  /// a reader left out for a problem of its own.
  func nameProblems(besides dropped: Set<String>, includesRead: Bool = false)
    -> [DefinitionError.Problem]
  {
    guard includesRead || includes().isEmpty else { return [] }
    do throws(DefinitionError) {
      _ = try flowchart(handlers: HandlerRegistry<ChartValue>())
      return []
    } catch {
      let kinds: Set<DefinitionError.Kind> = [.unknownName, .ambiguousName, .unknownPrerequisite]
      return error.problems.filter { problem in
        kinds.contains(problem.kind)
          && !(problem.kind == .unknownName && dropped.contains(problem.name ?? ""))
      }
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
        case .wait, .delay: break
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
