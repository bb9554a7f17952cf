import Flowchart
import Testing

@Suite(.timeLimit(.minutes(5)))
struct LiveRunTests {
  // MARK: - Events

  @Test func reportsEveryStateOfEveryKindInOrder() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      Action("Begin") { state in
        state.isOn = true
        state.word = "go"
      }
      Condition("On?") { $0.isOn } yes: {
        Action("Wait") { _ in await Task.yield() }
        MultipleCondition("Word?") { $0.word } exits: {
          Case("go") { Action("Go") { $0.word = "gone" } }
          Default { Action("Other") {} }
        }
        Condition("Still on?") { state async in state.isOn } yes: {
          MultipleCondition("Grade", isFinal: true) { _ in 3 }
        } no: {
          Action("Off", isFinal: true)
        }
      } no: {
        Action("Never", isFinal: true)
      }
    }
    let handle = chart.start(with: Switches(), isPaused: true)
    let lines = await handle.allEventLines()
    #expect(
      lines == [
        "Begin: run started",
        "Begin: entered", "Begin: finished",
        "On?: entered", "On?: decided yes",
        "Wait: entered", "Wait: finished",
        "Word?: entered", "Word?: decided key(go)",
        "Go: entered", "Go: finished",
        "Still on?: entered", "Still on?: decided yes",
        "Grade: entered", "Grade: decided key(3)",
        "Grade: run finished: key(3)",
      ])
    let result = try await handle.result
    #expect(result.decision == .key(3))
    #expect(handle.hasEnded)
    #expect(handle.positions.isEmpty)
  }

  @Test func reportsAFailedStateThenTheFailedRun() async throws {
    struct Broken: Error {}
    let chart = try Flowchart<Int> {
      Action("Fine") { $0 += 1 }
      Action("Broken", isFinal: true) { _ in throw Broken() }
    }
    let handle = chart.start(with: 0, isPaused: true)
    let lines = await handle.allEventLines()
    #expect(
      lines == [
        "Fine: run started", "Fine: entered", "Fine: finished", "Broken: entered",
        "Broken: failed (thrown error)", "Broken: run failed (thrown error)",
      ])
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.stateName == "Broken")
  }

  @Test(arguments: [[0, 1, 2], [2, 1, 0], [1, 2, 0]])
  func reportsADispatchWhateverOrderItsBranchesFinishIn(order: [Int]) async throws {
    let gates = [Gate(), Gate(), Gate()]
    // swift-format-ignore
    let chart = try Flowchart<[Int]> {
      Dispatch("Fetch") { log, branch in log += branch } branches: {
        for index in 0..<3 {
          Branch {
            Action("Load \(index)") { log in
              await gates[index].wait()
              log.append(index)
            }
            Action("Store \(index)", isFinal: true)
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let handle = chart.start(with: [], isPaused: true)
    var events = handle.events().makeAsyncIterator()
    var all: [RunEvent] = []
    handle.resume()
    for index in order {
      gates[index].open()
      while let event = await events.next() {
        all.append(event)
        if case .branchEnded(index) = event.kind { break }
      }
    }
    while let event = await events.next() { all.append(event) }

    // Each branch's own events, in order, whatever the interleaving.
    for index in 0..<3 {
      guard let flow = all.first(where: { $0.stateName == "Load \(index)" })?.flow else {
        Issue.record("branch \(index) reported nothing")
        continue
      }
      #expect(flow != 0)
      #expect(
        all.filter { $0.flow == flow }.map(\.line) == [
          "[\(flow)] Fetch: branch \(index + 1) started",
          "[\(flow)] Load \(index): entered", "[\(flow)] Load \(index): finished",
          "[\(flow)] Store \(index): entered", "[\(flow)] Store \(index): finished",
          "[\(flow)] Fetch: branch \(index + 1) ended",
        ])
    }
    #expect(
      all.filter { $0.flow == 0 }.map(\.line) == [
        "Fetch: run started", "Fetch: entered", "Fetch: dispatch started",
        "Fetch: dispatch joined", "Fetch: finished", "Done: entered", "Done: finished",
        "Done: run finished",
      ])
    let ends = all.compactMap { event -> Int? in
      if case .branchEnded(let index) = event.kind { return index }
      return nil
    }
    #expect(ends == order)
    let result = try await handle.result
    #expect(result.context == [0, 1, 2])
  }

  @Test func everySubscriberGetsEveryEvent() async throws {
    let chart = try Flowchart<Int> {
      Action("One") { $0 += 1 }
      Action("Two", isFinal: true) { $0 += 2 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    let first = handle.events()
    let second = handle.events()
    let third = await handle.allEventLines()
    var firstLines: [String] = []
    for await event in first { firstLines.append(event.line) }
    var secondLines: [String] = []
    for await event in second { secondLines.append(event.line) }
    #expect(third.count == 6)
    #expect(firstLines == third)
    #expect(secondLines == third)
  }

  @Test func aSubscriberThatDoesNotReadKeepsOnlyTheNewestEvents() async throws {
    let chart = try Flowchart<Int> {
      for step in 0..<100 {
        Action("Step \(step)", isFinal: step == 99) { $0 += 1 }
      }
    }
    let handle = chart.start(with: 0, isPaused: true)
    let slow = handle.events(bufferingNewest: 2)
    handle.resume()
    // The run ends although nobody reads the stream.
    let result = try await handle.result
    #expect(result.context == 100)
    var lines: [String] = []
    for await event in slow { lines.append(event.line) }
    #expect(lines == ["Step 99: finished", "Step 99: run finished"])
  }

  @Test func aStreamMadeAfterTheEndIsFinished() async throws {
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) }
    let handle = chart.start(with: 0)
    _ = try await handle.result
    var count = 0
    for await _ in handle.events() { count += 1 }
    #expect(count == 0)
    #expect(handle.hasEnded)
  }

  @Test func callsItsCallbacks() async throws {
    let recorder = Recorder()
    let chart = try Flowchart<Bool> {
      Condition("Ready?") { _ in
        true
      } yes: {
        Action("Go", isFinal: true)
      } no: {
        Action("Stop", isFinal: true)
      }
    }
    let observer = RunObserver(
      willEnterState: { recorder.append("will enter \($0.stateName)") },
      didFinishState: { recorder.append("did finish \($0.stateName): \($0.kind)") },
      didFinishRun: { recorder.append("did finish run: \($0.kind)") })
    let handle = chart.start(with: false, observer: observer)
    _ = try await handle.result
    #expect(
      recorder.all == [
        "will enter Ready?", "did finish Ready?: decided yes", "will enter Go",
        "did finish Go: finished", "did finish run: run finished",
      ])
  }

  // MARK: - Positions nobody observes

  @Test func aRunNobodyObservesStillSaysWhereItIs() async throws {
    // Nobody subscribes and there is no observer: the flow records its position without
    // the run's lock, and the handle still reads it, state by state.
    let reached = Gate()
    let reachedAgain = Gate()
    let first = Gate()
    let second = Gate()
    let chart = try Flowchart<Int> {
      Action("Count") { $0 += 1 }
      Action("Hold") { _ in
        reached.open()
        await first.wait()
      }
      Action("Count again") { $0 += 1 }
      Action("Hold again", isFinal: true) { _ in
        reachedAgain.open()
        await second.wait()
      }
    }
    let handle = chart.start(with: 0)
    await reached.wait()
    #expect(handle.positions == [chart.state(named: "Hold")])
    first.open()
    await reachedAgain.wait()
    #expect(handle.positionNames == ["Hold again"])
    second.open()
    #expect(try await handle.result.context == 2)
    #expect(handle.positions.isEmpty)
  }

  @Test func aSubscriberThatComesLateGetsEveryLaterEventInOrder() async throws {
    // The run goes on unobserved, then a subscriber comes while it is held in a state: from
    // then on, each state's entry and decision in order, the decisions recorded with the
    // next event.
    let reached = Gate()
    let gate = Gate()
    let chart = try Flowchart<Int> {
      Action("Start") { $0 += 1 }
      Action("Hold") { _ in
        reached.open()
        await gate.wait()
      }
      Condition("More?") {
        $0 < 3
      } yes: {
        Action("Add") { $0 += 1 }
        GoTo("More?")
      } no: {
        Action("Done", isFinal: true) {}
      }
    }
    let handle = chart.start(with: 0)
    await reached.wait()
    let events = handle.events()
    gate.open()
    var lines: [String] = []
    for await event in events { lines.append(event.line) }
    #expect(
      lines == [
        "Hold: finished",
        "More?: entered", "More?: decided yes", "Add: entered", "Add: finished",
        "More?: entered", "More?: decided yes", "Add: entered", "Add: finished",
        "More?: entered", "More?: decided no", "Done: entered", "Done: finished",
        "Done: run finished",
      ])
    #expect(handle.positions.isEmpty)
  }

  // MARK: - Pause and resume

  @Test func pauseWaitsForTheStateInProgressThenStopsBeforeTheNext() async throws {
    let gate = Gate()
    let chart = try Flowchart<[String]> {
      Action("Lift weights") { log in
        await gate.wait()
        log.append("lifted")
      }
      Action("Sit-ups", isFinal: true) { $0.append("sit-ups") }
    }
    let handle = chart.start(with: [], isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    _ = await events.next { if case .stateEntered = $0.kind { true } else { false } }
    handle.pause()
    #expect(handle.isPaused)
    gate.open()
    let decided = await events.next()
    #expect(decided?.line == "Lift weights: finished")
    let paused = await events.next()
    #expect(paused?.line == "Sit-ups: paused")
    #expect(handle.positions == [chart.state(named: "Sit-ups")])
    handle.resume()
    #expect(await events.next()?.line == "Sit-ups: resumed")
    #expect(await events.next()?.line == "Sit-ups: entered")
    let result = try await handle.result
    #expect(result.context == ["lifted", "sit-ups"])
  }

  @Test func pauseStopsALongSynchronousStretchAtTheNextBoundary() async throws {
    let box = Box<RunHandle<Int>>()
    let chart = try Flowchart<Int> {
      for step in 0..<1000 {
        Action("Step \(step)", isFinal: step == 999) { count in
          count += 1
          if count == 500 { box.wrapped?.pause() }
        }
      }
    }
    let handle = chart.start(with: 0, isPaused: true)
    box.set(handle)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    let paused = await events.next(where: \.isPaused)
    #expect(paused?.stateName == "Step 500")
    #expect(handle.positions == [chart.state(named: "Step 500")])
    handle.resume()
    let result = try await handle.result
    #expect(result.context == 1000)
  }

  @Test func pauseStopsEveryBranchOfADispatch() async throws {
    let box = Box<RunHandle<Int>>()
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Dispatch("Split") { total, branch in total += branch } branches: {
        for index in 0..<3 {
          Branch {
            Action("First \(index)") { $0 += 1 }
            Action("Second \(index)", isFinal: true) { $0 += 1 }
          }
        }
      }
      Action("End", isFinal: true)
    }
    // Paused as the dispatch is entered: every branch stops before its first state.
    let observer = RunObserver(willEnterState: { event in
      if event.stateName == "Split" { box.wrapped?.pause() }
    })
    let handle = chart.start(with: 0, isPaused: true, observer: observer)
    box.set(handle)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    var pausedBranches: Set<String> = []
    while pausedBranches.count < 3, let event = await events.next(where: \.isPaused) {
      #expect(event.flow != 0)
      pausedBranches.insert(event.stateName)
    }
    #expect(pausedBranches == ["First 0", "First 1", "First 2"])
    #expect(handle.positions.map { chart[$0].name }.first == "Split")
    #expect(Set(handle.positions.dropFirst().map { chart[$0].name }) == pausedBranches)
    handle.pause()  // already paused: nothing changes
    handle.resume()
    let result = try await handle.result
    #expect(result.context == 6)
  }

  @Test func cancellingAPausedRunEndsItAtOnce() async throws {
    let box = Box<RunHandle<Int>>()
    let chart = try Flowchart<Int> {
      Action("Prepare") { _ in box.wrapped?.pause() }
      Action("Never", isFinal: true) { $0 += 1 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    box.set(handle)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    _ = await events.next(where: \.isPaused)
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Never")
    #expect(!handle.isPaused)
  }

  @Test func cancellingARunStartedPausedEndsItBeforeItsFirstState() async throws {
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) { $0 += 1 } }
    let handle = chart.start(with: 0, isPaused: true)
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Only")
  }

  @Test func pausingOrResumingOutOfTurnDoesNothing() async throws {
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) { $0 += 1 } }
    let handle = chart.start(with: 0)
    handle.resume()  // not paused
    #expect(!handle.isPaused)
    let result = try await handle.result
    handle.pause()  // ended
    #expect(!handle.isPaused)
    handle.resume()
    #expect(result.context == 1)
    #expect(handle.hasEnded)
  }

  @Test func anInvalidStepLimitFailsTheRun() async throws {
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) }
    let handle = chart.start(with: 0, stepLimit: -1)
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .invalidStepLimit)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct LivePauseRoundTests {
  @Test func pausesAndResumesAnEndlessRunManyTimes() async throws {
    // The first pause comes right after the resume that lets the run start: it pauses the
    // run at its first boundary, it does not hold it at its start.
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Action("Tick") { count in
        await Task.yield()
        count &+= 1
      }
      Condition("Again?") { _ in true } yes: { GoTo("Tick") } no: { Action("Never", isFinal: true) }
    }
    let handle = chart.start(with: 0, isPaused: true)
    // Every event kept: the reader waits for each `resumed`, and a reader the machine leaves
    // behind for a few milliseconds would find a bounded buffer had dropped it, as the
    // endless run went on past it. The run is paused again right after each `resumed` is
    // read, so what the buffer holds stays small.
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    for _ in 0..<50 {
      handle.pause()
      #expect(await events.next(where: \.isPaused) != nil)
      handle.resume()
      #expect(await events.next { if case .resumed = $0.kind { true } else { false } } != nil)
    }
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
  }
}
