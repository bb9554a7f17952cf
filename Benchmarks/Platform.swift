import Flowchart
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Keeping the optimizer honest

/// Returns `value` unchanged, through a call the optimizer cannot see into.
///
/// The benchmark closures are passed through this function once, before the chart and the
/// hand-written baseline receive them, so neither side can inline their bodies or
/// specialize on their identity: both make the same indirect calls to the same closure
/// values. (The chart cannot see them anyway, since Flowchart stores them in its graph.)
@inline(never)
@_optimize(none)
func opaque<T>(_ value: T) -> T {
  value
}

/// Consumes `value` through a call the optimizer cannot see into, so the work that
/// produced it cannot be removed as dead.
@inline(never)
@_optimize(none)
func blackHole<T>(_ value: T) {
  _ = value
}

// MARK: - Memory statistics

/// Reads process memory figures: peak resident memory and bytes held by `malloc`.
enum MemoryStatistics {
  /// The process's peak resident set size, in bytes, or `nil` where it cannot be read.
  ///
  /// On Linux this is `VmHWM` from `/proc/self/status`; elsewhere `getrusage`'s
  /// `ru_maxrss`. The figure covers the whole life of the process, which is why the
  /// memory workload measures each run in a child process of its own.
  static func peakResidentBytes() -> Int? {
    #if os(Linux)
      guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      else { return nil }
      for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
        return kibibytes * 1024
      }
      return nil
    #elseif canImport(Darwin)
      var usage = rusage()
      guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
      return Int(usage.ru_maxrss)  // bytes on Darwin
    #else
      return nil
    #endif
  }

  #if os(Linux) && arch(x86_64)
    /// `struct mallinfo2 mallinfo2(void)` as the x86-64 System V ABI calls it: the 80-byte
    /// result is written through a hidden pointer passed as the first argument, which is
    /// also returned. Swift's Glibc module does not import `<malloc.h>`, so the function is
    /// looked up with `dlsym` and called through this type.
    private typealias MallInfo2 =
      @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

    private static let mallinfo2: MallInfo2? = {
      guard let symbol = dlsym(nil, "mallinfo2") else { return nil }
      return unsafeBitCast(symbol, to: MallInfo2.self)
    }()
  #endif

  /// Bytes currently allocated with `malloc` and not freed, or `nil` where unsupported.
  ///
  /// On Linux (glibc, x86-64) this is `mallinfo2()`'s `uordblks + hblkhd`: bytes in use in
  /// the arenas plus bytes in blocks `malloc` mapped on their own (large arrays). On
  /// Darwin it is the default zones' `size_in_use`.
  static func allocatedBytes() -> Int? {
    #if os(Linux) && arch(x86_64)
      guard let mallinfo2 else { return nil }
      // struct mallinfo2 { size_t arena, ordblks, smblks, hblks, hblkhd, usmblks,
      //   fsmblks, uordblks, fordblks, keepcost; }
      var fields: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0
      )
      return withUnsafeMutableBytes(of: &fields) { raw -> Int? in
        guard let base = raw.baseAddress else { return nil }
        _ = mallinfo2(base)
        let words = raw.bindMemory(to: Int.self)
        return words[7] + words[4]
      }
    #elseif canImport(Darwin)
      var statistics = malloc_statistics_t()
      malloc_zone_statistics(nil, &statistics)
      return Int(statistics.size_in_use)
    #else
      return nil
    #endif
  }
}

// MARK: - Child processes

/// Runs this executable again with other arguments and returns what it printed.
enum SelfProcess {
  /// The path of the running executable.
  static var executablePath: String {
    #if os(Linux)
      if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
      {
        return resolved
      }
    #endif
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
  }

  /// Runs the executable with `arguments`, waits for it, and returns its standard output.
  ///
  /// - Throws: ``BenchmarkError/childProcessFailed(_:)`` when it exits with a non-zero
  ///   status, or what `Process` throws when it cannot start.
  static func run(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executablePath)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
      throw BenchmarkError.childProcessFailed(
        "\(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
    }
    return text
  }
}

/// Failures of the benchmark executable itself (not of the code it measures).
enum BenchmarkError: Error, CustomStringConvertible {
  /// A command-line argument is missing, unknown or malformed.
  case usage(String)
  /// A workload produced a result other than the one both sides must agree on.
  case mismatch(String)
  /// A child process (a memory probe) failed or printed something unexpected.
  case childProcessFailed(String)

  var description: String {
    switch self {
    case .usage(let message): "usage error: \(message)"
    case .mismatch(let message): "result mismatch: \(message)"
    case .childProcessFailed(let message): "child process failed: \(message)"
    }
  }
}

/// Cancels `handle`'s run and checks that it ended cancelled: what a benchmark whose runs
/// never end on their own does after its samples.
func cancelChecked<Context: Sendable>(_ handle: RunHandle<Context>, _ what: String) async throws {
  handle.cancel()
  let ending: RunError?
  do throws(RunError) {
    _ = try await handle.result
    ending = nil
  } catch {
    ending = error
  }
  guard ending?.kind == .cancelled else {
    throw BenchmarkError.mismatch(
      "\(what): the run should end cancelled, not \(String(describing: ending))")
  }
}
