/// How a command-line argument names an object by a part of its local identifier: its start, else any other
/// run of it, such as its last digits (identifiers are time-ordered, so those of objects created together
/// share their start). Assets and albums are named this way.
enum IdentifierPart: CaseIterable {
    case start
    case part

    /// How a failure names it: "'12AB' is the start of 3 asset identifiers".
    var phrase: String { self == .start ? "the start" : "part" }

    /// The one object that `text` is the start of the identifier of, else part of; nil when there is none.
    ///
    /// - Parameters:
    ///   - noun: what the objects are ("asset", "album"), for the failure.
    ///   - matching: the objects whose identifiers `text` is that part of — two or more when there are several
    ///     (the lookup may stop there) — and how many there are in all.
    /// - Throws: ``CommandFailure`` `notFound` when `text` names several objects; what `matching` throws.
    static func unique<Object>(
        _ text: String, noun: String, matching: (IdentifierPart) throws -> (objects: [Object], count: () throws -> Int)
    ) throws -> Object? {
        for part in allCases {
            let (objects, count) = try matching(part)
            if objects.count == 1 { return objects[0] }
            if objects.count > 1 {
                throw CommandFailure(code: "notFound", "'\(text)' is \(part.phrase) of \(try count()) \(noun) identifiers: give more of it (their last digits tell apart \(noun)s created together)")
            }
        }
        return nil
    }
}
