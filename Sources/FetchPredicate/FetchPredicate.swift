// Placeholder; the predicate language lands here.
