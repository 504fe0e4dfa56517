import Hummingbird

/// A request's query parameters, checked: an unknown name, a repeated one that can't repeat, a NUL
/// character or a value of the wrong type is a 400 naming the parameter — never silently ignored.
struct QueryParameters {
    private var values: [String: [String]] = [:]

    /// Reads the query of `request`, refusing names not in `allowed`.
    init(_ request: Request, allowed: Set<String>) throws(APIError) {
        for (name, value) in request.uri.queryParameters {
            let name = String(name), value = String(value)
            if name.isEmpty && value.isEmpty { continue }  // `a=1&&b=2`, a trailing `&`
            guard allowed.contains(name) else {
                let known = allowed.isEmpty ? "this endpoint takes none" : "known: \(allowed.sorted().joined(separator: ", "))"
                throw .invalidRequest("unknown query parameter \"\(name)\" (\(known))")
            }
            guard !value.utf8.contains(0) else { throw .invalidRequest("the query parameter \"\(name)\" holds a NUL character") }
            values[name, default: []].append(value)
        }
    }

    /// The value of a parameter given at most once.
    func string(_ name: String) throws(APIError) -> String? {
        guard let all = values[name] else { return nil }
        guard all.count == 1 else { throw .invalidRequest("the query parameter \"\(name)\" is given \(all.count) times") }
        return all[0]
    }

    /// Every value of a repeatable parameter.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer in `range`.
    func int(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let text = try string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidRequest("\"\(name)\" must be an integer from \(range.lowerBound) to \(range.upperBound) (it was \"\(text)\")")
        }
        return value
    }

    /// A number of seconds in `range`.
    func seconds(_ name: String, in range: ClosedRange<Double>) throws(APIError) -> Double? {
        guard let text = try string(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .invalidRequest(
                "\"\(name)\" must be a number of seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound)) (it was \"\(text)\")")
        }
        return value
    }

    /// A flag: `1`, `true` or an empty value for true; `0` or `false` for false.
    func flag(_ name: String) throws(APIError) -> Bool? {
        guard let text = try string(name) else { return nil }
        switch text.lowercased() {
        case "", "1", "true": return true
        case "0", "false": return false
        default: throw .invalidRequest("\"\(name)\" must be 1, true, 0 or false (it was \"\(text)\")")
        }
    }
}
