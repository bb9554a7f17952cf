extension RunHandle: Hashable {
  /// Whether two handles refer to the same run.
  ///
  /// Copies of one handle are equal; the handles that
  /// ``retry(clock:isPaused:isLogged:observer:updating:isolation:)`` and
  /// ``restart(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)`` return refer to
  /// new runs, so they equal neither the handle they came from nor each other. Useful to
  /// check that a second start handed back the run that is going, or to keep handles in a
  /// set.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.run === rhs.run
  }

  /// Hashes the identity of the run the handle refers to.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(run))
  }
}
