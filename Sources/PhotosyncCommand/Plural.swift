/// Counts with the right noun: `1 file`, `2 files`, `1 directory`, `3 directories`.
enum Plural {
    /// `count` and `noun`, plural unless `count` is 1. The plural is `noun + "s"` unless given.
    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count.formatted()) \(count == 1 ? noun : plural ?? Self.plural(of: noun))"
    }

    /// Regular English plurals of the nouns the tool uses.
    static func plural(of noun: String) -> String {
        if noun.hasSuffix("y"), let last = noun.dropLast().last, !"aeiou".contains(last) { return noun.dropLast() + "ies" }
        if noun.hasSuffix("s") || noun.hasSuffix("x") || noun.hasSuffix("ch") || noun.hasSuffix("sh") { return noun + "es" }
        return noun + "s"
    }
}
