import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How chart files are named and identified.
enum FilePaths {
  /// The path that identifies the file at `url`, whatever the spelling that named it: `.`,
  /// `..` and symbolic links resolved when the file exists, `.` and `..` only otherwise.
  static func identity(of url: URL) -> String {
    let standardized = url.standardizedFileURL.path
    guard let resolved = realpath(standardized, nil) else { return standardized }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The folder of `path`, empty for a file in the current folder.
  static func folder(of path: String) -> String {
    (path as NSString).deletingLastPathComponent
  }

  /// `path` joined to `folder` (unless it is absolute) and tidied: `.` and empty components
  /// removed, and each `..` with the component before it (`inc/../inc/a.json` is
  /// `inc/a.json`); a relative path keeps the `..` that go above its start.
  static func joined(_ folder: String, _ path: String) -> String {
    let full = path.hasPrefix("/") || folder.isEmpty ? path : folder + "/" + path
    let isAbsolute = full.hasPrefix("/")
    var components: [Substring] = []
    for component in full.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".": continue
      case "..":
        if let last = components.last, last != ".." {
          components.removeLast()
        } else if !isAbsolute {
          components.append(component)
        }
      default: components.append(component)
      }
    }
    let joined = components.joined(separator: "/")
    return isAbsolute ? "/" + joined : joined.isEmpty ? "." : joined
  }
}

/// Why a chart file could not be read, in words.
struct FileReadFailure: Error, CustomStringConvertible {
  /// What is wrong and what to do, as a sentence ending in a period.
  var description: String
}

/// Reads regular files only, up to a size: never a folder, a pipe (which would block) or a
/// device (which may never end).
enum RegularFile {
  // The file types of `st_mode` (POSIX values, the same on Linux and Darwin).
  private static let typeMask: UInt32 = 0o170000
  private static let regular: UInt32 = 0o100000
  private static let directory: UInt32 = 0o040000
  private static let fifo: UInt32 = 0o010000
  private static let characterDevice: UInt32 = 0o020000
  private static let blockDevice: UInt32 = 0o060000
  private static let socket: UInt32 = 0o140000

  /// The bytes of the regular file at `path`, at most `limit` of them.
  static func contents(of path: String, limit: Int) -> Result<[UInt8], FileReadFailure> {
    // Without O_NONBLOCK, opening a pipe no one writes to waits forever.
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(failure(opening: errno)) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return .failure(failure(opening: errno)) }
    let type = UInt32(info.st_mode) & typeMask
    guard type == regular else { return .failure(notRegular(type)) }
    guard Int(info.st_size) <= limit else {
      return .failure(tooLarge(limit: limit))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(failure(opening: errno))
      }
      if count == 0 { break }
      // The file may have grown since it was measured.
      guard bytes.count + count <= limit else {
        return .failure(tooLarge(limit: limit))
      }
      bytes += chunk[..<count]
    }
    return .success(bytes)
  }

  private static func failure(opening code: Int32) -> FileReadFailure {
    let reason =
      switch code {
      case ENOENT: "there is no such file. Check the path."
      case ENOTDIR: "a part of its path is a file, not a folder. Check the path."
      case EACCES, EPERM: "you do not have permission to read it. Check its permissions."
      case ELOOP: "its symbolic links lead round in a loop. Fix the links."
      case EISDIR: "it is a folder, not a file. Name a chart file."
      case ENAMETOOLONG: "its path is too long. Check the path."
      default: "\(String(cString: strerror(code))) (error \(code)). Check the path."
      }
    return FileReadFailure(description: reason)
  }

  private static func notRegular(_ type: UInt32) -> FileReadFailure {
    let what =
      switch type {
      case directory: "a folder"
      case fifo: "a pipe (FIFO)"
      case characterDevice, blockDevice: "a device"
      case socket: "a socket"
      default: "of an unknown type"
      }
    let reason =
      type == directory
      ? "it is a folder, not a file. Name a chart file."
      : "it is \(what), not a regular file: only regular files are read. Name a chart file."
    return FileReadFailure(description: reason)
  }

  private static func tooLarge(limit: Int) -> FileReadFailure {
    FileReadFailure(
      description:
        "it is larger than \(limit) bytes, the largest chart file read (fileSizeLimit). Split it into included files, or raise the limit."
    )
  }
}
