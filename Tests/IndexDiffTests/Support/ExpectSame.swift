import Testing

/// Expects two arrays to be equal, and on failure reports the first difference and the counts rather
/// than both arrays: swift-testing would otherwise diff them, which for a million elements with many
/// differences takes longer than the whole test run.
func expectSame<T: Equatable>(
    _ actual: [T],
    _ expected: [T],
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard actual != expected else { return }
    let firstDifference = (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] }
        ?? min(actual.count, expected.count)
    func element(_ array: [T]) -> String {
        firstDifference < array.count ? "\(array[firstDifference])" : "(end)"
    }
    Issue.record(
        "\(what): \(actual.count) elements, \(expected.count) expected; first difference at \(firstDifference): \(element(actual)) instead of \(element(expected))",
        sourceLocation: sourceLocation
    )
}
