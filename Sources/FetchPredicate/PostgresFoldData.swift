import Foundation

/// The per-scalar data that PostgreSQL's `fetchpredicate_fold` function folds strings with, derived from
/// this process's Foundation so that both engines fold alike (see `Schema/postgres/README.md`).
///
/// Foundation folds a string cluster by cluster (a character and the combining marks after it); the SQL
/// function applies the same rules, and needs for each scalar that can occur in NFD text: its case folding
/// when that differs from it, whether [d] treats it as a non-base (combining) character, and its canonical
/// combining class. Only scalars with a case folding or that are non-base are listed.
public struct PostgresFoldData: Sendable {
    /// One scalar's data.
    public struct Scalar: Sendable, Hashable {
        /// The scalar, as a one-scalar string.
        public let scalar: String
        /// Its case folding (`folding(options: .caseInsensitive)`), or nil when that is the scalar itself.
        public let caseFold: String?
        /// The case folding without its non-base characters (what [cd] keeps of it after a Latin letter).
        public let caseFoldBase: String?
        /// Whether [d] drops it after a Latin letter.
        public let nonBase: Bool
        /// Its canonical combining class.
        public let combiningClass: Int16
    }

    /// The scalars, in code point order.
    public let scalars: [Scalar]
    /// A digest of ``scalars`` (FNV-1a, 64 bits, hexadecimal): equal data, equal digest.
    public let digest: String

    /// The data of this process's Foundation, computed once: about 0.1 s in a release build, asking
    /// Foundation only about the few thousand scalars that can fold or be dropped (see ``mayFold(_:)``).
    public static let current = PostgresFoldData(scalars: entries(where: mayFold))

    /// The same data from Foundation's answer for every scalar (about a second in a release build): what
    /// ``current`` must equal, which the tests check.
    static func exhaustive() -> PostgresFoldData {
        PostgresFoldData(scalars: entries(where: { _ in true }))
    }

    /// The entries of the scalars from U+0041 up that `isCandidate` lets through, in code point order.
    private static func entries(where isCandidate: (Unicode.Scalar) -> Bool) -> [Scalar] {
        var entries: [Scalar] = []
        var value: UInt32 = 0x41
        // A plain loop: a debug build runs a range's generic iterator a million times much slower.
        while value <= 0x10FFFF {
            if let scalar = Unicode.Scalar(value), isCandidate(scalar), let entry = entry(scalar) { entries.append(entry) }
            value += 1
        }
        return entries
    }

    private init(scalars: [Scalar]) {
        self.scalars = scalars
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for entry in scalars {
            let line = "\(entry.scalar)\t\(entry.caseFold ?? "")\t\(entry.caseFoldBase ?? "")\t\(entry.nonBase)\t\(entry.combiningClass)\n"
            for byte in line.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        self.digest = String(hash, radix: 16)
    }

    /// Whether Foundation may fold a scalar or drop it as non-base, by Unicode's properties (one table
    /// lookup for most scalars): a mark, a grapheme extender (Foundation's non-base set also holds the
    /// zero-width non-joiner, the half-width sound marks and the tags), an emoji skin-tone modifier, or a
    /// scalar that case mapping or folding changes. Unassigned, private-use and other letters (CJK
    /// ideographs, Hangul syllables…) are none of these.
    static func mayFold(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .unassigned, .privateUse, .surrogate, .otherLetter: return false
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default:
            return properties.isGraphemeExtend || properties.isEmojiModifier || properties.changesWhenCaseMapped
                || properties.changesWhenCaseFolded
        }
    }

    /// The entry of a scalar, or nil when it folds to itself and is a base character (or can't occur in NFD
    /// text, or is unassigned).
    private static func entry(_ scalar: Unicode.Scalar) -> Scalar? {
        switch scalar.properties.generalCategory {
        case .unassigned, .privateUse, .surrogate: return nil
        default: break
        }
        let string = String(scalar)
        let decomposed = string.decomposedStringWithCanonicalMapping.unicodeScalars
        guard decomposed.count == 1, decomposed.first == scalar else { return nil }
        let folded = string.folding(options: .caseInsensitive, locale: nil)
        let caseFold = folded.unicodeScalars.elementsEqual(string.unicodeScalars) ? nil : folded
        let nonBase = ("a" + string).folding(options: .diacriticInsensitive, locale: nil) == "a"
        guard caseFold != nil || nonBase else { return nil }
        let base = caseFold.map { fold in
            var kept = String.UnicodeScalarView()
            for scalar in fold.unicodeScalars where !isNonBase(scalar) { kept.append(scalar) }
            return String(kept)
        }
        return Scalar(
            scalar: string, caseFold: caseFold, caseFoldBase: base, nonBase: nonBase,
            combiningClass: Int16(scalar.properties.canonicalCombiningClass.rawValue))
    }

    private static func isNonBase(_ scalar: Unicode.Scalar) -> Bool {
        ("a" + String(scalar)).folding(options: .diacriticInsensitive, locale: nil) == "a"
    }
}
