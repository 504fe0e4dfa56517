import ArgumentParser

/// A size on the command line: bytes, or with K, M or G (`1048576`, `512K`, `100M`, `4G`).
enum SizeArgument {
    /// `text` as a number of bytes, or nil when it is no size (or not above 0).
    static func bytes(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = text.uppercased()
        var unit: Int64 = 1
        if let last = digits.last, let multiplier = units[last] {
            unit = multiplier
            digits.removeLast()
        }
        guard let count = Int64(digits), count > 0, count <= Int64.max / unit else { return nil }
        return count * unit
    }

    /// Checks `text`, the value of `option`.
    ///
    /// - Throws: `ValidationError` (a usage error) naming the option when it is no size.
    static func validate(_ text: String, option: String) throws {
        guard bytes(text) != nil else {
            throw ValidationError("\(option) must be a size in bytes, or with K, M or G (it was \"\(text)\")")
        }
    }
}
