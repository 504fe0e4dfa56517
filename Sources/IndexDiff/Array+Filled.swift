package extension Array {
    /// `count` copies of `value`, as `init(repeating:count:)` makes, allocated by code specialized for the
    /// element type.
    ///
    /// The standard library's `init(repeating:count:)` allocates through a function it doesn't specialize
    /// (`_allocateBufferUninitialized(minimumCapacity:)`), which looks the array's storage class up in the
    /// runtime's metadata tables at every call: some 460 instructions, and tens of cache misses when other
    /// work has evicted those tables, as a commit does before the change details that follow it. Code that
    /// runs then (``ChainMoves``, the library's incremental fetches) makes its arrays with this.
    ///
    /// - Complexity: O(*count*).
    @inlinable
    init(filled value: Element, count: Int) {
        self.init()
        reserveCapacity(count)
        for _ in 0..<count { append(value) }
    }
}
