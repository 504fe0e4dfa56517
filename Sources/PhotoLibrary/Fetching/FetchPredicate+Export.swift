// The typed predicate API — `FetchFilter(Asset.isFavorite && Asset.pixelWidth > 2000)`,
// `FetchSort(Asset.creationDate, ascending: false)` — is built from the FetchPredicate module's key paths and
// operators, and Swift finds operators only in imported modules: `import PhotoLibrary` brings FetchPredicate
// with it.
//
// One consequence for clients: FetchPredicate's `Predicate` and `SortDescriptor` shadow Foundation's in a file
// that imports PhotoLibrary; write `Foundation.Predicate` and `Foundation.SortDescriptor` there (`#Predicate`
// is unaffected). The library's own names for them are `FetchFilter` and `FetchSort`.
@_exported public import FetchPredicate
