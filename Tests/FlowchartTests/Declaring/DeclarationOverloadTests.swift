import Testing

@testable import Flowchart

/// Every public initializer of a declaration type forwards to the one designated initializer
/// of its type: each must still make the state it always made, with synchronous code for a
/// synchronous closure and asynchronous code for an `async` one, declared at the line it is
/// written on, in this file.
struct DeclarationOverloadTests {
  /// What a declaration made: its kind, its code, its flags, its shape of exits and where it
  /// was written.
  struct Made: Equatable, CustomStringConvertible {
    var kind: StateKind
    var code: CodeKind
    var isFinal: Bool
    var body: String
    var fileID: String
    var line: Int

    init(
      _ kind: StateKind, _ code: CodeKind, _ body: String, isFinal: Bool = false, line: Int,
      fileID: String = #fileID
    ) {
      self.kind = kind
      self.code = code
      self.isFinal = isFinal
      self.body = body
      self.fileID = fileID
      self.line = line
    }

    init(_ declaration: Declaration<Int>) throws {
      guard case .state(let state) = declaration.node else { throw NotAState() }
      let body: String
      switch state.body {
      case .next:
        body = "next"
      case .yesNo(let yes, let no, let hasExits):
        body = hasExits ? "yes \(yes.count) no \(no.count)" : "no exits"
      case .keyed(let decision, let hasExits):
        body = hasExits ? "keyed \(decision.exits.count)" : "no exits"
      case .branches(let branches, let behavior):
        var text = "branches \(branches.count)"
        if let behavior {
          if behavior.merge != nil { text += " merge" }
          if let limit = behavior.maxConcurrency { text += " at most \(limit)" }
          if behavior.join != .all { text += " \(behavior.join)" }
          if behavior.report != nil { text += " report" }
        }
        body = text
      }
      self.init(
        state.kind, state.codeKind, body, isFinal: state.isFinal, line: state.location.line,
        fileID: state.location.fileID)
    }

    var description: String {
      "\(kind) \(code) \(body)\(isFinal ? " final" : "") at \(fileID):\(line)"
    }
  }

  struct NotAState: Error {}

  @Test func actions() throws {
    let line = #line
    let made = try [
      Action<Int>("Sync") { $0 += 1 },
      Action<Int>("Async") { _ in await Task.yield() },
      Action<Int>("Sync, no context") { work() },
      Action<Int>("Async, no context") { await Task.yield() },
      Action<Int>("No work", isFinal: true),
      Action<Int>("Throwing") { context in if context < 0 { throw NotAState() } },
    ].map { try Made($0.declaration) }
    #expect(
      made == [
        Made(.action, .action, "next", line: line + 2),
        Made(.action, .asyncAction, "next", line: line + 3),
        Made(.action, .action, "next", line: line + 4),
        Made(.action, .asyncAction, "next", line: line + 5),
        Made(.action, .pass, "next", isFinal: true, line: line + 6),
        Made(.action, .action, "next", line: line + 7),
      ])
  }

  @Test func conditions() throws {
    let line = #line
    let made = try [
      Condition<Int>("Sync", { $0 > 0 }, yes: { Action("Y") }, no: { nays() }),
      Condition<Int>("Async", { _ in await yes() }, yes: {}, no: { Action("N") }),
      Condition<Int>("Sync, yes", { $0 > 0 }, yes: { Action("Y") }),
      Condition<Int>("Async, yes", { _ in await yes() }, yes: { Action("Y") }),
      Condition<Int>("Sync, no exits", isFinal: true) { $0 > 0 },
      Condition<Int>("Async, no exits", isFinal: true) { _ in await yes() },
    ].map { try Made($0.declaration) }
    #expect(
      made == [
        Made(.condition, .condition, "yes 1 no 2", line: line + 2),
        Made(.condition, .asyncCondition, "yes 0 no 1", line: line + 3),
        Made(.condition, .condition, "yes 1 no 0", line: line + 4),
        Made(.condition, .asyncCondition, "yes 1 no 0", line: line + 5),
        Made(.condition, .condition, "no exits", isFinal: true, line: line + 6),
        Made(.condition, .asyncCondition, "no exits", isFinal: true, line: line + 7),
      ])
  }

  @Test func multipleConditions() throws {
    let line = #line
    let made = try [
      MultipleCondition<Int, Int>("Sync", { $0 }, exits: { for key in 1...2 { Case(key) {} } }),
      MultipleCondition<Int, Int>("Async", { _ in await one() }, exits: {}),
      MultipleCondition<Int, Int>("Sync, no exits", isFinal: true) { $0 },
      MultipleCondition<Int, Int>("Async, no exits") { _ in await one() },
    ].map { try Made($0.declaration) }
    #expect(
      made == [
        Made(.multipleCondition, .select, "keyed 2", line: line + 2),
        Made(.multipleCondition, .asyncSelect, "keyed 0", line: line + 3),
        Made(.multipleCondition, .select, "no exits", isFinal: true, line: line + 4),
        Made(.multipleCondition, .asyncSelect, "no exits", line: line + 5),
      ])
  }

  @Test func dispatches() throws {
    func branches() -> [Branch<Int>] { [Branch { Action("Done", isFinal: true) }] }
    func pair() -> [Branch<Int>] { [Branch {}, Branch {}] }
    let line = #line
    let made = try [
      Dispatch<Int>("None", branches: branches),
      Dispatch<Int>("Two", maxConcurrency: 2, merge: { $0 += $1 }, branches: pair),
      Dispatch<Int>("Three", join: .quorum(1), merge: { $0 += $1 - $2 }, branches: branches),
      Dispatch<Int>("Report", isFinal: true, branches: branches) { _, _ in },
      Dispatch<Int>("Two, report", merge: { $0 += $1 }, branches: branches) { _, _ in },
      Dispatch<Int>("Three, report", merge: { $0 += $1 - $2 }, branches: branches) { _, _ in },
    ].map { try Made($0.declaration) }
    #expect(
      made == [
        Made(.dispatch, .dispatch, "branches 1", line: line + 2),
        Made(.dispatch, .dispatch, "branches 2 merge at most 2", line: line + 3),
        Made(.dispatch, .dispatch, "branches 1 merge .quorum(1)", line: line + 4),
        Made(.dispatch, .dispatch, "branches 1 report", isFinal: true, line: line + 5),
        Made(.dispatch, .dispatch, "branches 1 merge report", line: line + 6),
        Made(.dispatch, .dispatch, "branches 1 merge report", line: line + 7),
      ])
  }

  @Test func twoArgumentMergesIgnoreTheOriginal() throws {
    let two = try Flowchart<[String]> {
      Dispatch("Two", isFinal: true) {
        $0 += $1
      } branches: {
        Branch { Action("A", isFinal: true) { $0.append("a") } }
        Branch { Action("B", isFinal: true) { $0.append("b") } }
      } report: { context, report in
        context.append("\(report.succeeded.count)")
      }
    }
    let three = try Flowchart<[String]> {
      Dispatch("Three", isFinal: true) {
        $0 += $1.dropFirst($2.count)
      } branches: {
        Branch { Action("A", isFinal: true) { $0.append("a") } }
        Branch { Action("B", isFinal: true) { $0.append("b") } }
      }
    }
    #expect(try two.runSynchronously(with: ["x"]).context == ["x", "x", "a", "x", "b", "2"])
    #expect(try three.runSynchronously(with: ["x"]).context == ["x", "a", "b"])
  }

  @Test func subflows() throws {
    let synchronous = try Flowchart<Int> {
      Condition("Done?", isFinal: true) { $0 > 0 }
    }
    let asynchronous = try Flowchart<Int> {
      Condition("Done?", isFinal: true) { _ in await yes() }
    }
    let line = #line
    let made = try [
      Subflow<Int>("Sync", running: synchronous, context: .whole),
      Subflow<Int>("Async", running: asynchronous, context: .whole),
      Subflow<Int>("Sync, yes no", running: synchronous, context: .whole, yes: {}, no: { nay() }),
      Subflow<Int>("Async, yes no", running: asynchronous, context: .whole, yes: {}, no: {}),
      Subflow<Int>("Sync, keyed", running: synchronous, context: .whole) { Case("Done?") {} },
      Subflow<Int>("Async, keyed", isFinal: true, running: asynchronous, context: .whole) {},
    ].map { try Made($0.declaration) }
    #expect(
      made == [
        Made(.subflow, .action, "next", line: line + 2),
        Made(.subflow, .asyncAction, "next", line: line + 3),
        Made(.subflow, .condition, "yes 0 no 1", line: line + 4),
        Made(.subflow, .asyncCondition, "yes 0 no 0", line: line + 5),
        Made(.subflow, .select, "keyed 1", line: line + 6),
        Made(.subflow, .asyncSelect, "keyed 0", isFinal: true, line: line + 7),
      ])
  }
}

private func work() {}

private func yes() async -> Bool {
  await Task.yield()
  return true
}

private func one() async -> Int {
  await Task.yield()
  return 1
}

/// Two states for a `no` block, without a semicolon.
private func nays() -> [Declaration<Int>] {
  [Action("N").declaration, Action("N2").declaration]
}

private func nay() -> Action<Int> { Action("N") }
