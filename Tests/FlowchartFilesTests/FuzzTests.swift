import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// Mutates chart files from a seed: truncation, byte flips, structural tokens inserted where
/// they break the nesting, ranges deleted or repeated, attributes and keys duplicated, invalid
/// UTF-8 and deep nesting.
struct Mutator {
  var generator: SeededGenerator
  let syntax: ChartSyntax

  init(seed: UInt64, syntax: ChartSyntax) {
    generator = SeededGenerator(seed: seed)
    self.syntax = syntax
  }

  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

  var tokens: [String] {
    switch syntax {
    case .json:
      [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\"action\": \"X\", ", "\"final\": true, ",
        "{\"goTo\": \"Final state\"}, ", "\"yes\": [], ", "\"run\": 1, ", "\\u12", "\\uD800",
        "1e999", "-", "nul", "true",
      ]
    case .xml:
      [
        "<", ">", "/>", "</yes>", "<no>", "</condition>", "<action name=\"X\"/>", " name=\"A\"",
        " final=\"true\"", "&", "&amp;", "&bogus;", "<![CDATA[x]]>", "<!-- c -->", "\"", "=",
        "<goTo state=\"Final state\"/>", "<!DOCTYPE a>", "<?pi x?>",
      ]
    }
  }

  mutating func mutate(_ original: [UInt8]) -> [UInt8] {
    var bytes = original
    for _ in 0..<int(1...2) {
      guard !bytes.isEmpty else { break }
      let offset = int(0...bytes.count - 1)
      switch int(0...8) {
      case 0:  // truncation
        bytes.removeSubrange(offset...)
      case 1:  // byte flip
        bytes[offset] = UInt8(truncatingIfNeeded: int(0...255))
      case 2:  // a bit flip
        bytes[offset] ^= UInt8(1 << int(0...7))
      case 3:  // a structural token where it breaks the nesting
        bytes.insert(contentsOf: Array(tokens[int(0...tokens.count - 1)].utf8), at: offset)
      case 4:  // a range deleted
        bytes.removeSubrange(offset..<min(bytes.count, offset + int(1...40)))
      case 5:  // a range repeated: duplicate keys, attributes and elements, wrong nesting
        let range = offset..<min(bytes.count, offset + int(1...60))
        bytes.insert(contentsOf: bytes[range], at: int(0...bytes.count))
      case 6:  // invalid UTF-8
        let invalid: [[UInt8]] = [
          [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF8],
        ]
        bytes.insert(contentsOf: invalid[int(0...invalid.count - 1)], at: offset)
      case 7:  // deep nesting
        let level = syntax == .json ? "[" : "<all>"
        bytes.insert(
          contentsOf: Array(String(repeating: level, count: int(100...2_000)).utf8), at: offset)
      default:  // a duplicate attribute or key right after a name
        let duplicate =
          syntax == .json ? "\"action\": \"A\", \"action\": \"B\", " : " run=\"a\" run=\"b\""
        bytes.insert(contentsOf: Array(duplicate.utf8), at: offset)
      }
    }
    return bytes
  }
}

struct FuzzTests {
  /// Each mutated sample loads, or throws a `DefinitionError` whose every problem names the
  /// file and a line; loading never crashes or hangs.
  @Test(.timeLimit(.minutes(5)), arguments: ChartSyntax.allCases)
  func mutatedFilesLoadOrThrowALocatedError(syntax: ChartSyntax) async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_FILES_MUTATIONS"].flatMap(Int.init) ?? 10_000
    let samples = try sampleNames.map { Array(try Data(contentsOf: sampleURL($0, syntax))) }
    var handlers = HandlerRegistry<ChartValue>()
    handlers.fallback = { request in
      switch request.kind {
      case .action: .action { _ in }
      case .condition: .condition { _ in true }
      case .multipleCondition: .multipleCondition { _ in "" }
      case .merge: .merge { _, _ in }
      case .input: .input(ChartValue.self) { _, _ in }
      case .errorFilter: .errors { _ in true }
      case .catchHandler: .catch { _, _ in }
      case .mapping: .mapping(.whole)
      case .collection: .collection(over: { _ in [] }, collect: { _, _ in })
      }
    }
    var outcomes = [0, 0, 0]  // loaded and compiled, refused by the reader, refused by the compiler
    for seed in 0..<UInt64(count) {
      // Lets the other suites' tasks run: the tests share a cooperative pool of one thread
      // per core, and some of them wait for work of their own to be scheduled.
      if seed % 50 == 0 { await Task.yield() }
      var mutator = Mutator(seed: seed, syntax: syntax)
      let bytes = mutator.mutate(samples[Int(seed % UInt64(samples.count))])
      let path = "fuzz-\(seed).\(syntax.rawValue)"
      do throws(DefinitionError) {
        let file = try ChartFile.parse(bytes, syntax: syntax, path: path)
        do throws(DefinitionError) {
          _ = try file.flowchart(handlers: handlers)
          outcomes[0] += 1
        } catch {
          outcomes[2] += 1
          expectLocated(error, path: path, seed: seed)
        }
      } catch {
        outcomes[1] += 1
        expectLocated(error, path: path, seed: seed)
        #expect(error.problems.allSatisfy { $0.location.column != nil }, "seed \(seed)")
      }
    }
    // The mutations reach every outcome, so the test exercises more than the syntax checks.
    #expect(outcomes.allSatisfy { $0 > count / 1_000 }, "\(outcomes)")
  }

  func expectLocated(_ error: DefinitionError, path: String, seed: UInt64) {
    #expect(!error.problems.isEmpty, "seed \(seed)")
    for problem in error.problems {
      #expect(problem.location.fileID == path, "seed \(seed): \(problem)")
      #expect(problem.location.line >= 1, "seed \(seed): \(problem)")
      #expect(!problem.message.isEmpty, "seed \(seed)")
    }
  }

  /// A large file, whole, loads; cut anywhere, it throws one located error.
  @Test(arguments: ChartSyntax.allCases)
  func aLargeFileLoadsAndATruncatedOneIsLocated(syntax: ChartSyntax) throws {
    let states = (0..<3_000).map { index in
      ChartNode(
        .action(ChartAction(name: "Step \(index)", isFinal: index == 2_999, handler: "work")),
        at: SourceLocation(fileID: "large", line: 1))
    }
    let bytes = Array(ChartFile(path: "large", states: states).text(in: syntax).utf8)
    var handlers = HandlerRegistry<ChartValue>()
    handlers.useStandIns()
    let chart = try ChartFile.parse(bytes, syntax: syntax, path: "large")
      .flowchart(handlers: handlers)
    #expect(chart.states.count == 3_000)
    var generator = SeededGenerator(seed: 11)
    for _ in 0..<5 {
      let cut = Int.random(in: 1..<bytes.count - 20, using: &generator)
      let found = problems { () throws(DefinitionError) in
        _ = try ChartFile.parse(bytes[..<cut], syntax: syntax, path: "large")
      }
      #expect(found.count == 1)
      #expect(found.first?.hasPrefix("large:") == true)
    }
  }
}
