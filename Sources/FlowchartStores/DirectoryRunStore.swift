import Flowchart
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A run store that keeps each run in a file of its own, in one directory: `<run id>.run`.
///
/// A save writes the whole file anew, atomically: the bytes go to a temporary file in the
/// same directory (`.<run id>.<process id>.<random>.tmp`), which is flushed to the disk
/// (`fsync`), renamed over the run's file, and the directory is flushed too. A process killed
/// at any moment of a save leaves the run's previous file whole and readable (or no file, for
/// a run never saved before): never a torn one. Once `save` returns, the run survives a crash
/// of the machine as well, as far as the disk keeps what was flushed. On Apple platforms,
/// whose `fsync` does not flush the drive's own cache, the flushes are
/// `fcntl(F_FULLFSYNC)`, which does (slower: each save waits for the drive), falling back to
/// `fsync` on a file system that does not support it.
///
/// A killed writer leaves its temporary file behind. Listing and loading ignore every file
/// whose name starts with `.`; ``removeLeftovers()`` deletes the temporary files whose
/// writer is no longer running.
///
/// ## The file format, version 1
///
/// A run file is a header of two lines, then the snapshot's bytes as they were given:
///
/// ```
/// flowchart-run 1
/// {"chart":"Orders","fingerprint":"…","id":"order-17","snapshot":{"bytes":2048,"fnv1a64":"…"},"status":{"state":"Approve","status":"waitingForInput"},"updated":"2026-11-27T06:00:00Z"}
/// <2048 bytes of snapshot>
/// ```
///
/// The first line names the format and its version. The second is one line of JSON: the
/// run's `RunSummary` (its keys at the top level, the status as `RunStatus` encodes it)
/// and, under `snapshot`, the snapshot's length in bytes and its 64-bit FNV-1a hash in 16
/// lowercase hexadecimal digits. Listing reads only these two lines, never the snapshot. A
/// reader refuses a file of a newer version with ``RunStoreError/Kind/newerFormat(version:)``
/// rather than guess at it; a later version changes the number.
///
/// ## Damaged files
///
/// A file that is not a run file, is cut short, has a snapshot that does not match its
/// header, or names another run than its file name is never trusted: ``load(_:)`` throws a
/// ``RunStoreError`` that names the file and says what is wrong; ``list(matching:)`` leaves
/// it out, and ``listing(matching:)`` reports it among its problems. Files that do not end in
/// `.run` are not the store's and are ignored.
///
/// The store's calls block their thread for the file system's time (a save waits for two
/// flushes to the disk); the store is safe to use from many tasks and processes at once, and
/// the last save of a run wins.
public final class DirectoryRunStore: RunStore {
  /// The directory's path, as given.
  public let directory: String
  /// The directory, open for `openat`, `renameat` and `fsync`.
  private let descriptor: Int32

  /// The first line's start: the format's name and a space, then its version.
  static let magic = Array("flowchart-run ".utf8)
  /// The version of the format this library writes, and the newest it reads.
  public static let formatVersion = 1
  /// The extension of a run's file.
  static let fileExtension = ".run"
  /// The most a header may take: a longer one is damage, not a summary.
  static let headerLimit = 1 << 20

  /// A store over the directory at `directory`, which is created (with its parents) when it
  /// does not exist.
  ///
  /// - Throws: ``RunStoreError`` when the directory cannot be created or opened (a file of
  ///   that name, no permission).
  public init(directory: String) throws(RunStoreError) {
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
      do {
        try FileManager.default.createDirectory(
          atPath: directory, withIntermediateDirectories: true)
      } catch {
        throw RunStoreError(
          .system(operation: "mkdir", code: EIO), path: directory,
          message:
            "The run store's directory could not be created: \(error.localizedDescription)")
      }
    } else if !isDirectory.boolValue {
      throw RunStoreError(
        .system(operation: "open", code: ENOTDIR), path: directory,
        message: "A run store needs a directory, and this is a file: give another path.")
    }
    self.directory = directory
    self.descriptor = try SystemCalls.open(
      directory, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: directory)
  }

  deinit {
    SystemCalls.close(descriptor)
  }

  /// The path of the file named `name` in the directory.
  func path(of name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  /// The file name of the run `id`.
  static func fileName(of id: RunID) -> String {
    id.text + fileExtension
  }

  // MARK: Saving

  /// Saves `run` in its file, replacing the previous one atomically (see the type's
  /// documentation): once this returns, the run is on the disk.
  ///
  /// - Throws: ``RunStoreError`` when a write, flush or rename fails (a full disk, no
  ///   permission); the run's previous file is then untouched.
  public func save(_ run: StoredRun) async throws {
    try write(run)
  }

  /// Saves `run` synchronously: ``save(_:)`` without the `async`.
  public func write(_ run: StoredRun) throws(RunStoreError) {
    let name = Self.fileName(of: run.id)
    let bytes = try Self.encode(run, path: path(of: name))
    let temporary = Self.temporaryName(of: run.id)
    let temporaryPath = path(of: temporary)
    writesInFlight.withLock { _ = $0.insert(temporary) }
    defer { writesInFlight.withLock { _ = $0.remove(temporary) } }
    let file = try SystemCalls.open(
      temporary, in: descriptor, flags: O_WRONLY | O_CREAT | O_EXCL, path: temporaryPath)
    do throws(RunStoreError) {
      try bytes.withUnsafeBytes { buffer in
        Result { () throws(RunStoreError) in
          try SystemCalls.writeAll(buffer, to: file, path: temporaryPath)
        }
      }.get()
      try SystemCalls.sync(file, path: temporaryPath)
    } catch {
      SystemCalls.close(file)
      unlinkat(descriptor, temporary, 0)
      throw error
    }
    SystemCalls.close(file)
    if renameat(descriptor, temporary, descriptor, name) != 0 {
      let failure = SystemCalls.failure("rename", path: path(of: name))
      unlinkat(descriptor, temporary, 0)
      throw failure
    }
    try SystemCalls.sync(descriptor, path: directory)
  }

  /// A temporary file's name for a save of `id`: `.<id>.<process id>.<16 hex digits>.tmp`.
  static func temporaryName(of id: RunID) -> String {
    let random = String(UInt64.random(in: .min ... .max), radix: 16)
    let padded = String(repeating: "0", count: 16 - random.count) + random
    return ".\(id.text).\(getpid()).\(padded).tmp"
  }

  /// The bytes of `run`'s file.
  static func encode(_ run: StoredRun, path: String) throws(RunStoreError) -> [UInt8] {
    let header = FileHeader(
      summary: run.summary,
      snapshot: SnapshotFacts(bytes: run.snapshot.count, fnv1a64: fnv1a64(run.snapshot)))
    let json: Data
    do {
      json = try headerEncoder().encode(header)
    } catch {
      throw RunStoreError(
        .corrupted, path: path, message: "The run's summary could not be encoded: \(error).")
    }
    var bytes = magic
    bytes.reserveCapacity(magic.count + 4 + json.count + run.snapshot.count)
    bytes.append(contentsOf: String(formatVersion).utf8)
    bytes.append(UInt8(ascii: "\n"))
    bytes.append(contentsOf: json)
    bytes.append(UInt8(ascii: "\n"))
    bytes.append(contentsOf: run.snapshot)
    return bytes
  }

  // MARK: Loading

  /// The run saved under `id`, or `nil` when there is none.
  ///
  /// - Throws: ``RunStoreError`` naming the file when it cannot be read, is not a run file,
  ///   is of a newer format, is cut short or damaged, or names another run.
  public func load(_ id: RunID) async throws -> StoredRun? {
    try read(id)
  }

  /// Loads the run `id` synchronously: ``load(_:)`` without the `async`.
  public func read(_ id: RunID) throws(RunStoreError) -> StoredRun? {
    let name = Self.fileName(of: id)
    let path = path(of: name)
    guard let bytes = try readFile(name, path: path, limit: nil) else { return nil }
    let (header, start) = try Self.parseHeader(bytes, path: path, isWholeFile: true)
    try Self.check(header, isRun: id, path: path)
    let snapshot = Array(bytes[start...])
    if snapshot.count < header.snapshot.bytes {
      throw RunStoreError(
        .truncated, path: path,
        message:
          "The run file is cut short: its snapshot has \(snapshot.count) of \(header.snapshot.bytes) bytes. Restore it from a backup or delete it."
      )
    }
    if snapshot.count > header.snapshot.bytes {
      throw RunStoreError(
        .corrupted, path: path,
        message:
          "The run file has \(snapshot.count - header.snapshot.bytes) bytes after its snapshot of \(header.snapshot.bytes) bytes. Restore it from a backup or delete it."
      )
    }
    if Self.fnv1a64(snapshot) != header.snapshot.fnv1a64 {
      throw RunStoreError(
        .corrupted, path: path,
        message:
          "The run file's snapshot does not match its checksum (fnv1a64 \(header.snapshot.fnv1a64)): it was changed or damaged. Restore it from a backup or delete it."
      )
    }
    return StoredRun(summary: header.summary, snapshot: snapshot)
  }

  /// The bytes of the file `name` (at most the first `limit`, reading until a header's two
  /// lines are in), or `nil` when there is no such file.
  private func readFile(_ name: String, path: String, limit: Int?) throws(RunStoreError)
    -> [UInt8]?
  {
    let file: Int32
    do throws(RunStoreError) {
      file = try SystemCalls.open(name, in: descriptor, flags: O_RDONLY, path: path)
    } catch {
      if case .system(_, ENOENT) = error.kind { return nil }
      throw error
    }
    defer { SystemCalls.close(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: limit == nil ? 1 << 16 : 4096)
    var newlines = 0
    while true {
      let count = try chunk.withUnsafeMutableBytes { buffer in
        Result { () throws(RunStoreError) in
          try SystemCalls.read(file, into: buffer, path: path)
        }
      }.get()
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[..<count])
      if let limit {
        newlines += chunk[..<count].lazy.filter { $0 == UInt8(ascii: "\n") }.count
        if newlines >= 2 || bytes.count >= limit { return bytes }
      }
    }
  }

  /// The header at the start of `bytes` and the offset of the snapshot after it.
  static func parseHeader(_ bytes: [UInt8], path: String, isWholeFile: Bool)
    throws(RunStoreError) -> (FileHeader, Int)
  {
    let advice = "Restore it from a backup or delete it."
    if bytes.count < magic.count || !bytes.starts(with: magic) {
      if bytes.isEmpty {
        throw RunStoreError(
          .truncated, path: path, message: "The run file is empty. \(advice)")
      }
      if magic.starts(with: bytes) {
        throw RunStoreError(
          .truncated, path: path, message: "The run file ends inside its first line. \(advice)")
      }
      throw RunStoreError(
        .notARunFile, path: path,
        message:
          "This is not a run file: it does not start with 'flowchart-run'. Move it out of the run store's directory."
      )
    }
    guard let firstEnd = bytes[magic.count...].firstIndex(of: UInt8(ascii: "\n")) else {
      throw RunStoreError(
        .truncated, path: path, message: "The run file ends inside its first line. \(advice)")
    }
    let versionText = String(decoding: bytes[magic.count..<firstEnd], as: UTF8.self)
    guard let version = Int(versionText), version >= 1 else {
      throw RunStoreError(
        .corrupted, path: path,
        message: "The run file's format version '\(versionText)' is not a number. \(advice)")
    }
    if version > formatVersion {
      throw RunStoreError(
        .newerFormat(version: version), path: path,
        message:
          "The run file is in format version \(version); this version of Flowchart reads version \(formatVersion) and older. Update Flowchart to read it."
      )
    }
    let summaryStart = firstEnd + 1
    guard let summaryEnd = bytes[summaryStart...].firstIndex(of: UInt8(ascii: "\n")) else {
      let message =
        isWholeFile || bytes.count < headerLimit
        ? "The run file ends inside its summary line. \(advice)"
        : "The run file's summary line is longer than \(headerLimit) bytes. \(advice)"
      throw RunStoreError(
        isWholeFile || bytes.count < headerLimit ? .truncated : .corrupted, path: path,
        message: message)
    }
    do {
      let header = try JSONDecoder().decode(
        FileHeader.self, from: Data(bytes[summaryStart..<summaryEnd]))
      return (header, summaryEnd + 1)
    } catch {
      throw RunStoreError(
        .corrupted, path: path,
        message: "The run file's summary line does not decode: \(describe(error)) \(advice)")
    }
  }

  /// Checks that `header` is of the run `id`, the run its file is named after.
  static func check(_ header: FileHeader, isRun id: RunID, path: String) throws(RunStoreError) {
    guard header.id == id else {
      throw RunStoreError(
        .corrupted, path: path,
        message:
          "The run file holds the run '\(header.id)', not '\(id)' its name says: it was renamed or copied. Rename it to '\(fileName(of: header.id))' or delete it."
      )
    }
  }

  /// A decoding error in a sentence: what is wrong, and where.
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)." }
    switch error {
    case .dataCorrupted(let context), .keyNotFound(_, let context),
      .typeMismatch(_, let context), .valueNotFound(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      let reason = context.debugDescription
      return path.isEmpty ? reason : "at '\(path)': \(reason)"
    @unknown default:
      return "\(error)."
    }
  }

  // MARK: Listing

  /// The summaries of the runs that match `filter`, in the order of their ids; a damaged
  /// file is left out (``listing(matching:)`` reports it).
  ///
  /// Reads only each file's two header lines.
  ///
  /// - Throws: ``RunStoreError`` when the directory cannot be read.
  public func list(matching filter: RunFilter) async throws -> [RunSummary] {
    try scan(matching: filter).runs
  }

  /// The summaries of the runs that match `filter`, and a problem for each `.run` file that
  /// could not be read (its path, and what is wrong).
  ///
  /// - Throws: ``RunStoreError`` when the directory cannot be read.
  public func listing(matching filter: RunFilter) async throws -> RunListing {
    try scan(matching: filter)
  }

  /// Lists synchronously: ``listing(matching:)`` without the `async`.
  public func scan(matching filter: RunFilter = .all) throws(RunStoreError) -> RunListing {
    var runs: [RunSummary] = []
    var problems: [RunStoreProblem] = []
    for name in try entries() where !name.hasPrefix(".") && name.hasSuffix(Self.fileExtension) {
      let path = path(of: name)
      let idText = String(name.dropLast(Self.fileExtension.count))
      guard let id = RunID(idText) else {
        problems.append(
          RunStoreProblem(
            location: path,
            message:
              "The file's name is not a run id and a '.run' extension: \(RunID.problem(with: idText) ?? ""). Move it out of the run store's directory."
          ))
        continue
      }
      do throws(RunStoreError) {
        // A file deleted since the directory was read is not listed.
        guard let bytes = try readFile(name, path: path, limit: Self.headerLimit) else {
          continue
        }
        let (header, _) = try Self.parseHeader(bytes, path: path, isWholeFile: false)
        try Self.check(header, isRun: id, path: path)
        if filter.matches(header.summary) { runs.append(header.summary) }
      } catch {
        problems.append(error.problem)
      }
    }
    runs.sort { $0.id < $1.id }
    problems.sort { $0.location < $1.location }
    return RunListing(runs: runs, problems: problems)
  }

  /// The names of the directory's entries.
  private func entries() throws(RunStoreError) -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
      throw RunStoreError(
        .system(operation: "readdir", code: EIO), path: directory,
        message: "The run store's directory could not be read: \(error.localizedDescription)")
    }
  }

  // MARK: Deleting

  /// Removes the run's file; returns whether there was one.
  ///
  /// - Throws: ``RunStoreError`` when the file cannot be removed.
  @discardableResult
  public func delete(_ id: RunID) async throws -> Bool {
    try remove(id)
  }

  /// Deletes synchronously: ``delete(_:)`` without the `async`.
  @discardableResult
  public func remove(_ id: RunID) throws(RunStoreError) -> Bool {
    let name = Self.fileName(of: id)
    if unlinkat(descriptor, name, 0) != 0 {
      if errno == ENOENT { return false }
      throw SystemCalls.failure("unlink", path: path(of: name))
    }
    try SystemCalls.sync(descriptor, path: directory)
    return true
  }

  /// Deletes the temporary files that writers killed in the middle of a save left behind,
  /// and returns their names.
  ///
  /// A temporary file is deleted only when the process that wrote it (its name holds the
  /// process id) is no longer running, or is this process and no save of this process writes
  /// it: a save in progress, in this process or another, is never disturbed. (A process id
  /// reused by a new process keeps its leftover until that process ends.) Files of other
  /// names are left alone. Safe to call at any time, from any process sharing the directory
  /// on one machine.
  ///
  /// - Throws: ``RunStoreError`` when the directory cannot be read or a file removed.
  @discardableResult
  public func removeLeftovers() throws(RunStoreError) -> [String] {
    let me = getpid()
    var removed: [String] = []
    for name in try entries() {
      guard let writer = Self.writer(ofTemporary: name) else { continue }
      if writer == me {
        if writesInFlight.withLock({ $0.contains(name) }) { continue }
      } else if kill(writer, 0) == 0 || errno == EPERM {
        continue
      }
      if unlinkat(descriptor, name, 0) != 0 {
        if errno == ENOENT { continue }
        throw SystemCalls.failure("unlink", path: path(of: name))
      }
      removed.append(name)
    }
    if !removed.isEmpty { try SystemCalls.sync(descriptor, path: directory) }
    return removed.sorted()
  }

  /// The process id in a temporary file's name, `.<id>.<process id>.<16 hex digits>.tmp`;
  /// `nil` for any other name.
  static func writer(ofTemporary name: String) -> pid_t? {
    guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
    let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count >= 3, parts[parts.count - 1].count == 16,
      UInt64(parts[parts.count - 1], radix: 16) != nil,
      let pid = pid_t(parts[parts.count - 2]), pid > 0,
      RunID(parts[..<(parts.count - 2)].joined(separator: ".")) != nil
    else { return nil }
    return pid
  }

  // MARK: Checksum

  /// The 64-bit FNV-1a hash of `bytes`, in 16 lowercase hexadecimal digits.
  static func fnv1a64(_ bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

/// The temporary files this process is writing, by name: ``DirectoryRunStore/removeLeftovers()``
/// leaves them alone.
private let writesInFlight = Lock<Set<String>>([])

/// An encoder of the summary line: sorted keys, no escaped slashes, one line.
private func headerEncoder() -> JSONEncoder {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return encoder
}

/// A run file's second line: the run's summary, and what the snapshot after it must be.
struct FileHeader: Codable {
  var id: RunID
  var status: RunStatus
  var chart: String
  var fingerprint: String
  var updated: WallClockTime
  var snapshot: SnapshotFacts

  init(summary: RunSummary, snapshot: SnapshotFacts) {
    id = summary.id
    status = summary.status
    chart = summary.chart
    fingerprint = summary.fingerprint
    updated = summary.updated
    self.snapshot = snapshot
  }

  var summary: RunSummary {
    RunSummary(id: id, status: status, chart: chart, fingerprint: fingerprint, updated: updated)
  }
}

/// The length and the hash of a run file's snapshot.
struct SnapshotFacts: Codable {
  var bytes: Int
  var fnv1a64: String
}
