// The binder's built-in tests (`equal`, `less`, `matches`, `all`, …): each compiled once
// into a function of the data, a pattern that is not a regular expression recorded as a
// problem.

import Flowchart

extension Binder {
  /// Every test of `tests` as a function of the data, or `nil` when one cannot be (each
  /// problem is recorded).
  mutating func compile(_ tests: [ChartTest]) -> [@Sendable (ChartValue) -> Bool]? {
    let compiled = tests.map { compile($0) }
    guard compiled.allSatisfy({ $0 != nil }) else { return nil }
    return compiled.compactMap { $0 }
  }

  /// The test as a function of the data, or `nil` (and problems recorded) when a pattern is
  /// not a regular expression.
  mutating func compile(_ test: ChartTest) -> (@Sendable (ChartValue) -> Bool)? {
    switch test.kind {
    case .equal(let path, let expected):
      return { $0[path: path] == expected }
    case .less(let path, let bound):
      return { ChartValue.compare($0[path: path], bound) == .some(.orderedAscending) }
    case .greater(let path, let bound):
      return { ChartValue.compare($0[path: path], bound) == .some(.orderedDescending) }
    case .present(let path):
      return { ($0[path: path] ?? .null) != .null }
    case .matches(let path, let pattern):
      guard let expression = try? PatternBox(pattern) else {
        problems.malformed(
          "The pattern '\(pattern)' is not a regular expression this platform reads: fix it.",
          at: test.location)
        return nil
      }
      return { value in
        guard case .string(let text)? = value[path: path] else { return false }
        return expression.matches(text)
      }
    case .all(let tests):
      guard let checks = compile(tests) else { return nil }
      return { value in checks.allSatisfy { $0(value) } }
    case .any(let tests):
      guard let checks = compile(tests) else { return nil }
      return { value in checks.contains { $0(value) } }
    case .not(let inner):
      guard let check = compile(inner) else { return nil }
      return { !check($0) }
    }
  }
}

extension ChartValue {
  /// How `value` compares to `bound`: both numbers, or both strings; `nil` otherwise.
  static func compare(_ value: ChartValue?, _ bound: ChartValue) -> ComparisonOrder? {
    switch (value, bound) {
    case (.number(let left)?, .number(let right)):
      left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    case (.string(let left)?, .string(let right)):
      left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    default: nil
    }
  }

  enum ComparisonOrder {
    case orderedAscending
    case orderedSame
    case orderedDescending
  }
}
