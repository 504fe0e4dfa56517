import Testing
@testable import FetchPredicate

