/// The numbers of a date's text in order, each with its digit count, kept without allocating: a date has
/// at most seven, so the first eight are kept and ``count`` stops at eight — enough for every parser to
/// refuse a text with too many.
struct DateNumbers: RandomAccessCollection {
    static let capacity = 8
    private var values = InlineArray<8, Int>(repeating: 0)
    private var digitCounts = InlineArray<8, Int>(repeating: 0)
    private(set) var endIndex = 0

    var startIndex: Int { 0 }

    subscript(position: Int) -> (value: Int, digits: Int) {
        precondition(position >= 0 && position < endIndex, "DateNumbers: index out of range")
        return (values[position], digitCounts[position])
    }

    /// Adds a number; beyond ``capacity`` it is dropped.
    mutating func append(value: Int, digits: Int) {
        guard endIndex < Self.capacity else { return }
        values[endIndex] = value
        digitCounts[endIndex] = digits
        endIndex += 1
    }
}
