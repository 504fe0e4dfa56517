public import Foundation

extension Predicate {
    /// Parses a predicate in the text format, checking keys and values against a schema.
    ///
    /// The format is close to `NSPredicate` format strings:
    ///
    /// ```text
    /// mediaType == image AND creationDate >= "2024-01-01" AND NOT isHidden
    /// originalFilename CONTAINS[c] "img" OR originalFilename LIKE "IMG_*.HEIC"
    /// pixelWidth BETWEEN {100, 2000} && mediaType IN {image, video}
    /// (isFavorite OR isHidden) && duration > 3.5 && burstIdentifier != nil
    /// mediaSubtypes CONTAINS photoPanorama
    /// ```
    ///
    /// Grammar (keywords are case-insensitive; `NOT` binds tighter than `AND`, which binds tighter than `OR`):
    ///
    /// ```text
    /// predicate  := or
    /// or         := and (("OR" | "||") and)*
    /// and        := not (("AND" | "&&") not)*
    /// not        := ("NOT" | "!") not | primary
    /// primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | KEY [test]
    /// test       := compare value | "IN" list | "BETWEEN" "{" value "," value "}"
    ///             | ("CONTAINS" | "BEGINSWITH" | "ENDSWITH" | "LIKE") ["[" ("c" | "d" | "cd") "]"] value
    /// compare    := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
    /// list       := "{" [value ("," value)*] "}"
    /// value      := STRING | NUMBER | "YES" | "NO" | "TRUE" | "FALSE" | "nil" | "NULL" | NAME
    /// ```
    ///
    /// - A `KEY` alone (no test) must be a bool key: `isFavorite` means `isFavorite == true`.
    /// - Strings are single- or double-quoted, with the escapes `\\`, `\"`, `\'`, `\n`, `\t`, `\r`,
    ///   `\u{1F600}` and `\u00E9`; U+0000 is refused.
    /// - Numbers have an optional sign, fraction and exponent (`-12`, `3.5`, `1e-3`); those with a fraction
    ///   or an exponent are doubles. Integers must fit in 64 bits.
    /// - `NAME` is an enumeration case or option-set flag name (`image`, `photoPanorama`); quoted names are
    ///   accepted too, and so are integer raw values.
    /// - Dates are strings: `"2024-01-01"` (midnight in `timeZone`), `"2024-01-01T10:30"`,
    ///   `"2024-01-01T10:30:15.5"` (in `timeZone`), with `Z` or an offset like `+02:00` for other zones;
    ///   or numbers of seconds since 1970.
    /// - Values are checked against the key's type (see ``PredicateKeyType``) and converted to its
    ///   canonical form: dates to `.date`, names to `.integer` raw values, integers for double keys to
    ///   `.double`, `0`/`1` for bool keys to `.bool`.
    ///
    /// - Parameters:
    ///   - text: The predicate text.
    ///   - schema: The keys the predicate may use.
    ///   - timeZone: The time zone of dates written without a UTC offset.
    /// - Returns: The predicate, in canonical form.
    /// - Throws: ``PredicateError`` with the position of the first problem: a syntax error, an unknown key
    ///   (listing the valid keys), a value that does not fit its key, nesting deeper than 100 levels.
    /// - Complexity: O(n) in the length of the text (plus the size of schemas' name lists for names).
    public static func parse<Object>(
        _ text: String,
        schema: PredicateSchema<Object>,
        timeZone: TimeZone = .current
    ) throws(PredicateError) -> Predicate {
        var parser = try Parser(text, schema: schema, timeZone: timeZone)
        return try parser.parsePredicate()
    }

    /// Parses a predicate in the text format; the same as ``parse(_:schema:timeZone:)``.
    ///
    /// - Throws: ``PredicateError`` with the position of the first problem.
    public init<Object>(
        _ text: String,
        schema: PredicateSchema<Object>,
        timeZone: TimeZone = .current
    ) throws(PredicateError) {
        self = try Self.parse(text, schema: schema, timeZone: timeZone)
    }
}
