/// Entity-tag matching (RFC 9110 §8.8.3, §13.1): `If-None-Match` with the weak comparison, `If-Range` with
/// the strong one.
enum EntityTag {
    /// The strong tag of a content hash: `"<hash>"`.
    static func strong(_ hash: String) -> String { "\"\(hash)\"" }

    /// Whether an `If-None-Match` value matches `tag` (`*`, or any listed tag, `W/` ignored).
    static func noneMatchHits(_ header: String, tag: String) -> Bool {
        let listed = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return listed.contains { $0 == "*" || $0 == tag || $0 == "W/" + tag }
    }

    /// Whether an `If-Range` value lets the range apply: the same strong tag.
    static func rangeApplies(_ header: String?, tag: String) -> Bool {
        guard let header else { return true }
        return header.trimmingCharacters(in: .whitespaces) == tag
    }
}
