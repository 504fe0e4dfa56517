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

    /// The data of this process's Foundation, computed once (about a second: every assigned scalar is
    /// folded twice).
    public static let current = PostgresFoldData(computing: ())

    private init(computing: Void) {
        var scalars: [Scalar] = []
        for value in UInt32(0x41)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), let entry = Self.entry(scalar) else { continue }
            scalars.append(entry)
        }
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
