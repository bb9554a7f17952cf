#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The POSIX calls the directory store makes, retried on `EINTR`, each failure a
/// ``RunStoreError`` naming the path.
enum SystemCalls {
  /// The message of `errno` `code` (`strerror`).
  static func message(of code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
  }

  /// A ``RunStoreError`` for the failed `operation` on `path`, with the current `errno`.
  static func failure(_ operation: String, path: String, code: Int32 = errno) -> RunStoreError {
    RunStoreError(
      .system(operation: operation, code: code), path: path,
      message: "\(operation) failed: \(message(of: code)).")
  }

  /// Opens `name` relative to the directory `directory`; returns the descriptor.
  static func open(
    _ name: String, in directory: Int32, flags: Int32, mode: mode_t = 0o644, path: String
  ) throws(RunStoreError) -> Int32 {
    while true {
      let descriptor = openat(directory, name, flags | O_CLOEXEC, mode)
      if descriptor >= 0 { return descriptor }
      if errno != EINTR { throw failure("open", path: path) }
    }
  }

  /// Writes all of `bytes` to `descriptor`.
  static func writeAll(
    _ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String
  ) throws(RunStoreError) {
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        throw failure("write", path: path)
      }
      offset += written
    }
  }

  /// Reads up to `buffer.count` bytes from `descriptor` into `buffer`; returns how many
  /// (0 at the end of the file).
  static func read(
    _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String
  ) throws(RunStoreError) -> Int {
    while true {
      let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
      if count >= 0 { return count }
      if errno != EINTR { throw failure("read", path: path) }
    }
  }

  /// Flushes `descriptor`'s data to the disk. On Apple platforms, where `fsync` leaves the
  /// data in the drive's own cache, with `fcntl(F_FULLFSYNC)`, which has the drive write its
  /// cache out too; where that is refused (a file system that does not support it, such as
  /// some network volumes), with `fsync`.
  static func sync(_ descriptor: Int32, path: String) throws(RunStoreError) {
    #if canImport(Darwin)
      while true {
        if fcntl(descriptor, F_FULLFSYNC) != -1 { return }
        // Not supported here: `fsync` below.
        if errno != EINTR { break }
      }
    #endif
    while fsync(descriptor) != 0 {
      if errno != EINTR { throw failure("fsync", path: path) }
    }
  }

  /// Closes `descriptor`, ignoring errors (the data that matters is already synced).
  static func close(_ descriptor: Int32) {
    _ = systemClose(descriptor)
  }
}

// `read` and `close` under names that the methods of `SystemCalls` do not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
  -> Int
{
  read(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}
