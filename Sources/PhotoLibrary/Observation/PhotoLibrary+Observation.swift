extension PhotoLibrary {
    /// Registers an observer, held weakly: it receives every transaction committed from now on, by this
    /// process or another, once each, in commit order, one call at a time (see ``PhotoLibraryChangeObserver``).
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    public func register(_ observer: any PhotoLibraryChangeObserver) throws(PhotoLibraryError) {
        do { try observation.register(observer) } catch { throw Self.map(error, path: databasePath) }
    }

    /// Whether fetch results are followed incrementally where they can be (the default); when false, each
    /// delivery round fetches every tracked result again and diffs it. For benchmarks comparing the two.
    @_spi(Benchmarks) public var maintainsFetchResultsIncrementally: Bool {
        get { observation.maintainsIncrementally.load(ordering: .relaxed) }
        set { observation.maintainsIncrementally.store(newValue, ordering: .relaxed) }
    }

    /// The transactions committed after `token`, with their change details, read as a delivery round reads
    /// them but without delivering them to anyone. For benchmarks: the work of one delivery, synchronously.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    @_spi(Benchmarks) public func readChanges(after token: ChangeToken) throws(PhotoLibraryError) -> [Change] {
        do { return try observation.readChanges(after: token.sequence) } catch { throw Self.map(error, path: databasePath) }
    }

    /// Stops delivering changes to an observer.
    public func unregister(_ observer: any PhotoLibraryChangeObserver) {
        observation.unregister(observer)
    }

    /// The transactions committed from now on, as an async sequence; it ends when the library is released.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    public func changes() throws(PhotoLibraryError) -> AsyncStream<Change> {
        do { return try observation.stream() } catch { throw Self.map(error, path: databasePath) }
    }
}
