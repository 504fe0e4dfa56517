/// The part of a file a `Range: bytes=…` header asks for (RFC 9110 §14), resolved against the file's size.
enum ByteRange: Equatable {
    /// The whole file: no range, or one the server ignores (several ranges, another unit, bad syntax).
    case whole
    /// Bytes `lowerBound...upperBound`.
    case part(ClosedRange<Int64>)
    /// A range that starts past the end: 416.
    case unsatisfiable

    /// Resolves a `Range` header value for a file of `size` bytes.
    init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let first = parts[0].trimmingCharacters(in: .whitespaces), last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let count = Int64(last), count > 0, last.allSatisfy(\.isNumber) else {
                self = last == "0" ? .unsatisfiable : .whole
                return
            }
            self = size == 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
            return
        }
        guard first.allSatisfy(\.isNumber), let start = Int64(first), last.isEmpty || last.allSatisfy(\.isNumber) else {
            self = .whole
            return
        }
        let end = last.isEmpty ? size - 1 : min(Int64(last) ?? .max, size - 1)
        guard last.isEmpty || (Int64(last) ?? .max) >= start else {
            self = .whole  // An invalid range (last < first) is ignored.
            return
        }
        self = start < size ? .part(start...end) : .unsatisfiable
    }
}
